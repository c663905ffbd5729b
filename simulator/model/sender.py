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

from simulator._core import Batch, Cores, RecordAccumulator, SenderMetrics
from simulator.model.broker import Broker, Connection, Request
from simulator.model.client import ClientSpec
from simulator.model.engine import Engine


class Sender:
    """One producer's sender thread. ``host``: the cores it runs on (none: a core of its own);
    ``runnable_elsewhere``: the threads runnable on them besides it (an executor's tasks)."""

    def __init__(self, engine: Engine, spec: ClientSpec, accumulator: RecordAccumulator, host: Cores | None = None,
                 runnable_elsewhere: Callable[[], float] | None = None):
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
        self.half_rtt = spec.rtt / 2
        self.responses: list[Request] = []  # arrived, not yet read
        self.looping = False
        self.connections: dict[Broker, Connection] = {node: node.connect(spec.client_id) for node in accumulator.nodes}
        self.sender_free_at = 0.0
        self.response_at: Callable[[Request], None] = self.on_response   # bound once: events are many
        self.run_at: Callable[[int], None] = self._run
        self.wake_at = math.inf
        self.wake_token = 0
        # the client's metrics: request-latency-avg (from the request's making to its response read)
        # with the host's stretch of a run, counted in the event core in one call a read (the run's
        # further responses as the accumulator reads them); the drain interval, the batch sizes and
        # what was sent, counted by the accumulator's drain; the time throttled
        self.metrics = SenderMetrics(host)
        self.batch_sizes = self.metrics.batch_sizes
        self.drain_interval = self.metrics.drain_interval
        self.request_latency = self.metrics.request_latency
        self.read_responses: Callable[[float, float, float], float] = self.metrics.read   # bound once: calls are many
        self.wake: Callable[[float, float, float], tuple[float, float]] = self.metrics.wake
        accumulator.connect(list(self.connections.values()), self.max_in_flight, self.metrics)

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
        if not self.responses:   # the wait and the drain in one call
            wait, stretch, made, next_check = self.accumulator.run(self.runnable_elsewhere(), now,
                                                                   self.max_request_size, True)
            if wait > 0.0:
                self.sender_free_at = now + wait
                self.schedule(self.sender_free_at)
            else:
                self._send_all(now, 0.0, stretch, made, next_check)
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
        elsewhere = self.runnable_elsewhere() if self.host is not None else 0.0
        if not self.responses:   # its stretch and the drain in one call
            _, stretch, made, next_check = self.accumulator.run(elsewhere, now, self.max_request_size, False)
            self._send_all(now, 0.0, stretch, made, next_check)
        else:
            self._run_stretched(now, self.read_responses(elsewhere, now, self._first_created()))

    def _first_created(self) -> float:
        """When the first response to read was made (NaN: none arrived)."""
        return self.responses[0].t_created if self.responses else math.nan

    def _run_stretched(self, now: float, stretch: float) -> None:
        """run_once with its responses' latencies counted and its CPU ``stretch``ed by its host's load."""
        read = 0.0
        if self.responses:
            responses, self.responses = self.responses, []
            read = len(responses) * self.sender_response_s
            if self.sender_record_s:
                for response in responses:
                    for batch in response.batches:
                        read += batch.records * self.sender_record_s
            read *= stretch
            self.sender_free_at = now + read    # a completion's wakeup looks again after this
            self.looping = True
            self.accumulator.read(responses, now, now + read, True)   # the first one's latency was counted with the stretch
            self.looping = False
        made, next_check = self.accumulator.drain_ready(now, self.max_request_size)
        self._send_all(now, read, stretch, made, next_check)

    def _send_all(self, now: float, read: float, stretch: float, made: list[tuple[Connection, list[Batch], float]],
                  next_check: float) -> None:
        """A drain's requests written after ``read`` seconds of reading responses, and the next look."""
        if made:
            cost = 0.0
            for _, batches, wire in made:
                cost += self.sender_request_s + len(batches) * self.sender_batch_s + wire * self.sender_byte_s
            cost = read + cost * stretch
            self.sender_free_at = now + cost
            for connection, batches, wire in made:
                self._send(connection, batches, wire, now + cost)
            next_check = self.accumulator.next_send(next_check)
        if next_check < math.inf:
            self.schedule(max(next_check, self.sender_free_at))

    # ---- requests ----------------------------------------------------------------------
    def _send(self, connection: Connection, batches: list[Batch], wire: float, at: float) -> None:
        """A produce request made and handed to its broker in one call; the broker has it all half
        a round trip after its last byte left."""
        connection.inflight += 1
        # the send is complete once its last byte has left: InFlightRequests.canSendMore
        request, arrived = connection.broker.server.produce(connection, wire, self, batches, self.acks,
                                                            at + self.half_rtt)
        connection.send_done = arrived - self.half_rtt
        if self.acks == "0":  # no response: done once written
            self.engine.at(connection.send_done, self._written, request)

    def on_response(self, request: Request) -> None:
        """A response arrived: the sender reads it when it next runs."""
        self.responses.append(request)
        self.wakeup()

    def _written(self, request: Request) -> None:
        """acks=0: a request is done once its last byte left."""
        now = self.engine.now
        self.accumulator.read([request], now, now, False)
        if self.accumulator.pending:
            self.wakeup()
