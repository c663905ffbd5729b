"""A Kafka broker: NIC, network processors, request queue, I/O handlers, logs, purgatory.

Follows SocketServer/KafkaRequestHandler: a connection's request is read by its network
processor, which mutes the connection until the response is sent (one request per
connection inside the broker); requests wait in one shared queue (``queued.max.requests``)
for an I/O handler thread. All threads share the broker's cores (``cpu.Cores``): a thread
woken while every core is busy waits for one, and its CPU work takes longer when more
threads are runnable than there are cores; a handler waiting for a core is not idle.
acks=all produces wait in purgatory until followers' fetches move the high watermark.

A broker knows its clients by ``client.id`` only: quotas are configured per client id
(``quotas``), and the time parts of the produce requests of the client ids the run keeps (its
neighbours') go to their rows of the request log (``request_log``, by client id).
"""
from __future__ import annotations

import random
from collections import deque
from typing import Callable, Mapping

from simulator.model.cpu import Cores, Scheduler
from simulator.model.engine import Engine
from simulator.model.metrics import FloatSamples, Timeline
from simulator.model.quota import PERCENT_PER_SECOND, RateQuota, byte_rate_quota, request_time_quota
from simulator.model.request import Client, Connection, Handler, Partition, Request, RequestLog, RequestTimes
from simulator.model.shared import Shared
from workloads.profile import BrokerCosts
from workloads.scenario import Broker as BrokerSpec
from workloads.quota import Quota

FETCH_RESPONSE_MAX = 10 * 1024 * 1024     # replica.fetch.response.max.bytes
PRODUCE_TIME_PARTS = ("RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs",
                      "ResponseSendTimeMs", "TotalTimeMs")
RESPONSE_BYTES = 64
__all__ = ["Broker", "Client", "Connection", "Fetcher", "Handler", "Partition", "Request", "RequestLog", "RequestTimes",
           "fetcher_id", "idle_percent"]

