"""The producer: accumulator and sender of the Java client (and librdkafka's); records without
a key go where ``partitioner.StickyPartitioner`` says.

Follows ``RecordAccumulator`` and ``Sender``: per-partition deques of batches; a node is
ready when one of its head batches is full, lingered, memory is exhausted or a flush runs;
the sender drains the head batch of every partition the node leads (round-robin) into one
produce request per broker up to ``max.request.size``, with at most
``max.in.flight.requests.per.connection`` requests outstanding per connection and the next
one only after the previous is fully written. librdkafka sends one partition per request.

The appending side is ``accumulator.Accumulator``. The sender is a thread on its host's cores (``cpu.Cores``): woken from ``poll()`` by an
append that creates a batch, by a response or by its timeout, it first waits for a core, then
spends CPU reading the responses that arrived and building and writing the requests it drains.
Its cycle (wait + CPU + the in-flight window) is what sizes ``linger.ms=0`` batches.

A drain waits until the flow has added one whole record (send() adds a record in one call);
neighbour records are appended one by one so their latency is known per record.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Any, Callable

from simulator.model.accumulator import Accumulator
from simulator.model.batch import PARTITION_HEADER, REQUEST_HEADER, Batch, FlushToken
from simulator.model.broker import Broker, Connection, Partition, Request
from simulator.model.cpu import Cores
from simulator.model.engine import Engine
from simulator.model.metrics import BatchSizes, Mean
from simulator.model.partitioner import StickyPartitioner


class Producer(Accumulator):
    """One producer instance (one per Spark executor JVM, one per neighbour application)."""

    def __init__(self, engine: Engine, name: str, partitions: list[Partition], config: Any, client: Any,
                 costs: Any, rng: Any, ratio_at: Callable[[float], float], record_bytes: float, keyed: bool,
                 rtt: float, on_records_acked: Callable[[list[float], float], None] | None = None):
        self.engine, self.name, self.rng = engine, name, rng
        self.partitions = partitions
        self.by_node: dict[Broker, list[Partition]] = {}
        for partition in partitions:
            self.by_node.setdefault(partition.leader, []).append(partition)
        self.nodes = sorted(self.by_node, key=lambda b: b.id)
        self.batch_size = config.batch_size
        self.linger = config.linger_ms / 1e3
        self.max_in_flight = config.max_in_flight
        self.max_request_size = config.max_request_size
        self.buffer_memory = config.buffer_memory
        self.acks = config.acks
        self.codec = config.compression_type
        self.librdkafka = client.kind == "librdkafka"
        self.batch_records = config.batch_num_messages or math.inf
        self.sender_request_s = costs.sender_request_us * 1e-6
        self.sender_batch_s = costs.sender_batch_us * 1e-6
        self.sender_byte_s = costs.sender_byte_ns * 1e-9
        self.sender_response_s = costs.sender_response_us * 1e-6
        self.host: Cores | None = None      # the cores the sender thread runs on
        # threads runnable on the host besides the sender (an executor's appending tasks)
        self.runnable_elsewhere: Callable[[], float] = lambda: 0.0
        self.responses: list[Request] = []  # arrived, not yet read by the sender
        self.looping = False
        self.ratio_at = ratio_at
        self.record_bytes = record_bytes
        self.keyed = keyed
        self.half_rtt = rtt / 2
        self.on_records_acked = on_records_acked
        self.neighbour = False          # a tenant's application, not the batch load
        self.quota_entity = name        # the client-id brokers apply quotas to
        self.quota_bound = 0.0          # producer_byte_rate per broker (0: no quota)
        self.quota_request_percentage = 0.0   # request_percentage per broker (0: no quota)
        self.throttled_seconds = 0.0
        self.deques: dict[Partition, deque[Batch]] = {p: deque() for p in partitions}
        self.nonempty: dict[Partition, None] = {}
        self.drain_index = {node: 0 for node in self.nodes}
        self.connections: dict[Broker, Connection] = {node: node.connect(self) for node in self.nodes}
        # each partition's leader connection, by partition index (the hot paths look it up)
        self.connection_of: list[Connection] = [self.connections[p.leader] for p in partitions]
        self.sticky = StickyPartitioner(client.partitioner, partitions, self.deques, rng, config.batch_size)
        self.ratio_estimate = 1.0
        self.batch_capacity = 0.0
        self._update_capacity()
        self.memory_used = 0
        self.blocked = False
        self.flushes = 0
        self.incomplete: dict[Batch, None] = {}
        self.sender_free_at = 0.0
        self.response_at: Callable[[Request], None] = self.on_response   # bound once: events are many
        self.run_at: Callable[[int], None] = self._run
        self.wake_at = math.inf
        self.wake_token = 0
        # the appending flow (bulk jobs): bytes per second while not blocked
        self.rate = 0.0
        self.last_advance = 0.0
        self.appended = 0.0
        self.carry = 0.0                # part of a record a drain left behind, appended next
        self.on_block_change: Callable[[], None] | None = None
        # a fixed-rate record source (neighbours): records are appended when the producer
        # next looks, each with its own intended send time
        self.source_next = math.inf
        self.source_interval = 0.0
        self.source_size = 0.0
        self.source_partition: Callable[[], Partition | None] = lambda: None
        # mechanism figures
        self.requests = 0
        self.batches_sent = 0
        self.bytes_sent = 0.0
        self.wire_sent = 0.0
        self.records_sent = 0.0
        self.batch_sizes = BatchSizes()   # the batch load's batches (neighbours' are not counted)
        self.drain_interval = Mean()
        self.last_drain: float | None = None
        self.blocked_since = 0.0
        self.blocked_seconds = 0.0
        self.append_seconds = 0.0

    @property
    def partitioner(self) -> str:
        """The client's partitioner for records without a key (kip480, kip794, librdkafka-sticky)."""
        return self.sticky.kind

    @property
    def inflight(self) -> dict[Broker, int]:
        """Requests in flight per broker."""
        return {node: connection.inflight for node, connection in self.connections.items()}

    # ---- appending -------------------------------------------------------------------
    def set_rate(self, rate: float) -> None:
        self.advance(self.engine.now)
        self.rate = rate
        self.poke()

    def send_at_rate(self, first: float, interval: float, size: float,
                     partition: Callable[[], Partition | None]) -> None:
        """Records of ``size`` bytes every ``interval`` seconds from ``first`` on."""
        self.source_next, self.source_interval, self.source_size = first, interval, size
        self.source_partition = partition
        self._wake(first + self.linger)

    # ---- flush -------------------------------------------------------------------------
    def flush(self, on_done: Callable[[], None]) -> None:
        """KafkaProducer.flush(): every batch becomes sendable; wait for all incomplete ones."""
        self.advance(self.engine.now)
        token = FlushToken(on_done)
        for batch in self.incomplete:
            if batch.waiters is None:
                batch.waiters = []
            batch.waiters.append(token)
            token.pending += 1
        if not token.pending:
            on_done()
            return
        self.flushes += 1
        self.poke()

    # ---- sender --------------------------------------------------------------------------
    def poke(self) -> None:
        """Something changed: a sender asleep in poll() wakes (and waits for a core), a busy
        one looks again as soon as its CPU work is done."""
        now = self.engine.now
        if self.looping:                  # a completion inside the sender's own loop
            self._wake(max(now, self.sender_free_at))
        elif now > self.sender_free_at:
            self.wake_token += 1          # a later wake-up is no longer needed as such
            self.wake_at = math.inf
            self._rouse(now)
        elif now == self.sender_free_at:   # still on its core: it sees the change without sleeping
            self.wake_token += 1
            self.wake_at = math.inf
            self._sender_loop(now)
        else:
            self._wake(self.sender_free_at)

    def _rouse(self, now: float) -> None:
        """The sender leaves poll(): it runs once a core takes it."""
        host = self.host
        wait = host.wake_delay(self.runnable_elsewhere()) if host is not None else 0.0
        if wait > 0.0:
            self.sender_free_at = now + wait
            self._wake(self.sender_free_at)
        else:
            self._sender_loop(now)

    def _wake(self, when: float) -> None:
        if when >= self.wake_at:
            return
        self.wake_at = when
        self.wake_token += 1
        self.engine.at(when, self.run_at, self.wake_token)

    def _run(self, token: int) -> None:
        if token != self.wake_token:
            return
        self.wake_at = math.inf
        now = self.engine.now
        if now < self.sender_free_at:     # its CPU work grew meanwhile: look once it is done
            self._wake(self.sender_free_at)
        elif now > self.sender_free_at:   # poll()'s timeout: the thread was asleep
            self._rouse(now)
        else:
            self._sender_loop(now)

    def _sender_loop(self, now: float) -> None:
        """One iteration of Sender.runOnce: read the responses that arrived, drain what is
        ready, send, plan the next look. Its CPU takes longer when its host's cores are shared."""
        host = self.host
        stretch = host.stretch(self.runnable_elsewhere() + 1.0) if host is not None else 1.0
        read = 0.0
        if self.responses:
            responses, self.responses = self.responses, []
            read = len(responses) * self.sender_response_s * stretch
            self.sender_free_at = now + read    # a completion's poke looks again after this
            self.looping = True
            for response in responses:
                self._complete(response, now + read)
            self.looping = False
        self.advance(now)
        ready, next_check = self._ready(now)
        requests = []
        for node in ready:
            requests.extend(self._drain(node, now))
        if requests:
            cost = 0.0
            for r in requests:
                cost += self.sender_request_s + len(r.batches) * self.sender_batch_s + r.size * self.sender_byte_s
            cost = read + cost * stretch
            self.sender_free_at = now + cost
            if self.last_drain is not None:
                self.drain_interval.add(now - self.last_drain)
            self.last_drain = now
            for request in requests:
                self._send(request, now + cost)
            next_check = self._next_send(next_check)
        if self.source_next < math.inf:
            next_check = min(next_check, self.source_next + self.linger)
        if next_check < math.inf:
            self._wake(max(next_check, self.sender_free_at))

    def _next_send(self, next_check: float) -> float:
        """After a drain: the earliest time a connection with room could take more data."""
        flowing = self.rate > 0 and not self.blocked
        target = None if self.keyed or self.sticky.current is None else self.sticky.current.leader
        for node in self.nodes:
            connection = self.connections[node]
            if connection.inflight >= self.max_in_flight:
                continue
            if (flowing and (target is None or node is target)) or any(self.deques[p] for p in self.by_node[node]):
                next_check = min(next_check, connection.send_done)
        return next_check

    def _sendable(self, dq: deque[Batch], now: float) -> bool:
        """Full, lingered long enough, memory exhausted or a flush running; and one whole record."""
        head = dq[0]
        if len(dq) == 1 and self._part_record(head):
            return False
        return (head.full or len(dq) > 1 or now - head.created >= self.linger - 1e-9
                or self.flushes > 0 or self.blocked)

    def _ready(self, now: float) -> tuple[list[Broker], float]:
        ready: dict[Broker, None] = {}
        next_check = math.inf
        for partition in self.nonempty:
            node = partition.leader
            dq = self.deques[partition]
            head = dq[0]
            if self._sendable(dq, now):
                connection = self.connection_of[partition.index]
                if connection.inflight < self.max_in_flight:  # else a response will wake us
                    if now >= connection.send_done:
                        ready[node] = None
                    else:
                        next_check = min(next_check, connection.send_done)
                continue
            next_check = min(next_check, max(head.created + self.linger, self._whole_record_at(partition, head, now)))
            if self.rate > 0 and not self.blocked and not self.keyed and partition is self.sticky.current:
                next_check = min(next_check, now + (self.capacity() - head.bytes) / self.rate)
        if self.rate > 0 and not self.blocked:
            # the flow's next batch: append() wakes the sender when it creates a batch
            if self.keyed:   # every partition gets records: an idle node with room gets one soon
                for node in self.nodes:
                    if self.connections[node].inflight < self.max_in_flight and not any(self.deques[p] for p in self.by_node[node]):
                        next_check = min(next_check, now + len(self.partitions) * self.record_bytes / self.rate)
                        break
            else:
                target = self.sticky.current
                if target is None or not self.deques[target] and self.connection_of[target.index].inflight < self.max_in_flight:
                    next_check = min(next_check, now + self.record_bytes / self.rate)
        return [node for node in self.nodes if node in ready], next_check

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

    def _drain(self, node: Broker, now: float) -> list[Request]:
        partitions = self.by_node[node]
        start = self.drain_index[node]
        if self.librdkafka:  # one partition per ProduceRequest, each when its own batch is ready
            out: list[Request] = []
            room = self.max_in_flight - self.connections[node].inflight
            for i in range(len(partitions)):
                partition = partitions[(start + i) % len(partitions)]
                dq = self.deques[partition]
                if len(out) < room and dq and self._sendable(dq, now):
                    out.append(self._request(node, [self._take(partition, now)]))
            self.drain_index[node] = (start + 1) % len(partitions)
            return out
        taken: list[Batch] = []
        size = float(REQUEST_HEADER)
        for i in range(len(partitions)):
            partition = partitions[(start + i) % len(partitions)]
            dq = self.deques[partition]
            if not dq:
                continue
            head = dq[0]
            if self._part_record(head):
                continue
            rest = 0.0
            if not head.full:
                rest = self._trim(head)
                self._close(head, now)
            if taken and size + head.wire + PARTITION_HEADER > self.max_request_size:
                self._untrim(head, rest)
                break
            taken.append(self._take(partition, now))
            size += head.wire + PARTITION_HEADER
            if rest > 0.0:     # the record send() is still appending goes where the next one does
                self.carry += rest
                self.appended -= rest
        self.drain_index[node] = (start + 1) % len(partitions)
        return [self._request(node, taken)] if taken else []

    def _take(self, partition: Partition, now: float) -> Batch:
        dq = self.deques[partition]
        batch = dq.popleft()
        self._close(batch, now)
        if not dq:   # with KIP-480 the next record then needs a new batch, and switches (for_record)
            del self.nonempty[partition]
        return batch

    def _request(self, node: Broker, batches: list[Batch]) -> Request:
        wire = float(REQUEST_HEADER)
        for batch in batches:
            wire += batch.wire + PARTITION_HEADER
        request = Request("produce", self.connections[node], wire, self)
        request.batches = batches
        request.acks = self.acks
        return request

    def _send(self, request: Request, at: float) -> None:
        node = request.connection.broker
        connection = request.connection
        connection.inflight += 1
        self.requests += 1
        sized = not self.neighbour
        for batch in request.batches:
            self.batches_sent += 1
            self.bytes_sent += batch.bytes
            self.wire_sent += batch.wire
            self.records_sent += batch.records
            if sized:
                self.batch_sizes.record(batch.wire, batch.bytes)
        # the send is complete once its last byte has left: InFlightRequests.canSendMore
        connection.send_done = node.receive(request, at + self.half_rtt) - self.half_rtt
        if self.acks == "0":  # no response: done once written
            self.engine.at(connection.send_done, self._written, request)

    def on_response(self, request: Request) -> None:
        """A response arrived: the sender reads it when it next runs."""
        self.responses.append(request)
        self.poke()

    def _written(self, request: Request) -> None:
        """acks=0: a request is done once its last byte left."""
        self._complete(request, self.engine.now)
        if self.nonempty or (self.rate > 0 and not self.blocked):
            self.poke()

    def _complete(self, request: Request, done: float) -> None:
        """NetworkClient's completion of a response read at ``done``: batches acknowledged,
        their memory back, flushes and neighbours' records done."""
        now = self.engine.now
        connection = request.connection
        connection.inflight -= 1
        if request.throttle > 0.0:   # NetworkClient: nothing goes to a throttled broker
            connection.send_done = max(connection.send_done, now + request.throttle)
            self.throttled_seconds += request.throttle
        for batch in request.batches:
            self.memory_used -= batch.memory
            del self.incomplete[batch]
            if batch.intended and self.on_records_acked:
                self.on_records_acked(batch.intended, done)
            if batch.waiters:
                for token in batch.waiters:
                    token.pending -= 1
                    if not token.pending:
                        self.flushes -= 1
                        token.on_done()
        if self.blocked and self.memory_used + self.batch_size <= self.buffer_memory:
            self.blocked = False
            self.blocked_seconds += now - self.blocked_since
            self.last_advance = now
            if self.on_block_change:
                self.on_block_change()
