"""A producer batch: the records of one partition that leave in one produce request.

Sizes follow the v2 record batch format (``DefaultRecordBatch``) and the Java client's size
estimate for compressed batches (``MemoryRecordsBuilder``, ``CompressionRatioEstimator``).
"""
from __future__ import annotations

from typing import Callable

from simulator.model.broker import Partition

BATCH_HEADER = 61                    # DefaultRecordBatch.RECORD_BATCH_OVERHEAD
REQUEST_HEADER = 120                 # produce request + topic entry, approximately
PARTITION_HEADER = 30
ESTIMATION_FACTOR = 1.05             # MemoryRecordsBuilder.COMPRESSION_RATE_ESTIMATION_FACTOR
IMPROVING_STEP, DETERIORATE_STEP = 0.005, 0.05   # CompressionRatioEstimator


class Batch:
    __slots__ = ("partition", "created", "bytes", "records", "full", "memory", "codec", "intended",
                 "waiters", "wire", "closed_at")

    def __init__(self, partition: Partition, created: float, memory: int, codec: str):
        self.partition = partition
        self.codec = codec        # compression.type: the batch header's attributes say it
        self.created = created
        self.bytes = 0.0          # uncompressed record bytes
        self.records = 0.0
        self.full = False         # closed for appends
        self.memory = memory
        self.intended: list[float] | None = None   # neighbours' records: their intended send times
        self.waiters: list[FlushToken] | None = None
        self.wire = 0.0           # bytes on the wire once closed (compressed + header)
        self.closed_at = 0.0      # when it stopped taking records

    def sizes(self) -> tuple[float, float, float, str, Partition]:
        """What a broker reads of it, in one call: wire bytes, records, uncompressed bytes, codec, partition."""
        return self.wire, self.records, self.bytes, self.codec, self.partition


class FlushToken:
    __slots__ = ("pending", "on_done")

    def __init__(self, on_done: Callable[[], None]):
        self.pending = 0
        self.on_done = on_done
