"""The search over a night's start times (``tuner.planning.schedule`` says why Optuna's TPE): one
start a job, each night run on every seed and counted at its worst, the schedule that holds and
ends the night earliest chosen, else the one closest to holding."""
from __future__ import annotations

import math
from typing import Any, Sequence

from simulator.contract.lines import tenant_line
from tuner.planning.night import (SAMPLER_SEED, Nights, Window, back_to_back, constraints, over_sla,
                                     with_starts)
from workloads import Scenario


def _violation(found: dict[str, float]) -> float:
    return sum(max(0.0, value) for value in found.values())


def _ends(night: dict, starts: Sequence[float], durations: Sequence[float], names: Sequence[str]) -> list[float]:
    return [night["jobs"].get(name, [start, start + duration])[1]
            for name, start, duration in zip(names, starts, durations)]


def search_starts(nights: Nights, mapping: dict, scenario: Scenario, window: Window, first: list[float],
                  durations: list[float], deadlines: list[float | None], names: list[str], trials: int) -> dict[str, Any]:
    """``trials`` schedules of ``mapping``'s jobs, the first back to back; the chosen one, every trial
    tried (starts, night end, what held) and the chosen night's timeline."""
    import optuna
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
        night = nights.run(with_starts(mapping, starts, window), f"schedule {number + 1} of {trials}", timeline=True)
        found = constraints(night, starts, durations, window, deadlines, names)
        ends = _ends(night, starts, durations, names)
        end = max([*ends, night["night_end_s"] or 0.0])
        for key, value in found.items():   # where the sampler reads them, as the study's trials set theirs
            trial.set_constraint(key, value)
        study.tell(trial, end)
        nights_of[number] = night
        tried.append({"trial": number, "starts_s": starts, "ends_s": ends, "night_end_s": end,
                      "holds": _violation(found) == 0, "over_sla": [t["name"] for t in over_sla(night["tenants"])],
                      "violation": round(_violation(found), 6)})
    holding = [t for t in tried if t["holds"]]
    best = (min(holding, key=lambda t: (t["night_end_s"], t["trial"])) if holding
            else min(tried, key=lambda t: (t["violation"], t["trial"])))
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
