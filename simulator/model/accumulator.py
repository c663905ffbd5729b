"""The producer's RecordAccumulator: per-partition deques of batches, filled by the appending
threads (a flow of bytes for bulk jobs, one record at a time for neighbours), batch capacity
with the JVM-wide compression ratio estimate, and ``buffer.memory``.

Bulk appends are a flow of bytes (rate x time) so cost grows with batches, not records; a
drain takes whole records only (send() adds a record in one call): what the flow added of the
next record stays behind and goes where the next record goes.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Any, Callable

from simulator.model.batch import BATCH_HEADER, DETERIORATE_STEP, ESTIMATION_FACTOR, IMPROVING_STEP, Batch
from simulator.model.broker import Partition
from simulator.model.partitioner import StickyPartitioner


class Accumulator:
    """The appending side of one producer (``producer.Producer`` adds the sender)."""

    batch_size: int
    librdkafka: bool
    batch_records: float
    record_bytes: float
    codec: str
    keyed: bool
    partitions: list[Partition]
    ratio_at: Callable[[float], float]
    ratio_estimate: float
    batch_capacity: float
    buffer_memory: int
    memory_used: int
    deques: dict[Partition, deque[Batch]]
    nonempty: dict[Partition, None]
    incomplete: dict[Batch, None]
    sticky: StickyPartitioner
    flushes: int
    blocked: bool
    blocked_since: float
    on_block_change: Callable[[], None] | None
    rate: float
    last_advance: float
    appended: float
    carry: float
    append_seconds: float
    source_next: float
    source_interval: float
    source_size: float
    source_partition: Callable[[], Partition | None]

    # ---- capacity and partitioning -------------------------------------------------
    def capacity(self) -> float:
        """Uncompressed bytes a new batch takes before it is full (whole records)."""
        return self.batch_capacity

    def _update_capacity(self) -> None:
        room: float
        if self.librdkafka:
            room = min(float(self.batch_size), self.batch_records * self.record_bytes)
        elif self.codec == "none":
            room = float(self.batch_size - BATCH_HEADER)
        else:
            room = (self.batch_size - BATCH_HEADER) / (self.ratio_estimate * ESTIMATION_FACTOR)
        self.batch_capacity = max(self.record_bytes, math.floor(room / self.record_bytes) * self.record_bytes)

    def _open_batch(self, partition: Partition, now: float) -> Batch | None:
        """The partition's batch taking appends, creating one if memory allows."""
        dq = self.deques[partition]
        if dq and not dq[-1].full:
            return dq[-1]
        memory = self.batch_size if not self.librdkafka else 0
        if self.memory_used + memory > self.buffer_memory:
            return None
        return self._new_batch(partition, now, memory)

    def _new_batch(self, partition: Partition, now: float, memory: int) -> Batch:
        batch = Batch(partition, now, memory)
        self.memory_used += memory
        self.deques[partition].append(batch)
        self.nonempty[partition] = None
        self.incomplete[batch] = None
        return batch

    # ---- appending -------------------------------------------------------------------
    def advance(self, now: float) -> None:
        """Append the records and the flow's bytes due since the last call, batch by batch."""
        while self.source_next <= now:
            self.append_record(self.source_next, self.source_size, self.source_partition(), self.source_next)
            self.source_next += self.source_interval
        elapsed = now - self.last_advance
        self.last_advance = now
        if self.rate <= 0.0 or elapsed <= 0.0 or self.blocked:
            return
        self.append_seconds += elapsed
        amount = self.rate * elapsed + self.carry
        self.carry = 0.0
        cursor = now - elapsed
        while amount > 1e-3:
            taken = self._append_keyed(amount, cursor) if self.keyed else self._append_sticky(amount, cursor)
            if taken is None:
                self._block(cursor)
                return
            amount -= taken
            cursor += taken / self.rate
            self.appended += taken

    def _append_sticky(self, amount: float, now: float) -> float | None:
        partition = self.sticky.for_record(now)
        batch = self._open_batch(partition, now)
        if batch is None:
            return None
        room = self.capacity() - batch.bytes
        take = min(amount, room, self.sticky.room(self.record_bytes))
        batch.bytes += take
        batch.records += take / self.record_bytes
        if room - take < 0.5 * self.record_bytes:   # the next record would not fit
            self._close(batch, now + take / self.rate)
        self.sticky.add(partition, take, now)
        return take

    def _append_keyed(self, amount: float, now: float) -> float | None:
        """Keys hash evenly over all partitions: every open batch grows at rate / N."""
        share = amount / len(self.partitions)
        step = share
        for partition in self.partitions:
            batch = self._open_batch(partition, now)
            if batch is None:
                return None
            step = min(step, self.capacity() - batch.bytes)
        for partition in self.partitions:
            batch = self.deques[partition][-1]
            batch.bytes += step
            batch.records += step / self.record_bytes
            if self.capacity() - batch.bytes < 0.5 * self.record_bytes:
                self._close(batch, now + step * len(self.partitions) / self.rate)
        return step * len(self.partitions)

    def append_record(self, now: float, size: float, partition: Partition | None, intended: float) -> None:
        """One neighbour record (key decides ``partition``; None means no key)."""
        if partition is None:
            partition = self.sticky.for_record(now)
        batch = self._open_batch(partition, now)
        if batch is not None and batch.records and (batch.bytes + size > self.capacity() or batch.records >= self.batch_records):
            self._close(batch, now)
            batch = self._open_batch(partition, now)
        if batch is None:  # buffer.memory exhausted: a neighbour's send() would block; keep the record
            batch = self._new_batch(partition, now, 0)
        batch.bytes += size
        batch.records += 1
        if batch.intended is None:
            batch.intended = []
        batch.intended.append(intended)
        self.sticky.add(partition, size, now)


    def _close(self, batch: Batch, now: float) -> None:
        if batch.full:
            return
        batch.full = True
        batch.closed_at = now
        if self.codec == "none":
            batch.wire = BATCH_HEADER + batch.bytes
            return
        ratio = self.ratio_at(batch.bytes)
        batch.wire = BATCH_HEADER + batch.bytes * ratio
        if not self.librdkafka:  # CompressionRatioEstimator.updateEstimation
            if ratio > self.ratio_estimate:
                self.ratio_estimate = max(self.ratio_estimate + DETERIORATE_STEP, ratio)
            elif ratio < self.ratio_estimate:
                self.ratio_estimate = max(self.ratio_estimate - IMPROVING_STEP, ratio)
            self._update_capacity()

    def _block(self, now: float) -> None:
        self.blocked = True
        self.blocked_since = now
        if self.on_block_change:
            self.on_block_change()

    def _trim(self, batch: Batch) -> float:
        """A drain takes whole records only: the flow's record in progress stays behind (a
        flush or a full buffer.memory takes what there is). Returns the bytes left behind."""
        if self.rate <= 0.0 or self.flushes or self.blocked:
            return 0.0
        whole = math.floor(batch.bytes / self.record_bytes + 1e-9) * self.record_bytes
        rest = batch.bytes - whole
        if rest < 1e-6 or whole <= 0.0:
            return 0.0
        batch.bytes = whole
        batch.records = whole / self.record_bytes
        return rest

    def _untrim(self, batch: Batch, rest: float) -> None:
        """The batch stays for the next request: give back what ``_trim`` took off."""
        if rest > 0.0:
            batch.full = False
            batch.bytes += rest
            batch.records += rest / self.record_bytes
