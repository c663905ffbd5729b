"""The live Evaluator: a scenario on real parts, the same RunResult out.

One run: Kafka brokers (the local stack, or the user's cluster), the scenario's topics, the
dataset as CSV in S3 (LocalStack), the neighbours at their rates, the ``before`` window, the
Glue-style Spark job, the ``after`` window, then every row read back and checked. Each broker,
the neighbours and the job run inside their CPU budgets (``simulator.live.budget``); the job's
driver starts and writes a warm-up to a scratch topic before the ``before`` window opens, then
waits for it to close, so no JVM start or first compilation falls into a window.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

from simulator.evaluator import Progress
from simulator.live._process import StackError, http_get
from workloads.prometheus_text import parse_metrics
from simulator.live import clients, integrity, logdump, perf_job, s3, spark_job
from simulator.live.background import BackgroundSampler
from simulator.live.budget import CpuBudgets, job_vcpus, machine_cores, placement_of, plan_budgets
from simulator.live.threads import process_tree
from simulator.live.waits import BROKER_CORES, CoreWaits, ForeignTime, Group, driver_thread, executor_thread
from simulator.live.dataset import write_dataset_csv
from simulator.live.fault import FaultInjector, check_broker_kill
from simulator.live.clients import QUIET_LOG
from simulator.live.kafka import KafkaCluster, answers_kafka
from simulator.live.neighbours import Neighbours
from simulator.live.outcome import LiveRun, build
from simulator.live.sampler import MachineLoad, MetricsSampler
from simulator.live.streaming import StreamingNeighbours, with_pipelines
from simulator.live.streaming import notes as streaming_notes
from simulator.live.warmup import BROKER_WARM_UP_TOPIC, RECORD_BYTES, warm_up_brokers
from simulator.contract import RunResult
from simulator.contract.names import STACK_RUN_DIR
from workloads import Scenario, ScenarioError
from workloads.kinds import is_pipeline
from simulator.live.night import check_night, job_lines, job_view, merged, night_result, run_jobs
from simulator.live.spark_job import GlueJobReport

WARM_UP_S = 5.0              # settling between the job's warm-up and the before window
WARM_UP_TOPIC = "quietload-warm-up"


def pin_process(pid: int, cores: list[int]) -> None:
    """Every thread of a running process (a JVM's threads are made at start) onto ``cores``."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            os.sched_setaffinity(int(task.name), cores)
        except OSError:        # a thread that ended meanwhile
            pass


def _sleep(seconds: float, label: str, say: Callable[[str], None]) -> None:
    say(f"{label}: {seconds:.0f} s")
    time.sleep(seconds)


class LiveEvaluator:
    """``evaluate(scenario, seed)`` on real parts. With ``bootstrap_servers`` the brokers are the
    user's (no broker metrics then; request counts come from the clients); otherwise the local
    stack runs in ``run_dir`` for the run and is removed after it."""

    name = "live"

    def __init__(self, run_dir: Path | str = STACK_RUN_DIR.parent / "live", bootstrap_servers: str | None = None,
                 security: dict[str, str] | None = None, kill_broker: int | None = None,
                 progress_line: Callable[[str], None] = lambda line: None, pin: bool = True,
                 metrics_urls: list[str] | None = None, trace: bool = True) -> None:
        self.run_dir = Path(run_dir)
        self.trace = trace     # the job's append trace (the interceptor), kept in run_dir/traces/
        self.bootstrap_servers, self.security = bootstrap_servers, security or {}
        self.kill_broker, self.say, self.pin = kill_broker, progress_line, pin
        self.metrics_urls = metrics_urls or []     # --bootstrap-servers: each broker's Prometheus endpoint

    def budgets(self, scenario: Scenario) -> list:
        """The run's CPU budgets on this machine; a budget the machine cannot give is a ScenarioError."""
        return plan_budgets(scenario, machine_cores(), scenario.cluster.brokers if self.bootstrap_servers is None else None)

    def as_placed(self, scenario: Scenario, plan: list) -> Scenario:
        """``scenario`` with the hosts and placement the run gave its components (the local stack's
        brokers included; the user's brokers are no host of ours)."""
        hosts, placement = placement_of(plan, scenario.cluster.brokers if self.bootstrap_servers is None else 0)
        return dataclasses.replace(scenario, hosts=hosts, placement=placement)

    def evaluate(self, scenario: Scenario, seed: int, progress: Progress | None = None) -> RunResult:
        check_night(scenario)
        views = [job_view(scenario, job) for job in scenario.jobs]   # each job as the one job of its parts
        producer_job = check_producer_job(scenario, self.kill_broker)
        clients.java_security(self.security)    # a setting the Spark job could not use fails before anything starts
        if self.kill_broker is not None:
            if self.bootstrap_servers is not None:
                raise ScenarioError("--kill-broker", "kills a broker of the local stack only, not of --bootstrap-servers")
            check_broker_kill(scenario, self.kill_broker)
        plan = self.budgets(scenario)
        budget = {b.component: b for b in plan}
        notes: list[str] = []
        components: list[int] = []      # the processes the model follows thread by thread (the brokers' apart)
        with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="quietload-live-") as work:
            budgets = stack.enter_context(CpuBudgets(plan)) if self.pin else None   # removed after every process stopped
            place = budgets.place if budgets else lambda component, pid: None
            if budgets:    # every other process of the machine off the brokers' and the neighbours' cores
                budgets.lay_out()
            job_pids: list[int] = []       # the job's driver (its JVM is its child)
            storage_pid: list[int] = []
            cluster = None
            if self.bootstrap_servers is None:
                cluster = stack.enter_context(KafkaCluster.for_scenario(scenario, run_dir=self.run_dir / "kafka",
                                                                        progress=self.say))
                bootstrap = cluster.bootstrap_servers
                for node in cluster.nodes():
                    place(f"broker-{node.node_id}" if node.role == "broker" else "controller", node.pid)
            else:
                bootstrap = self.bootstrap_servers
                if self.kill_broker is not None:
                    raise ScenarioError("--kill-broker", "kills a broker of the local stack only, not of --bootstrap-servers")
            check_reachable(bootstrap, self.security)
            # a producer job reads no files: no LocalStack
            storage = None if producer_job else stack.enter_context(s3.LocalStackS3(self.run_dir / "s3", progress=self.say))
            if storage and (status := storage.status()):
                place("storage", status.pid)
                storage_pid.append(status.pid)
            create_topics(scenario, bootstrap, self.security, cluster.brokers if cluster else None)
            # the streaming tenants' pipelines: their JVMs start while the brokers warm up and the data is written
            streaming = stack.enter_context(StreamingNeighbours(
                scenario.tenants, bootstrap, self.security, seed, list(budget["neighbours"].cores) if self.pin else None,
                place=lambda pid: place("neighbours", pid), progress=self.say))
            notes.extend(streaming_notes(scenario.tenants))
            if cluster:     # the user's cluster gets no scratch topic: the job warms up without a write there
                create_warm_up_topic(bootstrap, self.security)
                warmed = warm_up_brokers(scenario, bootstrap, self.security, cluster.brokers, self.say)
                notes.append(f"Before the neighbours started, {warmed['records']:,.0f} records of {RECORD_BYTES} bytes "
                             f"went to {BROKER_WARM_UP_TOPIC} in {warmed['seconds']:.0f} s, so that the brokers' JVMs "
                             "had compiled their produce paths, as a long-running cluster's have.")
            inputs = []
            for view in views:
                client_id = view.batch.client_id
                quota = clients.set_client_quota(bootstrap, view.batch.quota, self.security, self.say, client_id)
                if cluster is None:    # the user's cluster keeps no quota of the run; the local one is removed
                    stack.callback(clients.clear_client_quota, bootstrap, quota, self.security, client_id)
                if quota:
                    notes.append(f"Client quota for {client_id} on every broker: {clients.render_configs(quota)}.")
                if storage is None:
                    inputs.append(([], None))
                    continue
                files = write_dataset_csv(view, Path(work) / "dataset" / view.batch.name, self.say)
                uris = s3.upload_dataset(storage.endpoint_url, "quietload-live", f"{scenario.name}-{view.batch.name}", files)
                inputs.append((uris, integrity.expected_digest(files, view.batch.key)))
            uris, expected = inputs[0]
            sampler = (MetricsSampler(cluster.scrape, list(range(cluster.brokers))) if cluster
                       else MetricsSampler(lambda b: parse_metrics(http_get(self.metrics_urls[b])), list(range(len(self.metrics_urls))))
                       if self.metrics_urls else None)
            neighbours = Neighbours([t for t in scenario.tenants if not is_pipeline(t)], bootstrap, self.security, seed,
                                    list(budget["neighbours"].cores) if self.pin else None)
            fault = (FaultInjector(cluster, self.kill_broker, bootstrap, scenario.batch.topic, expected.rows,
                                   before_kill=sampler.sample if sampler else lambda: None)
                     if cluster is not None and self.kill_broker is not None else None)
            if sampler:    # scraped from before the neighbours' first request to after their last
                sampler.start()
                stack.callback(sampler.stop)
            machine = MachineLoad()
            machine.start()
            stack.callback(machine.stop)
            # what else runs on the cores (LocalStack, the rest of the machine, the JVMs' JIT and GC)
            background = BackgroundSampler(lambda: _component_pids(cluster, components))
            background.start()
            stack.callback(background.stop)
            streaming.flow()     # the streaming tenants' pipelines run warm before anything is measured
            neighbours.start()
            stack.callback(neighbours.stop)
            if neighbours.pid:
                place("neighbours", neighbours.pid)
                components.append(neighbours.pid)
                if budgets:
                    budgets.first_on_wake_up("neighbours", neighbours.pid)
            waits = CoreWaits(thread_groups(cluster, neighbours, streaming, job_pids, storage_pid), process_tree)
            brokers_named = [name for name in budget if name.startswith("broker-")]
            foreign = ForeignTime(tuple(sorted({c for name in brokers_named for c in budget[name].cores})),
                                  lambda: budgets.used_by_core(brokers_named)) if budgets and budgets.applied and brokers_named else None
            opened: list[float] = []
            cgroups: list[dict] = []

            def before_load() -> None:
                # the job's JVM is up and warm; the neighbours' first seconds (metadata, producer ids,
                # connections) and the warm-up's tail (its GC, background compilation) are past
                _sleep(WARM_UP_S, "settling", self.say)
                opened.append(time.time())
                _sleep(scenario.windows.before, "before window (neighbours alone, the job idle and warm)", self.say)
                if fault:
                    fault.start()
                cgroups.append(budgets.cpu_stat() if budgets else {})
                waits.start()
                if foreign:
                    foreign.start()

            def run_one(view: Scenario, before: Callable[[], None] | None, job_uris: list[str]) -> Any:
                if producer_job:
                    return perf_job.run_producer_job(view, bootstrap, self.security, progress=self.say,
                                                     on_started=lambda pid: (place("job", pid), components.append(pid)),
                                                     before_load=before,
                                                     after_load=lambda: cgroups.append(budgets.cpu_stat() if budgets else {}))
                return spark_job.run_glue_job(view, bootstrap, job_uris, storage.endpoint_url if storage else None, cores=job_vcpus(view),
                                              progress=self.say, security=self.security,
                                              warm_up_topic=WARM_UP_TOPIC if cluster else None,
                                              on_started=lambda pid: (place("job", pid), components.append(pid), job_pids.append(pid)),
                                              before_load=before,
                                              after_load=lambda: (cgroups.append(budgets.cpu_stat() if budgets else {}), waits.mark(),
                                                                  foreign.mark() if foreign else None),
                                              trace_dir=Path(work) / "trace" if self.trace and len(views) == 1 else None)
            if len(views) == 1:
                job = run_one(scenario, before_load, uris)
            else:   # a night: every job's driver at once, each load from its own start
                uris_of = {view.batch.name: job_uris for view, (job_uris, _) in zip(views, inputs)}
                reports = run_jobs(scenario, lambda view, before: run_one(view, before, uris_of[view.batch.name]), before_load)
                job = GlueJobReport(**merged([_as_dict(r) for r in reports]))
            kept_trace = keep_trace(getattr(job, "trace", None), self.run_dir / "traces", f"{scenario.name}-seed{seed}-{time.time():.0f}")
            started = opened[0]
            if warm_up := getattr(job, "warm_up", None):
                notes.append(f"Before the windows the job wrote {warm_up['rows']:,.0f} rows to {WARM_UP_TOPIC} to warm up "
                             f"(JVM, session, the sink's first writes) in {warm_up['request-total']:,.0f} requests, "
                             "which the brokers' counts here leave out.")
            if fault:
                fault.stop()
            _sleep(scenario.windows.after, "after window (neighbours alone)", self.say)
            traces = neighbours.stop() + streaming.stop()
            traces = [next(t for t in traces if t.name == tenant.name) for tenant in scenario.tenants]
            machine_load = machine.stop()
            measured = background.stop()
            if measured:
                machine_load = {**machine_load, "background_threads": measured["others"],
                                "jvm_background_threads": measured["jvm"]}
            scrapes = sampler.stop() if sampler else {}
            ended = time.time()
            notes.extend(budgets.report() if budgets else ["No CPU budgets: --no-pin."])
            if budgets and budgets.rest_moved:
                notes.append(f"The rest of the machine ({budgets.rest_moved} processes) ran on the job's cores "
                             f"({budgets.rest_behind} of them behind the run's groups, cpu.shares 2); "
                             "the neighbours' threads came first on wake-up (SCHED_RR under a bounded real-time budget).")
            core_waits = waits.figures({"neighbours": {t.name: set(t.tids) for t in traces if t.tids}})
            if foreign and (shares := foreign.figures()):
                core_waits[BROKER_CORES] = shares
            self.say("reading every row back ...")
            checked = [integrity.verify(job_expected, integrity.read_back(bootstrap, view.batch.topic, timeout_s=120.0,
                                                                          security=self.security))
                       if job_expected is not None else
                       integrity.counted(view.batch.records * view.batch.producers,
                                         integrity.count_back(bootstrap, view.batch.topic, timeout_s=120.0, security=self.security))
                       for view, (_, job_expected) in zip(views, inputs)]
            report = checked[0] if len(checked) == 1 else integrity.combined(checked)
            requests_by_client = cluster.produce_requests_by_client() if cluster else {}
            try:    # the brokers' own record of the job's batches, read while their logs exist
                batch_sizes = logdump.batch_sizes(cluster, scenario.batch.topic)   # None with --bootstrap-servers
            except StackError as error:
                batch_sizes = None
                notes.append(f"No batch-size distribution: {error}.")
        faults = ([{"kind": "broker killed", "broker": self.kill_broker, "at_s": fault.killed_at - started}]
                  if fault and fault.killed_at else [])
        job_figures = _as_dict(job) | {"trace": kept_trace, "cgroups": throttling(cgroups)}
        run = LiveRun(scenario=self.as_placed(scenario, plan) if self.pin else scenario, seed=seed, started=started, load_started=job_figures["started"],
                      load_ended=job_figures["ended"], ended=ended, traces=traces, scrapes=scrapes, job=job_figures,
                      integrity=_as_dict(report), broker_cores=_broker_cores(budget, budgets),
                      notes=notes, faults=faults, batch_sizes=batch_sizes, machine=machine_load, waits=core_waits)
        if progress:
            progress(ended - started)
        result = with_pipelines(build(run), list(scenario.tenants), traces, started)
        if len(views) == 1:
            return job_lines(result, scenario, requests_by_client, kept_trace, started)
        return night_result(result, scenario, [_as_dict(r) for r in reports], checked, requests_by_client, traces, started)


