"""Traces, not only totals: the job's append process as the append-trace interceptor records it,
against the model's, and what the interceptor costs.

overhead   One kafka-clients producer (bench/ProducerProbe.java) against a warm one-broker stack
           (the broker on one core, the producer on the other), each append process ROUNDS times
           with the interceptor on its producer and without, alternated: produce requests,
           records per request, the appended MB/s and the sender's time on its core per request,
           side by side, with the load average at each run.
spark      The Spark job alone (the live stack's Glue-style job: CSV from LocalStack S3 to Kafka,
           one executor core, no neighbours) REPEAT times, each a fresh stack (``quietload live``'s
           own run, the interceptor on the executor's classpath), against the model's job on the
           same scenario (loopback profile): append rate, the share of records appended in bursts
           and the bursts' sizes, the gaps between a thread's sends, pauses of 1 ms or more, task
           durations; produce requests and records per request (live: the producer's own count),
           the acknowledgement groups (a response's batches completed back to back: its records,
           the gaps between them); the JVM's threads by kind (time on a core, wait for one) and
           the CPU budgets' throttling over the load. Every RunResult goes to OUT.

    flock /tmp/quietload-live.lock .venv/bin/python bench/traces.py overhead [SECONDS] [ROUNDS]
    flock /tmp/quietload-live.lock .venv/bin/python bench/traces.py spark [--repeat 3] [--size 48MB] [--set K=V ...]
    .venv/bin/python bench/traces.py spark --from OUT [--size ...] [--set ...]      (the model only, on OUT's RunResults)
    .venv/bin/python bench/traces.py show FILE.qltrace      (one trace's figures)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _lib import BASE, MB, VALUE_BYTES, compile_probe, run_probe, topic  # noqa: E402

from simulator.contract import RunResult  # noqa: E402
from simulator.live.evaluator import LiveEvaluator, create_topics, pin_process  # noqa: E402
from simulator.live.jars import INTERCEPTOR_CLASS, interceptor_jar, resolve_jars  # noqa: E402
from simulator.live.kafka import KafkaCluster  # noqa: E402
from simulator.model import outcome  # noqa: E402
from simulator.model.model import ModelEvaluator, ModelRun  # noqa: E402
from tuner.calibration.design import BASE as RIG  # noqa: E402
from tuner.fidelity import as_placed  # noqa: E402
from workloads import CATALOG, Scenario, appendtrace  # noqa: E402
from workloads.scenario import QUOTA_CLIENT_ID  # noqa: E402
from quietload.stopping import stop_signals_interrupt  # noqa: E402

OVERHEAD_CASES = (("steady 22MB/s", f"steady:{22 * MB}:1"), ("unthrottled", "busy:1"), ("bursts 50/3ms", "bursts:50:3:1"))
RESPONSE_GAP_S = 50e-6


def say(line: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)


def overhead(seconds: float, rounds: int) -> None:
    cores = sorted(os.sched_getaffinity(0))
    broker_cores, job_cores = (cores[:1], cores[1:2]) if len(cores) >= 2 else ([], [])
    jars, jar = resolve_jars(), interceptor_jar()
    rows: dict[tuple[str, bool], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="quietload-traces-") as tmp:
        work = Path(tmp)
        compile_probe(work, jars.classpath)
        classpath = f"{jars.classpath}:{jar}"
        with KafkaCluster(run_dir=work / "kafka", brokers=1) as cluster:
            for node in cluster.nodes():
                if node.pid and broker_cores:
                    pin_process(node.pid, broker_cores)
            scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", [*RIG, "tenants=[]", f"cluster.topics.0.name={topic(30)}",
                                                                           f"batch.topic={topic(30)}"])
            create_topics(scenario, cluster.bootstrap_servers, {}, 1)
            run_probe(work, classpath, cluster.bootstrap_servers, 10.0, 22 * MB, VALUE_BYTES, job_cores, BASE, topic(30))
            for r in range(rounds):
                for name, append in OVERHEAD_CASES:
                    for traced in ((False, True) if r % 2 == 0 else (True, False)):
                        producer = dict(BASE)
                        if traced:
                            producer |= {"interceptor.classes": INTERCEPTOR_CLASS, "quietload.trace.dir": str(work / "trace")}
                        load = os.getloadavg()[0]
                        figures = run_probe(work, classpath, cluster.bootstrap_servers, seconds, append, VALUE_BYTES,
                                            job_cores, producer, topic(30))
                        figures["load_average"] = load
                        rows.setdefault((name, traced), []).append(figures)
                        say(f"round {r + 1} {name} {'traced' if traced else 'plain'}: {figures['requests']:,.0f} requests, load {load:.1f}")
    print(f"kafka-clients {jars.version} (ProducerProbe), {seconds:g} s per run, {rounds} rounds alternated; medians, "
          "plain | with the interceptor")
    print(f"{'append process':<16} {'requests (min-max)':>33} {'rec/req':>13} {'appended MB/s':>15} "
          f"{'sender us/req (min-max)':>27} load averages")
    for name, _ in OVERHEAD_CASES:
        plain, traced = rows[(name, False)], rows[(name, True)]
        def pair(key: str, scale: float = 1.0, per_request: bool = False) -> str:
            values = [[r[key] * scale / (r["requests"] if per_request else 1.0) for r in side] for side in (plain, traced)]
            return " | ".join(f"{statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f})" for v in values)
        rate = [statistics.median(r["records"] * VALUE_BYTES / r["append_s"] / MB for r in side) for side in (plain, traced)]
        rpr = [statistics.median(r["records"] / r["requests"] for r in side) for side in (plain, traced)]
        print(f"{name:<16} {pair('requests'):>33} {rpr[0]:>5.1f} | {rpr[1]:<5.1f} {rate[0]:>6.1f} | {rate[1]:<6.1f} "
              f"{pair('sender_run_s', 1e6, True):>27} " + "/".join(f"{r['load_average']:.1f}" for r in plain + traced))


def responses(trace: appendtrace.AppendTrace, client_id: str) -> list[tuple[float, int]]:
    """The acknowledgements as the sender completed them: runs of acks on one thread less than
    RESPONSE_GAP_S apart (one response's batches), as (time, records)."""
    ids = {i for i, name in enumerate(trace.producers) if name == client_id}
    out = []
    for thread in trace.threads:
        acks = [a[0] for a in thread.acks if a[1] in ids]
        for t in acks:
            if out and out[-1][2] == thread.thread_id and t - out[-1][1] < RESPONSE_GAP_S:
                out[-1] = (out[-1][0], t, thread.thread_id, out[-1][3] + 1)
            else:
                out.append((t, t, thread.thread_id, 1))
    return sorted((start, records) for start, _, _, records in out)


def live_figures(result: RunResult) -> dict[str, float]:
    spark = result.spark
    trace = appendtrace.read_trace(spark["append_trace"])
    found = appendtrace.appends(trace, QUOTA_CLIENT_ID)
    groups = responses(trace, QUOTA_CLIENT_ID)
    gaps = sorted(b[0] - a[0] for a, b in zip(groups, groups[1:]))
    threads = spark.get("threads", {})
    return {**appendtrace.figures(found), "requests": result.summary.produce_requests or 0,
            "records_per_request": result.summary.records_per_request or 0.0,
            "ack_groups": len(groups), "records_per_ack_group": statistics.mean(r for _, r in groups) if groups else 0.0,
            "ack_gap_us_p50": appendtrace.quantile(gaps, 0.5) * 1e6,
            **{f"{kind}_{k}": threads.get(kind, {}).get(k, 0.0) for kind in ("sender", "task", "jit", "gc")
               for k in ("run_s", "wait_s", "wait_us_per_slice")},
            "job_throttled_s": spark.get("cgroups", {}).get("job", {}).get("throttled_s", 0.0),
            "job_throttled_periods": spark.get("cgroups", {}).get("job", {}).get("throttled_periods", 0),
            "load_average": (result.summary.machine or {}).get("load_avg_1m_max", float("nan"))}


def model_figures(scenario: Scenario, seeds: range) -> list[dict[str, float]]:
    """The model's job on the same scenario; the sender's wakes and their waits for a core read
    from the run itself (its executor's host), beside the RunResult's figures."""
    out = []
    for seed in seeds:
        model = ModelRun(scenario, seed, ModelEvaluator())
        model.execute()
        run = outcome.build(model)
        host = model.loads[0].executors[0].host
        producer = run.producers[0]
        tasks = run.spark.get("write_task_seconds") or {}
        # as the trace measures it: value bytes over the span of the tasks' sends (one core: the tasks run one by one)
        span = max(t.finished for t in model.loads[0].tasks) - min(t.started for t in model.loads[0].tasks)
        rate = producer["records"] * run.spark["value_row_bytes"] / span if span > 0 else 0.0
        out.append({"rate_bytes_per_s": rate, "thread_rate_bytes_per_s": rate / max(1, scenario.batch.spark.slots),
                    "burst_share": 0.0, "burst_size_p50": 0.0, "task_s_p50": tasks.get("median", 0.0),
                    "requests": run.summary.produce_requests, "records_per_request": run.summary.records_per_request,
                    "sender_wait_s": host.waited, "sender_wakes": host.wakes,
                    "sender_wait_us_per_slice": host.waited / host.wakes * 1e6 if host.wakes else 0.0})
    return out


def spark(repeat: int, size: str, overrides: list[str], out: Path, source: Path | None = None) -> None:
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml",
                                  [*RIG, "profile=loopback", "tenants=[]", f"dataset.files.0.size={size}", "name=spark-alone",
                                   *overrides])
    if source is not None:      # the live runs kept by an earlier run: the model only
        results = [RunResult.read(path) for path in sorted(source.glob("spark-alone-live-seed*.json"))]
    else:
        out.mkdir(parents=True, exist_ok=True)
        evaluator = LiveEvaluator(out / "stack", progress_line=say)
        results = []
        for seed in range(1, repeat + 1):
            results.append(evaluator.evaluate(scenario, seed))
            results[-1].write(out / f"spark-alone-live-seed{seed}.json")
    live = [live_figures(result) for result in results]
    for seed, figures in enumerate(live, 1):
        say(f"run {seed}: {json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()})}")
    # the model on hosts of its own, and as the rig placed the job (its host's measured background)
    render(scenario, live, model_figures(scenario, range(1, 4)), model_figures(as_placed(scenario, results), range(1, 4)))


