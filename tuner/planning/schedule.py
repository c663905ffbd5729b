"""A night's schedule: the start times of its batch jobs, staggered within a window, that keep
every neighbour within its SLA and end every job inside the window (and within its deadline: its own
``deadline``, else ``check.deadline``, from its own start, as ``check`` holds it).

Each job is first run alone, from the window's opening, on every seed: its load's duration
there is what a start time must leave room for, and a job that breaches alone cannot be saved by
any staggering: then the smallest change that makes it hold alone (``tuner.planning.night_change``,
in the order of ``tuner.widen``) is found first and kept for the whole night.

The start times are then searched with Optuna's TPE sampler (the study's solver), one start a
job between its earliest (its own ``start``, the window's opening at the least) and the last that
still ends it inside the window; the first trials are the jobs back to back, in file order, each
after the one before ended alone plus the scenario's ``windows.after`` (the settle time it
measures neighbours in), so a search that finds nothing better still starts from the schedule that
holds when every job holds alone. Why a sampler and not a sweep: starts are continuous and the
jobs' overlaps interact, so a grid of ``m`` starts a job costs ``m ** jobs`` nights, each on every
seed. A trial is a night run on every seed (``--repeat``), counted at its worst (each neighbour's
highest p99, the latest end), so a schedule does not pass on a lucky seed; among those that hold
the one that ends the night earliest is chosen (the rest of the window is room).
"""
from __future__ import annotations

import math
from pathlib import Path

from simulator.contract import scenario_path
from simulator.contract.files import SCHEDULE
from simulator.evaluator import Evaluator, model_evaluator
from tuner.planning.night import (SAMPLER_SEED, Nights, Progress, Window, alone, jobs_of, night_figures, breaching,
                                  with_starts)
from tuner.planning.night_change import ChangeFinder, smallest_change
from tuner.planning.night_search import search_starts
from tuner.runner import Execution, Runner
from workloads import Scenario, ScenarioError
from simulator.evaluator import load_resolved


def window_of(scenario: Scenario, length_s: float | None) -> Window:
    """The window: from ``windows.before`` for ``--window`` [default: the scenario's ``plan.window``, else
    the run's ``windows.max_duration`` less its ``before`` and ``after``]; each job's own ``start`` (its
    earliest) inside it."""
    windows = scenario.windows
    length = next((given for given in (length_s, scenario.plan.window) if given is not None),
                  windows.max_duration - windows.before - windows.after)
    if not length > 0:
        raise ScenarioError("--window", f"expected a duration greater than zero, got {length:g} s")
    window = Window(windows.before, length)
    for i, job in enumerate(scenario.jobs):
        start = scenario.job_start(job)
        if start >= window.close_s:
            raise ScenarioError(f"batch[{i}].start", f"{start:g} s is after the schedule's window "
                                                     f"({window.open_s:g}-{window.close_s:g} s: {length:g} s from windows.before)")
    return window


def earliest(scenario: Scenario, window: Window) -> list[float]:
    return [max(window.open_s, scenario.job_start(job)) for job in scenario.jobs]


def schedule_path(scenario_name: str) -> Path:
    """``results/<scenario>-schedule.json``, named like the plan's."""
    return scenario_path(scenario_name, "schedule.json")


def write_schedule(document: dict, path: str | Path) -> Path:
    return SCHEDULE.write(document, path)


