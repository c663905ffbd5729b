"""Many small produce requests against few large ones, on real parts, beside the neighbours.

The same short rows go through the same one-core Spark job into one local broker; only the
batch producer's settings differ, one request per record against 512 KB batches. The runs of
the two configurations alternate, REPEATS each (a fresh stack each); the spread of their
figures is printed, with the median of the worst neighbour's p99 during the load and the bytes
per second each reached (the job's core sets them: a quota cannot equalise loads shorter than
its 11 s window).

    .venv/bin/python bench/live_effect.py [REPEATS]
"""
from __future__ import annotations

import random
import statistics
import sys
import tempfile
from pathlib import Path

from reports.spread import render_spread
from simulator.live.evaluator import LiveEvaluator
from workloads import CATALOG, Scenario

ONE_BROKER = ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
              "dataset.files.0.size=6MB", "windows.before=3s", "windows.after=3s",
              # about the rate one request per record reaches: the quota holds the 512 KB
              # batches to it once the load outlasts the quota's 11 s window
              "batch.quota.producer_byte_rate=512KB/s"]
# Short rows (a JSON value of ~70 bytes): one core of Spark turns out records fast enough for
# one request per record to reach the broker as thousands of requests a second.
CONFIGURATIONS = {
    "many-small": ["batch.producer.batch.size=100", "batch.producer.max.request.size=200", "batch.producer.linger.ms=0"],
    "few-large": ["batch.producer.batch.size=512KB", "batch.producer.linger.ms=100"],
}


def write_short_rows(path: Path, rows: int = 2000) -> Path:
    rng = random.Random(7)
    lines = ["event_id,ts,amount"] + [f"e{rng.randrange(10**7):07d},2024-06-03T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:"
                                      f"{i % 60:02d}.{rng.randrange(1000):03d},{rng.randrange(1, 100_000) / 100:.2f}"
                                      for i in range(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def main(repeats: int) -> None:
    with tempfile.TemporaryDirectory(prefix="quietload-bench-") as work:
        evaluator = LiveEvaluator(Path(work) / "stack")
        rows = write_short_rows(Path(work) / "short-rows.csv")
        scenarios = {name: Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ONE_BROKER + [f"dataset.rows={rows}"] + settings)
                     for name, settings in CONFIGURATIONS.items()}
        runs: dict[str, list] = {name: [] for name in CONFIGURATIONS}
        for seed in range(1, repeats + 1):     # alternated, so a drift in the machine's load hits both alike
            for name, scenario in scenarios.items():
                runs[name].append(evaluator.evaluate(scenario, seed))
        for name, settings in CONFIGURATIONS.items():
            worst = [max(t["p99_ms_during"] for t in r.summary["tenants"]) for r in runs[name]]
            rate = [r.summary["record_bytes"] / r.summary["load_seconds"] / 2**20 for r in runs[name]]
            print(f"{name}: {' '.join(settings)}")
            print(render_spread(runs[name]))
            print(f"  worst neighbour p99 during: median {statistics.median(worst):.1f} ms; "
                  f"load {statistics.median(rate):.2f} MB/s of values; integrity "
                  + ("ok" if all(r.summary["integrity_ok"] for r in runs[name]) else "FAILED") + "\n", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