def render(scenario: Scenario, live: list[dict], model: list[dict], placed: list[dict]) -> None:
    def med(rows: list[dict], key: str) -> float:
        return statistics.median(r.get(key, 0.0) for r in rows)
    def spread(key: str, fmt: str) -> str:
        return f"{format(med(live, key), fmt)} ({format(min(r[key] for r in live), fmt)}-{format(max(r[key] for r in live), fmt)})"
    print(f"The Spark job alone: {scenario.name}, {scenario.batch.spark.executors} executor x {scenario.batch.spark.executor_cores} "
          f"core(s), linger.ms {scenario.batch.producer.linger_ms}; live median (min-max) of {len(live)}, model median of {len(model)} seeds "
          "on hosts of its own | as the rig placed it")
    for label, key, fmt, scale in (("append rate MB/s (all threads)", "rate_bytes_per_s", ".2f", 1 / MB),
                                   ("append rate MB/s per thread", "thread_rate_bytes_per_s", ".2f", 1 / MB),
                                   ("records in bursts", "burst_share", ".3f", 1.0),
                                   ("burst size p50 (records)", "burst_size_p50", ".0f", 1.0),
                                   ("task seconds p50", "task_s_p50", ".2f", 1.0),
                                   ("produce requests", "requests", ",.0f", 1.0),
                                   ("records per request", "records_per_request", ".1f", 1.0),
                                   ("sender waits s", "sender_wait_s", ".3f", 1.0),
                                   ("sender wait us per wake/slice", "sender_wait_us_per_slice", ".0f", 1.0)):
        scaled = [{key: r[key] * scale} for r in live]
        live_text = (f"{format(med(scaled, key), fmt)} ({format(min(r[key] for r in scaled), fmt)}-"
                     f"{format(max(r[key] for r in scaled), fmt)})")
        shown = [format(med(rows, key) * scale, fmt) for rows in (model, placed)]
        print(f"  {label:<32} live {live_text:<28} model {shown[0]} | {shown[1]}")
    for label, key, fmt in (("burst size p90", "burst_size_p90", ".0f"), ("gap between sends p50 us", "gap_us_p50", ".1f"),
                            ("gap p99 us", "gap_us_p99", ".0f"), ("gap max ms", "gap_ms_max", ".1f"),
                            ("pauses >= 1 ms", "pauses", ",.0f"), ("paused s", "pause_s", ".3f"), ("tasks", "tasks", ".0f"),
                            ("ack groups (responses)", "ack_groups", ",.0f"), ("records per ack group", "records_per_ack_group", ".1f"),
                            ("ack group gap p50 us", "ack_gap_us_p50", ".0f"),
                            ("sender on core s", "sender_run_s", ".3f"),
                            ("task threads on core s", "task_run_s", ".3f"), ("task threads wait s", "task_wait_s", ".3f"),
                            ("JIT on core s", "jit_run_s", ".3f"), ("JIT waits s", "jit_wait_s", ".3f"),
                            ("GC on core s", "gc_run_s", ".3f"), ("GC waits s", "gc_wait_s", ".3f"),
                            ("job cgroup throttled s", "job_throttled_s", ".3f"), ("load average", "load_average", ".1f")):
        print(f"  {label:<32} live {spread(key, fmt)}")