def run_schedule(scenario_file: str | Path, overrides: list[str] | None = None, window_s: float | None = None,
                 seed: int = 1, repeat: int = 3, trials: int = 12, changes: int = 32, workers: int | None = None,
                 progress: Progress | None = None, evaluator: Evaluator | None = None,
                 find_change: ChangeFinder | None = None, prune: bool = True) -> tuple[dict, dict]:
    """The schedule of ``scenario_file``'s night and the scenario that runs it: ``(document, mapping)``.
    ``find_change`` proposes the change a job that breaches alone needs (``tuner.planning.night_change``);
    ``prune``: a schedule's runs stop once it cannot be chosen (``tuner.planning.night_search.beaten_by``)."""
    if repeat < 1:
        raise ScenarioError("--repeat", f"expected at least 1, got {repeat}")
    if trials < 1:
        raise ScenarioError("--trials", f"expected at least 1, got {trials}")
    mapping = load_resolved(scenario_file, overrides or [])
    jobs_of(mapping)
    scenario = Scenario.from_mapping(mapping, source=str(scenario_file))
    window = window_of(scenario, window_s)
    names = [job.name for job in scenario.jobs]
    seeds = list(range(seed, seed + repeat))
    report = progress or (lambda done, total, what: None)
    evaluator = evaluator or model_evaluator()
    budget = len(seeds) * (len(names) + trials + 2 + changes)
    with Runner(night_figures, evaluator, Execution(workers=workers or min(len(seeds), 2))) as runner:
        nights = Nights(runner, seeds, report, budget)
        first = earliest(scenario, window)
        solos = [nights.run(with_starts(alone(mapping, i, first[i]), [first[i]], window), f"{name} alone")
                 for i, name in enumerate(names)]
        durations = [_duration(solo, name) for solo, name in zip(solos, names)]
        for name, duration, low in zip(names, durations, first):
            if low + duration > window.close_s:
                raise ScenarioError("--window", f"{window.length_s:g} s is shorter than job {name}'s load from its "
                                                f"earliest start ({low:g} s + {duration:,.1f} s alone on the model)")
        # a job's load from its own start within its own deadline, else the scenario's (as check holds it)
        deadlines = [job.deadline if job.deadline is not None else scenario.check.deadline for job in scenario.jobs]
        change = smallest_change(nights, mapping, scenario, solos, durations, deadlines, window, changes, find_change)
        night_mapping = change["mapping"] if change else mapping
        if change and change.get("durations"):
            durations = change["durations"]
        found = search_starts(nights, night_mapping, scenario, window, first, durations, deadlines, names, trials,
                              prune)
    chosen = found["chosen"]
    written = with_starts(night_mapping, chosen["starts"], window)
    written["name"] = f"{scenario.name}-schedule"
    document = SCHEDULE.document(
        scenario=scenario.name, source=str(scenario_file), overrides=list(overrides or []), evaluator=evaluator.name, seed=seed, seeds=seeds,
        window={"open_s": window.open_s, "close_s": window.close_s, "length_s": window.length_s},
        deadline_s=scenario.check.deadline, search={"method": "optuna-tpe", "trials": trials, "sampler_seed": SAMPLER_SEED,
                                      "first": "back to back, file order"},
        holds=chosen["holds"],
        jobs=[{"name": name, "client_id": job.client_id, "earliest_s": low, "deadline_s": deadlines[i], "start_s": start,
               "end_s": chosen["ends"][i], "alone_load_seconds": durations[i],
               "alone_holds": not breaching(solos[i]["tenants"])}
              for i, (name, job, low, start) in enumerate(zip(names, scenario.jobs, first, chosen["starts"]))],
        tenants=chosen["night"]["tenants"], night_end_s=chosen["night"]["night_end_s"],
        change=change["document"] if change else None,
        trials=found["trials"], pruned=sum(1 for t in found["trials"] if "pruned" in t),
        timeline=found["timeline"], runs=nights.done,
        back_to_back_window_s=_back_to_back_length(first, durations, scenario.windows.after, window))
    return document, written


def _back_to_back_length(first: list[float], durations: list[float], gap: float, window: Window) -> float:
    """The window the jobs need back to back (each as long as it ran alone, ``gap`` apart), in file order."""
    end = first[0] + durations[0]
    for low, duration in zip(first[1:], durations[1:]):
        end = max(low, end + gap) + duration
    return float(math.ceil(end - window.open_s))


def _duration(night: dict, name: str) -> float:
    span = night["jobs"].get(name)
    return span[1] - span[0] if span else night["load_seconds"]


def write_scenario(mapping: dict, path: str | Path) -> Path:
    """The scheduled night as a scenario file, read back as one before it is kept."""
    from workloads.reader import dump_yaml
    Scenario.from_mapping(mapping)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_yaml(mapping))
    return path
