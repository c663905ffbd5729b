"""The one judgement of a neighbour against its SLA, and of several seeds' runs at their worst.

Every verdict of the tool goes through these: ``check``'s gate, a trial's constraints, a plan's
points, a night's schedule and a policy's proof. The wording of a verdict is
``simulator.contract.explain``'s; it words what is judged here and judges nothing itself.
"""
from __future__ import annotations

from typing import Iterable


def over(p99_ms: float, sla_ms: float) -> bool:
    """The one test of a p99 against its SLA: at the SLA is within it."""
    return p99_ms > sla_ms


def over_sla(p99_ms: float | None, sla_ms: float | None) -> bool:
    """A neighbour's p99 during the load over its SLA; one that sent nothing during the load (no
    p99), or is held to no SLA, is not over it (whether it may pass so is its caller's rule)."""
    return p99_ms is not None and sla_ms is not None and over(p99_ms, sla_ms)


def worst_p99(values: Iterable[float | None]) -> float | None:
    """A neighbour's p99 over several seeds' runs: the highest of those it sent records in (None: none)."""
    sent = [value for value in values if value is not None]
    return max(sent) if sent else None


def best_p99(values: Iterable[float | None]) -> float | None:
    """The lowest of them: a p99 before the load at its best, the spread's other end."""
    sent = [value for value in values if value is not None]
    return min(sent) if sent else None
