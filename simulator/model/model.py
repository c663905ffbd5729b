"""The embedded model evaluator: builds brokers, loads and neighbours from a scenario, runs
them on one event loop, and hands the components to ``outcome`` for the RunResult."""
from __future__ import annotations

import dataclasses
import functools
import gc
import math
from dataclasses import dataclass, field
from pathlib import Path

from simulator._core import CompressionRatios, Cores, Random, RecordLatencies, Scheduler, murmur2
from simulator.stopping import StopWhen
from simulator.model import outcome, verdict
from simulator.model.append import AppendProcess, BurstLoad
from simulator.model.broker import Broker, Fetcher, Partition, fetcher_id
from simulator.model.client import ClientSpec
from simulator.model.compression import CompressionCurve, measure_curve, record_overhead
from simulator.model.engine import Engine
from simulator.model.job import Load
from simulator.model.metrics import Latencies, RequestTimesDuring
from simulator.model.perf import PerfLoad, payload_values
from simulator.model.producer import Producer
from simulator.model.rows import ROW_CACHE, RowFigures, row_figures
from simulator.model.spark import WritePlan, plan_writes
from simulator.model.pipelines import PIPELINES
from simulator.model.streaming import Pipeline
from simulator.contract import RunResult
from workloads import BatchJob, Scenario, ScenarioError
from workloads.tenant import Tenant
from workloads.kinds import kind_of


@dataclass
class JobRun:
    """One batch job of the run: what its loads are made of, its loads, and when the last ended."""

    job: BatchJob
    prefix: str                   # its loads' names start with it: "" for one job, "NAME-" in a night
    plan: WritePlan | None
    record_bytes: float
    spec: ClientSpec
    core_rate: float              # value bytes a core appends a second, before jitter
    scan_s_per_input_byte: float  # a shuffle's scan stage: seconds per input byte
    loads: list[Load | PerfLoad | BurstLoad] = field(default_factory=list)
    latencies: RecordLatencies = field(default_factory=RecordLatencies)   # its records', send() to ack

    @property
    def ended(self) -> float:
        """When its last load ended (nan while one still runs)."""
        if not self.loads or any(math.isnan(load.ended) for load in self.loads):
            return math.nan
        return max(load.ended for load in self.loads)


@dataclass
class TenantRun:
    """A neighbour application: its producer and its records' latencies by when they were meant to be sent."""

    spec: Tenant
    producer: Producer
    latencies: Latencies
    first_send: float = 0.0    # when its first record is meant to be sent; one every 1 / rate after it


def heed_signals(simulated_s: float) -> None:
    """Nothing: that a run calls back into interpreted Python once a simulated second is the point.
    Python runs a signal's handler only between the instructions it interprets, and the compiled
    event loop runs none: a run told of no progress would finish (a minute, for a large night)
    before its command heard Ctrl-C or SIGTERM."""


@functools.lru_cache(maxsize=64)
def key_partition_indices(keys: int, partitions: int) -> tuple[int, ...]:
    """The partition of each of a neighbour's keys ``key-0`` .. ``key-(keys-1)``: Kafka's murmur2 of
    the key modulo the topic's partitions (the same for every run of a topic of that size)."""
    return tuple(murmur2(f"key-{k}".encode()) % partitions for k in range(keys))


