"""A neighbour's p99 SLA: an absolute latency (``10ms``) or a factor of its own p99 alone (``1.5x``).

The relative form judges the load by what it adds: the neighbour's p99 during the load must stay
within ``factor`` times its p99 alone. That p99 alone is resolved once per study
(``simulator.model.alone``: the neighbours without the load, on stated model seeds) and written back
into the scenario as ``1.5x of 8.21ms (model seeds 1-5)``, so that every run, trial, policy and
check of the study holds the neighbour to the same figure. A live run resolves it once from the rig's
own measure, its first run's p99 before the load (``simulator.live.alone``), for that run and every
repeat. A bare number is refused: ``10`` could be milliseconds, seconds or a factor.
"""
from __future__ import annotations

import math
import re
from typing import Any

from workloads.errors import ScenarioError
from workloads.units import parse_seconds

_FACTOR = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*x$")
# a relative SLA resolved once: ``1.5x of 8.21ms (model seeds 1-5)``
_RESOLVED = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*x\s+of\s+(\S+)\s*\(([^()]+)\)$")


class Sla:
    """``ms`` for an absolute SLA, ``factor`` for one relative to the neighbour alone; a relative SLA
    resolved (``resolved``) has both, with the p99 alone it multiplies and where that came from."""

    __slots__ = ("ms", "factor", "alone_ms", "alone_from")

    def __init__(self, ms: float | None = None, factor: float | None = None, alone_ms: float | None = None,
                 alone_from: str | None = None) -> None:
        if alone_ms is not None:
            if factor is None or ms is not None or not alone_from:
                raise ValueError("a resolved SLA is a factor of a p99 alone, with where that came from")
            ms = round(factor * alone_ms, 2)   # as every output prints it
        elif (ms is None) == (factor is None):
            raise ValueError("an SLA is either absolute (ms) or relative (factor)")
        object.__setattr__(self, "ms", ms)
        object.__setattr__(self, "factor", factor)
        object.__setattr__(self, "alone_ms", alone_ms)
        object.__setattr__(self, "alone_from", alone_from)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Sla is frozen")

    def __reduce__(self) -> tuple[type, tuple]:
        # rebuilt through __init__: a live run hands its tenants to the neighbours' process by pickle
        if self.alone_ms is not None:
            return Sla, (None, self.factor, self.alone_ms, self.alone_from)
        return Sla, (self.ms, self.factor)

    def _key(self) -> tuple:
        return (self.ms, self.factor, self.alone_ms, self.alone_from)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sla) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Sla({self})"

    def __str__(self) -> str:
        """As the scenario file takes it: ``10ms``, ``1.5x``, ``1.5x of 8.21ms (model seeds 1-5)``."""
        if self.alone_ms is not None:
            return f"{self.factor:g}x of {self.alone_ms:g}ms ({self.alone_from})"
        return f"{self.factor:g}x" if self.factor is not None else f"{self.ms:g}ms"

    def as_value(self) -> str:
        return str(self)

    @property
    def relative(self) -> bool:
        """Relative and not yet resolved: each run's p99 before the load is what it multiplies."""
        return self.factor is not None and self.alone_ms is None

    def resolved(self, alone_ms: float, alone_from: str) -> "Sla":
        """This relative SLA fixed at ``factor`` times ``alone_ms`` (rounded to 0.01 ms, as written)."""
        return Sla(factor=self.factor, alone_ms=round(alone_ms, 2), alone_from=alone_from)

    def limit_ms(self, p99_alone_ms: float | None) -> float | None:
        """The p99 the neighbour may reach during the load: the absolute (or resolved) SLA, or
        ``factor`` times its p99 alone in the run (None when it sent nothing alone)."""
        if not self.relative:
            return self.ms
        return None if p99_alone_ms is None else self.factor * p99_alone_ms

    def describe(self) -> str:
        """``10 ms``, ``1.5x its p99 alone``, or ``12.32 ms (1.5x its p99 alone, 8.21 ms on model seeds 1-5)``."""
        if self.alone_ms is not None:
            return f"{self.ms:,.2f} ms ({self.factor:g}x its p99 alone, {self.alone_ms:g} ms on {self.alone_from})"
        return f"{self.factor:g}x its p99 alone" if self.factor is not None else f"{self.ms:g} ms"


def parse_sla(value: Any, path: str) -> Sla:
    """``10ms`` (any duration) or ``1.5x``; a number without a unit is refused."""
    if isinstance(value, Sla):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ScenarioError(path, f"{value!r} has no unit: write a p99 like 10ms, or a factor of the "
                                  "neighbour's p99 alone like 1.5x")
    text = str(value).strip()
    resolved = _RESOLVED.match(text)
    if resolved:
        factor = parse_sla(f"{resolved.group(1)}x", path).factor
        alone = parse_sla(resolved.group(2), path).ms
        return Sla(factor=factor, alone_ms=alone, alone_from=resolved.group(3).strip())
    factor = _FACTOR.match(text)
    if factor:
        number = float(factor.group(1))
        if not math.isfinite(number) or number < 1:
            raise ScenarioError(path, f"a relative SLA is a factor of at least 1 of the p99 alone, got {value!r}")
        return Sla(factor=number)
    try:
        seconds = parse_seconds(text, path)
    except ScenarioError:
        raise ScenarioError(path, f"expected a p99 like 10ms, or a factor of the neighbour's p99 alone "
                                  f"like 1.5x, got {value!r}") from None
    if seconds <= 0:
        raise ScenarioError(path, f"must be greater than zero, got {value!r}")
    return Sla(ms=seconds * 1000.0)
