"""The broker alone: a stream of produce requests of given sizes and cadence, replayed against the
model's brokers as ``bench/BrokerProbe.java`` replays it against a real one.

A ``RequestStream`` writes, every ``every`` seconds, one produce request of ``batches`` batches (one a
partition, the partitions taken round-robin) of ``batch_bytes`` of records each, on a connection of its
own, with at most ``in_flight`` requests outstanding (a request due while the window is full waits for a
response, as the probe's writer does). No producer: the requests are what they are, so what the
replay measures is the broker's answer: each request's latency from its write to its response's
arrival, and the broker's own figures (Kafka's Produce time parts, handler and network-processor
idle, CPU).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from simulator._core import Cores, Random, Scheduler
from simulator._core import BATCH_HEADER, PARTITION_HEADER, REQUEST_HEADER, Batch
from simulator.model.broker import PRODUCE_TIME_PARTS, Broker, Partition, idle_percent
from simulator.model.compression import record_overhead
from simulator.model.engine import Engine
from simulator.model.request import ApiKeys, Connection, Request
from workloads import Scenario

VALUE_BYTES = 1000           # BrokerProbe's records: 1,000-byte values, no key


@dataclass(frozen=True)
class RequestStream:
    """One client's produce requests: ``batches`` batches of ``batch_bytes`` to ``topic``'s partitions
    (round-robin over the first ``partitions``) every ``every`` seconds, ``in_flight`` at most outstanding."""

    name: str
    batches: int
    batch_bytes: int
    topic: str
    partitions: int
    every: float
    in_flight: int = 5

    @property
    def records_per_batch(self) -> int:
        """BrokerProbe's count: whole records of a 1,000-byte value and its ~10 bytes of framing."""
        return max(1, self.batch_bytes // (VALUE_BYTES + 10))

    def probe_argument(self) -> str:
        """The stream as ``bench/BrokerProbe.java`` takes it."""
        return (f"{self.name}:{self.batches}:{self.batch_bytes}:{self.topic}:{self.partitions}:"
                f"{self.every * 1e3:g}:{self.in_flight}")


@dataclass(frozen=True)
class StreamFigures:
    """A stream's requests measured: their latencies (seconds, in the order they were written)."""

    name: str
    latencies: tuple[float, ...]
    lags: tuple[float, ...]           # each write's lag behind its due time (a full window holds it back)

    def percentile(self, q: float, values: tuple[float, ...] | None = None) -> float:
        """BrokerProbe's percentile: the value at rank ceil(q x n) of the sorted values."""
        ordered = sorted(self.latencies if values is None else values)
        if not ordered:
            return 0.0
        rank = -(-q * len(ordered) // 1)
        return ordered[min(len(ordered) - 1, max(0, int(rank) - 1))]


@dataclass(frozen=True)
class ReplayFigures:
    """What a replay measured over its measured part: per stream, and the broker's own figures
    (the Produce time parts' means in seconds, over every produce request it answered then)."""

    streams: tuple[StreamFigures, ...]
    produce_time: dict[str, float]
    handler_idle_pct: float
    network_idle_pct: float
    cpu_pct: float
    produce_requests: int


class StreamClient:
    """A ``RequestStream`` on its connection to ``broker``: writes at its cadence, times the responses."""

    def __init__(self, engine: Engine, broker: Broker, stream: RequestStream, partitions: list[Partition],
                 rtt: float, measure_from: float, until: float, host: Cores | None = None):
        self.engine, self.broker, self.stream = engine, broker, stream
        # the probe's host: its writer and reader threads sleep, and wake behind what else runs there
        self.host = host
        self.partitions = partitions[:stream.partitions]
        self.connection: Connection = broker.connect(f"probe-{stream.name}")
        self.half_rtt = rtt / 2
        self.measure_from, self.until = measure_from, until
        self.due: deque[float] = deque()           # requests due, waiting for room in the window
        self.inflight = 0
        self.step = 0
        self.written: dict[int, tuple[float, float]] = {}     # id(request) -> (write, due)
        self.latencies: list[float] = []
        self.lags: list[float] = []
        records = stream.records_per_batch
        self.record_wire = VALUE_BYTES + record_overhead(VALUE_BYTES)
        self.records = records

    def start(self, _: object = None) -> None:
        self.engine.at(self.engine.now, self._tick)

    def _wake(self) -> float:
        """A probe thread leaving its sleep: its wait for a core."""
        return self.host.wake_delay(0.0) if self.host is not None else 0.0

    def _tick(self, _: object = None) -> None:
        now = self.engine.now
        if now >= self.until:
            return
        self.due.append(now)
        wait = self._wake()
        if wait > 0.0:
            self.engine.at(now + wait, self._write_now)
        else:
            self._write(now)
        self.engine.at(now + self.stream.every, self._tick)

    def _write_now(self, _: object = None) -> None:
        self._write(self.engine.now)

    def _write(self, now: float) -> None:
        while self.due and self.inflight < self.stream.in_flight:
            due = self.due.popleft()
            request = self._request()
            self.inflight += 1
            self.written[id(request)] = (now, due)
            self.broker.receive(request, now + self.half_rtt)

    def _request(self) -> Request:
        stream, partitions = self.stream, self.partitions
        batches = []
        wire = float(REQUEST_HEADER)
        for b in range(stream.batches):
            partition = partitions[(self.step * stream.batches + b) % len(partitions)]
            batch = Batch(partition, self.engine.now, stream.batch_bytes, "none")
            batch.records = float(self.records)
            batch.bytes = float(self.records * VALUE_BYTES)
            batch.wire = float(BATCH_HEADER + self.records * self.record_wire)
            batch.full = True
            batches.append(batch)
            wire += batch.wire + PARTITION_HEADER
        self.step += 1
        request = Request(ApiKeys.PRODUCE, self.connection, wire, self)
        request.batches = batches
        request.acks = "1"
        request.t_created = self.engine.now
        return request

    def response_at(self, request: Request) -> None:
        wait = self._wake()     # the reader thread, asleep in read(), waits for a core
        if wait > 0.0:
            self.engine.at(self.engine.now + wait, self._read, request)
        else:
            self._read(request)

    def _read(self, request: Request) -> None:
        now = self.engine.now
        self.inflight -= 1
        written, due = self.written.pop(id(request))
        if due >= self.measure_from:
            self.latencies.append(now - written)
            self.lags.append(written - due)
        self._write(now)


def replay(scenario: Scenario, streams: list[RequestStream], seconds: float, seed: int,
           lead: float = 1.0, client_host: str | None = None) -> ReplayFigures:
    """``streams`` against broker 0 of ``scenario``'s cluster (its profile, its host as the
    scenario places it) for ``lead`` + ``seconds``; figures over the requests due in the last
    ``seconds``. ``client_host``: the scenario's host the probe runs on (None: a core of its own)."""
    rng = Random.seeded(seed)
    until = lead + seconds
    engine = Engine(stop_at=until + 5.0)
    profile = scenario.profile
    scheduler = Scheduler.of(profile)
    hosts = {h.name: Cores(h.vcpus, scheduler, Random.seeded(rng.random()), h.background) for h in scenario.hosts}
    placed = scenario.placement.broker(0)
    broker = Broker(engine, 0, scenario.cluster.broker, profile.broker, scenario.cluster.network_rtt,
                    Random.seeded(rng.random()), scenario.jitter.service_time, scheduler,
                    profile.scheduler.broker_background_threads, cores=hosts[placed] if placed else None)
    partitions = {topic.name: [Partition(topic.name, i, broker, []) for i in range(topic.partitions)]
                  for topic in scenario.cluster.topics}
    probe = hosts[client_host] if client_host else None
    clients = [StreamClient(engine, broker, s, partitions[s.topic], scenario.cluster.network_rtt, lead, until, probe)
               for s in streams]
    for client in clients:
        engine.at(rng.random() * client.stream.every, client.start)
    times = broker.metrics.produce.times
    marks = {part: len(times[part]) for part in PRODUCE_TIME_PARTS}

    def mark(_: object = None) -> None:
        marks.update({part: len(times[part]) for part in PRODUCE_TIME_PARTS})
    engine.at(lead, mark)
    engine.run()
    means = {}
    for part in PRODUCE_TIME_PARTS:
        values = list(times[part])[marks[part]:]
        means[part] = sum(values) / len(values) if values else 0.0
    whole = int(until) + 1
    first, last = int(lead), int(until)

    def mean_over(values: list[float]) -> float:
        span = values[first:last] or values
        return sum(span) / len(span) if span else 0.0
    handler = mean_over(idle_percent(broker.handler_busy, broker.io_threads, whole))
    network = mean_over([sum(v) / len(broker.processors)
                         for v in zip(*(idle_percent(p.used, 1, whole) for p in broker.processors))])
    cpu = mean_over([100.0 * v / broker.cores.count for v in broker.metrics.cpu_busy.values(whole)])
    return ReplayFigures(tuple(StreamFigures(c.stream.name, tuple(c.latencies), tuple(c.lags)) for c in clients),
                         means, handler, network, cpu, len(times["TotalTimeMs"]) - marks["TotalTimeMs"])
