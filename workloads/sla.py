"""A neighbour's p99 SLA: an absolute latency (``10ms``) or a factor of its own p99 alone (``1.5x``).

The relative form judges the load by what it adds: the neighbour's p99 during the load must stay
within ``factor`` times its p99 before the load, when it ran alone, in the same run. A bare
number is refused: ``10`` could be milliseconds, seconds or a factor.
"""
from __future__ import annotations

import math
import re
from typing import Any

from workloads.errors import ScenarioError
from workloads.units import parse_seconds

_FACTOR = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*x$")


class Sla:
    """``ms`` for an absolute SLA, ``factor`` for one relative to the neighbour alone (exactly one is set)."""

    __slots__ = ("ms", "factor")

    def __init__(self, ms: float | None = None, factor: float | None = None) -> None:
        if (ms is None) == (factor is None):
            raise ValueError("an SLA is either absolute (ms) or relative (factor)")
        object.__setattr__(self, "ms", ms)
        object.__setattr__(self, "factor", factor)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Sla is frozen")

    def __reduce__(self) -> tuple[type, tuple[float | None, float | None]]:
        # rebuilt through __init__: a live run hands its tenants to the neighbours' process by pickle
        return Sla, (self.ms, self.factor)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sla) and (self.ms, self.factor) == (other.ms, other.factor)

    def __hash__(self) -> int:
        return hash((self.ms, self.factor))

    def __repr__(self) -> str:
        return f"Sla({self})"

    def __str__(self) -> str:
        """As the scenario file takes it: ``10ms``, ``1.5x``."""
        return f"{self.factor:g}x" if self.factor is not None else f"{self.ms:g}ms"

    def as_value(self) -> str:
        return str(self)

    @property
    def relative(self) -> bool:
        return self.factor is not None

    def limit_ms(self, p99_alone_ms: float | None) -> float | None:
        """The p99 the neighbour may reach during the load: the absolute SLA, or ``factor`` times its
        p99 alone (None when it sent nothing alone: there is nothing to be relative to)."""
        if self.factor is None:
            return self.ms
        return None if p99_alone_ms is None else self.factor * p99_alone_ms

    def describe(self) -> str:
        """``10 ms`` or ``1.5x its p99 alone``."""
        return f"{self.factor:g}x its p99 alone" if self.factor is not None else f"{self.ms:g} ms"


def parse_sla(value: Any, path: str) -> Sla:
    """``10ms`` (any duration) or ``1.5x``; a number without a unit is refused."""
    if isinstance(value, Sla):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ScenarioError(path, f"{value!r} has no unit: write a p99 like 10ms, or a factor of the "
                                  "neighbour's p99 alone like 1.5x")
    text = str(value).strip()
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
