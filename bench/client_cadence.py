"""The producer alone: a real Java producer and the model's, fed the same append process.

One kafka-clients producer (the live stack's jars, bench/ProducerProbe.java) sends to a warm
one-broker local stack, fed by an append process the bench controls: a steady rate (threads busy
between records, as a Spark task is), bursts of N records every T ms (threads asleep between),
or threads calling send() as fast as they can, on 1-8 threads; the model's producer
(``ModelEvaluator.evaluate_appends``: the job's Spark model replaced by the same process, the
``loopback`` profile, one executor vCPU) gets the same process: the steady and unthrottled ones
at the rate the real appenders reached, the bursts as given. The broker gets one core, the
producer's threads the other. Each configuration runs ROUNDS times live (the order alternated)
and on the model over 3 seeds.

Per configuration it prints produce requests and records per request, live (median, min-max)
against the model (median), the bar (records per request within 1.5x, requests within 25 %),
the request's latency as the client sees it (request-latency-avg) against the model's,
the broker's Produce time parts (means over exactly the configuration's requests, live against
the model), the sender thread's time on its core per request, its wakes per request and its wait
for the core per wake, the appending threads' wait for the core, and the load average at each
live run. Everything goes to OUT (JSON) as well, the live runs to OUT.live.json as they come.

    flock /tmp/quietload-live.lock .venv/bin/python bench/client_cadence.py [SECONDS] [ROUNDS] [--out OUT] [--only NAME ...]
    .venv/bin/python bench/client_cadence.py --from OUT.live.json [--out OUT] [--only NAME ...]   (the model only)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from simulator.live.jars import resolve_jars
from simulator.live.evaluator import create_topics, pin_process
from simulator.live.kafka import KafkaCluster
from simulator.model.append import AppendProcess
from simulator.model.model import ModelEvaluator
from workloads import CATALOG, Scenario
from simulator.live.placement import placed
from workloads.scenario import load_mapping

from _lib import BASE, MB, PARTS, VALUE_BYTES, compile_probe, produce_sums, run_probe, topic  # the rig the others share

KEY_BYTES = 16                  # ProducerProbe's keys: card-%011d
KEYS = 10_000
WARM_UP_S = 15.0
RTT_MS = 0.1
SEEDS = (1, 2, 3)
CORES = len(os.sched_getaffinity(0))


@dataclass(frozen=True)
class Case:
    """One configuration: the append process (ProducerProbe's APPEND), the topic's partitions,
    the producer's settings beside BASE, keyed or not."""

    name: str
    append: str
    partitions: int = 30
    producer: dict[str, str] = field(default_factory=dict)
    keyed: bool = False


CASES = [
    Case("steady 1MB/s", f"steady:{1 * MB}:1"),
    Case("steady 6MB/s", f"steady:{6 * MB}:1"),
    Case("steady 22MB/s", f"steady:{22 * MB}:1"),
    Case("unthrottled", "busy:1"),
    Case("4 threads 22MB/s", f"steady:{22 * MB}:4"),
    Case("8 threads 22MB/s", f"steady:{22 * MB}:8"),
    Case("bursts 50/3ms", "bursts:50:3:1"),
    Case("bursts 500/25ms", "bursts:500:25:1"),
    Case("linger 5", f"steady:{22 * MB}:1", producer={"linger.ms": "5"}),
    Case("linger 25", f"steady:{22 * MB}:1", producer={"linger.ms": "25"}),
    Case("batch 128KB", f"steady:{22 * MB}:1", producer={"batch.size": "131072"}),
    Case("batch 1MB linger 5", f"steady:{22 * MB}:1", producer={"batch.size": "1048576", "linger.ms": "5"}),
    Case("1 partition", f"steady:{22 * MB}:1", partitions=1),
    Case("6 partitions", f"steady:{22 * MB}:1", partitions=6),
    Case("keyed 30", f"steady:{22 * MB}:1", keyed=True),
    Case("keyed 6 linger 5", f"steady:{22 * MB}:1", partitions=6, producer={"linger.ms": "5"}, keyed=True),
    Case("unthrottled linger 25 128KB", "busy:1", producer={"linger.ms": "25", "batch.size": "131072"}),
]


def model_scenario(case: Case) -> Scenario:
    config = {**BASE, **case.producer}
    raw = load_mapping(CATALOG / "paypay-glue-2gb.yaml", [
        "profile=loopback", "cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
        f"cluster.network_rtt={RTT_MS}ms", "cluster.broker.vcpus=1", "batch.client.version=4.1.1",
        "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1", "windows.before=1s",
        "windows.after=1s", f"cluster.topics.0.name={topic(case.partitions)}", f"batch.topic={topic(case.partitions)}",
        f"cluster.topics.0.partitions={case.partitions}", "dataset.files.0.size=1MB"]
        + [f"batch.producer.{k}={v}" for k, v in config.items()])
    raw["tenants"] = []
    return Scenario.from_mapping(raw)


def model_appends(case: Case, real: dict[str, float]) -> AppendProcess:
    """The case's append process as the real run had it: a steady or unthrottled flow at the rate
    the real appenders reached, bursts as given."""
    kind, *args = case.append.split(":")
    key = KEY_BYTES if case.keyed else 0
    if kind == "bursts":
        return AppendProcess.every(VALUE_BYTES, int(args[0]), float(args[1]) / 1e3, real["append_s"],
                                   int(args[2]), key)
    return AppendProcess(VALUE_BYTES, round(real["records"]), key, int(args[-1]),
                         rate=real["records"] * VALUE_BYTES / real["append_s"])


def live_round(case: Case, seconds: float, work: Path, classpath: str, cluster: KafkaCluster,
               cores: list[int]) -> dict[str, float]:
    producer = {**BASE, **case.producer, **({"probe.keys": str(KEYS)} if case.keyed else {})}
    load = os.getloadavg()[0]
    before = produce_sums(cluster.scrape())
    brokers = [node.pid for node in cluster.nodes() if node.pid]
    real = run_probe(work, classpath, cluster.bootstrap_servers, seconds, case.append, VALUE_BYTES, cores, producer,
                     topic(case.partitions), brokers)
    after = produce_sums(cluster.scrape())
    # the broker's parts over the run, the warm-up producer's requests included (same process, 2 s)
    real.update({part: (after[part][1] - before[part][1]) / max(1.0, after[part][0] - before[part][0]) for part in PARTS})
    real["load_average"] = load
    return real


def placed_on_cores(scenario: Scenario, live: list[dict[str, float]]) -> Scenario:
    """The scenario as the rig placed it: the rest of the machine's runnable threads on the
    broker's core and on the producer's (the live runs' medians; spread evenly over the cores
    where a run did not count them by core), beside the profile's own background threads."""
    broker_core, producer_core = (sorted(os.sched_getaffinity(0)) * 2)[:2]
    def on(core: int) -> float:
        key = f"others_cpu{core}"
        return median(live, key) if all(key in r for r in live) else median(live, "others_runnable") / CORES
    return placed(scenario, {core: on(core) for core in (broker_core, producer_core)}, broker_core, producer_core)


def model_runs(evaluator: ModelEvaluator, case: Case, real: dict[str, float],
               live: list[dict[str, float]] | None = None) -> list[dict[str, float]]:
    """The model over SEEDS; with ``live``, on cores shared as the live runs' were."""
    scenario, appends = model_scenario(case), model_appends(case, real)
    if live is not None:
        scenario = placed_on_cores(scenario, live)
    out = []
    for seed in SEEDS:
        run = evaluator.evaluate_appends(scenario, appends, seed)
        times = run.brokers[0].produce_time_ms or {}
        out.append({"requests": run.summary.produce_requests, "records_per_request": run.summary.records_per_request,
                    "batches_per_request": run.producers[0]["batches_per_request"],
                    "request_latency_ms": run.producers[0]["request_latency_ms"],
                    **{part: times[part]["mean"] or 0.0 for part in PARTS}})
    return out


def median(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def bar(real_req: float, real_rpr: float, model: list[dict[str, float]]) -> str:
    """The producer-alone bar: records per request within 1.5x, requests within 25 %."""
    rpr, req = median(model, "records_per_request"), median(model, "requests")
    return "yes" if max(rpr / real_rpr, real_rpr / rpr) <= 1.5 and abs(req / real_req - 1) <= 0.25 else "NO"


HEAD = (f"{'configuration':<28} {'requests live (min-max)':>23} {'model':>7} {'placed':>7} "
        f"{'rec/req live (min-max)':>22} {'model':>6} {'placed':>6} {'bar':>3} {'placed':>6} "
        f"{'batch/req':>9} {'model':>5} {'placed':>6} {'lat ms':>6} {'model':>5} {'placed':>6} {'others':>6} load")


def render(case: Case, real: list[dict[str, float]], model: list[dict[str, float]],
           placed_model: list[dict[str, float]]) -> list[str]:
    rpr = [r["records"] / r["requests"] for r in real]
    real_rpr, real_req = statistics.median(rpr), median(real, "requests")
    batches = statistics.median(r["batches"] / r["requests"] for r in real)
    return [
        f"{case.name:<28} {real_req:>8,.0f} ({min(r['requests'] for r in real):,.0f}-{max(r['requests'] for r in real):,.0f})"
        f" {median(model, 'requests'):>7,.0f} {median(placed_model, 'requests'):>7,.0f} "
        f"{real_rpr:>8.1f} ({min(rpr):.1f}-{max(rpr):.1f}) {median(model, 'records_per_request'):>6.1f} "
        f"{median(placed_model, 'records_per_request'):>6.1f} {bar(real_req, real_rpr, model):>3} "
        f"{bar(real_req, real_rpr, placed_model):>6} "
        f"{batches:>9.1f} {median(model, 'batches_per_request'):>5.1f} {median(placed_model, 'batches_per_request'):>6.1f} "
        f"{median(real, 'request_latency_avg_ms'):>6.2f} {median(model, 'request_latency_ms'):>5.2f} "
        f"{median(placed_model, 'request_latency_ms'):>6.2f} {median(real, 'others_runnable'):>6.1f} "
        + "/".join(f"{r['load_average']:.1f}" for r in real),
        f"{'':<28} sender on core {statistics.median(r['sender_run_s'] / r['requests'] * 1e6 for r in real):,.0f} us/req, "
        f"{statistics.median(r['sender_timeslices'] / r['requests'] for r in real):.1f} wakes/req, waits "
        f"{statistics.median(r['sender_runqueue_s'] / max(1, r['sender_timeslices']) * 1e6 for r in real):,.0f} us/wake; "
        f"appenders wait {statistics.median(r['appender_runqueue_s'] / max(1e-9, r['append_s']) * 100 for r in real):.0f} % "
        f"of the time; {statistics.median(r['records'] * VALUE_BYTES / r['append_s'] / MB for r in real):.1f} MB/s",
        f"{'':<28} broker ms live | model | placed: " + "  ".join(
            f"{p.removesuffix('TimeMs')} {median(real, p):.2f}|{median(model, p):.2f}|{median(placed_model, p):.2f}"
            for p in PARTS)]


def measure(cases: list[Case], seconds: float, rounds: int, out: Path) -> dict[str, list[dict[str, float]]]:
    """Every case ROUNDS times live, the order alternated, on one warm broker; kept in OUT.live.json as they come."""
    cores = sorted(os.sched_getaffinity(0))
    broker_cores, job_cores = (cores[:1], cores[1:2]) if len(cores) >= 2 else ([], [])
    jars = resolve_jars()
    print(f"kafka-clients {jars.version}, records of {VALUE_BYTES} value bytes, {seconds:g} s per run, {rounds} "
          f"rounds; broker on cores {broker_cores or 'any'}, producer on {job_cores or 'any'}")
    real: dict[str, list[dict[str, float]]] = {c.name: [] for c in cases}
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="quietload-cadence-") as tmp:
        work = Path(tmp)
        compile_probe(work, jars.classpath)
        with KafkaCluster(run_dir=work / "kafka", brokers=1) as cluster:
            for node in cluster.nodes():
                if node.pid and broker_cores:
                    pin_process(node.pid, broker_cores)
            for partitions in sorted({c.partitions for c in cases}):
                create_topics(model_scenario(Case("", "", partitions)), cluster.bootstrap_servers, {}, 1)
            # a broker that has run for a while, as a cluster's has: its JIT compiles the produce
            # paths in the first 10-15 s of load (bench/broker_time.py), not counted here
            run_probe(work, jars.classpath, cluster.bootstrap_servers, WARM_UP_S, 22 * MB, VALUE_BYTES, job_cores,
                      BASE, topic(30))
            for r in range(rounds):
                for case in (cases if r % 2 == 0 else cases[::-1]):
                    try:
                        real[case.name].append(live_round(case, seconds, work, jars.classpath, cluster, job_cores))
                    except subprocess.CalledProcessError as error:   # said, and the run left out
                        print(f"  round {r + 1} {case.name}: the probe failed: {error.stderr.strip()[-600:]}",
                              file=sys.stderr, flush=True)
                        continue
                    out.with_suffix(".live.json").write_text(json.dumps(real))
                    print(f"  round {r + 1} {case.name}: {real[case.name][-1]['requests']:,.0f} requests, load "
                          f"{real[case.name][-1]['load_average']:.1f}", file=sys.stderr, flush=True)
    return real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seconds", type=float, nargs="?", default=4.0)
    parser.add_argument("rounds", type=int, nargs="?", default=3)
    parser.add_argument("--out", type=Path, default=Path("results/client-cadence.json"))
    parser.add_argument("--only", dest="names", action="append", default=[], help="a configuration to run (default: all)")
    parser.add_argument("--from", dest="source", type=Path, help="live runs kept by an earlier run (OUT.live.json): "
                        "run only the model against them")
    args = parser.parse_args()
    cases = [c for c in CASES if not args.names or c.name in args.names]
    if args.source:
        kept = json.loads(args.source.read_text())
        real = {c.name: kept.get(c.name, []) for c in cases}
    else:
        real = measure(cases, args.seconds, args.rounds, args.out)
    evaluator = ModelEvaluator()
    print(f"model: loopback, seeds {SEEDS}; placed: the machine's other runnable threads ('others', sampled) "
          f"on the broker's and the producer's core beside the profile's background")
    print(HEAD)
    results = {}
    for case in [c for c in cases if real[c.name]]:
        appends = {k: statistics.median(r[k] for r in real[case.name]) for k in ("records", "append_s")}
        model = model_runs(evaluator, case, appends)
        placed_model = model_runs(evaluator, case, appends, real[case.name])
        results[case.name] = {"live": real[case.name], "model": model, "placed": placed_model}
        print("\n".join(render(case, real[case.name], model, placed_model)), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "results": results},
                                   indent=1))


if __name__ == "__main__":
    main()
