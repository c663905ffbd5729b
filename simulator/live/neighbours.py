"""The scenario's neighbour producers on a real cluster: one confluent-kafka (librdkafka) producer
per tenant at the tenant's fixed rate, in a process of their own (pinned to the given cores) so
that the batch job's threads do not hold them up.

Record ``i`` of a tenant is due at ``start + i / rate``; its latency is the delivery report's
time minus that intended time, so a producer that falls behind is charged for the wait
(no coordinated omission). Delivery reports are served while the thread waits for the next
due record, so they are timed within a poll's wake-up of their arrival.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import queue
import random
import signal
import threading
import time
from array import array
from dataclasses import dataclass, field
from typing import Any

from simulator.live._process import StackError, pin_self
from simulator.processes import STOPPING_SIGNALS, die_with_parent
from workloads import Tenant
from workloads.settings import librdkafka_properties

STATISTICS_INTERVAL_MS = 1000
_FLUSH_S = 30.0
POLL_RESOLUTION_S = 0.001   # librdkafka's poll timeout is in whole milliseconds


@dataclass(frozen=True)
class TenantTrace:
    """What one tenant's producer did: each record's intended send time (epoch seconds) and its
    latency (seconds), failed deliveries, and the client's own statistics."""

    name: str
    intended: list[float]
    latency: list[float]
    failed: int
    produce_requests: int                     # librdkafka's own count of Produce requests sent
    statistics: dict = field(default_factory=dict)
    # how late records were handed to the client after their due time (seconds): a producer
    # thread the machine starved falls behind its schedule before any broker sees a record
    send_lag_p99_s: float = 0.0
    send_lag_max_s: float = 0.0
    tids: tuple[int, ...] = ()      # its threads (its own and its client's), for their wait for a core

    @property
    def sent(self) -> int:
        return len(self.intended)


def librdkafka_config(tenant: Tenant, bootstrap_servers: str, security: dict[str, str] | None = None) -> dict[str, Any]:
    """The tenant's producer settings under librdkafka's property names (a Java tenant keeps the
    values of its own client's defaults, which is what its application would run with)."""
    config: dict[str, Any] = {
        "bootstrap.servers": bootstrap_servers,
        "client.id": tenant.name,
        **librdkafka_properties(tenant.producer),
        "statistics.interval.ms": STATISTICS_INTERVAL_MS,
        "log_level": 0,        # none: retries show up as latency and failed deliveries, not a FAIL line each
    }
    if tenant.client.kind == "java":    # kafka-clients sets TCP_NODELAY on every connection; librdkafka's default keeps Nagle
        config["socket.nagle.disable"] = True
    config.update(security or {})
    return config


def client_figures(stats: dict) -> dict:
    """The parts of librdkafka's statistics a report reads: round trip and internal queue
    latency per broker (microseconds, as librdkafka reports them) and Produce requests sent."""
    brokers = {}
    for name, broker in stats.get("brokers", {}).items():
        if broker.get("nodeid", -1) < 0:
            continue     # bootstrap entries
        brokers[str(broker["nodeid"])] = {
            "rtt_us": {k: broker.get("rtt", {}).get(k) for k in ("avg", "p50", "p99")},
            "int_latency_us": {k: broker.get("int_latency", {}).get(k) for k in ("avg", "p50", "p99")},
            "produce_requests": broker.get("req", {}).get("Produce", 0),
        }
    return {"txmsgs": stats.get("txmsgs", 0), "brokers": brokers}


def _threads() -> set[int]:
    return {int(tid) for tid in os.listdir("/proc/self/task")} if os.path.isdir("/proc/self/task") else set()


