"""The broker alone: one request stream replayed against a real broker and against the model's.

A stream is the job's produce requests as the traces show them (N batches of S bytes to P partitions
every T ms, at most 5 in flight) beside a neighbour's (one 1 KB record a request, 500 a second).
Live, ``bench/BrokerProbe.java`` writes pre-built requests (kafka-clients' own ProduceRequest) on a
connection per stream at that cadence, against a one-broker local stack held to the rig's CPU budget
(a cgroup v1 cpu quota over a 5 ms period in a cpuset of one core, as ``quietload live`` holds a
broker; the probe on the other core), after a warm-up of the broker's JVM. The model's broker
(``simulator.model.replay``) gets the same streams. Per configuration it prints, side by side:

- each stream's request latency (write to response read) p50 and p99, live (median of the rounds,
  min-max) against the model (median of seeds 1-3), with the ratio and the bar (p50 within 1.5x,
  p99 within 2x);
- Kafka's Produce time parts (the means over exactly the measured requests: two scrapes of each
  histogram's Count and Mean), handler idle, network-processor idle and CPU, live against the model;
- the broker's CPU per request by thread (handlers, network processors, JIT, GC) and how long its
  cgroup was throttled, and the load average at each run.

    flock /tmp/quietload-live.lock .venv/bin/python bench/broker_alone.py [SECONDS] [ROUNDS] [VCPUS] [--out OUT]
    .venv/bin/python bench/broker_alone.py --from OUT.live.json        (the model only, on kept live runs)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from simulator.live.budget import Budget, CpuBudgets
from simulator.live.evaluator import create_topics
from simulator.live.jars import resolve_jars
from simulator.live.kafka import KafkaCluster
from simulator.model.replay import RequestStream, replay
from workloads import CATALOG, Scenario
from workloads.scenario import load_mapping
from simulator.live.placement import placed

from _lib import PARTS, compile_probe, others_runnable, produce_sums, start_probe, thread_cpu  # the same rig as the others

BULK, NEIGHBOUR = "replay-bulk", "replay-neighbour"
WARM_UP_S = 15.0
RTT_MS = 0.1
SEEDS = (1, 2, 3)
KB = 1024


def neighbour() -> RequestStream:
    return RequestStream("neighbour", 1, 1 * KB, NEIGHBOUR, 6, 0.002)


CASES: dict[str, list[RequestStream]] = {
    # the live Spark job at linger.ms 0-25: a request of ~20 full 16 KB batches every ~50-100 ms
    "20 x 16KB every 50ms": [RequestStream("job", 20, 16 * KB, BULK, 30, 0.050), neighbour()],
    # the producer alone's 1 partition row: 16 records a request, 1,400 a second
    "1 x 16KB every 0.7ms": [RequestStream("job", 1, 16 * KB, BULK, 1, 0.0007), neighbour()],
    # its bursts 500/25ms row: ~6 batches a request every ~4.4 ms
    "6 x 16KB every 4ms": [RequestStream("job", 6, 16 * KB, BULK, 30, 0.004), neighbour()],
    # linger.ms=0 at its worst: one record a request, 2,000 a second
    "1 x 1KB every 0.5ms": [RequestStream("job", 1, 1 * KB, BULK, 30, 0.0005), neighbour()],
    # a heavy job: 20 full batches every 10 ms (32 MB/s)
    "20 x 16KB every 10ms": [RequestStream("job", 20, 16 * KB, BULK, 30, 0.010), neighbour()],
}


def model_scenario(vcpus: float) -> Scenario:
    """One broker of ``vcpus`` on loopback with the replay's topics."""
    raw = load_mapping(CATALOG / "paypay-glue-2gb.yaml", [
        "profile=loopback", "cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
        f"cluster.network_rtt={RTT_MS}ms", f"cluster.broker.vcpus={vcpus:g}"])
    raw["cluster"]["topics"] = [{"name": BULK, "partitions": 30}, {"name": NEIGHBOUR, "partitions": 6}]
    raw["batch"]["topic"] = BULK
    raw["tenants"] = []
    return Scenario.from_mapping(raw)


