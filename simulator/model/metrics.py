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


BATCH_BUCKET_FIRST_BYTES = 1024      # the first batch-size bucket's upper bound; each next one doubles


class SizeHistogram:
    """Batch sizes counted in log2 buckets: bucket 0 holds sizes up to 1 KiB, bucket i those in
    (2^(i-1), 2^i] KiB, so a batch of exactly ``batch.size`` (a power of two) counts in its bucket."""

    __slots__ = ("counts",)

    def __init__(self) -> None:
        self.counts: list[int] = []

    def record(self, size: float) -> None:
        index = 0
        bound = float(BATCH_BUCKET_FIRST_BYTES)
        while size > bound:   # a few doublings: cheaper than a logarithm, and exact at the bounds
            bound += bound
            index += 1
        counts = self.counts
        if index >= len(counts):
            counts.extend([0] * (index + 1 - len(counts)))
        counts[index] += 1

    def add(self, other: SizeHistogram) -> None:
        counts = self.counts
        if len(other.counts) > len(counts):
            counts.extend([0] * (len(other.counts) - len(counts)))
        for index, count in enumerate(other.counts):
            counts[index] += count


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


def batch_size_section(source: str, wire_bytes: SizeHistogram, record_bytes: SizeHistogram | None,
                       records: float | None) -> dict:
    """A RunResult's ``batch_sizes``: the batch load's produce batches per bucket, by bytes on the
    wire (batch header included) and by uncompressed record bytes (None where unknown)."""
    buckets = max(len(wire_bytes.counts), len(record_bytes.counts) if record_bytes is not None else 0)

    def padded(histogram: SizeHistogram) -> list[int]:
        return histogram.counts + [0] * (buckets - len(histogram.counts))

    return {"source": source,
            "bucket_upper_bytes": [BATCH_BUCKET_FIRST_BYTES << index for index in range(buckets)],
            "wire_bytes": padded(wire_bytes),
            "record_bytes": padded(record_bytes) if record_bytes is not None else None,
            "batches": sum(wire_bytes.counts), "records": records}
