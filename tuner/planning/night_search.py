"""The search over a night's start times (``tuner.planning.schedule`` says why Optuna's TPE): one
start a job, each night run on every seed and counted at its worst, the schedule that holds and
ends the night earliest chosen, else the one closest to holding."""
from __future__ import annotations

import math
from typing import Any, Sequence

from simulator.contract.lines import tenant_line
from simulator.evaluator import StopWhen
from tuner.planning.night import (SAMPLER_SEED, Nights, Window, back_to_back, constraints, breaching,
                                     with_starts)
from workloads import Scenario


def _violation(found: dict[str, float]) -> float:
    return sum(max(0.0, value) for value in found.values())


def beaten_by(held: Sequence[dict], starts: Sequence[float]) -> StopWhen | None:
    """When a schedule's runs stop: none until a schedule holds (until then the closest is chosen, by
    every seed's figures); then at a verdict that it cannot be chosen: a neighbour over its SLA
    beyond doubt, a job past its deadline, a seed that missed, or the night still loading past the
    end of the earliest night that held (a point of no requests: beaten on its load alone, counted
    from the first job's start, ``simulator.model.verdict``). Later trials of the same end are never
    chosen either: the earliest trial is."""
    if not held:
        return None
    best_end = min(t["night_end_s"] for t in held)
    return StopWhen(beaten_by=((-1, best_end - min(starts)),))


def _starts_after(held: Sequence[dict], starts: Sequence[float]) -> str | None:
    """Why a schedule is not run: its last job starts at or after the end of a night that held, so its
    own night ends later (a load takes time), never chosen."""
    if not held:
        return None
    best = min(held, key=lambda t: (t["night_end_s"], t["trial"]))
    if max(starts) < best["night_end_s"]:
        return None
    return (f"not run: its last job starts at {max(starts):g} s, after schedule {best['trial']}'s night, which held, "
            f"ended ({best['night_end_s']:,.1f} s)")


def _missed(figures: dict) -> dict[str, float]:
    """The SLAs a stopped run's neighbours were over so far, as the constraints count them."""
    return {f"sla:{name}": t["p99_ms_during"] / t["sla_p99_ms"] - 1.0 for name, t in figures["tenants"].items()
            if t.get("sla_p99_ms") is not None and t["p99_ms_during"] > t["sla_p99_ms"]}


def _pruned(number: int, starts: Sequence[float], night: dict) -> dict[str, Any]:
    """A schedule stopped at its verdict: its reason and figures so far; it never holds."""
    return {"trial": number, "starts_s": list(starts), "holds": False, "pruned": night["pruned"],
            "over_sla": sorted(name.removeprefix("sla:") for name in _missed(night["figures"])),
            "figures": night["figures"]}


def _ends(night: dict, starts: Sequence[float], durations: Sequence[float], names: Sequence[str]) -> list[float]:
    return [night["jobs"].get(name, [start, start + duration])[1]
            for name, start, duration in zip(names, starts, durations)]


def search_starts(nights: Nights, mapping: dict, scenario: Scenario, window: Window, first: list[float],
                  durations: list[float], deadlines: list[float | None], names: list[str], trials: int,
                  prune: bool = True) -> dict[str, Any]:
    """``trials`` schedules of ``mapping``'s jobs, the first back to back; the chosen one, every trial
    tried (starts, night end, what held) and the chosen night's timeline."""
    import optuna
    from optuna.trial import TrialState
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=SAMPLER_SEED))
    # whole seconds after the earliest start, the last that still ends the job inside the window
    latest = [low + max(0.0, math.floor(window.close_s - duration - low)) for low, duration in zip(first, durations)]
    study.enqueue_trial({f"start:{name}": start for name, start
                         in zip(names, back_to_back(first, durations, scenario.windows.after, window))})
    tried: list[dict[str, Any]] = []
    nights_of: dict[int, dict] = {}
    for number in range(trials):
        trial = study.ask()
        starts = [trial.suggest_float(f"start:{name}", low, high, step=1.0) if high > low else low
                  for name, low, high in zip(names, first, latest)]
        held = [t for t in tried if t["holds"]]
        pruned = sum(1 for t in tried if "pruned" in t)
        what = f"schedule {number + 1} of {trials}" + (f", {pruned} pruned" if pruned else "")
        late = _starts_after(held, starts) if prune else None
        if late is not None:   # the last job starts after a held night ended: its own night ends later, unrun
            tried.append({"trial": number, "starts_s": starts, "holds": False, "pruned": late})
            study.tell(trial, state=TrialState.PRUNED)
            continue
        night = nights.run(with_starts(mapping, starts, window), what, timeline=True,
                           stop=beaten_by(held, starts) if prune else None,
                           misses=lambda seed_night: _violation(constraints(seed_night, starts, durations, window,
                                                                            deadlines, names)) > 0)
        if "figures" in night:   # a run stopped at its verdict: the night's figures as far as it went
            tried.append(_pruned(number, starts, night))
            for key, value in _missed(night["figures"]).items():   # how far it missed, for the sampler
                trial.set_constraint(key, value)
            trial.report(night["figures"]["load_s"], 0)   # the sampler ranks pruned trials by how far their night ran
            study.tell(trial, state=TrialState.PRUNED)
            continue
        found = constraints(night, starts, durations, window, deadlines, names)
        ends = _ends(night, starts, durations, names)
        end = max([*ends, night["night_end_s"] or 0.0])
        for key, value in found.items():   # where the sampler reads them, as the study's trials set theirs
            trial.set_constraint(key, value)
        record = {"trial": number, "starts_s": starts, "ends_s": ends, "night_end_s": end,
                  "holds": _violation(found) == 0 and "pruned" not in night,
                  "over_sla": [t["name"] for t in breaching(night["tenants"])], "violation": round(_violation(found), 6)}
        if "pruned" in night:   # a seed that missed: the seeds after it not run
            tried.append({**record, "pruned": night["pruned"]})
            trial.report(end - min(starts), 0)
            study.tell(trial, state=TrialState.PRUNED)
            continue
        study.tell(trial, end)
        nights_of[number] = night
        tried.append(record)
    holding = [t for t in tried if t["holds"]]
    best = (min(holding, key=lambda t: (t["night_end_s"], t["trial"])) if holding
            else min((t for t in tried if "pruned" not in t), key=lambda t: (t["violation"], t["trial"])))
    night = nights_of[best["trial"]]
    return {"chosen": {"starts": best["starts_s"], "ends": best["ends_s"], "night": night, "holds": best["holds"],
                       "trial": best["trial"]},
            "trials": tried, "timeline": timeline(night, names, best["starts_s"], best["ends_s"])}


def timeline(night: dict, names: Sequence[str], starts: Sequence[float], ends: Sequence[float]) -> dict[str, Any]:
    """What the report draws: the jobs as bars and each neighbour's p99 second by second (the first seed's run)."""
    series = night.get("timeline") or {}
    return {"second": series.get("second", []),
            "p99_ms": {t["name"]: series.get(tenant_line(t['name']), []) for t in night["tenants"]},
            "sla_p99_ms": {t["name"]: t["sla_p99_ms"] for t in night["tenants"]},
            "jobs": [{"name": name, "start_s": start, "end_s": end} for name, start, end in zip(names, starts, ends)]}
