"""The streaming tenants' upstream producers and the consumers that time their output, in one
process of their own (pinned to the tenants' cores).

Each tenant's upstream producer (confluent-kafka, the tenant's own producer settings) sends
record ``i`` due at ``start + i / rate`` with that intended send time (epoch nanoseconds) and
``i`` in the value's first 16 bytes. A consumer of the output topic reads each output record,
and its end-to-end latency is the time it was seen minus the intended send time of the input
record it came from: a pipeline or producer that falls behind is charged for the wait (no
coordinated omission). Records never seen by the end count as failed.
"""
from __future__ import annotations

import bisect
import json
import multiprocessing
import os
import queue
import random
import signal
import struct
import threading
import time
from array import array
from dataclasses import dataclass, field
from typing import Any

from simulator.live._process import StackError, pin_self
from simulator.processes import STOPPING_SIGNALS, die_with_parent
from simulator.live.neighbours import STATISTICS_INTERVAL_MS, TenantTrace, client_figures, librdkafka_config

@dataclass(frozen=True)
class PipelineTrace(TenantTrace):
    """A streaming tenant's trace: ``intended``/``latency`` end to end (each output record seen
    once), ``failed`` the records lost, ``produce_requests`` the upstream producer's and the
    pipeline's; ``upstream`` each input record's (intended time, upstream producer latency), s;
    ``pipeline_produce_requests`` those the pipeline's own producers sent; ``batches`` a
    micro-batch query's progress per batch (``streaming_spark.batch_progress``), else None."""

    upstream: list = field(default_factory=list)
    pipeline_produce_requests: int = 0
    batches: list | None = None


HEADER = struct.Struct(">qq")       # intended send time (ns since the epoch), record index
# after the last send: how long output records may still arrive (a micro-batch query on a busy core lags seconds)
DRAIN_S = 30.0


def encode(intended_ns: int, index: int, padding: bytes) -> bytes:
    return HEADER.pack(intended_ns, index) + padding


def decode(value: bytes) -> tuple[int, int]:
    return HEADER.unpack_from(value)


def consumer_config(tenant: Any, bootstrap: str, security: dict[str, str]) -> dict[str, Any]:
    """The measuring consumer: reads the output topic from its end as soon as a record is there."""
    return {"bootstrap.servers": bootstrap, "group.id": f"quietload-measure-{tenant.name}", "client.id": f"{tenant.name}-measure",
            "auto.offset.reset": "latest", "enable.auto.commit": False, "fetch.wait.max.ms": 10,
            "log_level": 0, **security}


def _feed(tenant: Any, config: dict, stop: threading.Event, sent: Any, acked: Any, seed: int, stats: dict) -> None:
    from confluent_kafka import KafkaException, Producer     # optional extra (live)

    producer = Producer({**config, "stats_cb": lambda text: stats.update(stats=json.loads(text)),
                         "error_cb": lambda error: None})
    rng = random.Random(seed)
    padding = rng.randbytes(max(tenant.record_size - HEADER.size, 0))
    started_mono, started_ns = time.monotonic(), time.time_ns()
    interval = 1.0 / tenant.rate

    def delivered(index: int, intended: int) -> Any:
        def report(error: Any, message: Any) -> None:     # the upstream producer's own latency
            acked[index] = -1 if error is not None else time.time_ns() - intended
        return report

    index = 0
    while not stop.is_set():
        wait = started_mono + index * interval - time.monotonic()
        if wait > 0:
            producer.poll(min(wait, 0.05))
            continue
        intended = started_ns + round(index * interval * 1e9)
        key = str(rng.randrange(tenant.keys)).encode() if tenant.keys else None
        while True:
            try:
                producer.produce(tenant.topic, encode(intended, index, padding), key, on_delivery=delivered(index, intended))
                break
            except BufferError:      # queue.buffering.max: the application waits, the clock runs
                producer.poll(0.001)
            except KafkaException:
                break
        sent.append(intended)
        acked.append(-1)
        producer.poll(0)
        index += 1
    producer.flush(30.0)
    producer.poll(STATISTICS_INTERVAL_MS / 1000 + 0.2)     # one more statistics report, after the flush


def _measure(tenant: Any, config: dict, stop: threading.Event, seen: dict, count: Any) -> None:
    from confluent_kafka import Consumer     # optional extra (live)

    consumer = Consumer(config)
    assigned = threading.Event()
    consumer.subscribe([tenant.output_topic], on_assign=lambda c, partitions: assigned.set())
    try:
        while not stop.is_set():
            for message in consumer.consume(500, 0.05):
                now = time.time_ns()
                if message.error() is None and message.value() is not None and len(message.value()) >= HEADER.size:
                    intended, index = decode(message.value())
                    seen.setdefault(index, (intended, now - intended))   # a duplicate (at-least-once) keeps the first
                    count.value += 1
    finally:
        consumer.close()


