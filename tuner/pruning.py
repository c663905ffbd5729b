"""A study's trials stopped at their verdict (Optuna's pruning, with a pruner of the study's own).

Optuna's median pruners compare a trial's intermediate values with other trials'; here a trial's
verdict is a constraint, and the model knows when it is settled: a neighbour's p99 during the load
over its SLA beyond doubt, or the load past its deadline (``simulator.model.verdict``). A trial whose
first seed missed leaves its other seeds unrun; one past ``prune_factor`` times the produce requests
of the best trial that held stops too (its requests are beaten, however it ends). A pruned trial is
told to Optuna as ``TrialState.PRUNED`` with its reason and figures so far, and the constraints it
already missed, so the sampler learns how far it missed; it is never a pick.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from simulator.evaluator import StopWhen


@dataclass(frozen=True)
class TrialTask:
    """A study's trial as a task: its knob values, and when its runs may stop at their verdict."""

    params: dict[str, Any]
    stop: StopWhen | None = None
    progress: Callable[[int, float], None] | None = None   # (seed, simulated s), in this process only


def stop_when(settings: Any, best: int | None) -> StopWhen | None:
    """When the next trial's runs stop: at a verdict known beyond doubt, or past the study's factor
    times the requests of the best trial that held."""
    if not settings.prune:
        return None
    return StopWhen(int(best * settings.prune_factor) if best is not None and settings.prune_factor > 0 else None)


def running_progress(progress: Callable[..., None] | None, number: int, done: int, trials: int, best: int | None,
                     study: Any) -> Callable[[int, float], None] | None:
    """The study's progress told the running trial's simulated time, each simulated second."""
    if progress is None:
        return None
    from optuna.trial import TrialState
    pruned = len(study.get_trials(deepcopy=False, states=(TrialState.PRUNED,)))
    return lambda seed, seconds: progress(done, trials, best, pruned, f"trial {number}, seed {seed}: {seconds:,.0f} s simulated")