class Broker:
    def __init__(self, engine: Engine, broker_id: int, spec: BrokerSpec, costs: BrokerCosts, rtt: float,
                 rng: random.Random, jitter: float, scheduler: Scheduler, background: float,
                 quotas: Mapping[str, Quota] | None = None, request_log: RequestLog | None = None):
        self.engine, self.id, self.jitter = engine, broker_id, jitter
        self.random: Callable[[], float] = rng.random   # bound once: a draw per handled request
        self.cores = Cores(spec.vcpus, scheduler, rng, background)
        self.nic_in = Shared(spec.nic_bandwidth)
        self.nic_out = Shared(spec.nic_bandwidth)
        self.disk_bandwidth = spec.disk_bandwidth
        self.dirty_cache = spec.dirty_cache
        self.disk_backlog, self.disk_time = 0.0, 0.0
        self.processors = [Shared(1.0, spread=True) for _ in range(spec.num_network_threads)]
        self.io_threads = spec.num_io_threads
        self.handlers_busy = 0
        self.fetchers_busy = 0
        self.queue_limit = spec.queued_max_requests
        self.queue: deque[Request] = deque()
        self.blocked: deque[Request] = deque()
        self.fetch_wait = spec.replica_fetch_wait_max_ms / 1e3
        self.parked: deque[tuple[float, Request]] = deque()   # (deadline, fetch) in deadline order
        self.sweep_at: float | None = None
        self.fetch_max = spec.replica_fetch_max_bytes
        self.half_rtt = rtt / 2
        self.client_quotas: Mapping[str, Quota] = quotas or {}   # by client.id, as kafka-configs sets them
        self.request_log: RequestLog = request_log if request_log is not None else {}
        self.enqueue_at: Callable[[Request], None] = self._enqueue     # bound once: events are many
        self.handled_at: Callable[[Request], None] = self._handled
        # the profile's CPU costs, in seconds per request, batch, record and byte
        self.network_request_s = costs.network_request_us * 1e-6
        self.network_byte_s = costs.network_byte_ns * 1e-9
        # a fetch response's bytes: zero-copy (sendfile) without TLS, copied and encrypted with it
        self.send_byte_s = (costs.network_byte_ns if costs.fetch_send_byte_ns is None else costs.fetch_send_byte_ns) * 1e-9
        self.produce_request_s = costs.produce_request_us * 1e-6
        self.produce_batch_s = costs.produce_batch_us * 1e-6
        self.produce_record_s = costs.produce_record_ns * 1e-9
        self.produce_byte_s = costs.produce_byte_ns * 1e-9
        self.decompress_byte_s: dict[str, float] = {k: v * 1e-9 for k, v in costs.decompress_byte_ns.items()}
        self.fetch_request_s = costs.fetch_request_us * 1e-6
        self.fetch_partition_s = costs.fetch_partition_us * 1e-6
        self.fetch_byte_s = costs.fetch_byte_ns * 1e-9
        self.follower_batch_s = costs.follower_batch_us * 1e-6
        self.follower_byte_s = costs.follower_byte_ns * 1e-9
        self._connections = 0
        # metrics, named after the broker's own
        self.produce_requests = Timeline()
        self.fetch_requests = Timeline()
        self.handler_busy = Timeline()
        self.cpu_busy = Timeline()
        self.queue_area = Timeline()
        self.queue_max = 0
        self.queue_changed = 0.0
        self.produce_time = {part: FloatSamples() for part in PRODUCE_TIME_PARTS}
        self.produce_count = 0
        self.produce_by_client: dict[str, Timeline] = {}   # RequestsPerSec{request=Produce} by client.id, per second
        self.fetch_count = 0
        self.byte_quotas: dict[str, RateQuota] = {}      # producer_byte_rate, per quota entity (client-id)
        self.request_quotas: dict[str, RateQuota] = {}   # request_percentage, per quota entity
        self.produce_throttle_s = 0.0                    # throttle handed back with produce responses

    def __repr__(self) -> str:
        return f"broker-{self.id}"

    def connect(self, client_id: str) -> Connection:
        """Acceptor hands new connections to processors round-robin."""
        self._connections += 1
        return Connection(self, (self._connections - 1) % len(self.processors), client_id)

    # ---- CPU ----------------------------------------------------------------------------
    def runnable(self, now: float) -> int:
        """Threads of this broker runnable now: busy handlers, fetchers and network processors."""
        runnable = self.handlers_busy + self.fetchers_busy
        for processor in self.processors:
            if processor.free_at > now:
                runnable += 1
        return runnable

    def on_core(self, now: float, cpu: float, counted: bool) -> float:
        """Wall time a thread takes for ``cpu`` seconds of work starting now: the work at its
        share of the cores, and a wait for a tick when it wakes behind the broker's CPU-bound
        background work. The broker's own threads run bursts shorter than a slice and then
        sleep, so one woken behind them waits for a burst's end: the share counts that.
        ``counted``: the thread is already among the runnable ones."""
        others = self.runnable(now) - (1 if counted else 0)
        return self.cores.wake_delay(0.0) + self.noisy(cpu) * self.cores.stretch(others + 1)

    def noisy(self, seconds: float) -> float:
        """Service time with seeded spread (uniform, standard deviation = jitter)."""
        if not self.jitter:
            return seconds
        return seconds * (1.0 + self.jitter * 3.4641016 * (self.random() - 0.5))

    def disk_append(self, now: float, size: float) -> float:
        """Page-cache write; returns the stall once dirty pages exceed what the disk drains."""
        drained = (now - self.disk_time) * self.disk_bandwidth
        self.disk_backlog = max(0.0, self.disk_backlog - drained) + size
        self.disk_time = now
        excess = self.disk_backlog - self.dirty_cache
        return excess / self.disk_bandwidth if excess > 0 else 0.0

    # ---- network processors ---------------------------------------------------------------
    def receive(self, request: Request, at: float) -> float:
        """Bytes leave the client at ``at``; returns when the broker has them all. A muted
        connection keeps the request (with its arrival time) until its response is sent."""
        connection = request.connection
        arrived = self.nic_in.take(at, request.size, connection)
        request.t_received = arrived
        if connection.busy or connection.pending:
            connection.pending.append(request)
        else:
            self._read(request, max(arrived, connection.free_at))
        return arrived

    def _processor_work(self, connection: Connection, start: float, cpu: float) -> float:
        # a processor with no work in hand sleeps in select(): it wakes for this one
        took = self.on_core(start, cpu, self.processors[connection.processor].free_at > start)
        self.cpu_busy.add(start, cpu)
        return self.processors[connection.processor].take(start, took, connection)

    def _read(self, request: Request, start: float) -> None:
        request.connection.busy = True
        request.t_arrive = start
        cpu = self.network_request_s + request.size * self.network_byte_s
        self.engine.at(self._processor_work(request.connection, start, cpu), self.enqueue_at, request)

    # ---- request queue and handlers ------------------------------------------------------------
    def _queue_changed(self, now: float) -> None:
        waiting = len(self.queue) + len(self.blocked)
        if waiting:
            self.queue_area.add_interval(self.queue_changed, now, waiting)
        self.queue_changed = now

    def _enqueue(self, request: Request) -> None:
        now = self.engine.now
        self._queue_changed(now)
        request.t_enqueue = now
        if len(self.queue) >= self.queue_limit:
            self.blocked.append(request)   # the network thread blocks until there is room
        else:
            self.queue.append(request)
        self.queue_max = max(self.queue_max, len(self.queue))
        self._dispatch(now)

    def _dispatch(self, now: float) -> None:
        while self.queue and self.handlers_busy < self.io_threads:
            self._queue_changed(now)
            request = self.queue.popleft()
            if self.blocked:
                self.queue.append(self.blocked.popleft())
            self.handlers_busy += 1
            request.t_start = now
            cpu = self._handler_cpu(request, now)
            took = self.on_core(now, cpu, True)
            if request.kind == "produce":
                wire = 0.0
                for batch in request.batches:
                    wire += batch.wire
                took += self.disk_append(now, wire)
            self.handler_busy.add_interval(now, now + took)
            self.cpu_busy.add(now, cpu)
            self.engine.at(now + took, self.handled_at, request)

    def _handler_cpu(self, request: Request, now: float) -> float:
        if request.kind == "fetch":
            return (self.fetch_request_s + len(request.partitions) * self.fetch_partition_s
                    + self._fetchable(request) * self.fetch_byte_s)
        if request.kind != "produce":   # a consumer's or a transaction's request: its client knows its cost
            return float(_handler(request).handler_cpu(request, self))
        cpu = self.produce_request_s
        decompress = self.decompress_byte_s
        for batch in request.batches:
            cpu += (self.produce_batch_s + batch.records * self.produce_record_s + batch.wire * self.produce_byte_s
                    + batch.bytes * decompress[batch.codec])
        return cpu

    def _handled(self, request: Request) -> None:
        now = self.engine.now
        self.handlers_busy -= 1
        request.t_local = now
        if request.kind == "produce":
            self._append(request, now)
        elif request.kind == "fetch":
            self._fetch(request, now)
        else:
            _handler(request).handled(request, now)
        self._dispatch(now)

    # ---- produce ------------------------------------------------------------------------------
    def _append(self, request: Request, now: float) -> None:
        self.produce_count += 1
        self.produce_requests.add(now)
        client_id = request.connection.client_id
        by_client = self.produce_by_client.get(client_id)
        if by_client is None:
            by_client = self.produce_by_client[client_id] = Timeline()
        by_client.add(now)
        wait_for_replicas = request.acks == "all"
        for batch in request.batches:
            partition = batch.partition
            partition.leo += batch.wire
            partition.batches += 1
            observer = getattr(partition, "observer", None)
            if observer is not None:
                observer.appended(batch, now)
            if wait_for_replicas and partition.followers:
                partition.waiting.append((partition.leo, request))
                request.pending += 1
            if partition.fetch_waiters:
                waiters, partition.fetch_waiters = partition.fetch_waiters, []
                for fetch in waiters:
                    if fetch.parked:
                        self._complete_fetch(fetch, now)
        if request.pending == 0:
            self._respond(request, now)

    def _advance_hw(self, partition: Partition, now: float) -> None:
        hw = partition.leo
        for follower_leo in partition.follower_leo.values():
            if follower_leo < hw:
                hw = follower_leo
        if hw <= partition.hw:
            return
        partition.hw = hw
        observer = partition.observer
        if observer is not None:
            observer.visible(now)
        waiting = partition.waiting
        while waiting and waiting[0][0] <= hw:
            _, request = waiting.popleft()
            request.pending -= 1
            if request.pending == 0:
                self._respond(request, now)

    def _respond(self, request: Request, now: float) -> None:
        request.t_complete = now
        connection = request.connection
        size = RESPONSE_BYTES + request.data
        cpu = self.network_request_s + request.data * self.send_byte_s
        # when the processor's earlier work for the connection is done: a produce response's wait
        begin = max(now, self.processors[connection.processor].busy_until(connection)) if request.kind == "produce" else now
        sent = self._processor_work(connection, now, cpu)
        delivered = self.nic_out.take(sent, size, connection)
        if request.kind == "fetch":
            delivered = max(delivered, _fetcher(request).broker.nic_in.take(sent, size, connection))
        elif request.kind == "produce":
            self._record_produce_times(request, begin, delivered)
        if request.kind == "produce":
            self._throttle(request, now, cpu)
        connection.busy = False
        connection.free_at = sent + request.throttle     # KIP-219: muted while throttled
        if connection.pending:
            waiting = connection.pending.popleft()
            self._read(waiting, max(connection.free_at, waiting.t_received))
        if request.kind == "fetch" or request.acks != "0":
            self.engine.at(delivered + self.half_rtt, request.client.response_at, request)

    def _throttle(self, request: Request, now: float, response_cpu: float) -> None:
        """KafkaApis.handleProduceRequest: the larger of the byte-rate and the request-time
        throttle; the handler thread time counts at once, the network threads' without throttling."""
        client_id = request.connection.client_id
        config = self.client_quotas.get(client_id)
        throttle = 0.0
        if config is not None and config.producer_byte_rate:
            quota = self._quota(self.byte_quotas, client_id, byte_rate_quota, config.producer_byte_rate)
            throttle = quota.record(now, request.size)
        if config is not None and config.request_percentage and request.acks != "0":
            quota = self._quota(self.request_quotas, client_id, request_time_quota, config.request_percentage)
            throttle = max(throttle, quota.record(now, (request.t_local - request.t_start) * PERCENT_PER_SECOND))
            network_s = self.network_request_s + request.size * self.network_byte_s + response_cpu
            quota.record_no_throttle(now, network_s * PERCENT_PER_SECOND)
        request.throttle = throttle
        self.produce_throttle_s += throttle

    @staticmethod
    def _quota(quotas: dict[str, RateQuota], client_id: str, make: Callable[[float], RateQuota],
               bound: float) -> RateQuota:
        quota = quotas.get(client_id)
        if quota is None:
            quota = quotas[client_id] = make(bound)
        return quota

    def _record_produce_times(self, request: Request, response_begin: float, delivered: float) -> None:
        times = self.produce_time
        times["RequestQueueTimeMs"].append(request.t_start - request.t_enqueue)
        times["LocalTimeMs"].append(request.t_local - request.t_start)
        times["RemoteTimeMs"].append(request.t_complete - request.t_local)
        times["ResponseQueueTimeMs"].append(response_begin - request.t_complete)
        times["ResponseSendTimeMs"].append(delivered - response_begin)
        times["TotalTimeMs"].append(delivered - request.t_arrive)
        rows = self.request_log.get(request.connection.client_id)
        if rows is not None:
            rows.add((request.t_arrive, request.t_local - request.t_start, request.t_complete - request.t_local,
                      delivered - request.t_arrive))

    # ---- fetch (leader side) ----------------------------------------------------------------------
    def _fetchable(self, request: Request) -> float:
        total = 0.0
        offsets = request.offsets
        for i, partition in enumerate(request.partitions):
            total += min(partition.leo - offsets[i], self.fetch_max)
        return min(total, FETCH_RESPONSE_MAX)

    def _fetch(self, request: Request, now: float) -> None:
        self.fetch_count += 1
        self.fetch_requests.add(now)
        follower = _fetcher(request).broker.id
        offsets = request.offsets
        for i, partition in enumerate(request.partitions):
            if offsets[i] > partition.follower_leo[follower]:
                partition.follower_leo[follower] = offsets[i]
                self._advance_hw(partition, now)
        if self._fetchable(request) > 0:
            self._complete_fetch(request, now)
            return
        request.parked = True     # DelayedFetch: until data arrives or replica.fetch.wait.max.ms
        for partition in request.partitions:
            partition.fetch_waiters.append(request)
        self.parked.append((now + self.fetch_wait, request))
        if self.sweep_at is None:
            self.sweep_at = now + self.fetch_wait
            self.engine.at(self.sweep_at, self._expire_fetches)

    def _expire_fetches(self, _=None) -> None:
        """Fetches that waited replica.fetch.wait.max.ms for data return empty."""
        now = self.engine.now
        parked = self.parked
        while parked and (parked[0][0] <= now or not parked[0][1].parked):
            _, request = parked.popleft()
            if request.parked:
                self._complete_fetch(request, now)
        self.sweep_at = None
        if parked:
            self.sweep_at = parked[0][0]
            self.engine.at(parked[0][0], self._expire_fetches)

    def _complete_fetch(self, request: Request, now: float) -> None:
        request.parked = False
        budget = float(FETCH_RESPONSE_MAX)
        ends = request.offsets[:]
        data = batches = 0.0
        for i, partition in enumerate(request.partitions):
            size = min(min(partition.leo - ends[i], self.fetch_max), budget)
            if size > 0.0:
                budget -= size
                data += size
                batches += size * partition.batches / partition.leo
                ends[i] += size
        request.ends = ends
        request.data = data
        request.fetched_batches = batches
        self._respond(request, now)