def check_producer_job(scenario: Scenario, kill_broker: int | None) -> bool:
    """Whether the run's job is a producer job, which the live stack runs alone (no night, no fault)."""
    if not any(job.kind == "producer" for job in scenario.jobs):
        return False
    if len(scenario.jobs) > 1:
        raise ScenarioError("batch", "a live night runs Spark jobs only; run a producer job as the one job")
    if kill_broker is not None:
        raise ScenarioError("--kill-broker", "a fault run needs a Spark job, whose rows are verified one by one")
    perf_job.check_live(scenario)
    return True


def keep_trace(written: str | None, folder: Path, name: str) -> str | None:
    """The job's append trace moved out of the run's temporary folder to ``folder``/``name``.qltrace."""
    if not written or not Path(written).is_file():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / f"{name}.qltrace"
    shutil.move(written, kept)
    return str(kept)


def throttling(stats: list[dict]) -> dict[str, dict[str, float]]:
    """Per CPU budget's group over the load (cpu.stat at its start and its end): periods, periods
    throttled and seconds throttled."""
    if len(stats) < 2:
        return {}
    start, end = stats[0], stats[-1]
    return {group: {"periods": end[group].get("nr_periods", 0) - start[group].get("nr_periods", 0),
                    "throttled_periods": end[group].get("nr_throttled", 0) - start[group].get("nr_throttled", 0),
                    "throttled_s": (end[group].get("throttled_time", 0) - start[group].get("throttled_time", 0)) / 1e9}
            for group in end if group in start}


