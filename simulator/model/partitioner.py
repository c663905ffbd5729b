"""Where a producer's records without a key go: the clients' partitioners (a keyed record's partition
is Kafka's ``murmur2`` of its key, as the default partitioner hashes it).

Before 2.4 (``DefaultPartitioner``): round-robin, a counter per topic that starts at a random
value, each record the next partition; a flow of records then fills every partition's batch at
an equal share of the rate, as keys do (the accumulator spreads it so).
KIP-480 (kafka-clients 2.4-3.2, ``StickyPartitionCache``): a random partition other than the
last each time a record needs a new batch. KIP-794 (3.3 on, ``BuiltInPartitioner``): a switch
once ``batch.size`` went to the partition and its queue has no batch still taking records (the
sender drained it: ``RecordAccumulator.append`` checks ``allBatchesFull`` before and after each
append; a batch that cannot take the next record stays open until that record starts the next
one, so a queue whose batches filled by appends never qualifies), else once 2 x ``batch.size``
went to it (KAFKA-14156), to a partition weighted against long queues (adaptive partitioning). librdkafka: a new random partition every
``sticky.partitioning.linger.ms``.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Callable

from simulator._core import Random
from simulator.model.batch import Batch
from simulator.model.broker import Partition

LIBRDKAFKA_STICKY_S = 0.010          # sticky.partitioning.linger.ms


class StickyPartitioner:
    """The sticky partition of one producer, switched as its client does; reads the
    accumulator's queues (``deques``, and ``queued``: how many batches each holds) as the
    client's partitioner does."""

    __slots__ = ("kind", "partitions", "deques", "queued", "rng", "random", "randrange", "switch_bytes",
                 "drained_switch_bytes", "current", "produced", "since")

    def __init__(self, kind: str, partitions: list[Partition], deques: dict[Partition, deque[Batch]], queued: list[int],
                 rng: Random, batch_size: int):
        self.kind, self.partitions, self.deques, self.rng = kind, partitions, deques, rng
        self.queued = queued     # in partitions' order, counted by the accumulator
        self.random: Callable[[], float] = rng.random           # bound once: draws on every switch
        self.randrange: Callable[[int], int] = rng.randrange   # the core's: draws as random.Random's
        self.switch_bytes = 2 * batch_size if kind == "kip794" else math.inf
        self.drained_switch_bytes = batch_size if kind == "kip794" else math.inf   # its queue drained
        self.current: Partition | None = None
        self.produced = 0.0                # bytes sent to the current partition since the switch
        self.since = 0.0

    def next_round_robin(self) -> Partition:
        """``DefaultPartitioner`` before 2.4: the counter's next partition (``produced`` counts records)."""
        if self.current is None:
            self.produced = float(self.randrange(len(self.partitions)))
            self.current = self.partitions[0]
        index = int(self.produced) % len(self.partitions)
        self.produced += 1.0
        return self.partitions[index]

    def switch(self, now: float) -> Partition:
        previous, candidates = self.current, self.partitions
        if self.kind == "kip794":
            queued = self.queued
            shortest = longest = queued[0]
            total = 0
            for queue in queued:
                total += queue
                if queue < shortest:
                    shortest = queue
                elif queue > longest:
                    longest = queue
            if shortest != longest:  # adaptive: weight = longest queue + 1 - queue
                top = longest + 1
                weights = len(queued) * top - total
                pick = self.random() * weights
                for i in range(len(queued)):
                    pick -= top - queued[i]
                    if pick < 0:
                        return self._stick(candidates[i], now)
            return self._stick(candidates[self.randrange(len(candidates))], now)
        if self.kind == "kip480" and previous is not None and len(candidates) > 1:
            choice = candidates[self.randrange(len(candidates) - 1)]  # any other partition
            return self._stick(candidates[-1] if choice is previous else choice, now)
        return self._stick(candidates[self.randrange(len(candidates))], now)

    def _stick(self, partition: Partition, now: float) -> Partition:
        self.current, self.produced, self.since = partition, 0.0, now
        return partition

    def for_record(self, now: float) -> Partition:
        """The partition of the next record: KIP-480 switches when it needs a new batch, KIP-794
        when ``batch.size`` went to the partition and the sender drained its queue
        (``partitionChanged``), librdkafka after sticky.partitioning.linger.ms."""
        if self.kind == "round-robin":
            return self.next_round_robin()
        partition = self.current or self.switch(now)
        dq = self.deques[partition]
        if not dq and self.produced >= self.drained_switch_bytes:
            return self.switch(now)
        if self.kind == "kip480" and not (dq and not dq[-1].full) and self.produced > 0:
            return self.switch(now)
        if self.kind == "librdkafka-sticky" and now - self.since >= LIBRDKAFKA_STICKY_S:
            return self.switch(now)
        return partition

    def room(self, record_bytes: float) -> float:
        """Bytes the current partition takes before KIP-794 switches: up to and including the
        record that crosses 2 x batch.size."""
        if self.switch_bytes == math.inf:
            return math.inf
        return math.ceil((self.switch_bytes - self.produced) / record_bytes - 1e-9) * record_bytes

    def taken_back(self, partition: Partition, amount: float) -> None:
        """A drain left ``amount`` bytes of a record still being appended: not produced to ``partition``."""
        if partition is self.current and self.kind != "round-robin":
            self.produced -= amount

    def add(self, partition: Partition, amount: float, now: float) -> None:
        """``amount`` bytes went to ``partition``; KIP-794 switches once they reach its bound."""
        if partition is self.current and self.kind != "round-robin":
            self.produced += amount
            if self.produced >= self.switch_bytes - 1e-6:
                self.switch(now)


def murmur2(data: bytes) -> int:
    """Kafka's Utils.murmur2, as the default partitioner hashes keys."""
    m, length = 0x5BD1E995, len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(length // 4):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail = length & ~3
    rest = length % 4
    if rest >= 3:
        h ^= data[tail + 2] << 16
    if rest >= 2:
        h ^= data[tail + 1] << 8
    if rest >= 1:
        h ^= data[tail]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h & 0x7FFFFFFF
