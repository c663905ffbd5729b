"""What ends a run before its end: the rule a caller hands the evaluator, and what the run raises."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StopWhen:
    """When a run may stop before its end, its verdict known: a neighbour's p99 during the load over
    its SLA beyond doubt (or the load past ``check.deadline``), or the load's produce requests past
    ``requests_over`` (a setting that sends that many is beaten however it ends), or both its
    produce requests and its load's seconds past those of one of ``beaten_by`` (a point that held:
    beaten on both, the run is off the Pareto front however it ends); and, a bound rather than a
    verdict, past ``events_over`` events (the time a single run may take, which the run-size
    estimate refuses before a run whose least is longer)."""

    requests_over: int | None = None
    beaten_by: tuple[tuple[int, float], ...] = ()   # (produce requests, load seconds) of trials that held
    events_over: int | None = None   # past this many events the run is past a single run's limit: a bound, not a verdict


class RunStopped(Exception):
    """A run stopped at its verdict: why, and its figures so far."""

    def __init__(self, reason: str, figures: dict[str, Any]) -> None:
        super().__init__(reason, figures)
        self.reason, self.figures = reason, figures
