"""A night's runs as the schedule searches them: the window its starts fall in, one night on every
seed counted at its worst (each neighbour's highest p99, each end the latest), the scenario mapping
with its jobs' starts, and the constraints a schedule is held to (``tuner.planning.schedule``)."""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from simulator.contract import judgement
from simulator.evaluator import Evaluator, RunStopped, StopWhen, stops_early
from tuner.runner import Runner, simulated
from workloads import Scenario, ScenarioError

Progress = Callable[[int, int, str], None]     # (runs done, runs at most, what is running)
SAMPLER_SEED = 1                               # the sampler's own seed: same scenario, same schedule


@dataclass(frozen=True)
class Window:
    """Where a night's starts may fall: from ``open_s`` (the run's ``windows.before``) for ``length_s``."""

    open_s: float
    length_s: float

    @property
    def close_s(self) -> float:
        return self.open_s + self.length_s


def night_figures(evaluator: Evaluator, task: dict) -> dict:
    """One night on one seed: each neighbour's p99 during the jobs' loads, when the night's loads
    ended, each job's span where the run reports it, and the timeline a report draws (asked for);
    with a ``stop`` (``StopWhen``), the run stopped at its verdict, its reason and figures so far;
    a module-level function, so process pools run it."""
    scenario, stop = Scenario.from_mapping(task["scenario"]), task.get("stop")
    try:
        if stop is not None and stops_early(evaluator):
            result = evaluator.evaluate(scenario, task["seed"], simulated, stop=stop)   # type: ignore[call-arg]
        else:
            result = evaluator.evaluate(scenario, task["seed"], simulated)
    except RunStopped as stopped:
        return {"seed": task["seed"], "pruned": f"seed {task['seed']}: {stopped.reason}", "figures": stopped.figures}
    during = result.windows.get("during") or [None, None]
    figures = {"seed": task["seed"], "load_seconds": result.summary.load_seconds, "night_end_s": during[1],
               "tenants": [t.as_row() for t in result.summary.tenants],
               "jobs": job_spans(result)}
    if task.get("timeline"):
        figures["timeline"] = {key: list(values) for key, values in result.timelines.items()
                               if key == "second" or key.startswith("tenant.")}
    return figures


def job_spans(result: Any) -> dict[str, list[float]]:
    """Each job's load start and end (s from the run's start), from the run's per-job figures (a
    night's run has them); a load that did not end counts to the run's end."""
    return {job.name: [job.load_start_s, job.load_end_s if job.load_end_s is not None else result.summary.simulated_seconds]
            for job in result.jobs if job.load_start_s is not None}


def worst(runs: list[dict]) -> dict:
    """Several seeds' nights at their worst: each neighbour's highest p99, each end the latest."""
    tenants = []
    for i, tenant in enumerate(runs[0]["tenants"]):
        tenants.append({**tenant, "p99_ms_during": judgement.worst_p99(r["tenants"][i]["p99_ms_during"] for r in runs)})
    ends = [r["night_end_s"] for r in runs if r["night_end_s"] is not None]
    jobs = {name: [min(r["jobs"][name][0] for r in runs), max(r["jobs"][name][1] for r in runs)]
            for name in runs[0]["jobs"] if all(name in r["jobs"] for r in runs)}
    loads = [r["load_seconds"] for r in runs if r["load_seconds"] is not None]
    return {"tenants": tenants, "night_end_s": max(ends) if ends else None, "jobs": jobs,
            "load_seconds": max(loads) if loads else None, "seeds": [r["seed"] for r in runs]}


def breaching(tenants: list[dict]) -> list[dict]:
    return [t for t in tenants if judgement.over_sla(t["p99_ms_during"], t["sla_p99_ms"])]