def thread_groups(cluster: KafkaCluster | None, neighbours: Neighbours, streaming: StreamingNeighbours,
                  job: list[int], storage: list[int]) -> list[Group]:
    """The thread groups whose wait for a core a run records: each broker, each neighbour (judged:
    a cluster gives it a host of its own), the job's executor and driver, LocalStack, the
    controller, each streaming pipeline (judged, a neighbour too)."""
    nodes = cluster.nodes() if cluster else []
    # a broker's own threads wait behind each other as on a host of its own (the model's CPU holds
    # that): its placement is judged by what else ran on its cores (ForeignTime)
    groups = [Group(f"broker-{n.node_id}", lambda n=n: [n.pid]) for n in nodes if n.role == "broker"]
    groups += [Group("controller", lambda: [n.pid for n in nodes if n.role == "controller"])] if any(
        n.role == "controller" for n in nodes) else []
    groups += [Group("neighbours", lambda: [neighbours.pid] if neighbours.pid else [], judged=True),
               Group("executor", lambda: list(job), executor_thread), Group("driver", lambda: list(job), driver_thread),
               Group("localstack", lambda: list(storage))]
    groups += [Group(f"pipeline {p.tenant.name}", lambda p=p: [p.process.pid], judged=True) for p in streaming.pipelines]
    return groups


