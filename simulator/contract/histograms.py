"""The histograms both evaluators fill and the RunResult sections made of them: a neighbour's
latency percentiles (``tenants[].latency_ms``) and the batch load's batch sizes (``batch_sizes``).
The model counts its own batches; the live stack counts the brokers' logs (``simulator.live.logdump``).
The histograms themselves are the event core's (``core/src/histograms.rs``): ``LatencyHistogram`` in
1 % buckets from 1 microsecond (HdrHistogram style), ``SizeHistogram`` in log2 buckets from 1 KiB.
"""
from __future__ import annotations

from simulator._core import LatencyHistogram, SizeHistogram
from simulator.contract.figures import BatchSizeFigures

__all__ = ["BATCH_BUCKET_FIRST_BYTES", "LatencyHistogram", "SizeHistogram", "batch_size_section"]


BATCH_BUCKET_FIRST_BYTES = 1024      # the first batch-size bucket's upper bound; each next one doubles (the core's too)


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
