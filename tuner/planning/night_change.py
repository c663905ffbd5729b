"""The smallest change that lets a night be scheduled: when a job breaches an SLA (or its
deadline) even alone, no start time saves it. A ``ChangeFinder`` proposes the change for the job
alone (``quietload plan`` passes the gate's recommended change, ``tuner.planning.night_advice``); with
none, or when it finds nothing that passes, the first single change that makes it hold alone,
tried in ``tuner.widen``'s order (the job's own settings, then its quota, then the cluster's; each
knob of the registry in its order), every knob's value nearest the job's own before any knob's
next, each on every seed.
The change is then made to the whole night (a job's setting and its quota by the job's path,
``batch[i].``; a cluster setting for every job)."""
from __future__ import annotations

from itertools import zip_longest
from typing import Any, Callable

from judging.advice import Change
from simulator.evaluator import StopWhen
from tuner.planning.jobs import one_job
from tuner.planning.night import Nights, Window, alone, breaching, with_starts
from tuner.widen import changes
from workloads import Scenario, ScenarioError
from workloads.batch import for_job
from workloads.scenario import with_file_values
from workloads.tuning import KNOBS, LEVERS, WHO, params_changes


ChangeFinder = Callable[[dict, list[int]], tuple[Change, ...]]   # (a job alone as one job, seeds) -> its changes, or ()


def job_changes(name: str, value: Any, index: int) -> dict[tuple[str, ...], Any]:
    """Knob ``name`` at ``value`` for job ``index`` of a night: its typed values at their paths (a job's
    under ``batch``, its ``index``; a cluster setting the cluster's), with the settings that go with it."""
    return params_changes({name: value}, index)


def job_overrides(name: str, value: Any, index: int) -> list[str]:
    """The change as a person repeats it with ``--set`` (the schedule file shows it), job ``index``'s keys under ``batch[index].``."""
    return for_job(KNOBS[name].overrides(value), index)


def nearest_first(scenario: Scenario) -> list[tuple[str, str, Any]]:
    """``tuner.widen``'s single changes, every knob's nearest value before any knob's next: a cluster
    setting one step away comes before a job's setting three steps away."""
    by_knob: dict[str, list[tuple[str, str, Any]]] = {}
    for change in changes(scenario, LEVERS):
        by_knob.setdefault(change[1], []).append(change)
    return [change for step in zip_longest(*by_knob.values()) for change in step if change is not None]


def _holds(solo: dict, duration: float, deadline: float | None, window: Window) -> bool:
    return not breaching(solo["tenants"]) and (not deadline or duration <= deadline) and duration <= window.length_s


def _stop(scenario: Scenario, index: int) -> StopWhen | None:
    """A job alone stops at its verdict (``simulator.model.verdict``: one job's load held to
    ``check.deadline``) where that is the deadline it is held to here, its own unset or the same."""
    return StopWhen() if scenario.jobs[index].deadline in (None, scenario.check.deadline) else None


def _alone(nights: Nights, mapping: dict, what: str, deadline: float | None, window: Window,
           stop: StopWhen | None) -> dict | None:
    """A job alone on every seed; None once it cannot hold (only a run that holds is kept), its runs
    stopped at their verdict and the seeds after one that missed not run."""
    solo = nights.run(mapping, what, stop=stop, misses=lambda night: not _holds(night, night["load_seconds"], deadline, window))
    return None if "pruned" in solo or not _holds(solo, solo["load_seconds"], deadline, window) else solo


def smallest_change(nights: Nights, mapping: dict, scenario: Scenario, solos: list[dict], durations: list[float],
                    deadlines: list[float | None], window: Window, budget: int,
                    find_change: ChangeFinder | None = None) -> dict | None:
    """None when every job holds alone; else the night's mapping with, for each job that does not,
    the first change (at most ``budget`` tried in all) that makes it hold alone, and the change in
    words for the schedule file."""
    names = [job.name for job in scenario.jobs]
    hurt = [i for i, (solo, duration) in enumerate(zip(solos, durations)) if not _holds(solo, duration, deadlines[i], window)]
    if not hurt:
        return None
    night, made, tried, durations = mapping, [], 0, list(durations)
    for i in hurt:
        start = max(window.open_s, scenario.job_start(scenario.jobs[i]))
        stop = _stop(scenario, i)
        if night is not mapping:   # an earlier job's change may be the cluster's: this job alone again first
            solo = _alone(nights, with_starts(alone(night, i, start), [start], window), f"{names[i]} alone after the change",
                          deadlines[i], window, stop)
            if solo is not None:
                durations[i] = solo["load_seconds"]
                continue
        view = Scenario.from_mapping(alone(night, i, start))   # the job alone: its knobs read as the first job's
        found = _proposed(nights, night, i, start, names[i], find_change, deadlines[i], window, stop) if find_change else None
        tried += 1 if found is not None else 0
        for lever, name, value in nearest_first(view) if found is None else ():
            if tried >= budget:
                break
            try:
                candidate = with_starts(with_file_values(alone(night, i, start), job_changes(name, value, 0)), [start], window)
                Scenario.from_mapping(candidate)
            except ScenarioError:
                continue
            tried += 1
            solo = _alone(nights, candidate, f"{names[i]} alone with {KNOBS[name].setting(value)}", deadlines[i], window, stop)
            if solo is not None:
                duration = solo["load_seconds"]
                found = {"job": names[i], "lever": lever, "who": WHO[lever], "setting": KNOBS[name].setting(value),
                         "overrides": job_overrides(name, value, i), "changes": job_changes(name, value, i),
                         "alone_load_seconds": duration,
                         "alone_tenants": solo["tenants"]}
                durations[i] = duration
                break
        if found is None:
            made.append({"job": names[i], "found": False, "tried": tried})
            continue
        night = with_file_values(night, found.pop("changes"))
        durations[i] = found["alone_load_seconds"]
        made.append({**found, "found": True, "tried": tried})
    return {"mapping": night, "durations": durations, "document": made}


def _proposed(nights: Nights, night: dict, index: int, start: float, name: str, find_change: ChangeFinder,
              deadline: float | None, window: Window, stop: StopWhen | None = None) -> dict | None:
    """The finder's change for job ``index`` alone, run again alone in the night's form on every seed:
    the change if it holds there, else None."""
    single, _ = one_job(alone(night, index, start), name, False)
    found = find_change(single, nights.seeds)
    if not found:
        return None
    lines = [line for change in found for line in change.overrides]
    solo = _alone(nights, with_starts(with_file_values(alone(night, index, start), _at(found, 0)), [start], window),
                  f"{name} alone with its change", deadline, window, stop)
    if solo is None:
        return None
    setting = ", ".join(KNOBS[knob].setting(value) for change in found for knob, value in change.values)
    return {"job": name, "lever": "gate", "who": "quietload check's recommended change", "setting": setting,
            "overrides": for_job(lines, index), "changes": _at(found, index), "alone_load_seconds": solo["load_seconds"], "alone_tenants": solo["tenants"]}


def _at(changes: tuple[Change, ...], index: int) -> dict[tuple[str, ...], Any]:
    """The changes (made to a job alone) as values for the night's job ``index``, at their paths."""
    return {path: value for change in changes for path, value in params_changes(dict(change.values), index).items()}
