"""The live rig's bar: the neighbours' p99 before the load repeats from run to run, and is what
the same neighbours measure on an otherwise idle stack.

One broker (cluster.broker.vcpus=1), the one-core Spark job and the neighbours (tenant_host.vcpus=1)
in their CPU budgets, 10 MB of CSV, a 10 s before window. RUNS rounds, alternated so that a
drift in the machine's load hits both alike: an idle stack (the broker and the neighbours only,
no Spark job process at all; the neighbours' p99 over 10 s after the same settling) and a full
live run (its before window, with the job's JVM started, warmed up and idle). Prints each run's
p99 per neighbour, then, side by side, max / min of the full runs' before p99 (bar: x1.5) and
the median of the full runs' before p99 over the median of the idle stack's (bar: within x2).
Every RunResult and the figures go to OUT_DIR.

    flock /tmp/quietload-live.lock .venv/bin/python bench/rig_stability.py [RUNS] [OUT_DIR]
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from simulator.live.budget import CpuBudgets, plan_budgets
from simulator.live.evaluator import WARM_UP_S, LiveEvaluator, create_topics
from simulator.live.kafka import KafkaCluster
from simulator.live.neighbours import Neighbours
from simulator.contract.histograms import LatencyHistogram
from workloads import CATALOG, Scenario
from quietload.stopping import stop_signals_interrupt

OVERRIDES = ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1", "cluster.broker.vcpus=1",
             "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1", "tenant_host.vcpus=1",
             "dataset.files.0.size=10MB", "windows.before=10s", "windows.after=3s"]
# The idle stack's neighbours run this long before their window: about as long as a full run's
# neighbours run before theirs opens on a quiet machine (LocalStack, the job's JVM and warm-up, settling).
IDLE_SETTLING_S = 20.0
REPEAT_BAR, IDLE_BAR = 1.5, 2.0


def idle_stack(scenario: Scenario, seed: int, work: Path) -> dict[str, float]:
    """Each neighbour's p99 (ms) over a window as long as the before window, on the broker alone."""
    plan = plan_budgets(scenario, os.sched_getaffinity(0), scenario.cluster.brokers)
    with CpuBudgets(plan) as budgets, KafkaCluster.for_scenario(scenario, run_dir=work / "kafka") as cluster:
        for node in cluster.nodes():
            budgets.place(f"broker-{node.node_id}" if node.role == "broker" else "controller", node.pid)
        create_topics(scenario, cluster.bootstrap_servers, {}, cluster.brokers)
        cores = next(b.cores for b in plan if b.component == "neighbours")
        with Neighbours(scenario.tenants, cluster.bootstrap_servers, seed=seed, cpus=list(cores)) as neighbours:
            budgets.place("neighbours", neighbours.pid)
            time.sleep(IDLE_SETTLING_S + WARM_UP_S)
            opened = time.time()
            time.sleep(scenario.windows.before)
            closed = time.time()
        return {trace.name: _p99(trace, opened, closed) for trace in neighbours.traces}


def _p99(trace, opened: float, closed: float) -> float:
    histogram = LatencyHistogram()
    for intended, latency in zip(trace.intended, trace.latency):
        if opened <= intended < closed:
            histogram.record(latency)
    return histogram.percentile(0.99)


def main(runs: int, out_dir: Path) -> None:
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", OVERRIDES)
    out_dir.mkdir(parents=True, exist_ok=True)
    idle: list[dict[str, float]] = []
    full: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="quietload-bench-") as work:
        live = LiveEvaluator(Path(work) / "live", progress_line=lambda line: print(f"  {line}", flush=True))
        for seed in range(1, runs + 1):
            idle.append(idle_stack(scenario, seed, Path(work) / "idle"))
            print(f"idle stack {seed}: " + ", ".join(f"{name} p99 {p99:.1f} ms" for name, p99 in idle[-1].items()), flush=True)
            result = live.evaluate(scenario, seed)
            result.write(out_dir / f"live-seed{seed}.json")
            full.append({t.name: t.p99_ms_before for t in result.summary.tenants})
            print(f"full run {seed}: " + ", ".join(f"{name} p99 before {p99:.1f} ms" for name, p99 in full[-1].items())
                  + (f"; noise: {'; '.join(result.summary.noise)}" if result.summary.noise else ""), flush=True)
    figures = {}
    print(f"\nneighbours' p99 in the before window, {runs} full runs against {runs} idle stacks ({os.cpu_count()} cores)")
    print(f"  {'neighbour':<14} {'full runs (ms)':<26} {'idle stack (ms)':<26} {'max/min':>8} {'full/idle':>10}")
    for name in full[0]:
        befores, idles = [run[name] for run in full], [run[name] for run in idle]
        repeat, versus_idle = max(befores) / min(befores), statistics.median(befores) / statistics.median(idles)
        figures[name] = {"full_before_p99_ms": befores, "idle_p99_ms": idles, "max_over_min": repeat,
                         "median_full_over_idle": versus_idle}
        print(f"  {name:<14} {' '.join(f'{v:7.1f}' for v in befores):<26} {' '.join(f'{v:7.1f}' for v in idles):<26} "
              f"{repeat:7.2f}x {versus_idle:9.2f}x")
    holds = all(f["max_over_min"] <= REPEAT_BAR and 1 / IDLE_BAR <= f["median_full_over_idle"] <= IDLE_BAR
                for f in figures.values())
    print(f"bar: max/min <= x{REPEAT_BAR}, full/idle within x{IDLE_BAR}: " + ("holds" if holds else "NOT MET"))
    (out_dir / "rig-stability.json").write_text(json.dumps({"overrides": OVERRIDES, "runs": runs, "neighbours": figures,
                                                            "holds": holds}, indent=2) + "\n")
    print(f"wrote {out_dir}")


if __name__ == "__main__":
    with stop_signals_interrupt():    # SIGTERM unwinds as Ctrl-C does: the stack and its CPU budgets removed
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 3,
             Path(sys.argv[2]) if len(sys.argv) > 2 else Path("results/rig-stability"))