def _component_pids(cluster: KafkaCluster | None, components: list[int]) -> set[int]:
    """The processes whose threads the model follows: the brokers, the job's and the neighbours' (with their children)."""
    pids = [node.pid for node in cluster.nodes() if node.role == "broker" and node.pid] if cluster else []
    return {pid for root in pids + components for pid in process_tree(root)}


def _as_dict(value: Any) -> dict:
    return dataclasses.asdict(value) if dataclasses.is_dataclass(value) else dict(value)


def _broker_cores(budget: dict, budgets: CpuBudgets | None) -> float:
    """The CPU a broker's CPU % is of: its quota, else the cores it is pinned to, else the machine's."""
    broker = budget.get("broker-0")
    if broker is None or budgets is None:
        return os.cpu_count() or 1
    return broker.vcpus if budgets.applied else len(broker.cores)


def create_warm_up_topic(bootstrap: str, security: dict[str, str]) -> None:
    """The scratch topic the job's warm-up writes to: one partition, one replica."""
    from confluent_kafka.admin import AdminClient, NewTopic     # optional extra (live)
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 3, **security})
    if WARM_UP_TOPIC not in admin.list_topics(timeout=10).topics:
        admin.create_topics([NewTopic(WARM_UP_TOPIC, 1, 1)])[WARM_UP_TOPIC].result(timeout=30)


