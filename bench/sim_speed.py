"""How fast the model and the CLI run, here and, with ``--against REV``, at another revision.

Without ``--against``: each catalog scenario (or each file given) 5 times in one process, seed 1,
one line each, ``<file name> median_wall_s=<x> sim_per_wall=<y>``, where sim_per_wall is
simulated seconds per wall second of the median run. It measures; it asserts nothing.

Each scenario gets one evaluator for its runs, as a tuner would use it: the first run also
measures the codecs' compression curves on the scenario's rows, and the median leaves it out.
Each run starts after a full garbage collection, so that no run pays for the garbage of the
runs before it.

``--against REV`` measures each figure of docs/speed.md here and in the project at git revision
REV (compiled as ``make native`` does, in a temporary directory), one after the other in one
run, each in a fresh process of its own tree, and prints both and how many times faster (or
smaller) here is. Machines of this kind differ by up to 4x and a shared one drifts while it
runs, so only the ratio of two figures measured side by side means much; each is the best of
its runs, since other work on the machine only ever adds time:

- each published variant (``paypay-glue-2gb*.yaml``): best of 5 runs;
- the 100 GB load (``load-100gb.yaml``), best of 3 runs, and 1 TiB (the same with
  ``dataset.files.0.count=512``), one run; with each, the process's peak resident memory;
- CLI start-up: ``quietload simulate`` in a fresh process, up to the model's first event
  (imports, the scenario, the rows sampled, serialised and measured), best of 5; here also
  the very first one, before the row cache (``.quietload/rows``) holds the scenario's rows;
- with ``--startup`` only the start-up figures;
- with ``--tune`` only a small study's figures: ``tune --trials 40 --validate 0`` on the published
  scenario cut to 64 MB (its runs short, so that what the parent process does between them
  counts), with 1 worker (the same trials here and there, said so) and with 2;
- with ``--readme-tune`` only README step 3's tune (as ``--long`` runs it, below);
- with ``--night`` only the night's commands, each once here and once at REV: README step 7's
  ``plan --schedule`` of ``night-three-jobs.yaml`` and ``policy`` of it (``--out DIR``, its own
  defaults), wall and CPU seconds (the command's and its worker processes'), and what each
  answered (the schedule's starts, whether it holds, its runs and pruned schedules; the policy's
  trials, pruned trials, its trial and whether it held);
- with ``--long`` also the 100 GB load at ``linger.ms=0`` and ``batch.size`` 16 KB (one run),
  and README step 3's tune (1.5x SLAs, 100 trials, each the worst of 3 seeds, its pick held on 20
  held-out seeds; one run each): both picks (trial, produce requests, held or not), the ratio of
  their requests, and whether the study files agree trial by trial.

    .venv/bin/python bench/sim_speed.py --against fbe55c6
    .venv/bin/python bench/sim_speed.py --against fbe55c6 --long
    .venv/bin/python bench/sim_speed.py --against fbe55c6 --startup
    .venv/bin/python bench/sim_speed.py --against HEAD~1 --tune
    .venv/bin/python bench/sim_speed.py --against 67c0299 --readme-tune
    .venv/bin/python bench/sim_speed.py --against cb10d98 --night
    .venv/bin/python bench/sim_speed.py --against HEAD workloads/catalog/paypay-glue-2gb*.yaml
"""
from __future__ import annotations

import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _lib import CATALOG, PUBLISHED, ROOT, SEED, environment, run_python, three_digits

RUNS = 5
VARIANTS = sorted(CATALOG.glob("paypay-glue-2gb*.yaml"))
LOAD_100GB = CATALOG / "load-100gb.yaml"
TIB = ("dataset.files.0.count=512",)
SMALL_BATCHES = ("batch.producer.linger.ms=0", "batch.producer.batch.size=16KB")
STARTUP_RUNS = 5
_PYCACHE: Path | None = None   # where the subprocesses keep their bytecode
TUNE = ("--set", "tenants.0.sla_p99=1.5x", "--set", "tenants.1.sla_p99=1.5x", "--trials", "100", "--repeat", "3")   # README step 3
SMALL_TUNE = ("--set", "dataset.files.0.size=64MB", "--set", "windows.before=1s", "--set", "windows.after=1s",
              "--set", "tenants.0.sla_p99=100ms", "--set", "tenants.1.sla_p99=100ms", "--trials", "40", "--validate", "0")
