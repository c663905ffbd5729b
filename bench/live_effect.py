"""Many small produce requests against few large ones, on real parts, beside the neighbours.

The same rows go through the same one-core Spark job into one local broker; only the batch
producer's settings differ. Each configuration runs REPEATS times (a fresh stack each) and the
spread of its figures is printed, with the median of the worst neighbour's p99 during the load.

    .venv/bin/python bench/live_effect.py [REPEATS]
"""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from reports.spread import render_spread
from simulator.live.evaluator import LiveEvaluator
from workloads import CATALOG, Scenario

ONE_BROKER = ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
              "dataset.files.0.size=30MB", "windows.before=3s", "windows.after=3s"]
CONFIGURATIONS = {
    "many-small": ["batch.producer.batch.size=4KB", "batch.producer.max.request.size=8KB", "batch.producer.linger.ms=0"],
    "few-large": ["batch.producer.batch.size=512KB", "batch.producer.linger.ms=100"],
}


def main(repeats: int) -> None:
    with tempfile.TemporaryDirectory(prefix="quietload-bench-") as work:
        evaluator = LiveEvaluator(Path(work) / "stack")
        for name, settings in CONFIGURATIONS.items():
            scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ONE_BROKER + settings)
            runs = [evaluator.evaluate(scenario, seed) for seed in range(1, repeats + 1)]
            worst = [max(t["p99_ms_during"] for t in r.summary["tenants"]) for r in runs]
            rate = [r.summary["record_bytes"] / r.summary["load_seconds"] / 2**20 for r in runs]
            print(f"{name}: {' '.join(settings)}")
            print(render_spread(runs))
            print(f"  worst neighbour p99 during: median {statistics.median(worst):.1f} ms; "
                  f"load {statistics.median(rate):.1f} MB/s of values; integrity "
                  + ("ok" if all(r.summary["integrity_ok"] for r in runs) else "FAILED") + "\n", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