def show(path: Path) -> None:
    trace = appendtrace.read_trace(path)
    print(f"pid {trace.pid}, producers {list(trace.producers)}, {len(trace.threads)} threads, {trace.dropped} dropped")
    for client_id in sorted(set(trace.producers)):
        print(json.dumps(appendtrace.figures(appendtrace.appends(trace, client_id))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    cost = sub.add_parser("overhead")
    cost.add_argument("seconds", type=float, nargs="?", default=4.0)
    cost.add_argument("rounds", type=int, nargs="?", default=3)
    job = sub.add_parser("spark")
    job.add_argument("--repeat", type=int, default=3)
    job.add_argument("--size", default="48MB")
    job.add_argument("--set", dest="overrides", action="append", default=[])
    job.add_argument("--out", type=Path, default=Path("results/traces"))
    job.add_argument("--from", dest="source", type=Path, help="the OUT of an earlier run (its RunResults): the model only")
    one = sub.add_parser("show")
    one.add_argument("file", type=Path)
    args = parser.parse_args()
    if args.what == "overhead":
        overhead(args.seconds, args.rounds)
    elif args.what == "spark":
        spark(args.repeat, args.size, args.overrides, args.out, args.source)
    else:
        show(args.file)


if __name__ == "__main__":
    with stop_signals_interrupt():    # SIGTERM unwinds as Ctrl-C does: the stack and its CPU budgets removed
        main()
