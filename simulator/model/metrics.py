"""The model's counters that become the RunResult: per-second timelines, means and the batches a
producer sent (the histograms themselves are the contract's: the live stack fills them too)."""
from __future__ import annotations

import math

from simulator.contract.histograms import SizeHistogram


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


class BatchSizes:
    """The batches a producer sent, by size on the wire and by uncompressed record bytes."""

    __slots__ = ("wire", "records")

    def __init__(self) -> None:
        self.wire = SizeHistogram()
        self.records = SizeHistogram()

    def record(self, wire: float, records: float) -> None:
        self.wire.record(wire)
        self.records.record(records)

    def add(self, other: BatchSizes) -> None:
        self.wire.add(other.wire)
        self.records.add(other.records)
