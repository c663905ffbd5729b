"""The model's prediction against the live stack's measurement, for one small scenario.

The published case cut down to what this machine runs for real: one broker on loopback
(PLAINTEXT, the ``loopback`` cost profile), a one-core Spark job, 20 MB of CSV, 16 KB batches.
The model runs seeds 1-3, the live stack REPEATS times; every RunResult goes to OUT_DIR, and the
figures are printed side by side with measured / predicted (``quietload report`` on OUT_DIR's
files gives the same table in report.md and versus.csv).

    .venv/bin/python bench/model_vs_live.py [REPEATS] [OUT_DIR]
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from reports.sections.runs import run_figures
from reports.sections.versus import pair_runs, versus_header, versus_rows
from simulator.evaluator import model_evaluator
from simulator.live.evaluator import LiveEvaluator
from workloads import CATALOG, Scenario
from quietload.stopping import stop_signals_interrupt

OVERRIDES = ["profile=loopback", "cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
             "cluster.network_rtt=0.1ms", "cluster.broker.vcpus=1",
             "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1",
             "dataset.files.0.size=20MB", "windows.before=3s", "windows.after=3s",
             "batch.producer.batch.size=16KB", "batch.producer.max.request.size=32KB"]
MODEL_SEEDS = (1, 2, 3)


def main(repeats: int, out_dir: Path) -> None:
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", OVERRIDES)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for seed in MODEL_SEEDS:
        results.append(model_evaluator().evaluate(scenario, seed))
        results[-1].write(out_dir / f"model-seed{seed}.json")
    with tempfile.TemporaryDirectory(prefix="quietload-bench-") as work:
        live = LiveEvaluator(Path(work) / "stack", progress_line=lambda line: print(f"  {line}", flush=True))
        for seed in range(1, repeats + 1):
            results.append(live.evaluate(scenario, seed))
            results[-1].write(out_dir / f"live-seed{seed}.json")
    [pair] = pair_runs(run_figures(results))
    rows = [versus_header(pair)] + versus_rows(pair)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
    print(f"wrote {len(results)} RunResult files to {out_dir}")


if __name__ == "__main__":
    with stop_signals_interrupt():    # SIGTERM unwinds as Ctrl-C does: the stack and its CPU budgets removed
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 2,
             Path(sys.argv[2]) if len(sys.argv) > 2 else Path("results/model-vs-live"))
