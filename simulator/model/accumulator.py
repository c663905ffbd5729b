"""The producer's RecordAccumulator: per-partition deques of batches, filled by the appending
threads (a flow of bytes for bulk jobs, one record at a time for neighbours), batch capacity
with the JVM-wide compression ratio estimate, ``buffer.memory``, and what the sender asks of it:
``ready`` (which leaders have a sendable batch, and when to look again) and ``drain`` (the
batches of one produce request), and the batches ``delivery.timeout.ms`` old that ``expire``.

Bulk appends are a flow of bytes (rate x time) so cost grows with batches, not records; a
drain takes whole records only (send() adds a record in one call): what the flow added of the
next record stays behind and goes where the next record goes.
"""
from __future__ import annotations

import math
from collections import deque
from itertools import takewhile
from typing import Callable

from simulator._core import Random
from simulator.model.batch import (BATCH_HEADER, DETERIORATE_STEP, ESTIMATION_FACTOR, IMPROVING_STEP, PARTITION_HEADER,
                                   REQUEST_HEADER, Batch, FlushToken)
from simulator.model.broker import Broker, Partition
from simulator.model.client import ClientSpec
from simulator.model.partitioner import StickyPartitioner
from workloads.settings import producer_setting


class RecordAccumulator:
    """The appending side of one producer and its batches until the sender completes them."""

    def __init__(self, spec: ClientSpec, partitions: list[Partition], rng: Random,
                 on_block_change: Callable[[], None] | None = None):
        config = spec.config
        self.partitions = partitions
        self.by_node: dict[Broker, list[Partition]] = {}
        for partition in partitions:
            self.by_node.setdefault(partition.leader, []).append(partition)
        self.nodes = sorted(self.by_node, key=lambda b: b.id)
        self.batch_size = config.batch_size
        self.linger = config.linger_ms / 1e3
        self.buffer_memory = config.buffer_memory
        self.codec = config.compression_type
        self.librdkafka = spec.client.kind == "librdkafka"
        self.batch_records = config.batch_num_messages or math.inf
        self.ratio_at = spec.ratio_at
        self.ratio_bytes = -1.0         # the last batch size asked of ratio_at, and its answer:
        self.ratio = 1.0                # full batches repeat one size
        self.record_bytes = spec.record_bytes
        # keys, or round-robin without them (clients before 2.4): a flow fills every partition's batch
        self.keyed = spec.keyed or spec.client.partitioner == "round-robin"
        self.deques: dict[Partition, deque[Batch]] = {p: deque() for p in partitions}
        # each leader's partitions' deques in by_node's order: a drain walks them all
        self.node_deques = {node: [self.deques[p] for p in led] for node, led in self.by_node.items()}
        self.nonempty: dict[Partition, deque[Batch]] = {}   # the partitions with batches, and their deques
        self.queued = [0] * len(partitions)   # batches in each partition's deque, in partitions' order
        self.queued_on: dict[Broker, int] = {node: 0 for node in self.nodes}   # partitions with batches, by leader
        self.drain_index = {node: 0 for node in self.nodes}     # nodesDrainIndex
        self.sticky = StickyPartitioner(spec.client.partitioner, partitions, self.deques, self.queued, rng,
                                        config.batch_size)
        self.ratio_estimate = 1.0
        self.batch_capacity = 0.0
        self._update_capacity()
        self.memory_used = 0
        self.blocked = False            # send() waits for buffer.memory
        self.flushes = 0                # flushes in progress
        self.incomplete: dict[Batch, None] = {}
        self.on_block_change = on_block_change
        # the appending flow (bulk jobs): bytes per second while not blocked
        self.rate = 0.0
        self.last_advance = 0.0
        self.appended = 0.0
        self.carry = 0.0                # part of a record a drain left behind, appended next
        # a fixed-rate record source (neighbours): records are appended when the producer
        # next looks, each with its own intended send time
        self.source_next = math.inf
        self.source_interval = 0.0
        self.source_size = 0.0
        self.source_partition: Callable[[], Partition | None] = lambda: None
        self.blocked_since, self.blocked_seconds, self.append_seconds = 0.0, 0.0, 0.0
        timeout = producer_setting("delivery_timeout_ms").in_force(config.delivery_timeout_ms, spec.client)
        self.delivery_timeout = math.inf if timeout is None else timeout / 1e3
        self.expired_in_flight: dict[Batch, None] = {}
        self.expired_records, self.expiry_due = 0.0, self.delivery_timeout   # none expires before expiry_due

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
        batch = Batch(partition, now, memory, self.codec)
        self.memory_used += memory
        dq = self.deques[partition]
        dq.append(batch)
        self.queued[partition.index] += 1
        if partition not in self.nonempty:
            self.nonempty[partition] = dq
            self.queued_on[partition.leader] += 1
        self.incomplete[batch] = None
        return batch

    # ---- appending -------------------------------------------------------------------
    def set_rate(self, rate: float, now: float) -> None:
        """The appending threads' bytes per second from ``now`` on."""
        self.advance(now)
        self.rate = rate

    def send_at_rate(self, first: float, interval: float, size: float,
                     partition: Callable[[], Partition | None]) -> None:
        """Records of ``size`` bytes every ``interval`` seconds from ``first`` on."""
        self.source_next, self.source_interval, self.source_size = first, interval, size
        self.source_partition = partition

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
        if batch.bytes != self.ratio_bytes:
            self.ratio_bytes = batch.bytes
            self.ratio = self.ratio_at(batch.bytes)
        ratio = self.ratio
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

    # ---- flush ---------------------------------------------------------------------------
    def begin_flush(self, now: float, on_done: Callable[[], None]) -> bool:
        """KafkaProducer.flush(): every batch becomes sendable; ``on_done`` once all the batches
        incomplete now are done. False when there is none (``on_done`` was called)."""
        self.advance(now)
        token = FlushToken(on_done)
        for batch in self.incomplete:
            if batch.waiters is None:
                batch.waiters = []
            batch.waiters.append(token)
            token.pending += 1
        if not token.pending:
            on_done()
            return False
        self.flushes += 1
        return True

    # ---- what the sender asks ------------------------------------------------------------
    def sendable(self, dq: deque[Batch], now: float) -> bool:
        """Full, lingered long enough, memory exhausted or a flush running; and one whole record."""
        head = dq[0]
        if len(dq) == 1 and self._part_record(head):
            return False
        return (head.full or len(dq) > 1 or now - head.created >= self.linger - 1e-9
                or self.flushes > 0 or self.blocked)

    def expire(self, now: float) -> None:
        """expiredBatches and getExpiredInflightBatches: each batch (oldest first) created delivery.timeout.ms
        ago fails (failBatch), a queued one with its memory back; its records expire (TimeoutException)."""
        due = [batch for batch in takewhile(lambda b: now - b.created >= self.delivery_timeout, self.incomplete)
               if batch not in self.expired_in_flight]
        for batch in due:
            dq = self.deques[batch.partition]
            if dq and dq[0] is batch:
                self._take(batch.partition, now)
                self.deallocate(batch)
                self.flushed(batch)
            else:
                self.expired_in_flight[batch] = None
            self.expired_records += batch.records
        if due:
            self.release(now)
        self.expiry_due = min(next(iter(self.incomplete)).created if self.incomplete else now, now) + self.delivery_timeout - 1e-9

    def ready(self, now: float) -> tuple[dict[Broker, None], float]:
        """The leaders with a sendable batch, and when a batch that is not sendable yet will be
        (lingered, full, or holding one whole record) or the flow fills the sticky one."""
        if now >= self.expiry_due:
            self.expire(now)
        ready: dict[Broker, None] = {}
        next_check = math.inf
        flowing = self.rate > 0 and not self.blocked
        for partition, dq in self.nonempty.items():
            if self.sendable(dq, now):
                ready[partition.leader] = None
                continue
            head = dq[0]
            next_check = min(next_check, max(head.created + self.linger, self._whole_record_at(partition, head, now)))
            if flowing and not self.keyed and partition is self.sticky.current:
                next_check = min(next_check, now + (self.capacity() - head.bytes) / self.rate)
        return ready, next_check

    def _part_record(self, batch: Batch) -> bool:
        """The flow has appended less than one record to ``batch``: send() has not returned yet,
        so there is nothing to drain (unless a flush or a full buffer.memory must take it).
        Records appended one by one (neighbours') are always whole."""
        return (not batch.full and batch.bytes < self.record_bytes - 1e-6
                and not (self.flushes or self.blocked))

    def _whole_record_at(self, partition: Partition, head: Batch, now: float) -> float:
        """When the head batch holds one whole record: a drain never sends part of one."""
        if not self._part_record(head):
            return now
        growth = 0.0 if self.rate <= 0 or self.blocked else (
            self.rate / len(self.partitions) if self.keyed else self.rate if partition is self.sticky.current else 0.0)
        return now + (self.record_bytes - head.bytes) / growth if growth > 0 else math.inf

    def drain(self, node: Broker, now: float, max_size: int, room: int) -> list[list[Batch]]:
        """drainBatchesForOneNode: the head batch of every partition ``node`` leads, from the
        partition after the last drain's first, into one request of at most ``max_size``
        bytes. librdkafka: one partition per request, each when its own batch is sendable, at
        most ``room`` requests."""
        partitions = self.by_node[node]
        queues = self.node_deques[node]
        start = self.drain_index[node]
        self.drain_index[node] = (start + 1) % len(partitions)
        if self.librdkafka:
            out: list[list[Batch]] = []
            for i in range(len(partitions)):
                partition = partitions[(start + i) % len(partitions)]
                dq = queues[(start + i) % len(partitions)]
                if len(out) < room and dq and self.sendable(dq, now):
                    out.append([self._take(partition, now)])
            return out
        taken: list[Batch] = []
        size = float(REQUEST_HEADER)
        for i in range(len(partitions)):
            dq = queues[(start + i) % len(partitions)]
            if not dq:
                continue
            partition = partitions[(start + i) % len(partitions)]
            head = dq[0]
            if self._part_record(head):
                continue
            rest = 0.0
            if not head.full:
                rest = self._trim(head)
                self._close(head, now)
            if taken and size + head.wire + PARTITION_HEADER > max_size:
                self._untrim(head, rest)
                break
            taken.append(self._take(partition, now))
            size += head.wire + PARTITION_HEADER
            if rest > 0.0:     # the record send() is still appending goes where the next one does
                self.carry += rest
                self.appended -= rest
                self.sticky.taken_back(partition, rest)
        return [taken] if taken else []

    def _take(self, partition: Partition, now: float) -> Batch:
        dq = self.deques[partition]
        batch = dq.popleft()
        self.queued[partition.index] -= 1
        self._close(batch, now)
        if not dq:   # with KIP-480 the next record then needs a new batch, and switches (for_record)
            del self.nonempty[partition]
            self.queued_on[partition.leader] -= 1
        return batch

    # ---- completion ----------------------------------------------------------------------
    def deallocate(self, batch: Batch) -> None:
        """A batch is done: its buffer.memory is free (send() unblocks in ``release``)."""
        self.memory_used -= batch.memory
        del self.incomplete[batch]
        self.expired_in_flight.pop(batch, None)

    def flushed(self, batch: Batch) -> None:
        """A flush waiting for ``batch`` is done once its last batch is."""
        for token in batch.waiters or ():
            token.pending -= 1
            if not token.pending:
                self.flushes -= 1
                token.on_done()

    def release(self, now: float) -> None:
        """After completions: a send() blocked on buffer.memory goes on when a batch fits."""
        if self.blocked and self.memory_used + self.batch_size <= self.buffer_memory:
            self.blocked = False
            self.blocked_seconds += now - self.blocked_since
            self.last_advance = now
            if self.on_block_change:
                self.on_block_change()