class Fetcher:
    """A replica fetcher thread of ``broker`` pulling the partitions it follows from ``leader``."""

    def __init__(self, engine: Engine, broker: Broker, leader: Broker, partitions: list[Partition]):
        self.engine, self.broker, self.leader, self.partitions = engine, broker, leader, partitions
        self.leo = [0.0] * len(partitions)       # this follower's log end offsets
        self.connection = leader.connect(f"broker-{broker.id}-fetcher")
        self.bytes = 0.0
        self.response_at: Callable[[Request], None] = self.on_response
        self.appended_at: Callable[[Request], None] = self._appended

    def start(self, _: object = None) -> None:
        request = Request("fetch", self.connection, 100 + 30 * len(self.partitions), self)
        request.partitions = self.partitions
        request.offsets = self.leo[:]
        self.leader.receive(request, self.engine.now + self.broker.half_rtt)

    def on_response(self, request: Request) -> None:
        """Append what came back (on this thread, sharing the follower's cores), fetch again."""
        now = self.engine.now
        broker = self.broker
        cpu = request.fetched_batches * broker.follower_batch_s + request.data * broker.follower_byte_s
        took = broker.on_core(now, cpu, False) if cpu else 0.0
        took += broker.disk_append(now, request.data)
        broker.fetchers_busy += 1
        broker.cpu_busy.add(now, cpu)
        self.bytes += request.data
        self.engine.at(now + took, self.appended_at, request)

    def _appended(self, request: Request) -> None:
        self.broker.fetchers_busy -= 1
        leo, ends = self.leo, request.ends
        for i in range(len(leo)):
            if ends[i] > leo[i]:
                leo[i] = ends[i]
        self.start()


def _fetcher(request: Request) -> Fetcher:
    """A fetch request's replica fetcher: the follower broker it appends for."""
    fetcher = request.client
    assert isinstance(fetcher, Fetcher)
    return fetcher


def _handler(request: Request) -> Handler:
    handler = request.handler
    assert handler is not None, f"a {request.kind} request without its handler"
    return handler


def fetcher_id(topic: str, partition: int, fetchers: int) -> int:
    """AbstractFetcherManager.getFetcherId: abs(31 * topic.hashCode + partition) % fetchers."""
    h = 0
    for ch in topic:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    h = h - (1 << 32) if h >= 1 << 31 else h
    value = (31 * h + partition) & 0xFFFFFFFF
    value = value - (1 << 32) if value >= 1 << 31 else value
    return abs(value) % fetchers if value != -(1 << 31) else 0


def idle_percent(busy: Timeline, threads: int, seconds: int) -> list[float]:
    return [max(0.0, 100.0 * (1.0 - b / threads)) for b in busy.values(seconds)]