def probe(work: Path, classpath: str, bootstrap: str, warm: float, seconds: float, streams: list[RequestStream],
          cores: list[int], at_start=lambda pid: None, at_end=lambda: None) -> dict[str, dict[str, float]]:
    """One BrokerProbe run: per stream its figures by name; ``at_start(probe's pid)``/``at_end`` run
    when the probe says its measured part began and ended."""
    args = [bootstrap, str(warm), str(seconds), *(s.probe_argument() for s in streams)]
    figures: dict[str, dict[str, float]] = {}
    with start_probe(work, classpath, "BrokerProbe", args, cores) as running:
        assert running.stdout is not None
        for line in running.stdout:
            if line.strip() == "measure-start":
                at_start(running.pid)
            elif line.strip() == "measure-end":
                at_end()
            elif line.startswith("stream="):
                items = dict(item.split("=") for item in line.split())
                name = items.pop("stream")
                figures[name] = {k: float(v) for k, v in items.items()}
        err = running.stderr.read() if running.stderr else ""
    if running.returncode:
        raise subprocess.CalledProcessError(running.returncode, running.args, "", err)
    return figures


def live_round(streams: list[RequestStream], seconds: float, work: Path, classpath: str, cluster: KafkaCluster,
               budgets: CpuBudgets, broker_pid: int, cores: list[int]) -> dict:
    marks: dict[str, dict] = {}
    samples: list[dict[int, int]] = []
    sampling = threading.Event()

    def start(pid: int) -> None:
        mark("start")
        sampling.set()      # the machine's other runnable threads, by core, beside the probe and the broker
        threading.Thread(target=others_runnable, args=([pid, broker_pid], 0.2, sampling, samples), daemon=True).start()

    def end() -> None:
        sampling.clear()
        mark("end")

    def mark(name: str) -> None:
        metrics = cluster.scrape()
        marks[name] = {"at": time.time(), "sums": produce_sums(metrics), "cpu": metrics["process_cpu_seconds_total"],
                       "idle": metrics.get("kafka_server_RequestHandlerAvgIdleNanos_total", 0.0),
                       "network_idle": metrics.get("kafka_network_NetworkProcessorAvgIdlePercent_Value", 0.0),
                       "threads": thread_cpu(broker_pid), "throttled": budgets.throttled().get("broker-0", 0.0),
                       "load": os.getloadavg()[0]}
    streams_figures = probe(work, classpath, cluster.bootstrap_servers, 2.0, seconds, streams, cores, start, end)
    a, b = marks["start"], marks["end"]
    elapsed = b["at"] - a["at"]
    requests = b["sums"]["TotalTimeMs"][0] - a["sums"]["TotalTimeMs"][0]
    return {
        "streams": streams_figures,
        "produce_requests": requests,
        "parts": {p: (b["sums"][p][1] - a["sums"][p][1]) / max(1.0, b["sums"][p][0] - a["sums"][p][0]) for p in PARTS},
        "handler_idle_pct": min(100.0, 100 * (b["idle"] - a["idle"]) / (elapsed * 1e9)),
        "network_idle_pct": 100 * b["network_idle"],
        "cpu_pct": 100 * (b["cpu"] - a["cpu"]) / elapsed,
        "cpu_ms_per_request": {k: (v - a["threads"].get(k, 0.0)) / max(1.0, requests) * 1e3 for k, v in b["threads"].items()},
        "network_thread_busy_pct": 100 * (b["threads"].get("network", 0.0) - a["threads"].get("network", 0.0)) / elapsed,
        "throttled_ms": (b["throttled"] - a["throttled"]) * 1e3,
        "load_average": [a["load"], b["load"]],
        "others": {str(core): statistics.mean(c.get(core, 0) for c in samples) if samples else 0.0
                   for core in sorted(os.sched_getaffinity(0))},
    }