# `quietload simulate` in a fresh process, stopped where the model's first event would run.
STARTUP = """
import os, sys
import simulator.model.model
simulator.model.model.ModelRun.execute = lambda self, *_: os._exit(0)
from quietload.cli import app
app(["simulate", sys.argv[1], "--json", "startup.json"], prog_name="quietload")
"""


def simulated_seconds(result) -> float:
    summary = result.summary
    return float(summary["simulated_seconds"] if isinstance(summary, dict) else summary.simulated_seconds)


def time_runs(path: Path, overrides: list[str], runs: int) -> tuple[float, float, float]:
    """(median wall seconds, simulated seconds per wall second of the median run, best wall seconds)."""
    from simulator.model.model import ModelEvaluator
    from workloads import Scenario
    scenario = Scenario.from_yaml(path, overrides)
    evaluator = ModelEvaluator()
    timed = []
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        result = evaluator.evaluate(scenario, SEED)
        timed.append((time.perf_counter() - started, simulated_seconds(result)))
    wall_s, simulated_s = sorted(timed)[runs // 2]
    return wall_s, simulated_s / wall_s, min(timed)[0]


def measure(arguments: list[str]) -> None:
    """``--measure RUNS FILE [KEY=VALUE...]`` in a tree's own process: its best run and peak memory."""
    runs, path, overrides = int(arguments[0]), Path(arguments[1]), arguments[2:]
    _, _, wall_s = time_runs(path, overrides, runs)
    compiled = Path(sys.modules["simulator.model.engine"].__file__).suffix != ".py"
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall_s": wall_s, "peak_mb": peak_mb, "compiled": compiled}))


def checkout(revision: str, directory: Path) -> Path:
    """The project at ``revision`` in ``directory``, its model (and event core) compiled as ``make native`` does."""
    directory.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
    if (directory / "core" / "build.py").is_file():   # a revision with the event core builds it first
        subprocess.run([sys.executable, str(directory / "core" / "build.py")], cwd=directory, check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-c", "from simulator.model._native import build; raise SystemExit(build())"],
                   cwd=directory, env={**os.environ, "PYTHONPATH": str(directory)}, check=True,
                   stdout=subprocess.DEVNULL)
    return directory


def measured_in(tree: Path, runs: int, path: Path, overrides: tuple[str, ...] = ()) -> dict:
    """This benchmark's runs of ``path``, by the project in ``tree``, in a fresh process."""
    done = run_python(tree, [str(Path(__file__).resolve()), "--measure", str(runs), str(path), *overrides], pycache=_PYCACHE)
    return json.loads(done.stdout.strip().splitlines()[-1])


def startup_in(tree: Path, path: Path, runs: int) -> list[float]:
    """Wall seconds of ``runs`` fresh processes up to the first event, each after the one before,
    in one new working directory (so the first finds no row cache there, the others find it),
    after one elsewhere that compiles the bytecode."""
    with tempfile.TemporaryDirectory(prefix="quietload-startup-") as warm:
        run_python(tree, ["-c", STARTUP, str(path)], cwd=Path(warm), pycache=_PYCACHE)
    with tempfile.TemporaryDirectory(prefix="quietload-startup-") as cwd:
        walls = []
        for _ in range(runs):
            started = time.perf_counter()
            run_python(tree, ["-c", STARTUP, str(path)], cwd=Path(cwd), pycache=_PYCACHE)
            walls.append(time.perf_counter() - started)
    return walls


def tune_in(tree: Path, path: Path, arguments: tuple[str, ...] = TUNE) -> tuple[float, list]:
    """Wall seconds of ``quietload tune`` in ``tree``, and its trials as the study file has them."""
    with tempfile.TemporaryDirectory(prefix="quietload-tune-") as out:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", "from quietload.cli import app; app()", "tune", str(path), *arguments,
                               "--out", out, "--storage", f"sqlite:///{out}/study.db"],
                              cwd=tree, env=environment(tree, _PYCACHE), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        wall_s = time.perf_counter() - started
        if done.returncode not in (0, 1):   # 1: no trial met the constraints, still a study
            raise SystemExit(f"tune failed in {tree}:\n{done.stderr[-2000:]}")
        study = json.loads(next(Path(out).glob("*-study.json")).read_text())
    trials = [(t["number"], t["params"], t["values"], t["constraints"]) for t in study["trials"]]
    return wall_s, [trials, study["pick"], study["validation"]]


