"""Held-out seeds for the study's candidates: the pick must hold on seeds no trial ran.

The fewest requests within the SLA among many trials is also the luckiest timing: often a
setting that only just made it on the study's seed. Before one is recommended, every feasible
trial is judged again at its worst over ``SCREEN_SEEDS`` seeds (the study's and the next ones;
a study run with ``--repeat`` that many judged them so already), and those still within their
constraints, in the order the preference ranks them, run on further model seeds; the first
that meets its constraints on every one of them is the pick.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
from collections import deque
from concurrent.futures import Future
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from simulator.contract import RunResult
from simulator.contract import explain as words
from judging.margin import Margin
from tuner.objective import Objective, Outcome
from tuner.runner import Runner
from tuner.study import TrialRecord, ranked
from workloads.units import format_seeds

Progress = Callable[[str], None]   # one line per front point tried
# Seeds a feasible trial is judged on, at its worst, before the held-out ones. On the published case
# with each SLA at 1.5x the neighbour alone (100 trials, one seed each) no point of the study's front
# held on 20 held-out seeds; judged at the worst of three first, a pick holds (bench/tune_pick_holds.py).
SCREEN_SEEDS = 3


@dataclass(frozen=True)
class Tried:
    """One front point on the held-out seeds, run in order until the first it misses on."""

    trial: int
    held_on: int                   # seeds it met its constraints on before missing (all: it held)
    missed_on: int | None          # the seed it first missed on
    produce_requests: int          # the most of the seeds it ran

    def to_dict(self) -> dict[str, Any]:
        return {"trial": self.trial, "held_on": self.held_on, "missed_on": self.missed_on,
                "produce_requests": self.produce_requests}

    def __str__(self) -> str:
        return f"trial {self.trial} ({self.produce_requests:,} requests) missed on seed {self.missed_on}"


@dataclass(frozen=True)
class HeldOut:
    seeds: tuple[int, ...]
    tried: list[Tried] = field(default_factory=list)
    pick: TrialRecord | None = None        # the first that held on every seed
    closest: TrialRecord | None = None     # with none: the one that held on the most seeds before missing
    notes: tuple[str, ...] = ()            # what changed the pick afterwards (cheaper hardware that held too)
    screened_on: tuple[int, ...] = ()      # the seeds the candidates were judged on first, at their worst

    @property
    def label(self) -> str:
        return f"held-out model {format_seeds(self.seeds)}"

    def to_dict(self) -> dict[str, Any]:
        chosen = self.pick or self.closest
        return {"seeds": list(self.seeds), "held": self.pick is not None, "pick": chosen.number if chosen else None,
                "tried": [t.to_dict() for t in self.tried]}

    def missed(self, trial: int) -> list[str]:
        """What ``trial`` missed on the held-out seeds, as the recommendation lists misses."""
        tried = next((t for t in self.tried if t.trial == trial and t.missed_on is not None), None)
        if tried is None:
            return [f"over its constraints at its worst on model {format_seeds(self.screened_on)}"] if self.screened_on else []
        return [f"over its constraints on held-out model seed {tried.missed_on}, "
                f"after holding on {tried.held_on} of {len(self.seeds)}"]

    def lines(self) -> list[str]:
        """The validation in words, for the recommendation."""
        missed = ", ".join(str(t) for t in self.tried if t.missed_on is not None)
        if self.pick is None:
            return [f"no point of the front held on {self.label}: {missed}"]
        return [f"held its constraints on {self.label}" + (f"; before it, {missed}" if missed else ""), *self.notes]


class SeedRuns:
    """Model runs of knob values on seeds through a tune's runner (its work ``tuning_work``):
    side by side on its workers, each (knob values, seed) run once however often it is asked
    for. Without a runner each runs at once in this process. Outcomes are combined here, in
    the order asked, so they are what the same runs one after another would give."""

    def __init__(self, objective: Objective, runner: Runner | None = None, workers: int = 1) -> None:
        self.objective, self.runner, self.workers = objective, runner, workers if runner else 1
        self._runs: dict[tuple[str, int], Future] = {}

    def submit(self, params: dict[str, Any], seed: int) -> Future:
        key = (json.dumps(params, sort_keys=True, default=str), seed)
        if key not in self._runs:
            if self.runner is not None:
                self._runs[key] = self.runner.submit((params, seed))
            else:
                self._runs[key] = Future()
                try:
                    self._runs[key].set_result(self.objective.run_on(params, seed))
                except Exception as error:   # raised where the result is read, as from a worker (a stop signal: at once)
                    self._runs[key].set_exception(error)
        return self._runs[key]

    def result(self, params: dict[str, Any], seed: int) -> RunResult:
        return self.submit(params, seed).result()

    def outcome_on(self, params: dict[str, Any], seeds: tuple[int, ...]) -> Outcome:
        """``Objective.evaluate_on``, the seeds run side by side."""
        futures = [self.submit(params, seed) for seed in seeds]
        return self.objective.evaluate_on(params, seeds, [future.result() for future in futures])

    def outcomes_in_order(self, params: dict[str, Any], seeds: tuple[int, ...]) -> Iterator[Outcome]:
        """Each seed's outcome in the order of ``seeds``, the following seeds running meanwhile
        (one per worker): a caller that stops early wastes at most those."""
        ahead: deque[tuple[int, Future]] = deque()
        waiting = iter(seeds)
        try:
            for seed in waiting:
                ahead.append((seed, self.submit(params, seed)))
                if len(ahead) >= self.workers:
                    break
            while ahead:
                seed, future = ahead.popleft()
                result = future.result()
                following = next(waiting, None)
                if following is not None:
                    ahead.append((following, self.submit(params, following)))
                yield self.objective.evaluate_on(params, (seed,), [result])
        finally:
            for _, future in ahead:
                future.cancel()


def judge_held_out(objective: Objective, front: list[TrialRecord], prefer: str, seeds: tuple[int, ...],
                   progress: Progress | None = None,
                   runs: Callable[[int, int], None] | None = None, seed_runs: SeedRuns | None = None,
                   price: Callable[[dict[str, Any]], float] | None = None,
                   margin: Margin = Margin()) -> HeldOut:
    """Each front point on ``seeds``, one seed after another until it misses on one, until a
    point holds on all of them: those that held with ``margin`` on the study's seeds first (the
    model's own error, ``judging.margin``), then the cheapest by ``price`` (of its knob values; e.g.
    the vCPUs it adds to the cluster), then in the preference's order. ``runs`` gets the model runs
    done and the most there can be (every point on every seed) after each run. ``seed_runs``
    runs a point's next seeds while one is judged: the outcome is the same, sooner."""
    seed_runs = seed_runs or SeedRuns(objective)
    tried: list[Tried] = []
    points = ranked(front, prefer)
    if price is not None:     # a stable sort: the preference's order among points of one price
        points.sort(key=lambda point: round(price(point.params), 6))
    points.sort(key=lambda point: not margin.holds_constraints(point.constraints))
    done, most = 0, len(points) * len(seeds)
    for trial in points:
        held, missed_on, requests = 0, None, 0
        with closing(seed_runs.outcomes_in_order(trial.params, seeds)) as outcomes:
            for seed, outcome in zip(seeds, outcomes):
                done += 1
                if runs:
                    runs(done, most)
                requests = max(requests, outcome.produce_requests)
                if not outcome.feasible:
                    missed_on = seed
                    break
                held += 1
        tried.append(Tried(trial.number, held, missed_on, requests))
        if progress:
            progress(f"trial {trial.number} on {len(seeds)} held-out seeds: " +
                     ("held" if missed_on is None else f"missed on seed {missed_on}"))
        if missed_on is None:
            return HeldOut(seeds, tried, pick=trial)
    best = max(range(len(tried)), key=lambda i: (tried[i].held_on, -i), default=None)
    return HeldOut(seeds, tried, closest=points[best] if best is not None else None)