def measure(seconds: float, rounds: int, vcpus: float, out: Path) -> dict[str, list[dict]]:
    cores = sorted(os.sched_getaffinity(0))
    broker_cores, probe_cores = (cores[:1], cores[1:2]) if len(cores) >= 2 else (cores, cores)
    jars = resolve_jars()
    print(f"Kafka {jars.version}; broker {vcpus:g} vCPU on core {broker_cores[0]} (cgroup quota over a 5 ms period), "
          f"probe on core {probe_cores[0]}; {seconds:g} s per run, {rounds} rounds, load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    real: dict[str, list[dict]] = {name: [] for name in CASES}
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="quietload-broker-alone-") as tmp, \
            CpuBudgets([Budget("broker-0", vcpus, tuple(broker_cores)),
                        Budget("controller", None, tuple(broker_cores))]) as budgets:
        work = Path(tmp)
        compile_probe(work, jars.classpath, "BrokerProbe.java")
        with KafkaCluster(run_dir=work / "kafka", brokers=1) as cluster:
            broker_pid = next(node.pid for node in cluster.nodes() if node.role == "broker")
            for node in cluster.nodes():
                budgets.place("broker-0" if node.role == "broker" else "controller", node.pid)
            create_topics(model_scenario(vcpus), cluster.bootstrap_servers, {}, 1)
            # a broker that has run for a while, as a cluster's has (bench/broker_time.py: its JIT
            # compiles the produce paths in the first 10-15 s of load); not counted
            probe(work, jars.classpath, cluster.bootstrap_servers, WARM_UP_S, 1.0,
                  CASES["20 x 16KB every 10ms"] + [RequestStream("warm", 1, KB, BULK, 30, 0.0005)], probe_cores)
            for r in range(rounds):
                for name in (list(CASES) if r % 2 == 0 else list(CASES)[::-1]):
                    real[name].append(live_round(CASES[name], seconds, work, jars.classpath, cluster, budgets,
                                                 broker_pid, probe_cores))
                    out.with_suffix(".live.json").write_text(json.dumps({"vcpus": vcpus, "seconds": seconds, "runs": real}))
                    job = real[name][-1]["streams"]["job"]
                    print(f"  round {r + 1} {name}: job p50 {job['p50_ms']:.2f} p99 {job['p99_ms']:.2f} ms, load "
                          f"{real[name][-1]['load_average'][1]:.1f}", file=sys.stderr, flush=True)
    return real


def placed_scenario(vcpus: float, live: list[dict]) -> Scenario:
    """The scenario as the rig placed it: the broker in a cgroup of ``vcpus`` over a 5 ms period in
    the cpuset of core 0, the probe on core 1, each core with the machine's other runnable threads
    the runs counted there (their median) as its background."""
    cores = sorted(int(c) for c in live[0]["others"])
    broker_core, probe_core = (cores * 2)[:2]
    background = {core: statistics.median(r["others"][str(core)] for r in live) for core in (broker_core, probe_core)}
    return placed(model_scenario(vcpus), background, broker_core, probe_core, vcpus)


def model_figures(name: str, vcpus: float, seconds: float, live: list[dict] | None = None) -> list[dict]:
    """The model's replay over SEEDS; with ``live``, placed as the rig was (``placed_scenario``)."""
    out = []
    scenario = placed_scenario(vcpus, live) if live else model_scenario(vcpus)
    for seed in SEEDS:
        figures = replay(scenario, CASES[name], seconds, seed, client_host="probe-core" if live else None)
        out.append({"streams": {s.name: {"p50_ms": s.percentile(0.5) * 1e3, "p99_ms": s.percentile(0.99) * 1e3,
                                         "requests": len(s.latencies)} for s in figures.streams},
                    "parts": {p: figures.produce_time[p] * 1e3 for p in PARTS}, "produce_requests": figures.produce_requests,
                    "handler_idle_pct": figures.handler_idle_pct, "network_idle_pct": figures.network_idle_pct,
                    "cpu_pct": figures.cpu_pct})
    return out


def values(rows: list[dict], *keys: str) -> list[float]:
    """Each row's figure at the path ``keys`` (``"streams", "job", "p50_ms"``)."""
    found = []
    for row in rows:
        for key in keys:
            row = row[key]
        found.append(float(row))  # type: ignore[arg-type]
    return found


def med(rows: list[dict], *keys: str) -> float:
    return statistics.median(values(rows, *keys))


