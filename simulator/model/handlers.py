"""A broker's request channel and I/O threads, as Kafka's ``RequestChannel`` and
``KafkaRequestHandlerPool`` have them (core/.../network/RequestChannel.scala,
core/.../server/KafkaRequestHandler.scala): network processors put requests in one queue of at
most ``queued.max.requests`` (a processor whose put finds it full blocks), ``num.io.threads``
handler threads take them in order and run ``KafkaApis``: a produce request's validation and
append (per request, batch, record and byte, with decompression), a follower's fetch (per
request, partition and byte read), or what a consumer's or a coordinator's request costs. A
handler's work runs on the broker's cores; a handler waiting for a core is busy, not idle
(``RequestHandlerAvgIdlePercent`` counts the time a handler waits on the queue).
"""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Callable

from simulator.model.metrics import BrokerMetrics, Timeline
from simulator.model.request import ApiKeys, Request
from workloads.profile import BrokerCosts

if TYPE_CHECKING:
    from simulator.model.broker import Broker


class RequestHandlerPool:
    """The request queue of ``broker`` and its ``threads`` handler threads."""

    def __init__(self, broker: Broker, metrics: BrokerMetrics, threads: int, queue_limit: int, costs: BrokerCosts):
        self.broker = broker
        self.record_fetch: Callable[[float], None] = metrics.fetch.record   # bound once
        self.threads = threads
        self.busy = 0
        self.queue_limit = queue_limit
        self.queue: deque[Request] = deque()
        self.blocked: deque[Request] = deque()
        # its own metrics, named after the broker's
        self.handler_busy: Timeline = broker.handler_busy
        self.queue_area: Timeline = broker.queue_area
        self.queue_max = 0
        self.queue_changed = 0.0
        self.produce_request_s = costs.produce_request_us * 1e-6
        self.produce_batch_s = costs.produce_batch_us * 1e-6
        self.produce_record_s = costs.produce_record_ns * 1e-9
        self.produce_byte_s = costs.produce_byte_ns * 1e-9
        self.decompress_byte_s: dict[str, float] = {k: v * 1e-9 for k, v in costs.decompress_byte_ns.items()}
        self.fetch_request_s = costs.fetch_request_us * 1e-6
        self.fetch_partition_s = costs.fetch_partition_us * 1e-6
        self.fetch_byte_s = costs.fetch_byte_ns * 1e-9
        self.handled_at: Callable[[Request], None] = self._handled     # bound once: events are many
        self.handle: Callable[[float, float, float, int, int, float], float] = broker.threads.handle

    def _queue_changed(self, now: float) -> None:
        waiting = len(self.queue) + len(self.blocked)
        if waiting:
            self.queue_area.add_interval(self.queue_changed, now, waiting)
        self.queue_changed = now

    def enqueue(self, request: Request) -> None:
        """A network processor hands a request read off its connection to the channel."""
        now = self.broker.engine.now
        self._queue_changed(now)
        request.t_enqueue = now
        if len(self.queue) >= self.queue_limit:
            self.blocked.append(request)   # the network thread blocks until there is room
        else:
            self.queue.append(request)
        self.queue_max = max(self.queue_max, len(self.queue))
        self._dispatch(now)

    def _dispatch(self, now: float) -> None:
        broker = self.broker
        while self.queue and self.busy < self.threads:
            waiting, since = len(self.queue) + len(self.blocked), self.queue_changed
            self.queue_changed = now
            request = self.queue.popleft()
            if self.blocked:
                self.queue.append(self.blocked.popleft())
            self.busy += 1
            request.t_start = now
            cpu = self._cpu(request)
            stall = 0.0
            if request.api == ApiKeys.PRODUCE:
                wire = 0.0
                for batch in request.batches:
                    wire += batch.wire
                stall = broker.disk_append(now, wire)
            took = self.handle(now, cpu, stall, self.busy - 1 + broker.fetchers_busy, waiting, since)
            broker.at(now + took, self.handled_at, request)

    def _cpu(self, request: Request) -> float:
        """KafkaApis' work for the request, by its key: a produce's append, a follower's fetch;
        a request its client handles (a consumer's fetch, a coordinator's call) costs what it says."""
        handler = request.handler
        if handler is not None:
            return float(handler.handler_cpu(request, self.broker))
        if request.api == ApiKeys.FETCH:
            return (self.fetch_request_s + len(request.partitions) * self.fetch_partition_s
                    + self.broker.replicas.fetchable(request) * self.fetch_byte_s)
        cpu = self.produce_request_s
        decompress = self.decompress_byte_s
        for batch in request.batches:
            cpu += (self.produce_batch_s + batch.records * self.produce_record_s + batch.wire * self.produce_byte_s
                    + batch.bytes * decompress[batch.codec])
        return cpu

    def _handled(self, request: Request) -> None:
        now = self.broker.engine.now
        self.busy -= 1
        request.t_local = now
        handler = request.handler
        if handler is not None:
            if request.api == ApiKeys.FETCH:     # RequestsPerSec{request=Fetch} counts consumers' too
                self.record_fetch(now)
            handler.handled(request, now)
        elif request.api == ApiKeys.PRODUCE:
            self.broker.replicas.append(request, now)
        else:
            self.broker.replicas.fetch(request, now)
        self._dispatch(now)