def screened(judge: Objective, trials: list[TrialRecord], seed_runs: SeedRuns,
             progress: Progress | None = None) -> list[TrialRecord]:
    """The feasible trials judged again on ``judge``'s seeds, each at its worst (the most requests,
    the longest load, each constraint's highest value): the candidates, feasible or not now."""
    feasible = [trial for trial in trials if trial.feasible]
    for trial in feasible:           # all submitted first: they run side by side on the runner's workers
        for seed in judge.seeds:
            seed_runs.submit(trial.params, seed)
    out = []
    for trial in feasible:
        out.append(_judged(trial.number, trial.params, seed_runs.outcome_on(trial.params, judge.seeds)))
    if progress:
        progress(f"{len(feasible)} feasible trials at their worst on model {format_seeds(judge.seeds)}: "
                 f"{sum(t.feasible for t in out)} still within their constraints")
    return out


def _judged(number: int, params: dict[str, Any], outcome: Outcome) -> TrialRecord:
    """Trial ``number`` with ``params`` as ``outcome`` judged it."""
    return TrialRecord(number, params, outcome.produce_requests, outcome.load_seconds, outcome.constraints,
                       outcome.figures, outcome.overrides)


def cheapest_hardware(judge: Objective, validation: HeldOut, seed_runs: SeedRuns,
                      progress: Progress | None = None) -> HeldOut:
    """The pick with the fewest vCPUs of hardware (broker count and type, the knobs that add machines)
    that still meets its constraints on ``judge``'s seeds and the held-out ones: a sampler that
    samples every knob at once seldom leaves the cluster's machines as they are, so the smaller
    changes are tried here, cheapest first, each seed by seed until its first miss."""
    pick = validation.pick
    hardware = [r for r in judge.space.ranges if r.knob.hardware and r.values()]
    if pick is None or not hardware or not judge.added_vcpus(pick.params):
        return validation
    price = judge.added_vcpus(pick.params)
    variants = [{**pick.params, **dict(zip([r.name for r in hardware], values))}
                for values in itertools.product(*(r.values() for r in hardware))]
    priced = sorted(((judge.added_vcpus(v), i) for i, v in enumerate(variants)))
    seeds = judge.seeds + validation.seeds
    for cost, i in priced:
        if cost >= price:
            break
        params = variants[i]
        with closing(seed_runs.outcomes_in_order(params, seeds)) as outcomes:
            if all(outcome.feasible for outcome in outcomes):
                changed = ", ".join(words.changed(r.name, r.knob.render(pick.params[r.name]), r.knob.render(params[r.name]))
                                    for r in hardware if params[r.name] != pick.params[r.name])
                if progress:
                    progress(f"trial {pick.number} with less hardware ({changed}): held")
                smaller = _judged(pick.number, params, seed_runs.outcome_on(params, judge.seeds))
                note = (f"with less hardware it held too, on model {format_seeds(seeds)}: {changed} "
                        f"({cost:.0%} more vCPUs than the cluster has, not {price:.0%})")
                return dataclasses.replace(validation, pick=smaller, notes=(*validation.notes, note))
    return validation
