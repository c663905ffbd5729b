"""The producer (KafkaProducer) of the Java client and librdkafka: a ``RecordAccumulator`` the
application appends to and a ``Sender`` thread that drains it, as the Java client splits them
(``accumulator.py``; the sender is the event core's, ``core/src/sender_thread.rs``, its events
native in the event loop). Records without a key go where the accumulator's partitioner says.

A node is ready when one of its head batches is full, lingered, memory is exhausted or a flush
runs; the sender drains the head batch of every partition the node leads (round-robin) into one
produce request per broker up to ``max.request.size``, with at most
``max.in.flight.requests.per.connection`` requests outstanding per connection and the next one
only after the previous is fully written. librdkafka sends one partition per request.

A drain waits until the flow has added one whole record (send() adds a record in one call);
neighbour records are appended one by one so their latency is known per record.
"""
from __future__ import annotations

from typing import Callable

from simulator._core import BatchSizes, Cores, Mean, Random, Sender
from simulator.model.accumulator import BatchAcked, RecordsAcked, record_accumulator
from simulator.model.broker import Broker, Partition
from simulator.model.client import ClientSpec
from simulator.model.engine import Engine


class Producer:
    """One producer instance (one per Spark executor JVM, one per neighbour application), built
    from its ``spec`` and what it runs on: ``host`` the cores of its sender thread (none: a core
    of its own; joined to it, ``host.join(producer.sender)``, the sender counts the host's other
    components and they count it and its application's ``accumulator.application_threads``),
    ``on_block_change`` called when send() blocks on or leaves ``buffer.memory``,
    ``on_records_acked`` called with the intended send times of acknowledged records,
    ``on_batch_acked`` with each acknowledged batch of the appending flow."""

    def __init__(self, engine: Engine, name: str, spec: ClientSpec, partitions: list[Partition], rng: Random,
                 host: Cores | None = None,
                 on_block_change: Callable[[], None] | None = None, on_records_acked: RecordsAcked | None = None,
                 on_batch_acked: BatchAcked | None = None):
        self.engine, self.name, self.spec, self.rng = engine, name, spec, rng
        self.accumulator = record_accumulator(spec, partitions, rng, on_block_change, on_records_acked, on_batch_acked)
        self.sender = Sender(engine, spec, self.accumulator, host)

    # ---- the application's calls ------------------------------------------------------------
    def set_rate(self, rate: float) -> None:
        """The appending tasks' bytes per second from now on."""
        self.accumulator.set_rate(rate, self.engine.now)
        self.sender.wakeup()

    def send(self, size: float, partition: Partition | None, intended: float) -> None:
        """send() of one record (``partition`` from its key; None: no key), intended at ``intended``."""
        self.accumulator.append_record(self.engine.now, size, partition, intended)
        self.sender.wakeup()

    def send_at_rate(self, first: float, interval: float, size: float, keys: list[Partition]) -> None:
        """Records of ``size`` bytes every ``interval`` seconds from ``first`` on, each to the
        partition of a key drawn from the producer's ``rng`` (no keys: the partitioner's pick)."""
        self.accumulator.send_at_rate(first, interval, size, keys)
        self.sender.schedule(first + self.accumulator.linger)

    def flush(self, on_done: Callable[[], None]) -> None:
        """KafkaProducer.flush(): every batch becomes sendable; wait for all incomplete ones."""
        if self.accumulator.begin_flush(self.engine.now, on_done):
            self.sender.wakeup()

    def advance(self, now: float) -> None:
        """Append what the flow added up to ``now``."""
        self.accumulator.advance(now)

    # ---- what the application and the run read --------------------------------------------
    @property
    def blocked(self) -> bool:
        """send() waits for buffer.memory."""
        return self.accumulator.blocked

    @property
    def appended(self) -> float:
        return self.accumulator.appended

    @property
    def partitioner(self) -> str:
        """The client's partitioner for records without a key (kip480, kip794, librdkafka-sticky)."""
        return self.accumulator.partitioner

    @property
    def inflight(self) -> dict[Broker, int]:
        """Requests in flight per broker."""
        return self.sender.inflight

    @property
    def batch_size(self) -> int:
        return self.accumulator.batch_size

    @property
    def max_in_flight(self) -> int:
        return self.sender.max_in_flight

    @property
    def ratio_estimate(self) -> float:
        return self.accumulator.ratio_estimate

    @property
    def append_seconds(self) -> float:
        return self.accumulator.append_seconds

    @property
    def blocked_seconds(self) -> float:
        return self.accumulator.blocked_seconds

    @property
    def requests(self) -> int:
        return self.sender.metrics.requests

    @property
    def batches_sent(self) -> int:
        return self.sender.metrics.batches_sent

    @property
    def bytes_sent(self) -> float:
        return self.sender.metrics.bytes_sent

    @property
    def wire_sent(self) -> float:
        return self.sender.metrics.wire_sent

    @property
    def records_sent(self) -> float:
        return self.sender.metrics.records_sent

    @property
    def batch_sizes(self) -> BatchSizes:
        return self.sender.metrics.batch_sizes

    @property
    def drain_interval(self) -> Mean:
        return self.sender.metrics.drain_interval

    @property
    def request_latency(self) -> Mean:
        return self.sender.metrics.request_latency

    @property
    def throttled_seconds(self) -> float:
        return self.sender.metrics.throttled_seconds
