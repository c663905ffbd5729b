"""The histograms both evaluators fill and the RunResult sections made of them: a neighbour's
latency percentiles (``tenants[].latency_ms``) and the batch load's batch sizes (``batch_sizes``).
The model counts its own batches; the live stack counts the brokers' logs (``simulator.live.logdump``).
"""
from __future__ import annotations

import math
from collections import Counter
from typing import ClassVar, Iterable

from simulator.contract.figures import BatchSizeFigures


class LatencyHistogram:
    """Log-bucketed latencies (1 % wide buckets from 1 microsecond), HdrHistogram style."""

    __slots__ = ("counts", "count", "maximum")
    _STEP: ClassVar[float] = math.log(1.01)

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.count = 0
        self.maximum = 0.0

    @classmethod
    def bucket(cls, seconds: float) -> int:
        """The bucket a latency counts in."""
        micros = seconds * 1e6
        return int(math.log(micros) / cls._STEP) + 1 if micros > 1.0 else 0

    @classmethod
    def of_buckets(cls, buckets: Iterable[int], maximum: float) -> LatencyHistogram:
        """The histogram of latencies given by their buckets (``bucket``) and the largest of them."""
        histogram = cls()
        histogram.counts = dict(Counter(buckets))
        histogram.count = sum(histogram.counts.values())
        histogram.maximum = maximum
        return histogram

    def record(self, seconds: float) -> None:
        self.record_in(self.bucket(seconds), seconds)

    def record_in(self, index: int, seconds: float) -> None:
        """Count a latency whose bucket (``bucket``) is already known."""
        counts = self.counts
        counts[index] = counts.get(index, 0) + 1
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


BATCH_BUCKET_FIRST_BYTES = 1024      # the first batch-size bucket's upper bound; each next one doubles


class SizeHistogram:
    """Batch sizes counted in log2 buckets: bucket 0 holds sizes up to 1 KiB, bucket i those in
    (2^(i-1), 2^i] KiB, so a batch of exactly ``batch.size`` (a power of two) counts in its bucket."""

    __slots__ = ("counts",)

    def __init__(self) -> None:
        self.counts: list[int] = []

    def record(self, size: float) -> None:
        # the least i with size <= 2^i KiB, off the float's exponent: exact, since dividing by
        # 1024 only moves the exponent, and a bound (mantissa 0.5) counts in the bucket below
        if size > BATCH_BUCKET_FIRST_BYTES:
            mantissa, index = math.frexp(size / BATCH_BUCKET_FIRST_BYTES)
            if mantissa == 0.5:
                index -= 1
        else:
            index = 0
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


def batch_size_section(source: str, wire_bytes: SizeHistogram, record_bytes: SizeHistogram | None,
                       records: float | None) -> BatchSizeFigures:
    """A RunResult's ``batch_sizes``: the batch load's produce batches per bucket, by bytes on the
    wire (batch header included) and by uncompressed record bytes (None where unknown)."""
    buckets = max(len(wire_bytes.counts), len(record_bytes.counts) if record_bytes is not None else 0)

    def padded(histogram: SizeHistogram) -> tuple[int, ...]:
        return (*histogram.counts, *[0] * (buckets - len(histogram.counts)))

    return BatchSizeFigures(source=source,
                            bucket_upper_bytes=tuple(BATCH_BUCKET_FIRST_BYTES << index for index in range(buckets)),
                            wire_bytes=padded(wire_bytes),
                            record_bytes=padded(record_bytes) if record_bytes is not None else None,
                            batches=sum(wire_bytes.counts), records=records)
