"""How fast the model runs: each catalog scenario 5 times in one process, seed 1.

Prints one line per scenario, ``<file name> median_wall_s=<x> sim_per_wall=<y>``, where
sim_per_wall is simulated seconds per wall second of the median run. It measures; it asserts
nothing. Pass scenario files to time just those.

Each scenario gets one evaluator for its 5 runs, as a tuner would use it: the first run also
measures the codecs' compression curves on the scenario's rows, and the median leaves it out.
Each run starts after a full garbage collection, so that no run pays for the garbage of the
runs before it.

``--against REV`` times each scenario here and in the project at git revision REV (compiled
as ``make native`` does, in a temporary directory), one after the other in one run, and prints
both and their ratio:

    .venv/bin/python bench/sim_speed.py --against HEAD workloads/catalog/paypay-glue-2gb*.yaml
"""
from __future__ import annotations

import gc
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simulator.evaluator import model_evaluator
from workloads import CATALOG, Scenario

RUNS = 5
SEED = 1
ROOT = Path(__file__).resolve().parents[1]


def three_digits(value: float) -> str:
    """3 significant digits without an exponent: 0.0123, 12.3, 1230."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    rounded = float(f"{value:.3g}")
    decimals = 2 - math.floor(math.log10(abs(rounded)))
    return f"{rounded:.{max(decimals, 0)}f}"


def time_scenario(path: Path) -> tuple[float, float]:
    """(median wall seconds, simulated seconds per wall second of the median run)."""
    scenario = Scenario.from_yaml(path)
    evaluator = model_evaluator()
    runs = []
    for _ in range(RUNS):
        gc.collect()
        started = time.perf_counter()
        result = evaluator.evaluate(scenario, SEED)
        runs.append((time.perf_counter() - started, result.summary.simulated_seconds))
    wall_s, simulated_s = sorted(runs)[RUNS // 2]
    return wall_s, simulated_s / wall_s


def checkout(revision: str, directory: Path) -> Path:
    """The project at ``revision`` in ``directory``, its model compiled as ``make native`` does."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
    subprocess.run([sys.executable, "-c", "from simulator.model._native import build; raise SystemExit(build())"],
                   cwd=directory, env={**os.environ, "PYTHONPATH": str(directory)}, check=True,
                   stdout=subprocess.DEVNULL)
    return directory


def timed_in(tree: Path, path: Path) -> str:
    """This benchmark's line for ``path``, run by the project in ``tree`` (a fresh process)."""
    done = subprocess.run([sys.executable, str(tree / "bench" / "sim_speed.py"), str(path)], cwd=tree,
                          env={**os.environ, "PYTHONPATH": str(tree)}, stdout=subprocess.PIPE, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def figure(line: str, name: str) -> float:
    return float(line.split(f"{name}=")[1].split()[0])


def against(revision: str, paths: list[Path]) -> None:
    """Each scenario timed by this tree and by ``revision``, alternately, in one run."""
    with tempfile.TemporaryDirectory(prefix="quietload-speed-") as tmp:
        other = checkout(revision, Path(tmp))
        print(f"{'scenario':<40} {'wall s here':>11} {revision + ' wall s':>16} {'here / there':>12}")
        for path in paths:
            here = figure(timed_in(ROOT, path.resolve()), "median_wall_s")
            there = figure(timed_in(other, path.resolve()), "median_wall_s")
            print(f"{path.name:<40} {three_digits(here):>11} {three_digits(there):>16} {here / there:>12.2f}", flush=True)


def main(arguments: list[str]) -> None:
    revision = None
    if "--against" in arguments:
        at = arguments.index("--against")
        revision = arguments[at + 1]
        arguments = arguments[:at] + arguments[at + 2:]
    paths = [Path(a) for a in arguments] or sorted(CATALOG.glob("*.yaml"))
    if revision:
        against(revision, paths)
        return
    for path in paths:
        wall_s, sim_per_wall = time_scenario(path)
        print(f"{path.name} median_wall_s={three_digits(wall_s)} sim_per_wall={three_digits(sim_per_wall)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
