"""The model's outputs, recorded and compared: every catalog scenario's RunResult for seeds 1-5.

A change of how the model runs (not of what it models) must leave every output's bytes as they
were. ``write DIR`` records each scenario's RunResult JSON, one file per (scenario, seed), as
``DIR/<scenario>.seed<N>.json`` (a published table's rows each as ``<table>.row<I>``); ``compare DIR`` runs them again and prints, per file, ``same``
or how it differs: the largest relative difference of a summary figure and the key where it
is, and exits 1 if any file differs. ``trace FILE SEED OUT`` writes the run's events, one line
each (simulated time as ``float.hex`` and the action's qualified name), so that two traces'
first differing line (``cmp``) names the first event that went another way.

    .venv/bin/python bench/core_goldens.py write /tmp/goldens
    .venv/bin/python bench/core_goldens.py compare /tmp/goldens
    .venv/bin/python bench/core_goldens.py compare /tmp/goldens --seeds 1 workloads/catalog/paypay-glue-2gb.yaml
    .venv/bin/python bench/core_goldens.py trace workloads/catalog/paypay-glue-2gb.yaml 1 /tmp/trace.txt
"""
from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "workloads" / "catalog"
SCENARIOS = sorted([*CATALOG.glob("*.yaml"), *(CATALOG / "published").glob("*.yaml")])
SEEDS = (1, 2, 3, 4, 5)
USAGE = "usage: core_goldens.py write DIR | compare DIR [--seeds 1,2] [FILE...] | trace FILE SEED OUT"


def scenarios(path: Path) -> list[tuple[str, object]]:
    """A catalog file's scenarios by name: the file's own, or a published table's rows (``<table>.row<N>``)."""
    from tuner.published import TABLES, Table
    from workloads import Scenario
    path = path.resolve()   # a result names its scenario's file: the same however it was given
    if path.parent == TABLES.resolve():
        table = Table.from_yaml(path)
        return [(f"{path.stem}.row{i}", table.scenario_of(row)) for i, row in enumerate(table.rows)]
    return [(path.stem, Scenario.from_yaml(path))]


def result_json(scenario, seed: int) -> str:
    """The run's RunResult JSON, its scenario file named from the project's root (goldens hold in any checkout)."""
    from simulator.model.model import ModelEvaluator
    return ModelEvaluator().evaluate(scenario, seed).to_json().replace(f'"source": "{ROOT}/', '"source": "')


def golden_name(name: str, seed: int) -> str:
    return f"{name}.seed{seed}.json"


def largest_difference(a: object, b: object, where: str = "") -> tuple[float, str]:
    """(largest relative difference, its key) between two JSON values of the same shape."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = [(math.inf, f"{where}.{key}") for key in a.keys() ^ b.keys()]
        found += [largest_difference(a[key], b[key], f"{where}.{key}") for key in a.keys() & b.keys()]
        return max(found, default=(0.0, where))
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return math.inf, f"{where}[len]"
        return max((largest_difference(x, y, f"{where}[{i}]") for i, (x, y) in enumerate(zip(a, b))), default=(0.0, where))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if a == b:
            return 0.0, where
        return abs(a - b) / max(abs(a), abs(b)), where
    return (0.0, where) if a == b else (math.inf, where)


def write(directory: Path, paths: list[Path], seeds: tuple[int, ...]) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    for name, scenario in (named for path in paths for named in scenarios(path)):
        for seed in seeds:
            started = time.perf_counter()
            (directory / golden_name(name, seed)).write_text(result_json(scenario, seed))
            print(f"{golden_name(name, seed)} written in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


def compare(directory: Path, paths: list[Path], seeds: tuple[int, ...]) -> int:
    differing = compared = 0
    for name, scenario in (named for path in paths for named in scenarios(path)):
        for seed in seeds:
            compared += 1
            golden = directory / golden_name(name, seed)
            if not golden.exists():
                print(f"{golden.name}: no golden")
                differing += 1
                continue
            started = time.perf_counter()
            text = result_json(scenario, seed)
            wall_s = time.perf_counter() - started
            if text == golden.read_text():
                print(f"{golden.name}: same ({wall_s:.1f} s)", flush=True)
                continue
            differing += 1
            summary, key = largest_difference(json.loads(golden.read_text())["summary"], json.loads(text)["summary"])
            print(f"{golden.name}: DIFFERS; summary's largest relative difference {summary:.3g} at {key or '-'}", flush=True)
    print(f"{differing} of {compared} differ")
    return 1 if differing else 0


def trace(path: Path, seed: int, out: Path) -> int:
    """Every event's (time, action) of one run, one line each."""
    from simulator.model.model import ModelEvaluator, ModelRun
    run = ModelRun(scenarios(path)[0][1], seed, ModelEvaluator())
    with out.open("w") as lines:
        def observe(action, _argument) -> None:
            lines.write(f"{run.engine.now.hex()} {getattr(action, '__qualname__', type(action).__name__)}\n")
        run.engine.observers.append(observe)
        try:
            run.execute()
        finally:
            run.engine.observers.clear()
    print(f"{run.engine.events} events written to {out}")
    return 0


def main(arguments: list[str]) -> int:
    if len(arguments) >= 4 and arguments[0] == "trace":
        return trace(Path(arguments[1]), int(arguments[2]), Path(arguments[3]))
    if len(arguments) < 2 or arguments[0] not in ("write", "compare"):
        print(USAGE, file=sys.stderr)
        return 2
    mode, directory, rest = arguments[0], Path(arguments[1]), arguments[2:]
    seeds = SEEDS
    if rest[:1] == ["--seeds"] and len(rest) >= 2:
        seeds, rest = tuple(int(seed) for seed in rest[1].split(",")), rest[2:]
    paths = [Path(path) for path in rest] or SCENARIOS
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        print(f"core_goldens.py: no scenario file {missing[0]}", file=sys.stderr)
        return 2
    return (write if mode == "write" else compare)(directory, paths, seeds)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