def said_pick(study: list) -> tuple[str, float]:
    """A study's pick as ``trial N, R requests, held`` (from ``tune_in``), and its produce requests."""
    trials, pick, validation = study
    if pick is None:
        return "no pick", float("nan")
    values = next(values for number, _, values, _ in trials if number == pick)
    requests = values["produce_requests"] if isinstance(values, dict) else values[0]
    held = (validation or {}).get("held")
    return f"trial {pick}, {requests:,.0f} requests, {'held' if held else 'not held'} on the held-out seeds", requests


NIGHT = CATALOG / "night-three-jobs.yaml"
NIGHT_COMMANDS = {"plan --schedule": ("plan", "--schedule", str(NIGHT), "--out", "night.yaml"),
                  "policy": ("policy", str(NIGHT), "--out", "p")}


def night_in(tree: Path, name: str) -> tuple[float, float, str]:
    """Wall and CPU seconds of the night's command ``name`` in ``tree``, and what it answered."""
    with tempfile.TemporaryDirectory(prefix="quietload-night-") as out:
        before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        done = subprocess.run([sys.executable, "-c", "from quietload.cli import app; app()", *NIGHT_COMMANDS[name]],
                              cwd=out, env=environment(tree, _PYCACHE), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall_s, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):   # 1: the policy did not hold, still written
            raise SystemExit(f"{name} failed in {tree}:\n{done.stderr[-2000:]}")
        cpu_s = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        if name == "policy":
            proof = json.loads(next(Path(out, "p").glob("*-policy.json")).read_text())
            answer = (f"{proof['trials']} trials, {proof.get('pruned', 0)} pruned, trial {proof['trial']}, "
                      f"{'held' if proof['held'] else 'not held'}")
        else:
            schedule = json.loads(next(Path(out, "results").glob("*-schedule.json")).read_text())
            answer = (f"starts {[job['start_s'] for job in schedule['jobs']]}, "
                      f"{'holds' if schedule['holds'] else 'does not hold'}, night end {schedule['night_end_s']:,.1f} s, "
                      f"{schedule['runs']} runs, {schedule.get('pruned', 0)} pruned")
    return wall_s, cpu_s, answer


def night(table: "Table", revision: str, other: Path) -> None:
    """Each of the night's commands here and at ``revision``, one after the other."""
    for name in NIGHT_COMMANDS:
        here, there = night_in(ROOT, name), night_in(other, name)
        table.row(f"{name}, wall", here[0], there[0])
        table.row(f"{name}, CPU", here[1], there[1])
        print(f"  here: {here[2]}\n  {revision}: {there[2]}", flush=True)


class Table:
    def __init__(self, revision: str) -> None:
        print(f"{'figure':<52} {'here':>9} {revision:>9} {'x faster':>9}", flush=True)

    def row(self, name: str, here: float, there: float, unit: str = "s") -> None:
        print(f"{name + ' (' + unit + ')':<52} {three_digits(here):>9} {three_digits(there):>9} "
              f"{there / here:>9.2f}", flush=True)


def small_tune(table: Table, revision: str, other: Path) -> None:
    """The small study here and at ``revision``, with 1 worker and with 2."""
    for workers in ("1", "2"):
        arguments = (*SMALL_TUNE, "--workers", workers)
        (here_s, here_study), (there_s, there_study) = tune_in(ROOT, PUBLISHED, arguments), tune_in(other, PUBLISHED, arguments)
        table.row(f"tune, small study, 40 trials, {workers} worker{'s' if workers != '1' else ''}", here_s, there_s)
        if workers == "1":
            print(f"same trials and pick as {revision}: {'yes' if here_study == there_study else 'no'}", flush=True)


