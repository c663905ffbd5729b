"""The producer's Sender thread and its connections (NetworkClient's in-flight requests).

Follows ``Sender.runOnce``: read the responses that arrived (``completeBatch``: the batches'
callbacks, their ``buffer.memory`` back), ask the accumulator which leaders are ready, drain
each ready leader with room on its connection into one produce request (``sendProduceRequests``),
and poll until the next batch can be sendable. A connection takes at most
``max.in.flight.requests.per.connection`` requests, the next only once the previous one is fully
written (``InFlightRequests.canSendMore``); a throttled response holds the connection for its
throttle time.

The thread runs on its host's cores (``cpu.Cores``): woken from ``poll()`` by an append that
creates a batch, by a response or by its timeout, it first waits for a core, then spends CPU
reading the responses that arrived (per response, and per record: each record's future and
callback, ``ProducerBatch.done``) and building and writing the requests it drains. Its cycle
(wait + CPU + the in-flight window) is what sizes ``linger.ms=0`` batches.
"""
from __future__ import annotations

import math
from typing import Callable

from simulator._core import Cores, SenderMetrics
from simulator.model.accumulator import RecordAccumulator
from simulator.model.batch import PARTITION_HEADER, REQUEST_HEADER, Batch
from simulator.model.broker import Broker, Connection, Request
from simulator.model.client import ClientSpec
from simulator.model.engine import Engine

# a neighbour's records done: their intended send times and when the sender read the response
RecordsAcked = Callable[[list[float], float], None]
# a bulk flow's batch done: its records, appended from its creation to its close, and when
BatchAcked = Callable[[float, float, float, float], None]    # (created, closed, records, done)
# a produce request as the sender drains it: its connection, batches and bytes on the wire
Produce = tuple[Connection, list[Batch], float]
# a response as the sender reads it (Request.response): connection, throttle, batches, when its request was made
Response = tuple[Connection, float, list[Batch], float]