def _run_tenant(tenant: Tenant, config: dict, stop: threading.Event, out: "queue.Queue[TenantTrace]",
                seed: int, creating: threading.Lock) -> None:
    from confluent_kafka import KafkaException, Producer     # optional extra (live)

    latest: dict = {}
    with creating:   # one client made at a time: the threads born meanwhile are this tenant's
        before = _threads()
        producer = Producer({**config, "stats_cb": lambda text: latest.update(stats=json.loads(text)),
                             "error_cb": lambda error: None})     # transient errors show up as failed deliveries
        try:    # the cluster's metadata: the client starts a thread per broker it will send to
            producer.list_topics(tenant.topic, timeout=10)
        except KafkaException:
            pass
        tids = tuple(sorted(_threads() - before | {threading.get_native_id()}))
    rng = random.Random(seed)
    value = rng.randbytes(tenant.record_size)
    intended, latency, lag = array("d"), array("d"), array("d")
    failed = [0]
    started_mono, started_wall = time.monotonic(), time.time()
    interval = 1.0 / tenant.rate

    def delivered(index: int):
        def report(error: Any, message: Any) -> None:
            if error is not None:
                failed[0] += 1
                latency[index] = -1.0
            else:
                latency[index] = time.monotonic() - (started_mono + index * interval)
        return report

    index = 0
    while not stop.is_set():
        due = started_mono + index * interval
        wait = due - time.monotonic()
        if wait >= POLL_RESOLUTION_S:
            producer.poll(min(wait, 0.05))   # serve delivery reports while waiting for the due time
            continue
        if wait > 0:    # poll's timeout is whole milliseconds: under one, poll(wait) returns at once and spins
            time.sleep(wait)
        key = str(rng.randrange(tenant.keys)).encode() if tenant.keys else None
        lag.append(max(0.0, time.monotonic() - due))
        intended.append(started_wall + index * interval)
        latency.append(-1.0)
        while True:
            try:
                producer.produce(tenant.topic, value, key, on_delivery=delivered(index))
                break
            except BufferError:      # queue.buffering.max: the application waits, the clock runs
                producer.poll(0.001)
            except KafkaException:
                failed[0] += 1
                break
        producer.poll(0)
        index += 1
    left = producer.flush(_FLUSH_S)
    producer.poll(STATISTICS_INTERVAL_MS / 1000 + 0.2)     # one more statistics report, after the flush
    figures = client_figures(latest.get("stats", {}))
    kept = [(t, lat) for t, lat in zip(intended, latency) if lat >= 0]
    lags = sorted(lag)
    out.put(TenantTrace(tenant.name, [t for t, _ in kept], [lat for _, lat in kept], failed[0] + left,
                        sum(b["produce_requests"] for b in figures["brokers"].values()), figures,
                        lags[int(0.99 * (len(lags) - 1))] if lags else 0.0, lags[-1] if lags else 0.0, tids))


def _serve(tenants: list[Tenant], configs: list[dict], seed: int, cpus: list[int] | None,
           stop: Any, ready: Any, results: Any) -> None:
    die_with_parent()
    for stopping in STOPPING_SIGNALS:   # a signal to the group: the parent stops them
        signal.signal(stopping, signal.SIG_IGN)
    pin_self(cpus)
    done: "queue.Queue[TenantTrace]" = queue.Queue()
    halt, creating = threading.Event(), threading.Lock()
    threads = [threading.Thread(target=_run_tenant, args=(t, c, halt, done, seed + i, creating), daemon=True)
               for i, (t, c) in enumerate(zip(tenants, configs))]
    for thread in threads:
        thread.start()
    ready.set()
    stop.wait()
    halt.set()
    for thread in threads:
        thread.join()
    traces = {trace.name: trace for trace in (done.get() for _ in threads)}
    results.put([traces[t.name] for t in tenants])


class Neighbours:
    """The tenants' producers in their own process. As a context manager: started on entry,
    stopped on exit; ``stop()`` returns each tenant's trace (once)."""

    def __init__(self, tenants: list[Tenant] | tuple[Tenant, ...], bootstrap_servers: str,
                 security: dict[str, str] | None = None, seed: int = 1, cpus: list[int] | None = None) -> None:
        self.tenants = list(tenants)
        self.configs = [librdkafka_config(t, bootstrap_servers, security) for t in self.tenants]
        self.seed, self.cpus = seed, cpus
        self._context = multiprocessing.get_context("spawn")
        self._stop = self._context.Event()
        self._ready = self._context.Event()
        self._results = self._context.Queue()
        self._process: Any = None
        self.traces: list[TenantTrace] = []

    def __enter__(self) -> "Neighbours":
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self, timeout: float = 60.0) -> None:
        if not self.tenants:
            return
        self._process = self._context.Process(
            target=_serve, args=(self.tenants, self.configs, self.seed, self.cpus, self._stop, self._ready, self._results),
            name="quietload-neighbours", daemon=True)
        self._process.start()
        if not self._ready.wait(timeout):
            self._kill()
            raise StackError("the neighbour producers did not start")

    @property
    def pid(self) -> int | None:
        """The producers' process while it runs (to hold it to a CPU budget)."""
        return self._process.pid if self._process is not None else None

    def stop(self, timeout: float = _FLUSH_S + 30.0) -> list[TenantTrace]:
        if self._process is None:
            return self.traces
        self._stop.set()
        try:
            self.traces = self._results.get(timeout=timeout)
        except queue.Empty:
            raise StackError("the neighbour producers gave no results (their process ended early)") from None
        finally:
            self._process.join(10.0)
            self._kill()
        return self.traces

    def _kill(self) -> None:
        if self._process is not None and self._process.is_alive():
            self._process.kill()
            self._process.join(5.0)
        self._process = None