def _lost(sent: Any, seen: dict, warm_ns: int) -> int:
    """Records sent from ``warm_ns`` on (``sent[i]`` is record i's intended time) not seen."""
    first = bisect.bisect_left(sent, warm_ns)
    return sum(1 for index in range(first, len(sent)) if index not in seen)


def _serve(tenants: list, producers: list[dict], consumers: list[dict], seed: int, cpus: list[int] | None,
           stop: Any, warm: Any, counts: list, results: Any) -> None:
    die_with_parent()
    for stopping in STOPPING_SIGNALS:   # a signal to the group: the parent stops them
        signal.signal(stopping, signal.SIG_IGN)
    pin_self(cpus)
    halt_feed, halt_measure = threading.Event(), threading.Event()
    sent: list[Any] = [array("q") for _ in tenants]         # intended send times, ns
    acked: list[Any] = [array("q") for _ in tenants]        # the upstream producer's latency, ns (-1: none)
    seen: list[dict] = [{} for _ in tenants]
    stats: list[dict] = [{} for _ in tenants]
    measurers = [threading.Thread(target=_measure, args=(t, c, halt_measure, s, n), daemon=True)
                 for t, c, s, n in zip(tenants, consumers, seen, counts)]
    feeders = [threading.Thread(target=_feed, args=(t, p, halt_feed, s, a, seed + i, st), daemon=True)
               for i, (t, p, s, a, st) in enumerate(zip(tenants, producers, sent, acked, stats))]
    for thread in measurers + feeders:
        thread.start()
    stop.wait()
    halt_feed.set()
    for thread in feeders:
        thread.join()
    deadline = time.monotonic() + DRAIN_S     # the records still in the pipelines
    while time.monotonic() < deadline and any(_lost(x, s, warm.value) for s, x in zip(seen, sent)):
        time.sleep(0.1)
    halt_measure.set()
    for thread in measurers:
        thread.join()
    traces = []
    for tenant, times, acks, got, figures in zip(tenants, sent, acked, seen, stats):
        kept = sorted(got.values())
        # lost: sent once every pipeline ran warm, never seen (records of the warm-up, sent before
        # a pipeline's query or the measuring consumer had its partitions, are not counted)
        lost = _lost(times, got, warm.value)
        client = client_figures(figures.get("stats", {}))
        upstream = [(t / 1e9, lat / 1e9) for t, lat in zip(times, acks) if lat >= 0]
        traces.append(PipelineTrace(tenant.name, [t / 1e9 for t, _ in kept], [lat / 1e9 for _, lat in kept],
                                    lost, sum(b["produce_requests"] for b in client["brokers"].values()), client,
                                    upstream=upstream))
    results.put(traces)


class StreamingFeed:
    """The streaming tenants' upstream producers and measuring consumers in their own process;
    ``seen(i)`` is how many output records tenant ``i`` has seen so far; ``stop()`` returns each
    tenant's trace (once), its produce requests the upstream producer's own count."""

    def __init__(self, tenants: list, bootstrap: str, security: dict[str, str] | None = None, seed: int = 1,
                 cpus: list[int] | None = None) -> None:
        security = security or {}
        self.tenants = list(tenants)
        self._context = multiprocessing.get_context("spawn")
        self._stop = self._context.Event()
        self._warm = self._context.Value("q", 2**62)    # epoch ns from which a record not seen is lost
        self._counts = [self._context.Value("q", 0) for _ in self.tenants]
        self._results = self._context.Queue()
        self._args = (self.tenants, [librdkafka_config(t, bootstrap, security) | {"client.id": f"{t.name}-upstream"}
                                     for t in self.tenants],
                      [consumer_config(t, bootstrap, security) for t in self.tenants], seed, cpus)
        self._process: Any = None

    def start(self) -> None:
        self._process = self._context.Process(target=_serve, args=(*self._args, self._stop, self._warm, self._counts,
                                                                   self._results), name="quietload-streaming-feed", daemon=True)
        self._process.start()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def seen(self, index: int) -> int:
        return self._counts[index].value

    def measure_from_now(self) -> None:
        """Every pipeline runs warm: from now on a record that never comes out is lost."""
        self._warm.value = time.time_ns()

    def alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def stop(self, timeout: float = 30.0 + DRAIN_S + 30.0) -> list[TenantTrace]:
        if self._process is None or self._process.pid is None:
            self._process = None
            return []
        self._stop.set()
        try:
            return self._results.get(timeout=timeout)
        except queue.Empty:
            raise StackError("the streaming tenants' producers gave no results (their process ended early)") from None
        finally:
            self._process.join(10.0)
            if self._process.is_alive():
                self._process.kill()
                self._process.join(5.0)
            self._process = None