def check_reachable(bootstrap: str, security: dict[str, str], timeout: float = 10.0) -> None:
    from confluent_kafka import KafkaException     # optional extra (live)
    from confluent_kafka.admin import AdminClient     # optional extra (live)
    try:
        AdminClient({"bootstrap.servers": bootstrap, **QUIET_LOG, **security}).list_topics(timeout=timeout)
    except KafkaException:
        if answers_kafka(bootstrap):
            protocol = security.get("security.protocol", "PLAINTEXT")
            raise ScenarioError("--bootstrap-servers", f"a Kafka broker answers at {bootstrap} but not to clients with "
                                f"security.protocol={protocol}: set QUIETLOAD_KAFKA_SECURITY_PROTOCOL and its credentials") from None
        raise ScenarioError("--bootstrap-servers", f"no Kafka broker answers at {bootstrap} within {timeout:.0f} s") from None


def create_topics(scenario: Scenario, bootstrap: str, security: dict[str, str], brokers: int | None) -> None:
    """The scenario's topics with their partitions and replication; topics that exist are used as they are."""
    from confluent_kafka.admin import AdminClient, NewTopic     # optional extra (live)
    admin = AdminClient({"bootstrap.servers": bootstrap, **QUIET_LOG, **security})
    existing = set(admin.list_topics(timeout=10).topics)
    cluster = scenario.cluster
    wanted = [NewTopic(t.name, t.partitions, min(t.replication_factor or cluster.replication_factor, brokers or 1_000),
                       config={"min.insync.replicas": str(cluster.min_insync_replicas)})
              for t in cluster.topics if t.name not in existing]
    for name, future in (admin.create_topics(wanted).items() if wanted else []):
        try:
            future.result(timeout=30)
        except Exception as error:
            raise StackError(f"creating topic {name} failed: {error}") from None
