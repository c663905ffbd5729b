"""Counters that become the RunResult: per-second timelines and latency histograms."""
from __future__ import annotations

import math


class Timeline:
    """Values summed into 1-second buckets. The second being added to is summed in place
    (most additions land in the current second) and written to its bucket when another
    second comes."""

    __slots__ = ("buckets", "second", "sum")

    def __init__(self) -> None:
        self.buckets: list[float] = []
        self.second = -1
        self.sum = 0.0

    def add(self, time: float, value: float = 1.0) -> None:
        second = int(time)
        if second == self.second:
            self.sum += value
            return
        self._flush()
        self.second = second
        self.sum = value

    def _flush(self) -> None:
        if self.second < 0:
            return
        buckets = self.buckets
        if self.second >= len(buckets):
            buckets.extend([0.0] * (self.second + 1 - len(buckets)))
        buckets[self.second] += self.sum
        self.second = -1
        self.sum = 0.0

    def add_interval(self, start: float, end: float, weight: float = 1.0) -> None:
        """Spread ``weight`` x the overlap of [start, end) with each second."""
        while start < end:
            boundary = math.floor(start) + 1.0
            stop = end if end < boundary else boundary
            self.add(start, (stop - start) * weight)
            start = stop

    def values(self, seconds: int) -> list[float]:
        self._flush()
        return (self.buckets + [0.0] * seconds)[:seconds]

    def total(self, start: float = 0.0, end: float = math.inf) -> float:
        self._flush()
        return math.fsum(v for s, v in enumerate(self.buckets) if start <= s < end)


class LatencyHistogram:
    """Log-bucketed latencies (1 % wide buckets from 1 microsecond), HdrHistogram style."""

    __slots__ = ("counts", "count", "maximum")
    _STEP = math.log(1.01)

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.count = 0
        self.maximum = 0.0

    def record(self, seconds: float) -> None:
        micros = seconds * 1e6
        index = int(math.log(micros) / self._STEP) + 1 if micros > 1.0 else 0
        self.counts[index] = self.counts.get(index, 0) + 1
        self.count += 1
        if seconds > self.maximum:
            self.maximum = seconds

    def percentile(self, fraction: float) -> float | None:
        """Upper edge of the bucket holding the given quantile, in milliseconds."""
        if not self.count:
            return None
        rank = max(1, math.ceil(fraction * self.count))
        seen = 0
        for index in sorted(self.counts):
            seen += self.counts[index]
            if seen >= rank:
                return min(math.exp(index * self._STEP) / 1e3, self.maximum * 1e3)
        return self.maximum * 1e3

    def summary(self) -> dict:
        return {"count": self.count, "p50": self.percentile(0.50), "p95": self.percentile(0.95),
                "p99": self.percentile(0.99), "p999": self.percentile(0.999),
                "max": self.maximum * 1e3 if self.count else None}


class Mean:
    __slots__ = ("total", "count")

    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0

    def add(self, value: float) -> None:
        self.total += value
        self.count += 1

    @property
    def value(self) -> float | None:
        return self.total / self.count if self.count else None
