"""Whether the model's memory stays flat in the load's size, and its cost grows with produce
requests, not records.

Two tables, every figure measured by this tree in a fresh process of its own, one after the
other in one run, so that the ratios compare figures of the same machine at the same time:

- the load's size: ``load-100gb.yaml`` (100 GB), 400 GB and 1 TiB (``dataset.files.0.count`` 200
  and 512): the run's wall and CPU seconds, the process's peak resident memory and the produce
  requests, the last three also as a ratio to 100 GB. Flat memory is a ratio near 1; the time
  follows the requests.
- records per request: the published scenario (``paypay-glue-2gb.yaml``: 2 GB, ``batch.size``
  128 KB, no compression) with its rows replaced by a CSV sample of one column of N bytes, so
  the same bytes make about the same produce requests, with many more records in each as the
  rows narrow: the CPU seconds per produce request as a ratio to the widest row's (each width
  measured in two rounds, the second in the other order). A cost that grows with requests, not
  records, is a ratio near 1.

A run's time leaves out measuring the rows and is the best of its runs (other work on the
machine only ever adds time); the 1 TiB load runs once. The ratios are of the process's CPU
time, which other work on a shared machine disturbs far less than the wall time.
It measures; it asserts nothing.

    .venv/bin/python bench/sim_scaling.py             # about 4 minutes on 2 cores
    .venv/bin/python bench/sim_scaling.py --quick     # 100 and 400 GB, two row widths
"""
from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from _lib import CATALOG, PUBLISHED, ROOT, SEED, run_python, three_digits  # one way to run a tree

LOAD_100GB = CATALOG / "load-100gb.yaml"
SIZES = ((50, "100 GB"), (200, "400 GB"), (512, "1 TiB"))
ROW_BYTES = (8192, 1024, 128, 64)
SAMPLE_BYTES = 1024**2      # each CSV sample: about a megabyte of rows
RUNS = 3


def measure(arguments: list[str]) -> None:
    """``--measure RUNS FILE [--rows CSV] [KEY=VALUE...]`` in a fresh process: the best run's wall
    seconds, the process's peak memory and the run's requests and records."""
    import gc

    from simulator.model.model import ModelEvaluator
    from workloads import Scenario
    runs, path, overrides = int(arguments[0]), Path(arguments[1]), arguments[2:]
    sample = None
    if overrides[:1] == ["--rows"]:
        sample, overrides = overrides[1], overrides[2:]
        overrides = [*overrides, f"dataset.rows={sample}"]
    scenario = Scenario.from_yaml(path, overrides)
    evaluator = ModelEvaluator(row_cache=None) if sample else ModelEvaluator()   # a sample of this run only
    evaluator.rows(scenario)
    walls, cpus = [], []
    for _ in range(runs):
        gc.collect()
        started, started_cpu = time.perf_counter(), time.process_time()
        result = evaluator.evaluate(scenario, SEED)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - started_cpu)
    summary = result.summary
    print(json.dumps({"wall_s": min(walls), "cpu_s": min(cpus),
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "produce_requests": summary.produce_requests, "batches": summary.batches,
                      "records": summary.records_per_request * summary.produce_requests}))


def measured(runs: int, path: Path, *overrides: str) -> dict:
    done = run_python(ROOT, [str(Path(__file__).resolve()), "--measure", str(runs), str(path), *overrides])
    return json.loads(done.stdout.strip().splitlines()[-1])


def sample_of(row_bytes: int, directory: Path) -> Path:
    """A CSV sample of one column whose rows are ``row_bytes`` long with their newline."""
    path = directory / f"rows-{row_bytes}.csv"
    width = row_bytes - 1
    lines = ["value"] + [(f"{i:08d}" * (width // 8 + 1))[:width] for i in range(max(50, SAMPLE_BYTES // row_bytes))]
    path.write_text("\n".join(lines) + "\n")
    return path


def row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(cell.rjust(width) if i else cell.ljust(width) for i, (cell, width) in enumerate(zip(cells, widths)))


def sizes(chosen: tuple[tuple[int, str], ...]) -> None:
    widths = [8, 8, 7, 9, 10, 7, 12, 9]
    print(row(["load", "wall s", "cpu s", "peak MB", "requests", "x cpu", "x requests", "x memory"], widths))
    first = None
    for count, name in chosen:
        figures = measured(1 if count > 200 else RUNS, LOAD_100GB, f"dataset.files.0.count={count}")
        first = first or figures
        print(row([name, three_digits(figures["wall_s"]), three_digits(figures["cpu_s"]),
                   three_digits(figures["peak_mb"]),
                   f"{figures['produce_requests']:,}", three_digits(figures["cpu_s"] / first["cpu_s"]),
                   three_digits(figures["produce_requests"] / first["produce_requests"]),
                   three_digits(figures["peak_mb"] / first["peak_mb"])], widths), flush=True)


def records_per_request(chosen: tuple[int, ...]) -> None:
    widths = [10, 7, 7, 9, 9, 12, 13, 9]
    print(row(["row bytes", "wall s", "cpu s", "requests", "batches", "records/req", "cpu us/req", "x us/req"],
              widths))
    with tempfile.TemporaryDirectory(prefix="quietload-rows-") as directory:
        samples = {row_bytes: str(sample_of(row_bytes, Path(directory))) for row_bytes in chosen}
        # two rounds, the second in the other order, so that a busy minute of the machine
        # does not fall on one width only; each width's best
        best: dict[int, dict] = {}
        for order in (chosen, chosen[::-1]):
            for row_bytes in order:
                figures = measured(RUNS, PUBLISHED, "--rows", samples[row_bytes])
                if row_bytes not in best or figures["cpu_s"] < best[row_bytes]["cpu_s"]:
                    best[row_bytes] = figures
    first = None
    for row_bytes in chosen:
        figures = best[row_bytes]
        per_request = figures["cpu_s"] / figures["produce_requests"] * 1e6
        first = first or per_request
        print(row([f"{row_bytes:,}", three_digits(figures["wall_s"]), three_digits(figures["cpu_s"]),
                   f"{figures['produce_requests']:,}", f"{figures['batches']:,}",
                   three_digits(figures["records"] / figures["produce_requests"]), three_digits(per_request),
                   three_digits(per_request / first)], widths), flush=True)


def main(arguments: list[str]) -> None:
    if arguments[:1] == ["--measure"]:
        measure(arguments[1:])
        return
    quick = "--quick" in arguments
    print(f"the load's size ({LOAD_100GB.name}, dataset.files.0.count):")
    sizes(SIZES[:2] if quick else SIZES)
    print(f"\nrecords per request ({PUBLISHED.name}, rows of one column):")
    records_per_request(ROW_BYTES[::2] if quick else ROW_BYTES)


if __name__ == "__main__":
    main(sys.argv[1:])
