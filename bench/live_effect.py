"""Many small produce requests against few large ones at equal bytes per second, on real parts
beside the neighbours, with the broker on a small CPU budget; and the model's prediction of the same.

The same short rows (a JSON value of ~70 bytes) go through the same one-core Spark job into one
local broker held to half a CPU (a cgroup quota; on a quarter the neighbours alone saturated
it); only the batch producer's settings differ: one request per record against 512 KB batches
lingering 100 ms. The job's client quota
holds both to the same bytes per second (256 KB/s, about what one request per record reaches on
this broker; a quota lets a load's first ~10 s of its rate through at once, so the few-large
configuration's mean rate comes out a little higher: both are printed), so what differs is
requests, not bytes. The runs of the two configurations alternate, REPEATS each (>= 5 for the
published figures; a fresh stack each), so that a drift in the machine's load hits both alike.
Printed: each configuration's spread; the medians of the worst neighbour's p99 during the load,
of RequestHandlerAvgIdlePercent during it and of the bytes per second; then the ratios
many-small / few-large measured beside the model's (seeds 1-3, the ``loopback`` profile). Every
RunResult and the figures go to OUT_DIR.

    flock /tmp/quietload-live.lock .venv/bin/python bench/live_effect.py [REPEATS] [OUT_DIR] [SETTING...]

A SETTING ``key=value`` replaces one of the settings above for both configurations,
``many-small:key=value`` or ``few-large:key=value`` for one (e.g. ``cluster.broker.vcpus=0.25``,
or a quota for the few-large configuration alone to hold it to what many-small reaches unthrottled).
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

from reports.spread import render_spread
from simulator.evaluator import model_evaluator
from simulator.live.evaluator import LiveEvaluator
from workloads import CATALOG, Scenario
from quietload.stopping import stop_signals_interrupt

ONE_BROKER = ["profile=loopback", "cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
              "cluster.network_rtt=0.1ms", "cluster.broker.vcpus=0.5", "tenant_host.vcpus=1",
              "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1",
              "dataset.files.0.size=3MB", "windows.before=5s", "windows.after=3s",
              "batch.quota.producer_byte_rate=256KB/s"]
CONFIGURATIONS = {
    "many-small": ["batch.producer.batch.size=100", "batch.producer.max.request.size=200", "batch.producer.linger.ms=0"],
    "few-large": ["batch.producer.batch.size=512KB", "batch.producer.linger.ms=100"],
}
MODEL_SEEDS = (1, 2, 3)


def write_short_rows(path: Path, rows: int = 2000) -> Path:
    rng = random.Random(7)
    lines = ["event_id,ts,amount"] + [f"e{rng.randrange(10**7):07d},2024-06-03T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:"
                                      f"{i % 60:02d}.{rng.randrange(1000):03d},{rng.randrange(1, 100_000) / 100:.2f}"
                                      for i in range(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def figures(results: list) -> dict[str, list[float]]:
    """Per run: the worst neighbour's p99 during the load (ms), handler idle during it (%), MB/s of values."""
    return {"worst_p99_ms_during": [max(t.p99_ms_during for t in r.summary.tenants) for r in results],
            "handler_idle_pct_during": [r.summary.handler_idle_pct_during for r in results],
            "value_mb_per_s": [r.summary.record_bytes / r.summary.load_seconds / 2**20 for r in results],
            "produce_requests": [r.summary.produce_requests for r in results]}


def apply(settings: list[str]) -> None:
    """Lay SETTINGs over ONE_BROKER (both) or CONFIGURATIONS[name] (``name:key=value``)."""
    for setting in settings:
        name, _, assignment = setting.partition(":") if ":" in setting.split("=")[0] else ("", "", setting)
        target = CONFIGURATIONS[name] if name else ONE_BROKER
        key = assignment.split("=")[0]
        target[:] = [s for s in target if s.split("=")[0] != key] + [assignment]