class ModelEvaluator:
    """Evaluator on the request-level discrete-event model."""

    name = "model"
    stops_early = True   # evaluate(..., stop=StopWhen(...)) ends a run at its verdict (simulator.model.verdict)

    def __init__(self, row_cache: Path | None = ROW_CACHE) -> None:
        self.row_cache = row_cache   # where measured row figures are kept between processes; None: nowhere
        self._rows: dict[tuple, RowFigures] = {}
        self._payload_curves: dict[tuple, CompressionCurve] = {}

    def rows(self, scenario: Scenario, job: BatchJob | None = None) -> RowFigures:
        """The row figures of ``job``'s files and key (by default the first job's)."""
        job = job or scenario.batch
        dataset = job.dataset or scenario.dataset
        key = (dataset.rows, dataset.sample_rows, job.key)
        if key not in self._rows:
            self._rows[key] = row_figures(scenario, self.row_cache, job)
        return self._rows[key]

    def payload_curve(self, scenario: Scenario, job: BatchJob, values: list[bytes]) -> CompressionRatios:
        """The compression ratio of a producer job's batches by their size: its payload's, measured once."""
        codec = job.producer.compression_type
        if job.values == "rows":
            return self.rows(scenario, job).curve(codec).ratio_at
        key = (job.values, job.record_size, codec)
        if key not in self._payload_curves:
            self._payload_curves[key] = measure_curve(values, None, codec)
        return self._payload_curves[key].ratio_at

    def evaluate(self, scenario: Scenario, seed: int, progress=None, stop: StopWhen | None = None) -> RunResult:
        """The run's result; with ``stop``, ``RunStopped`` once its verdict is known (checked each simulated second)."""
        run = ModelRun(scenario, seed, self)
        run.execute(progress or heed_signals, stop)
        return outcome.build(run)

    def evaluate_appends(self, scenario: Scenario, appends: AppendProcess, seed: int) -> RunResult:
        """``scenario`` with its batch job's Spark model replaced by ``appends`` (one producer with
        the job's settings, on one of the job's executor hosts): the producer alone."""
        run = ModelRun(scenario, seed, self, appends)
        run.execute()
        return outcome.build(run)


