"""A consumer's fetches as Kafka serves them, and the logs they read.

Follows the Java KafkaConsumer's fetcher and the broker's ``DelayedFetch``: a consumer sends one
fetch request per leader broker for its partitions that have no buffered records (the next one
as soon as the application has taken what the last one brought: ``poll()`` sends fetches before
it returns). A fetch goes through the broker's network thread, its request queue and an I/O
handler like every produce request of the load. A consumer reads up to the high watermark (the
log end with no followers). When the bytes it could read are fewer than ``fetch.min.bytes`` the
fetch waits in purgatory until enough are appended or ``fetch.max.wait.ms`` passes, and then
returns what there is. A response holds whole batches, per partition up to
``max.partition.fetch.bytes`` (at least one batch). Each batch's records are the upstream
producer's records with their intended send times.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Any, Callable

from simulator.model.broker import ApiKeys, Broker, Partition, Request
from simulator.model.engine import Engine
from workloads.profile import BrokerCosts
from workloads.streaming import ConsumerConfig

FETCH_HEADER = 100          # a fetch request's bytes before its partitions
FETCH_PARTITION = 30


class InputLog:
    """A consumed partition's batches in offset order (the broker calls ``appended`` and
    ``visible``), and the fetches parked on it."""

    __slots__ = ("partition", "ends", "batches", "parked")

    def __init__(self, partition: Partition):
        self.partition = partition
        self.ends: list[float] = []          # the log end offset after each batch, in bytes
        self.batches: list[Any] = []
        self.parked: list["Consumer"] = []
        partition.observer = self

    def end(self) -> int:
        """Batches a consumer may read: those under the high watermark (all, without followers)."""
        partition = self.partition
        if not partition.followers:
            return len(self.batches)
        hw = partition.hw
        ends = self.ends
        count = len(ends)
        while count and ends[count - 1] > hw + 1e-6:
            count -= 1
        return count

    def appended(self, batch: Any, now: float) -> None:
        self.ends.append(self.partition.leo)
        self.batches.append(batch)
        if not self.partition.followers:
            self.visible(now)

    def visible(self, now: float) -> None:
        if self.parked:
            parked, self.parked = self.parked, []
            for consumer in parked:
                consumer.data_arrived(now)


class Consumer:
    """One KafkaConsumer: its assigned partitions, their positions (a batch index), and the fetch
    in flight to each leader. ``on_data`` is called when a response brought records."""

    def __init__(self, engine: Engine, name: str, logs: list[InputLog], config: ConsumerConfig, costs: BrokerCosts,
                 rtt: float, on_data: Callable[[float], None]):
        self.engine, self.name, self.logs, self.on_data = engine, name, logs, on_data
        self.min_bytes = config.fetch_min_bytes
        self.max_wait = config.fetch_max_wait_ms / 1e3
        self.max_poll_records = config.max_poll_records
        self.max_partition_bytes = config.max_partition_fetch_bytes
        self.half_rtt = rtt / 2
        self.fetch_request_s = costs.fetch_request_us * 1e-6
        self.fetch_partition_s = costs.fetch_partition_us * 1e-6
        self.fetch_byte_s = costs.fetch_byte_ns * 1e-9
        self.position = {log: 0 for log in logs}
        self.limit: dict[InputLog, float] = {log: math.inf for log in logs}   # a Spark task's end offset
        self.by_node: dict[Broker, list[InputLog]] = {}
        for log in logs:
            self.by_node.setdefault(log.partition.leader, []).append(log)
        self.connections = {node: node.connect(name) for node in self.by_node}
        self.inflight: dict[Broker, Request | None] = {node: None for node in self.by_node}
        self.buffered: dict[InputLog, int] = {log: 0 for log in logs}
        self.records: deque[tuple[float, float, InputLog]] = deque()   # (intended send time, fetched at, log)
        self.response_at: Callable[[Request], None] = self.on_response
        self.parked_request: dict[Broker, Request] = {}
        self.fetches = 0
        self.empty_fetches = 0

    # ---- the client's side ---------------------------------------------------------------
    def send_fetches(self, now: float) -> None:
        """KafkaConsumer.sendFetches: a fetch to each leader with no fetch in flight, for its
        partitions with nothing buffered and something left to read."""
        for node, logs in self.by_node.items():
            if self.inflight[node] is not None:
                continue
            wanted = [log for log in logs if not self.buffered[log] and self.position[log] < self.limit[log]]
            if not wanted:
                continue
            request = Request(ApiKeys.FETCH, self.connections[node], FETCH_HEADER + FETCH_PARTITION * len(wanted), self, self)
            request.partitions = [log.partition for log in wanted]
            request.offsets = [float(self.position[log]) for log in wanted]
            request.batches = wanted          # the logs asked for
            self.inflight[node] = request
            self.fetches += 1
            node.receive(request, now + self.half_rtt)

    def on_response(self, request: Request) -> None:
        now = self.engine.now
        self.inflight[request.connection.broker] = None
        got = 0
        for log, taken in zip(request.batches, request.ends):
            start = self.position[log]
            for batch in log.batches[start:start + int(taken)]:
                for intended in batch.intended or ():
                    self.records.append((intended, now, log))
                    got += 1
                    self.buffered[log] += 1
            self.position[log] = start + int(taken)
        if not got:
            self.empty_fetches += 1
        self.on_data(now)

    def poll(self, now: float, most: int | None = None) -> list[tuple[float, float]]:
        """Up to ``max.poll.records`` buffered records as (intended send time, fetched at); then
        fetches for the partitions now drained (KafkaConsumer.poll sends them before returning)."""
        take = min(len(self.records), self.max_poll_records if most is None else most)
        out = []
        for _ in range(take):
            intended, fetched, log = self.records.popleft()
            self.buffered[log] -= 1
            out.append((intended, fetched))
        self.send_fetches(now)
        return out

    # ---- the broker's side (its handlers delegate a consumer's fetch to its client) ------------------
    def _readable(self, request: Request) -> tuple[list[float], float]:
        """Per partition, the batches a response would hold now, and their bytes."""
        counts: list[float] = []
        total = 0.0
        for log in request.batches:
            start, end = self.position[log], log.end()
            end = int(min(end, self.limit[log]))
            size = 0.0
            count = 0
            for i in range(start, end):
                wire = log.ends[i] - (log.ends[i - 1] if i else 0.0)
                if count and size + wire > self.max_partition_bytes:
                    break
                size += wire
                count += 1
            counts.append(float(count))
            total += size
        return counts, total

    def handler_cpu(self, request: Request, broker: Broker) -> float:
        _, size = self._readable(request)
        return self.fetch_request_s + len(request.partitions) * self.fetch_partition_s + size * self.fetch_byte_s

    def handled(self, request: Request, now: float) -> None:
        counts, size = self._readable(request)
        if size >= self.min_bytes or self.max_wait <= 0.0:
            self._complete(request, counts, size, now)
            return
        request.parked = True     # DelayedFetch: until fetch.min.bytes are readable or fetch.max.wait.ms
        self.parked_request[request.connection.broker] = request
        for log in request.batches:
            log.parked.append(self)
        self.engine.at(now + self.max_wait, self._expire, request)

    def data_arrived(self, now: float) -> None:
        for node, request in list(self.parked_request.items()):
            counts, size = self._readable(request)
            if size >= self.min_bytes:
                self._complete(request, counts, size, now)
            else:
                for log in request.batches:
                    if self not in log.parked:
                        log.parked.append(self)

    def _expire(self, request: Request) -> None:
        if request.parked:
            counts, size = self._readable(request)
            self._complete(request, counts, size, self.engine.now)

    def _complete(self, request: Request, counts: list[float], size: float, now: float) -> None:
        request.parked = False
        self.parked_request.pop(request.connection.broker, None)
        request.ends = counts
        request.data = size
        request.connection.broker.respond(request, now)