class Sender:
    """One producer's sender thread. ``host``: the cores it runs on (none: a core of its own);
    ``runnable_elsewhere``: the threads runnable on them besides it (an executor's tasks)."""

    def __init__(self, engine: Engine, spec: ClientSpec, accumulator: RecordAccumulator, host: Cores | None = None,
                 runnable_elsewhere: Callable[[], float] | None = None, on_records_acked: RecordsAcked | None = None,
                 on_batch_acked: BatchAcked | None = None):
        self.engine, self.accumulator, self.host = engine, accumulator, host
        config, costs = spec.config, spec.costs
        self.client_id = spec.client_id
        self.max_in_flight = config.max_in_flight
        self.max_request_size = config.max_request_size
        self.acks = config.acks
        self.sender_request_s = costs.sender_request_us * 1e-6
        self.sender_batch_s = costs.sender_batch_us * 1e-6
        self.sender_byte_s = costs.sender_byte_ns * 1e-9
        self.sender_response_s = costs.sender_response_us * 1e-6
        self.sender_record_s = costs.sender_record_us * 1e-6
        self.runnable_elsewhere: Callable[[], float] = runnable_elsewhere or (lambda: 0.0)
        self.on_records_acked = on_records_acked
        self.on_batch_acked = on_batch_acked
        self.half_rtt = spec.rtt / 2
        self.responses: list[Response] = []  # arrived, not yet read
        self.looping = False
        self.connections: dict[Broker, Connection] = {node: node.connect(spec.client_id) for node in accumulator.nodes}
        # each partition's leader connection, by partition index (the hot paths look it up)
        self.connection_of: list[Connection] = [self.connections[p.leader] for p in accumulator.partitions]
        self.sender_free_at = 0.0
        self.response_at: Callable[[Request], None] = self.on_response   # bound once: events are many
        self.run_at: Callable[[int], None] = self._run
        self.wake_at = math.inf
        self.wake_token = 0
        # the client's metrics
        self.requests = 0
        self.batches_sent = 0
        self.bytes_sent = 0.0
        self.wire_sent = 0.0
        self.records_sent = 0.0
        # request-latency-avg (from the request's making to its response read), the drain interval and
        # the batch sizes, with the host's stretch of a run, counted in the event core: one call a read, one a drain
        self.metrics = SenderMetrics(host)
        self.batch_sizes = self.metrics.batch_sizes
        self.drain_interval = self.metrics.drain_interval
        self.request_latency = self.metrics.request_latency
        self.read_responses: Callable[[float, float, float], float] = self.metrics.read   # bound once: calls are many
        self.wake: Callable[[float, float, float], tuple[float, float]] = self.metrics.wake
        self.drained: Callable[[float, float, float], None] = self.metrics.drained
        self.record_latency: Callable[[float], None] = self.request_latency.add   # a run's second response on
        self.record_batch: Callable[[float, float], None] = self.batch_sizes.record   # a drain's second batch on
        self.last_drain: float | None = None
        self.throttled_seconds = 0.0

    @property
    def inflight(self) -> dict[Broker, int]:
        """Requests in flight per broker."""
        return {node: connection.inflight for node, connection in self.connections.items()}

    # ---- waking ------------------------------------------------------------------------
    def wakeup(self) -> None:
        """Something changed: a sender asleep in poll() wakes (and waits for a core), a busy
        one looks again as soon as its CPU work is done."""
        now = self.engine.now
        if self.looping:                  # a completion inside the sender's own loop
            self.schedule(max(now, self.sender_free_at))
        elif now > self.sender_free_at:
            self.wake_token += 1          # a later wake-up is no longer needed as such
            self.wake_at = math.inf
            self._rouse(now)
        elif now == self.sender_free_at:   # still on its core: it sees the change without sleeping
            self.wake_token += 1
            self.wake_at = math.inf
            self.run_once(now)
        else:
            self.schedule(self.sender_free_at)

    def _rouse(self, now: float) -> None:
        """The sender leaves poll(): it runs once a core takes it (at once, in the same call into the core)."""
        if self.host is None:
            self.run_once(now)
            return
        wait, stretch = self.wake(self.runnable_elsewhere(), now, self._first_created())
        if wait > 0.0:
            self.sender_free_at = now + wait
            self.schedule(self.sender_free_at)
        else:
            self._run_stretched(now, stretch)

    def schedule(self, when: float) -> None:
        """poll()'s timeout: look again at ``when`` (unless an earlier look is planned)."""
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
            self.schedule(self.sender_free_at)
        elif now > self.sender_free_at:   # poll()'s timeout: the thread was asleep
            self._rouse(now)
        else:
            self.run_once(now)

    # ---- one iteration -----------------------------------------------------------------
    def run_once(self, now: float) -> None:
        """Sender.runOnce: read the responses that arrived, drain what is ready, send, plan the
        next look. Its CPU takes longer when its host's cores are shared."""
        if self.host is not None:
            stretch = self.read_responses(self.runnable_elsewhere(), now, self._first_created())
        elif self.responses:
            stretch = self.read_responses(0.0, now, self._first_created())
        else:
            stretch = 1.0
        self._run_stretched(now, stretch)

    def _first_created(self) -> float:
        """When the first response to read was made (NaN: none arrived)."""
        return self.responses[0][3] if self.responses else math.nan

    def _run_stretched(self, now: float, stretch: float) -> None:
        """run_once with its responses' latencies counted and its CPU ``stretch``ed by its host's load."""
        accumulator = self.accumulator
        read = 0.0
        if self.responses:
            responses, self.responses = self.responses, []
            read = len(responses) * self.sender_response_s
            if self.sender_record_s:
                for response in responses:
                    for batch in response[2]:
                        read += batch.records * self.sender_record_s
            read *= stretch
            self.sender_free_at = now + read    # a completion's wakeup looks again after this
            self.looping = True
            for i in range(1, len(responses)):   # the first one's latency was counted with the stretch
                self.record_latency(now - responses[i][3])
            for response in responses:
                self._complete(response, now + read)
            self.looping = False
        accumulator.advance(now)
        nodes, next_check = self._ready(now)
        requests: list[Produce] = []
        for node in nodes:
            room = self.max_in_flight - self.connections[node].inflight
            for batches in accumulator.drain(node, now, self.max_request_size, room):
                requests.append(self._request(node, batches))
        if requests:
            cost = 0.0
            for _, drained, size in requests:
                cost += self.sender_request_s + len(drained) * self.sender_batch_s + size * self.sender_byte_s
            cost = read + cost * stretch
            self.sender_free_at = now + cost
            interval = now - self.last_drain if self.last_drain is not None else math.nan
            self.last_drain = now
            first = requests[0][1][0]
            self.drained(interval, first.wire, first.bytes)
            for i, request in enumerate(requests):
                self._send(request, now + cost, i == 0)
            next_check = self._next_send(next_check)
        if accumulator.source_next < math.inf:
            next_check = min(next_check, accumulator.source_next + accumulator.linger)
        if next_check < math.inf:
            self.schedule(max(next_check, self.sender_free_at))

    def _ready(self, now: float) -> tuple[list[Broker], float]:
        """The accumulator's ready leaders whose connection can take a request now
        (NetworkClient.ready), and when to look again."""
        accumulator = self.accumulator
        sendable, next_check = accumulator.ready(now)
        nodes: list[Broker] = []
        for node in accumulator.nodes:
            if node not in sendable:
                continue
            connection = self.connections[node]
            if connection.inflight < self.max_in_flight:  # else a response will wake us
                if now >= connection.send_done:
                    nodes.append(node)
                else:
                    next_check = min(next_check, connection.send_done)
        return nodes, min(next_check, self._next_batch(now))

    def _next_batch(self, now: float) -> float:
        """When the appending flow next creates a batch a connection could take: send() wakes
        the sender then (KafkaProducer.doSend: ``sender.wakeup()`` on a new batch)."""
        accumulator = self.accumulator
        if accumulator.rate <= 0 or accumulator.blocked:
            return math.inf
        if accumulator.keyed:   # every partition gets records: an idle node with room gets one soon
            for node in accumulator.nodes:
                if self.connections[node].inflight < self.max_in_flight and not accumulator.queued_on[node]:
                    return now + len(accumulator.partitions) * accumulator.record_bytes / accumulator.rate
            return math.inf
        target = accumulator.sticky.current
        if target is None or not accumulator.deques[target] and self.connection_of[target.index].inflight < self.max_in_flight:
            return now + accumulator.record_bytes / accumulator.rate
        return math.inf

    def _next_send(self, next_check: float) -> float:
        """After a drain: the earliest time a connection with room could take more data."""
        accumulator = self.accumulator
        flowing = accumulator.rate > 0 and not accumulator.blocked
        target = None if accumulator.keyed or accumulator.sticky.current is None else accumulator.sticky.current.leader
        for node in accumulator.nodes:
            connection = self.connections[node]
            if connection.inflight >= self.max_in_flight:
                continue
            if (flowing and (target is None or node is target)) or accumulator.queued_on[node]:
                next_check = min(next_check, connection.send_done)
        return next_check

    # ---- requests ----------------------------------------------------------------------
    def _request(self, node: Broker, batches: list[Batch]) -> Produce:
        wire = float(REQUEST_HEADER)
        for batch in batches:
            wire += batch.wire + PARTITION_HEADER
        return self.connections[node], batches, wire

    def _send(self, produce: Produce, at: float, counted_first: bool) -> None:
        """``counted_first``: its first batch's sizes were counted with the drain."""
        connection, batches, size = produce
        node = connection.broker
        connection.inflight += 1
        self.requests += 1
        for batch in batches:
            self.batches_sent += 1
            self.bytes_sent += batch.bytes
            self.wire_sent += batch.wire
            self.records_sent += batch.records
            if counted_first:
                counted_first = False
            else:
                self.record_batch(batch.wire, batch.bytes)
        # the send is complete once its last byte has left: InFlightRequests.canSendMore
        request, arrived = node.server.produce(connection, size, self, batches, self.acks, at + self.half_rtt)
        connection.send_done = arrived - self.half_rtt
        if self.acks == "0":  # no response: done once written
            self.engine.at(connection.send_done, self._written, request)

    def on_response(self, request: Request) -> None:
        """A response arrived: the sender reads it when it next runs."""
        self.responses.append(request.response())
        self.wakeup()

    def _written(self, request: Request) -> None:
        """acks=0: a request is done once its last byte left."""
        self._complete(request.response(), self.engine.now)
        accumulator = self.accumulator
        if accumulator.nonempty or (accumulator.rate > 0 and not accumulator.blocked):
            self.wakeup()

    def _complete(self, response: Response, done: float) -> None:
        """handleProduceResponse / completeBatch for a response read at ``done``: the batches'
        callbacks (neighbours' records, flushes) and their memory back."""
        now = self.engine.now
        connection, throttle, batches, _ = response
        connection.inflight -= 1
        if throttle > 0.0:   # NetworkClient: nothing goes to a throttled broker
            connection.send_done = max(connection.send_done, now + throttle)
            self.throttled_seconds += throttle
        accumulator = self.accumulator
        for batch in batches:
            accumulator.deallocate(batch)
            if batch.intended:
                if self.on_records_acked:
                    self.on_records_acked(batch.intended, done)
            elif self.on_batch_acked is not None:
                self.on_batch_acked(batch.created, batch.closed_at, batch.records, done)
            if batch.waiters:
                accumulator.flushed(batch)
        accumulator.release(now)