def main(repeats: int, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="quietload-bench-") as work:
        evaluator = LiveEvaluator(Path(work) / "stack", progress_line=lambda line: print(f"  {line}", flush=True))
        rows = write_short_rows(Path(work) / "short-rows.csv")
        scenarios = {name: Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ONE_BROKER + [f"dataset.rows={rows}"] + settings)
                     for name, settings in CONFIGURATIONS.items()}
        model = {name: figures([model_evaluator().evaluate(scenario, seed) for seed in MODEL_SEEDS])
                 for name, scenario in scenarios.items()}
        runs: dict[str, list] = {name: [] for name in CONFIGURATIONS}
        for seed in range(1, repeats + 1):     # alternated, so a drift in the machine's load hits both alike
            for name, scenario in scenarios.items():
                runs[name].append(evaluator.evaluate(scenario, seed))
                runs[name][-1].write(out_dir / f"{name}-live-seed{seed}.json")
    live = {name: figures(results) for name, results in runs.items()}
    for name, settings in CONFIGURATIONS.items():
        print(f"\n{name}: {' '.join(settings)}")
        print(render_spread(runs[name]))
        row = {figure: statistics.median(values) for figure, values in live[name].items()}
        print(f"  medians: worst neighbour p99 during {row['worst_p99_ms_during']:.1f} ms, handler idle during "
              f"{row['handler_idle_pct_during']:.1f} %, {row['value_mb_per_s']:.3f} MB/s of values, "
              f"{row['produce_requests']:,.0f} requests; integrity "
              + ("ok" if all(r.summary.integrity_ok for r in runs[name]) else "FAILED"), flush=True)
    print(f"\nmany-small / few-large, live medians of {repeats} alternated runs each [min-max of the runs] "
          f"against the model's medians of seeds {MODEL_SEEDS[0]}-{MODEL_SEEDS[-1]}")
    print(f"  {'figure':<24} {'live many':>10} {'live few':>10} {'live ratio':>11} {'model many':>11} {'model few':>10} "
          f"{'model ratio':>12} {'live/model':>11}")
    table = {}
    for figure in ("worst_p99_ms_during", "handler_idle_pct_during", "value_mb_per_s", "produce_requests"):
        lm, lf = (statistics.median(live[n][figure]) for n in CONFIGURATIONS)
        mm, mf = (statistics.median(model[n][figure]) for n in CONFIGURATIONS)
        live_ratio, model_ratio = lm / lf if lf else float("nan"), mm / mf if mf else float("nan")
        spread = "/".join(f"{min(live[n][figure]):,.1f}-{max(live[n][figure]):,.1f}" for n in CONFIGURATIONS)
        table[figure] = {"live": {n: live[n][figure] for n in CONFIGURATIONS}, "model": {n: model[n][figure] for n in CONFIGURATIONS},
                         "live_ratio": live_ratio, "model_ratio": model_ratio}
        print(f"  {figure:<24} {lm:>10,.1f} {lf:>10,.1f} {live_ratio:>10.2f}x {mm:>11,.1f} {mf:>10,.1f} {model_ratio:>11.2f}x "
              f"{live_ratio / model_ratio if model_ratio else float('nan'):>10.2f}x   [{spread}]")
    p99, idle = table["worst_p99_ms_during"], table["handler_idle_pct_during"]
    print(f"direction: live {'many-small worse' if p99['live_ratio'] > 1 and idle['live_ratio'] < 1 else 'NOT as expected'}, "
          f"model {'many-small worse' if p99['model_ratio'] > 1 and idle['model_ratio'] < 1 else 'NOT as expected'}; "
          f"neighbour p99 ratio live/model {p99['live_ratio'] / p99['model_ratio']:.2f}x (within x1.5: "
          + ("yes" if 1 / 1.5 <= p99['live_ratio'] / p99['model_ratio'] <= 1.5 else "no") + ")")
    (out_dir / "live-effect.json").write_text(json.dumps({"overrides": ONE_BROKER, "configurations": CONFIGURATIONS,
                                                          "repeats": repeats, "figures": table}, indent=2) + "\n")
    print(f"wrote {out_dir}")


if __name__ == "__main__":
    with stop_signals_interrupt():    # SIGTERM unwinds as Ctrl-C does: the stack and its CPU budgets removed
        apply(sys.argv[3:])
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 5,
             Path(sys.argv[2]) if len(sys.argv) > 2 else Path("results/live-effect"))
