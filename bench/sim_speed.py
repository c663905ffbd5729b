"""How fast the model runs: each catalog scenario 5 times in one process, seed 1.

Prints one line per scenario, ``<file name> median_wall_s=<x> sim_per_wall=<y>``, where
sim_per_wall is simulated seconds per wall second of the median run. It measures; it asserts
nothing. Pass scenario files to time just those.

Each scenario gets one evaluator for its 5 runs, as a tuner would use it: the first run also
measures the codecs' compression curves on the scenario's rows, and the median leaves it out.
Each run starts after a full garbage collection, so that no run pays for the garbage of the
runs before it.
"""
from __future__ import annotations

import gc
import math
import sys
import time
from pathlib import Path

from simulator.model.model import ModelEvaluator
from workloads import CATALOG, Scenario

RUNS = 5
SEED = 1


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
    evaluator = ModelEvaluator()
    runs = []
    for _ in range(RUNS):
        gc.collect()
        started = time.perf_counter()
        result = evaluator.evaluate(scenario, SEED)
        runs.append((time.perf_counter() - started, result.summary["simulated_seconds"]))
    wall_s, simulated_s = sorted(runs)[RUNS // 2]
    return wall_s, simulated_s / wall_s


def main(arguments: list[str]) -> None:
    paths = [Path(a) for a in arguments] or sorted(CATALOG.glob("*.yaml"))
    for path in paths:
        wall_s, sim_per_wall = time_scenario(path)
        print(f"{path.name} median_wall_s={three_digits(wall_s)} sim_per_wall={three_digits(sim_per_wall)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