def readme_tune(table: Table, revision: str, other: Path) -> None:
    """README step 3's tune here and at ``revision``, and both picks."""
    (here_s, here_study), (there_s, there_study) = tune_in(ROOT, PUBLISHED), tune_in(other, PUBLISHED)
    table.row("tune, README's study (100 trials, worst of 3, 20 held-out seeds)", here_s, there_s)
    (here_pick, here_requests), (there_pick, there_requests) = said_pick(here_study), said_pick(there_study)
    print(f"  pick here: {here_pick}\n  pick at {revision}: {there_pick}\n"
          f"  requests here / at {revision}: {here_requests / there_requests:.2f}x", flush=True)
    print(f"same trials, pick and validation as {revision}: {'yes' if here_study == there_study else 'no'}")


def against(revision: str, paths: list[Path], long: bool, startup_only: bool = False, tune_only: bool = False,
            night_only: bool = False, readme_tune_only: bool = False) -> None:
    """Each figure measured by this tree and by ``revision``, one after the other, in one run."""
    with tempfile.TemporaryDirectory(prefix="quietload-speed-") as tmp:
        other = checkout(revision, Path(tmp) / "tree")
        global _PYCACHE
        _PYCACHE = Path(tmp) / "pycache"
        table = Table(revision)
        if tune_only:
            small_tune(table, revision, other)
            return
        if night_only:
            night(table, revision, other)
            return
        if readme_tune_only:
            readme_tune(table, revision, other)
            return
        for path in [] if startup_only else paths or VARIANTS:
            here, there = measured_in(ROOT, RUNS, path.resolve()), measured_in(other, RUNS, path.resolve())
            if not here["compiled"]:
                print("note: the model runs uncompiled here (make native compiles it)")
            table.row(path.name, here["wall_s"], there["wall_s"])
        if paths:
            return
        for name, runs, overrides in () if startup_only else (("100 GB load", 3, ()), ("1 TiB load", 1, TIB)):
            here, there = measured_in(ROOT, runs, LOAD_100GB, overrides), measured_in(other, runs, LOAD_100GB, overrides)
            table.row(name, here["wall_s"], there["wall_s"])
            table.row(f"{name}, peak memory", here["peak_mb"], there["peak_mb"], "MB")
        here_s, there_s = startup_in(ROOT, PUBLISHED, STARTUP_RUNS + 1), startup_in(other, PUBLISHED, STARTUP_RUNS + 1)
        table.row("CLI start-up, first run of a dataset", here_s[0], there_s[0])   # each tree's own first run
        table.row("CLI start-up", min(here_s[1:]), min(there_s[1:]))
        if startup_only or not long:
            return
        here, there = measured_in(ROOT, 1, LOAD_100GB, SMALL_BATCHES), measured_in(other, 1, LOAD_100GB, SMALL_BATCHES)
        table.row("100 GB load, linger.ms=0, batch.size=16KB", here["wall_s"], there["wall_s"])
        readme_tune(table, revision, other)


def main(arguments: list[str]) -> None:
    if arguments[:1] == ["--measure"]:
        measure(arguments[1:])
        return
    long, startup_only, tune_only = "--long" in arguments, "--startup" in arguments, "--tune" in arguments
    night_only, readme_tune_only = "--night" in arguments, "--readme-tune" in arguments
    arguments = [a for a in arguments if a not in ("--long", "--startup", "--tune", "--night", "--readme-tune")]
    revision = None
    if "--against" in arguments:
        at = arguments.index("--against")
        revision = arguments[at + 1]
        arguments = arguments[:at] + arguments[at + 2:]
    paths = [Path(a) for a in arguments]
    if revision:
        against(revision, paths, long, startup_only, tune_only, night_only, readme_tune_only)
        return
    for path in paths or sorted(CATALOG.glob("*.yaml")):
        wall_s, sim_per_wall, _ = time_runs(path, [], RUNS)
        print(f"{path.name} median_wall_s={three_digits(wall_s)} sim_per_wall={three_digits(sim_per_wall)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
