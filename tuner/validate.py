"""Held-out seeds for the study's Pareto front: the pick must hold on seeds no trial ran.

The fewest requests within the SLA among many trials is also the luckiest timing: often a
setting that only just made it on the study's seeds. Before one is recommended, the front's
points, in the order the preference ranks them, run on further model seeds; the first that
meets its constraints on every one of them is the pick.
"""
from __future__ import annotations

import json
from collections import deque
from concurrent.futures import Future
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from simulator.contract import RunResult
from tuner.objective import Objective, Outcome
from tuner.runner import Runner
from tuner.study import TrialRecord, ranked
from workloads.units import format_seeds

Progress = Callable[[str], None]   # one line per front point tried


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
class Validation:
    seeds: tuple[int, ...]
    tried: list[Tried] = field(default_factory=list)
    pick: TrialRecord | None = None        # the first that held on every seed
    closest: TrialRecord | None = None     # with none: the one that held on the most seeds before missing

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
        return [] if tried is None else [f"over its constraints on held-out model seed {tried.missed_on}, "
                                         f"after holding on {tried.held_on} of {len(self.seeds)}"]

    def lines(self) -> list[str]:
        """The validation in words, for the recommendation."""
        missed = ", ".join(str(t) for t in self.tried if t.missed_on is not None)
        if self.pick is None:
            return [f"no point of the front held on {self.label}: {missed}"]
        return [f"held its constraints on {self.label}" + (f"; before it, {missed}" if missed else "")]


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
                except BaseException as error:   # raised where the result is read, as from a worker
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


def validate_front(objective: Objective, front: list[TrialRecord], prefer: str, seeds: tuple[int, ...],
                   progress: Progress | None = None,
                   runs: Callable[[int, int], None] | None = None, seed_runs: SeedRuns | None = None) -> Validation:
    """Each front point in the preference's order on ``seeds``, one seed after another until
    it misses on one, until a point holds on all of them. ``runs`` gets the model runs done
    and the most there can be (every point on every seed) after each run. ``seed_runs`` runs a
    point's next seeds while one is judged: the outcome is the same, sooner."""
    seed_runs = seed_runs or SeedRuns(objective)
    tried: list[Tried] = []
    points = ranked(front, prefer)
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
            return Validation(seeds, tried, pick=trial)
    best = max(range(len(tried)), key=lambda i: (tried[i].held_on, -i), default=None)
    return Validation(seeds, tried, closest=points[best] if best is not None else None)