class Nights:
    """Runs nights (a scenario mapping on every seed, side by side on the runner) and counts them."""

    def __init__(self, runner: Runner, seeds: Sequence[int], progress: Progress, budget: int) -> None:
        self.runner, self.seeds, self.progress, self.budget, self.done = runner, list(seeds), progress, budget, 0

    def run(self, mapping: dict, what: str, timeline: bool = False, stop: StopWhen | None = None,
            misses: Callable[[dict], bool] | None = None) -> dict:
        """The night at its worst over the seeds; with ``stop``, each run stops at its verdict, and a
        seed's run that stopped, or that ``misses`` (its night on its own), leaves the seeds after it
        unrun: the night is then pruned (``pruned``: why, ``figures``: the stopped run's so far)."""
        tasks = [{"scenario": mapping, "seed": seed, "timeline": timeline and i == 0, "stop": stop}
                 for i, seed in enumerate(self.seeds)]

        def decided(runs: list[dict]) -> bool:
            last = runs[-1]
            return "pruned" in last or (misses is not None and misses(worst([last])))
        def told(finished: int, _: int) -> None:
            running = self.runner.running()
            self.progress(self.done + finished, self.budget, what + (f", {running}" if running else ""))
        runs = self.runner.run(tasks, told, decided if stop is not None else None)
        self.done += len(runs)
        if "pruned" in runs[-1]:
            return {"pruned": runs[-1]["pruned"], "figures": runs[-1]["figures"], "seeds": [r["seed"] for r in runs]}
        found = worst(runs)
        if len(runs) < len(self.seeds):
            found["pruned"] = f"seed {runs[-1]['seed']}: the night missed; seeds after it not run"
        if timeline:
            found["timeline"] = runs[0]["timeline"]
        return found


def jobs_of(mapping: dict) -> list[dict]:
    """The night's jobs as the file lists them (``batch:`` a list)."""
    batch = mapping.get("batch")
    if not isinstance(batch, list):
        raise ScenarioError("batch", "a schedule is for a night's jobs: give `batch:` as a list of named jobs")
    return batch


def with_starts(mapping: dict, starts: Sequence[float], window: Window) -> dict:
    """``mapping`` with each job starting at its start, and a run long enough to measure the window."""
    changed = copy.deepcopy(mapping)
    for job, start in zip(jobs_of(changed), starts):
        job["start"] = f"{start:g}s"
    windows = changed.setdefault("windows", {})
    given = Scenario.from_mapping(mapping).windows
    need = window.close_s + given.after
    if given.max_duration < need:
        windows["max_duration"] = f"{math.ceil(need):g}s"
    return changed


def alone(mapping: dict, index: int, start: float) -> dict:
    """The night with job ``index`` alone, starting at ``start``."""
    changed = copy.deepcopy(mapping)
    job = copy.deepcopy(jobs_of(mapping)[index])
    job["start"] = f"{start:g}s"
    changed["batch"] = [job]
    return changed


def back_to_back(first: list[float], durations: list[float], gap: float, window: Window) -> list[float]:
    """Each job after the one before ended alone, ``gap`` later, in file order; clipped to the window."""
    starts: list[float] = []
    for i, (low, duration) in enumerate(zip(first, durations)):
        start = low if not starts else max(low, starts[-1] + durations[i - 1] + gap)
        starts.append(float(math.ceil(min(start, window.close_s - duration))))
    return starts


def constraints(night: dict, starts: Sequence[float], durations: Sequence[float], window: Window,
                deadlines: Sequence[float | None], names: Sequence[str]) -> dict[str, float]:
    """Optuna's constraints (held at <= 0): each neighbour's p99 over its SLA, each job's end past the
    window's close, and its load past its deadline, relative."""
    found = {f"sla:{t['name']}": t["p99_ms_during"] / t["sla_p99_ms"] - 1.0
             for t in night["tenants"] if t["p99_ms_during"] is not None}
    for name, start, duration, deadline in zip(names, starts, durations, deadlines):
        span = night["jobs"].get(name, [start, start + duration])
        found[f"end:{name}"] = (span[1] - window.close_s) / window.length_s
        if deadline:
            found[f"deadline:{name}"] = (span[1] - span[0]) / deadline - 1.0
    if night["night_end_s"] is not None:
        found["end:night"] = (night["night_end_s"] - window.close_s) / window.length_s
    return found
