"""The brokers' own figures once a second while a live run goes, from their JMX exporters.

Counters (requests, bytes, idle nanoseconds, process CPU seconds) are cumulative, so a
second's figure is the difference of two scrapes over the time between them; gauges (network
idle, request queue) are read as they are. A scrape that fails (a broker killed on purpose)
leaves a gap for that broker, and the run goes on.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from workloads.prometheus_text import metric_sum

SCRAPE_INTERVAL_S = 1.0


@dataclass(frozen=True)
class Scrape:
    """One broker's figures at wall time ``at`` (epoch seconds)."""

    at: float
    produce: float          # Produce requests received (cumulative)
    fetch: float            # Fetch requests received, followers' and consumers' (cumulative)
    bytes_in: float         # BytesInPerSec count (cumulative)
    idle_nanos: float       # RequestHandlerAvgIdlePercent count: idle ns per handler thread (cumulative)
    cpu_seconds: float      # the broker JVM's process CPU seconds (cumulative)
    network_idle: float     # NetworkProcessorAvgIdlePercent (0-1, now)
    queue_size: float       # RequestQueueSize (now)
    produce_time: dict      # the Produce TotalTimeMs/... percentiles (ms) of the broker's reservoir


def read_scrape(metrics: dict[str, float], at: float) -> Scrape:
    parts = {}
    for part in ("TotalTimeMs", "RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs",
                 "ResponseSendTimeMs"):
        parts[part] = {label: metrics.get(f'kafka_network_{part}_{statistic}{{request="Produce"}}')
                       for label, statistic in (("mean", "Mean"), ("p50", "50thPercentile"), ("p99", "99thPercentile"),
                                                ("p999", "999thPercentile"), ("max", "Max"))}
    return Scrape(
        at=at,
        produce=metric_sum(metrics, "kafka_network_RequestsPerSec_total", request="Produce"),
        fetch=metric_sum(metrics, "kafka_network_RequestsPerSec_total", request="FetchFollower")
        + metric_sum(metrics, "kafka_network_RequestsPerSec_total", request="FetchConsumer"),
        bytes_in=metrics.get("kafka_server_BytesInPerSec_total", 0.0),
        idle_nanos=metrics.get("kafka_server_RequestHandlerAvgIdleNanos_total", 0.0),
        cpu_seconds=metrics.get("process_cpu_seconds_total", 0.0),
        network_idle=metrics.get("kafka_network_NetworkProcessorAvgIdlePercent_Value", 0.0),
        queue_size=metrics.get("kafka_network_RequestQueueSize_Value", 0.0),
        produce_time=parts,
    )


class MetricsSampler:
    """Scrapes every broker once a second on a thread of its own; ``stop()`` returns, per
    broker id, the scrapes taken."""

    def __init__(self, scrape: Callable[[int], dict[str, float]], brokers: list[int],
                 interval: float = SCRAPE_INTERVAL_S) -> None:
        self.scrape, self.brokers, self.interval = scrape, brokers, interval
        self.scrapes: dict[int, list[Scrape]] = {b: [] for b in brokers}
        self._halt = threading.Event()
        self._sampling = threading.Lock()   # a fault's last scrape of a broker comes from another thread
        self._thread = threading.Thread(target=self._run, name="quietload-sampler", daemon=True)

    def __enter__(self) -> "MetricsSampler":
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        self.sample()
        self._thread.start()

    def stop(self) -> dict[int, list[Scrape]]:
        if self._thread.is_alive():
            self._halt.set()
            self._thread.join()
            self.sample()
        return self.scrapes

    def sample(self) -> None:
        """One scrape of every broker now, in time order with the others."""
        with self._sampling:
            for broker in self.brokers:
                try:
                    metrics = self.scrape(broker)
                except Exception:     # a broker down (on purpose or not) leaves a gap, not a failed run
                    continue
                self.scrapes[broker].append(read_scrape(metrics, time.time()))

    def _run(self) -> None:
        next_at = time.monotonic() + self.interval
        while not self._halt.wait(max(0.0, next_at - time.monotonic())):
            self.sample()
            next_at += self.interval


def read_machine() -> tuple[float, float, float]:
    """(1-minute load average, iowait jiffies, all jiffies) of the machine, from /proc."""
    load = float(Path("/proc/loadavg").read_text().split()[0])
    jiffies = [float(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:9]]
    return load, jiffies[4], sum(jiffies)    # user nice system idle iowait irq softirq steal


class MachineLoad:
    """The machine around a live run, whatever else runs on it: the 1-minute load average once a
    second (its highest) and the share of CPU time spent waiting for I/O from start to stop.
    ``stop()`` returns them with the cores this process may use; empty where /proc is missing."""

    def __init__(self, interval: float = SCRAPE_INTERVAL_S) -> None:
        self.interval, self.loads, self.cores = interval, [], len(os.sched_getaffinity(0))
        self._first: tuple[float, float, float] | None = None
        self.figures: dict = {}
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, name="quietload-machine", daemon=True)

    def start(self) -> None:
        try:
            self._first = read_machine()
        except OSError:
            return
        self.loads.append(self._first[0])
        self._thread.start()

    def stop(self) -> dict:
        if self._first is None or self._halt.is_set():
            return self.figures
        self._halt.set()
        self._thread.join()
        load, iowait, total = read_machine()
        self.loads.append(load)
        elapsed = total - self._first[2]
        self.figures = {"cores": self.cores, "load_avg_1m_max": max(self.loads),
                        "iowait_pct": 100.0 * (iowait - self._first[1]) / elapsed if elapsed > 0 else 0.0}
        return self.figures

    def _run(self) -> None:
        while not self._halt.wait(self.interval):
            self.loads.append(read_machine()[0])


def per_second(scrapes: list[Scrape], origin: float, seconds: int, figure: Callable[[Scrape, Scrape], float],
               ) -> list[float | None]:
    """``figure(previous, current)`` for each pair of scrapes, laid onto whole seconds after
    ``origin`` (a pair belongs to the second its end falls in); None where no pair ends."""
    series: list[float | None] = [None] * seconds
    for previous, current in zip(scrapes, scrapes[1:]):
        second = int(current.at - origin)
        if 0 <= second < seconds and current.at > previous.at:
            series[second] = figure(previous, current)
    return series


def rate(name: str) -> Callable[[Scrape, Scrape], float]:
    """Per-second rate of a cumulative figure between two scrapes."""
    def figure(previous: Scrape, current: Scrape) -> float:
        return (getattr(current, name) - getattr(previous, name)) / (current.at - previous.at)
    return figure


def handler_idle_pct(previous: Scrape, current: Scrape) -> float:
    """RequestHandlerAvgIdlePercent over the interval: idle ns per thread over elapsed ns."""
    return min(100.0, 100.0 * (current.idle_nanos - previous.idle_nanos) / ((current.at - previous.at) * 1e9))