class ModelRun:
    def __init__(self, scenario: Scenario, seed: int, evaluator: ModelEvaluator, appends: AppendProcess | None = None):
        self.scenario, self.seed = scenario, seed
        self.rng = Random.seeded(seed)
        cluster, profile = scenario.cluster, scenario.profile
        self.engine = Engine(stop_at=scenario.windows.max_duration)
        self.evaluator = evaluator
        self.rows = evaluator.rows(scenario)   # the first job's: the neighbours' codecs compress its rows too
        self.shape = self.rows.shape
        self.scheduler = Scheduler.of(profile)
        # the night's load: from its first job's start to its last job's end
        self.night_start = min(scenario.job_start(job) for job in scenario.jobs)
        # the neighbours' produce requests as the brokers timed them (their request log), by client.id
        self.broker_times = {t.name: RequestTimesDuring(self.night_start) for t in scenario.tenants}
        self.latencies: list[Latencies] = []   # every producer tenant's, told the load's end
        # the placement's named hosts (workloads.placement), each component placed on one sharing
        # its cores; every other component gets a host of its own, as in production
        self.hosts = {host.name: Cores(host.vcpus, self.scheduler, Random.seeded(self.rng.random()), host.background)
                      for host in scenario.hosts}
        quotas = {job.client_id: job.quota for job in scenario.jobs}   # kafka-configs --entity-type clients
        placement = scenario.placement
        self.brokers = [Broker(self.engine, i, cluster.broker, profile.broker, cluster.network_rtt,
                               Random.seeded(self.rng.random()), scenario.jitter.service_time,
                               self.scheduler, profile.scheduler.broker_background_threads,
                               quotas=quotas, request_log=self.broker_times, cores=self._host(placement.broker(i)))
                        for i in range(cluster.brokers)]
        self.partitions: dict[str, list[Partition]] = {}
        for topic in cluster.topics:
            self.partitions[topic.name] = [
                Partition(topic.name, i, self.brokers[replicas[0]], [self.brokers[r] for r in replicas[1:]])
                for i, replicas in enumerate(cluster.replicas(topic))]
        self.fetchers = self._fetchers()
        self.loads: list[Load] = []
        self.jobs: list[JobRun] = []
        self.load_plan = None
        self.bulk_record_bytes = 0.0
        self._build_loads(appends)
        self.tenants = [self._neighbour(t) for t in scenario.tenants]
        self.load_end = math.nan
        self.replica_lag: list[float] = []     # sampled once a second

    def _fetchers(self) -> list[Fetcher]:
        count = self.scenario.cluster.broker.num_replica_fetchers
        groups: dict[tuple, list[Partition]] = {}
        for partitions in self.partitions.values():
            for p in partitions:
                for follower in p.followers:
                    groups.setdefault((follower.id, p.leader.id, fetcher_id(p.topic, p.index, count)), []).append(p)
        return [Fetcher(self.engine, self.brokers[f], self.brokers[l], parts)
                for (f, l, _), parts in sorted(groups.items())]

    def _build_loads(self, appends: AppendProcess | None) -> None:
        """Every job's loads, in file order, each job its own executors and producers under its client.id."""
        for index, job in enumerate(self.scenario.jobs):
            if job.kind == "spark" and job.client.kind != "java":
                where = f"batch[{index}]" if self.scenario.listed else "batch"
                raise ScenarioError(f"{where}.client.kind", "Spark's Kafka sink uses the Java client")
        if appends is not None:
            self._build_appends(appends, self._job(self.scenario.batch, "").spec)
            return
        named = len(self.scenario.jobs) > 1   # one job's loads are load0, load1, ... as ever
        for job in self.scenario.jobs:
            prefix = f"{job.name}-" if named else ""
            run = self._producer_job(job, prefix) if job.kind == "producer" else self._job(job, prefix)
            self.jobs.append(run)
            if job.kind == "producer":
                self._start_perf_loads(run)
            else:
                self._start_loads(run)
        self.load_plan, self.bulk_record_bytes = self.jobs[0].plan, self.jobs[0].record_bytes

    def _job(self, job: BatchJob, prefix: str) -> JobRun:
        """What a job's loads are made of: its Spark plan, its record size and its producers' spec."""
        scenario, spark, profile = self.scenario, job.spark, self.scenario.profile
        rows = self.evaluator.rows(scenario, job)
        dataset = job.dataset or scenario.dataset
        shape = rows.shape
        value = shape.mean_value_bytes + shape.mean_key_bytes
        record_bytes = value + record_overhead(int(shape.mean_value_bytes), int(shape.mean_key_bytes) if job.key else None)
        # a gzip file's size is what it takes on S3: its CSV is larger by the rows' gzip ratio
        csv_per_input_byte = 1.0 if dataset.splittable else 1.0 / rows.csv_gzip_ratio
        plan = plan_writes(spark, dataset, record_bytes / shape.mean_csv_bytes * csv_per_input_byte)
        curve = rows.curve(job.producer.compression_type)
        compress_s = profile.client.compress_byte_ns[job.producer.compression_type] * 1e-9
        base = (spark.shuffle_append_rate or profile.spark.shuffle_append_rate) if plan.shuffled \
            else (spark.append_rate or profile.spark.append_rate)
        # gzip input is inflated on the task's own core before it is parsed (CSV bytes x cost)
        inflate_s = 0.0 if dataset.splittable else profile.broker.decompress_byte_ns["gzip"] * 1e-9
        per_value_byte = 0.0 if plan.shuffled else inflate_s * shape.mean_csv_bytes / record_bytes
        scan_rate = spark.csv_scan_rate or profile.spark.csv_scan_rate
        # Spark's executors share the job's client.id: the brokers meter them as one client
        spec = ClientSpec(job.client_id, job.client, job.producer, profile.client, curve.ratio_at,
                          record_bytes, job.key is not None, scenario.cluster.network_rtt)
        return JobRun(job, prefix, plan, record_bytes, spec, 1.0 / (1.0 / base + compress_s + per_value_byte),
                      csv_per_input_byte * (1.0 / scan_rate + inflate_s))

    def _start_loads(self, run: JobRun) -> None:
        job, spark, jitter, plan = run.job, run.job.spark, self.scenario.jitter.append_rate, run.plan
        for copy in range(job.loads):
            rngs = [Random.seeded(self.rng.random()) for _ in range(spark.executors)]
            rates = [run.core_rate * self._noise(jitter) for _ in plan.write_tasks]
            scans = [size * run.scan_s_per_input_byte * self._noise(jitter) for size in plan.scan_tasks] if plan.shuffled else []
            order = list(range(spark.executors))
            self.rng.shuffle(order)
            # a Glue worker runs one executor with a core per vCPU: its vCPUs by default its cores
            hosts = [self._executor_host(spark.vcpus or spark.executor_cores, i, rng) for i, rng in enumerate(rngs)]
            load = Load(self.engine, f"{run.prefix}load{copy}", plan, run.spec, self.partitions[job.topic], rngs,
                        spark.executor_cores, hosts, rates, scans, order, self._load_done, run.latencies.batch_acked)
            self.loads.append(load)
            run.loads.append(load)
            self.engine.at(self.scenario.job_start(job) + copy * job.spacing, load.start)

    def _producer_job(self, job: BatchJob, prefix: str) -> JobRun:
        """A plain producer job's records (perf-test's payload, or the dataset's rows) and its producers' spec."""
        profile, costs = self.scenario.profile, self.scenario.profile.client
        values = payload_values(job, lambda: self.evaluator.rows(self.scenario, job))
        value = sum(map(len, values)) / len(values)
        key = 16 if job.keys else None
        record_bytes = value + (key or 0) + record_overhead(int(value), key)
        ratio_at = self.evaluator.payload_curve(self.scenario, job, values)
        spec = ClientSpec(job.client_id, job.client, job.producer, costs, ratio_at, record_bytes, key is not None,
                          self.scenario.cluster.network_rtt)
        plan = WritePlan(0, [], [job.records * record_bytes] * job.producers, False)
        # one thread calling send(): the call, the value's bytes, and compression on the appending thread
        send_s = (costs.send_record_us * 1e-6 + value * costs.send_byte_ns * 1e-9
                  + record_bytes * profile.client.compress_byte_ns[job.producer.compression_type] * 1e-9)
        return JobRun(job, prefix, plan, record_bytes, spec, record_bytes / send_s, 0.0)

    def _start_perf_loads(self, run: JobRun) -> None:
        job, jitter = run.job, self.scenario.jitter.append_rate
        for copy in range(job.loads):
            rngs = [Random.seeded(self.rng.random()) for _ in range(job.producers)]
            hosts = [self._executor_host(job.host.vcpus, i, rng) for i, rng in enumerate(rngs)]
            load = PerfLoad(self.engine, f"{run.prefix}load{copy}", run.spec, self.partitions[job.topic], rngs, hosts,
                            job.records, run.core_rate * self._noise(jitter), job.throughput,
                            self.scenario.profile.client.throttle_wake_ms * 1e-3, self._load_done, run.latencies.batch_acked)
            self.loads.append(load)
            run.loads.append(load)
            self.engine.at(self.scenario.job_start(job) + copy * job.spacing, load.start)

    def _build_appends(self, appends: AppendProcess, spec: ClientSpec) -> None:
        """One producer fed by ``appends`` on a host of the job's executor's vCPUs, from the load's start."""
        key = appends.key_bytes or None
        record = appends.value_bytes + (key or 0) + record_overhead(appends.value_bytes, key)
        spec = dataclasses.replace(spec, record_bytes=record, keyed=key is not None)
        self.bulk_record_bytes = record
        run = JobRun(self.scenario.batch, "", None, record, spec, 0.0, 0.0)
        self.jobs.append(run)
        spark, profile = self.scenario.batch.spark, self.scenario.profile
        rng = Random.seeded(self.rng.random())
        host = self._executor_host(spark.vcpus or spark.executor_cores, 0, rng)
        topic = self.partitions[self.scenario.batch.topic]
        load: Load | BurstLoad
        self.load_plan = appends.write_plan(record)
        if appends.bursts:
            load = BurstLoad(self.engine, "load0", appends, spec, topic, rng, host, self._load_done,
                             run.latencies.records_acked)
        else:
            load = Load(self.engine, "load0", self.load_plan, spec, topic, [rng], appends.threads, [host],
                        [appends.rate / appends.value_bytes * record / appends.threads] * appends.threads, [], [0],
                        self._load_done, run.latencies.batch_acked)
        self.loads.append(load)
        run.loads.append(load)
        run.plan = self.load_plan
        self.engine.at(self.scenario.load_start, load.start)

    def _host(self, name: str | None) -> Cores | None:
        """The placement's host ``name`` (None: the component gets a host of its own)."""
        return self.hosts[name] if name is not None else None

    def _executor_host(self, vcpus: int, executor: int, rng: Random) -> Cores:
        """An executor's (or a producer instance's) cores: its placed host (where its JVM's background
        work joins the host's), else a host of its own of ``vcpus``: its Glue worker's (by default a
        core per task slot), a producer job's ``host.vcpus``."""
        background = self.scenario.profile.scheduler.jvm_background_threads
        placed = self._host(self.scenario.placement.executor(executor))
        if placed is None:
            return Cores(vcpus, self.scheduler, rng, background)
        placed.add_background(background)
        return placed

    def _noise(self, spread: float) -> float:
        return min(1.5, max(0.5, 1.0 + spread * self.rng.gauss(0.0, 1.0))) if spread else 1.0

    def _neighbour(self, tenant):
        """A producer tenant, or a streaming pipeline fed by one (simulator/model/streaming.py)."""
        run = self._tenant(tenant)
        kind = kind_of(tenant)
        if not kind.pipeline:
            return run
        pipeline = Pipeline(self, tenant, run)   # fed by ``run``, its upstream producer
        PIPELINES[kind.name](pipeline)
        return pipeline.out

    def _tenant(self, tenant: Tenant) -> TenantRun:
        partitions = self.partitions[tenant.topic]
        record = tenant.record_size + record_overhead(tenant.record_size, 16 if tenant.keys else None)
        spec = ClientSpec(tenant.name, tenant.client, tenant.producer, self.scenario.profile.client,
                          self.rows.curve(tenant.producer.compression_type).ratio_at, record, False,
                          self.scenario.cluster.network_rtt)
        rng = Random.seeded(self.rng.random())
        latencies = Latencies(self.night_start)
        self.latencies.append(latencies)
        # the neighbours' client host: their application threads sleep between records. Placed on a
        # shared host, its sender counts the other components' runnable threads, and they its own
        host = self._host(self.scenario.placement.neighbour(tenant.name))
        if host is None:
            producer = Producer(self.engine, tenant.name, spec, partitions, rng,
                                host=Cores(self.scenario.tenant_host.vcpus, self.scheduler, rng), on_records_acked=latencies)
        else:
            producer = self._placed_producer(tenant.name, spec, partitions, rng, host, latencies)
        key_partitions = [partitions[index] for index in key_partition_indices(tenant.keys, len(partitions))]
        run = TenantRun(tenant, producer, latencies)
        interval = 1.0 / tenant.rate
        run.first_send = self.rng.random() * interval
        producer.send_at_rate(run.first_send, interval, record, key_partitions)
        return run

    def _placed_producer(self, name: str, spec: ClientSpec, partitions: list[Partition], rng: Random,
                         host: Cores, acked) -> Producer:
        producer = Producer(self.engine, name, spec, partitions, rng, host=host, on_records_acked=acked)
        host.join(producer.sender)
        return producer

    def _load_done(self, load: Load) -> None:
        if all(not math.isnan(l.ended) for l in self.loads):
            self.load_end = max(l.ended for l in self.loads)
            for latencies in self.latencies:
                latencies.end = self.load_end
            for requests in self.broker_times.values():
                requests.end = self.load_end
            self.engine.stop_at = self.load_end + self.scenario.windows.after

    def _sample(self, _=None) -> None:
        """Once a second: gauges the broker exposes as current values."""
        lag = 0.0
        for partitions in self.partitions.values():
            for p in partitions:
                behind = p.replica_lag
                if behind is not None:
                    lag += behind
        self.replica_lag.append(lag)
        self.engine.at(self.engine.now + 1.0, self._sample)

    def execute(self, progress=None, stop: StopWhen | None = None) -> None:
        if stop is not None:
            told = progress

            def progress(time: float) -> None:
                if told is not None:
                    told(time)
                verdict.check(self, stop)
        self.engine.at(1.0, self._sample)
        for fetcher in self.fetchers:
            self.engine.at(0.0, fetcher.start)
        collecting = gc.isenabled()
        gc.disable()   # a run allocates many short-lived requests and batches; collect once after
        try:
            self.engine.run(progress)
        finally:
            if collecting:
                gc.enable()
        if math.isnan(self.load_end):
            raise ScenarioError("windows.max_duration",
                                f"the load did not finish within {self.scenario.windows.max_duration:.0f} s of simulated time")
