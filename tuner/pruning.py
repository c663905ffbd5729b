"""A study's trials stopped at their verdict (Optuna's pruning, with a pruner of the study's own).

Optuna's median pruners compare a trial's intermediate values with other trials'; here a trial's
verdict is a constraint, and the model knows when it is settled: a neighbour's p99 during the load
over its SLA beyond doubt, or the load past its deadline (``simulator.model.verdict``). A trial whose
first seed missed leaves its other seeds unrun; one past ``prune_factor`` times the produce requests
of the best trial that held stops too (its requests are beaten, however it ends). A pruned trial is
told to Optuna as ``TrialState.PRUNED`` with its reason and figures so far, and the constraints it
already missed, so the sampler learns how far it missed; it is never a pick.

A study that prefers the shorter load (a scenario's ``tune.prefer: duration``) may pick a
trial with more requests than one that held, if its load is shorter: there a trial stops only once a
trial that held beats it on both, its requests by ``prune_factor`` (1: plain Pareto dominance, which
never drops a point of the front, so never a pick).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from simulator.evaluator import StopWhen
from workloads.limits import EVENTS_PER_S, TIME_MAX_S


# A run past the time a single run may take (workloads.limits: 10 minutes at the model's fastest
# events a second) stops, pruned as past that bound: e.g. a quota that throttles the load for most
# of an hour of simulated time, its neighbours' verdict not yet known.
RUN_EVENTS_MAX = int(TIME_MAX_S * EVENTS_PER_S)


@dataclass(frozen=True)
class TrialTask:
    """A study's trial as a task: its knob values, and when its runs may stop at their verdict."""

    params: dict[str, Any]
    stop: StopWhen | None = None
    progress: Callable[[int, float], None] | None = None   # (seed, simulated s), in this process only


def stop_when(settings: Any, held: Sequence[tuple[int, float]]) -> StopWhen | None:
    """When the next trial's runs stop: at a verdict known beyond doubt, or beaten by the trials that
    held, ``held`` their (produce requests, load seconds): past the study's factor times the fewest
    requests, or (preferring the shorter load) past a held trial's requests by the factor and its load."""
    if not settings.prune:
        return None
    if not held or settings.prune_factor <= 0:
        return StopWhen(events_over=RUN_EVENTS_MAX)
    if settings.prefer == "duration":
        return StopWhen(beaten_by=tuple((int(requests * settings.prune_factor), load_s)
                                        for requests, load_s in front_points(held)), events_over=RUN_EVENTS_MAX)
    return StopWhen(int(min(requests for requests, _ in held) * settings.prune_factor), events_over=RUN_EVENTS_MAX)


def front_points(held: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
    """The points no other beats on both (fewer requests and a shorter load): the others add nothing."""
    front: list[tuple[int, float]] = []
    for requests, load_s in sorted(set(held)):
        if not front or load_s < front[-1][1]:
            front.append((requests, load_s))
    return front


def running_progress(progress: Callable[..., None] | None, number: int, done: int, trials: int, best: int | None,
                     pruned: int) -> Callable[[int, float], None] | None:
    """The study's progress told the running trial's simulated time, each simulated second."""
    if progress is None:
        return None
    return lambda seed, seconds: progress(done, trials, best, pruned, f"trial {number}, seed {seed}: {seconds:,.0f} s simulated")