def span(rows: list[dict], *keys: str) -> str:
    found = values(rows, *keys)
    return f"{min(found):.2f}-{max(found):.2f}"


def ratio_cell(real: float, mine: float, bound: float) -> str:
    ratio = mine / real if real else float("nan")
    ok = bool(real and mine) and max(ratio, 1 / ratio) <= bound
    return f"{mine:7.2f} {ratio:5.2f}x {'in' if ok else 'OUT':<3}"


def render(name: str, live: list[dict], model: list[dict], placed: list[dict]) -> list[str]:
    lines = [f"{name}"]
    for stream in CASES[name]:
        cells = []
        for q, bound in (("p50_ms", 1.5), ("p99_ms", 2.0)):
            real = med(live, "streams", stream.name, q)
            cells.append(f"{q.removesuffix('_ms')} {real:6.2f} ({span(live, 'streams', stream.name, q)}) | own "
                         f"{ratio_cell(real, med(model, 'streams', stream.name, q), bound)}| placed "
                         f"{ratio_cell(real, med(placed, 'streams', stream.name, q), bound)}")
        lines.append(f"  {stream.name:<9} {med(live, 'streams', stream.name, 'requests'):>6,.0f} req  " + "   ".join(cells))
    for label, rows in (("own", model), ("placed", placed)):
        lines.append(f"  broker ms live | {label}: " + "  ".join(
            f"{p.removesuffix('TimeMs')} {med(live, 'parts', p):.3f}|{med(rows, 'parts', p):.3f}" for p in PARTS))
    lines.append(f"  handler idle {med(live, 'handler_idle_pct'):.1f}|{med(model, 'handler_idle_pct'):.1f}|"
                 f"{med(placed, 'handler_idle_pct'):.1f} %, network idle {med(live, 'network_idle_pct'):.1f}|"
                 f"{med(model, 'network_idle_pct'):.1f}|{med(placed, 'network_idle_pct'):.1f} %, CPU "
                 f"{med(live, 'cpu_pct'):.1f}|{med(model, 'cpu_pct'):.1f}|{med(placed, 'cpu_pct'):.1f} % (live|own|placed); "
                 "live CPU ms/request "
                 + ", ".join(f"{k} {statistics.median(r['cpu_ms_per_request'].get(k, 0.0) for r in live):.3f}"
                             for k in sorted(live[0]["cpu_ms_per_request"]))
                 + f"; throttled {med(live, 'throttled_ms'):.0f} ms; others on cores "
                 + ", ".join(f"{core}: {statistics.median(r['others'][core] for r in live):.1f}" for core in live[0]["others"])
                 + "; load " + "/".join(f"{r['load_average'][1]:.1f}" for r in live))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seconds", type=float, nargs="?", default=8.0)
    parser.add_argument("rounds", type=int, nargs="?", default=3)
    parser.add_argument("vcpus", type=float, nargs="?", default=1.0)
    parser.add_argument("--out", type=Path, default=Path("results/broker-alone.json"))
    parser.add_argument("--from", dest="source", type=Path, help="live runs kept by an earlier run (OUT.live.json)")
    args = parser.parse_args()
    if args.source:
        kept = json.loads(args.source.read_text())
        real, vcpus, seconds = kept["runs"], kept["vcpus"], kept["seconds"]
    else:
        real, vcpus, seconds = measure(args.seconds, args.rounds, args.vcpus, args.out), args.vcpus, args.seconds
    print(f"live (median of the rounds, min-max) | the model (median of seeds {SEEDS}, loopback profile, broker "
          f"{vcpus:g} vCPU) on hosts of their own ('own') and placed as the rig was ('placed': the machine's other "
          "runnable threads on each core as its background); ratio model/live; bar: p50 within 1.5x, p99 within 2x")
    results = {}
    for name in [n for n in CASES if real.get(n)]:
        model = model_figures(name, vcpus, seconds)
        placed = model_figures(name, vcpus, seconds, real[name])
        results[name] = {"live": real[name], "model": model, "placed": placed}
        print("\n".join(render(name, real[name], model, placed)), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "vcpus": vcpus,
                                    "results": results}, indent=1))


if __name__ == "__main__":
    main()
