"""A cluster's metrics from its brokers' Prometheus JMX exporters (MSK Open Monitoring's agent;
the names the local stack's exporters serve, localstack/jmx-exporter.yaml), as a ``History``.

An exporter serves the figures of now, not a history: each endpoint is scraped every ``period``
seconds for ``duration`` seconds, and a period's figure is the difference of two scrapes of a
cumulative counter. A count (requests, bytes, records) is kept per period: the difference over
the nominal ``period``, so a series' sum times the period is exactly what the brokers counted
between the first and the last scrape, however late a busy machine let a scrape come (a late
scrape moves a few records from one period to the next, never adds or loses one). A share of
time (the handlers' idle nanoseconds per thread, the JVM's process CPU seconds) is over the time
that really passed between the two scrapes. A counter labelled by ``topic`` gives
that topic's figures; without the label the exporter gives the broker's all-topic figures only,
and no neighbour can be told apart (said in a note).
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable

from workloads.errors import ScenarioError
from workloads.imports.history import ALL_TOPICS, History
from workloads.imports.network import Waits, http_get
from workloads.imports.partitions import partitions_in_metrics
from workloads.prometheus_text import metric_sum, parse_metrics, sample_labels
from workloads.urls import mask_url


def scrape(url: str, waits: Waits) -> dict[str, float]:
    body = http_get(url, "--prometheus", waits)
    try:
        return parse_metrics(body.decode())
    except (UnicodeDecodeError, ValueError, IndexError) as error:
        raise ScenarioError("--prometheus", f"{mask_url(url)}: no metrics ({type(error).__name__})") from None


def _topic_counts(metrics: dict[str, float], name: str) -> dict[str, float]:
    counts: dict[str, float] = {}
    for key, value in metrics.items():
        if key.partition("{")[0] == name and 'topic="' in key:
            topic = key.split('topic="', 1)[1].split('"', 1)[0]
            counts[topic] = counts.get(topic, 0.0) + value
    return counts or {ALL_TOPICS: metrics.get(name, 0.0)}


def _labels(key: str) -> dict[str, str]:
    """A sample's labels (``name{a="1",b="2"}``): the topic and partition ones are what is read."""
    return {name: value for name, value in sample_labels(key).items() if name in ("topic", "partition")}


def _figures(metrics: dict[str, float]) -> dict[str, float | None]:
    return {"produce": metric_sum(metrics, "kafka_network_RequestsPerSec_total", request="Produce"),
            "bytes": metrics.get("kafka_server_BytesInPerSec_total", 0.0),
            "records": metrics.get("kafka_server_MessagesInPerSec_total", 0.0),
            "idle_nanos": metrics.get("kafka_server_RequestHandlerAvgIdleNanos_total", 0.0),
            "cpu_seconds": metrics.get("process_cpu_seconds_total", 0.0),
            "total_ms": metrics.get('kafka_network_TotalTimeMs_Mean{request="Produce"}'),
            "local_ms": metrics.get('kafka_network_LocalTimeMs_Mean{request="Produce"}'),
            "queue_ms": metrics.get('kafka_network_RequestQueueTimeMs_Mean{request="Produce"}')}


def sample(urls: list[str], duration: float, period: float, vcpus: float, waits: Waits | None = None,
           sleep: Callable[[float], None] = time.sleep) -> History:
    """Scrape every endpoint every ``period`` s for ``duration`` s; ``vcpus`` turns the JVM's CPU
    seconds into MSK's CpuUser + CpuSystem percent of the broker's cores (as CpuUser, CpuSystem 0:
    the process counter does not split them)."""
    if period <= 0 or duration < period:
        raise ScenarioError("--for", f"needs at least one period of {period:g} s, got {duration:g} s")
    waits = waits or Waits()
    waits = dataclasses.replace(waits, deadline=waits.deadline + duration)     # the deadline is for waits beyond the sampling
    scrapes: list[tuple[float, list[dict[str, float]], list[dict[str, Any]]]] = []
    start = time.time()
    for step in range(int(duration // period) + 1):
        if step:
            sleep(max(0.0, start + step * period - time.time()))
        now = [scrape(url, waits) for url in urls]
        scrapes.append((time.time(), now, [_figures(m) for m in now]))
    brokers: dict[str, dict[str, list]] = {str(b): {k: [] for k in ("CpuUser", "CpuSystem", "RequestHandlerAvgIdlePercent",
                                                                   "BytesInPerSec", "MessagesInPerSec", "ProduceRequestsPerSec",
                                                                   "ProduceTotalTimeMsMean", "ProduceLocalTimeMsMean",
                                                                   "ProduceRequestQueueTimeMsMean")} for b in range(len(urls))}
    topic_bytes: dict[str, list] = {}
    topic_records: dict[str, list] = {}
    for (t0, raw0, a), (t1, raw1, b) in zip(scrapes, scrapes[1:]):
        seconds = t1 - t0
        for broker, (before, after) in enumerate(zip(a, b)):
            figures = brokers[str(broker)]
            rate = {k: (after[k] - before[k]) / period for k in ("produce", "bytes", "records")}
            idle = (after["idle_nanos"] - before["idle_nanos"]) / 1e9 / seconds
            figures["CpuUser"].append(100.0 * (after["cpu_seconds"] - before["cpu_seconds"]) / seconds / vcpus)
            figures["CpuSystem"].append(0.0)
            figures["RequestHandlerAvgIdlePercent"].append(max(0.0, min(100.0, 100.0 * idle)))
            figures["BytesInPerSec"].append(rate["bytes"])
            figures["MessagesInPerSec"].append(rate["records"])
            figures["ProduceRequestsPerSec"].append(rate["produce"])
            figures["ProduceTotalTimeMsMean"].append(after["total_ms"])
            figures["ProduceLocalTimeMsMean"].append(after["local_ms"])
            figures["ProduceRequestQueueTimeMsMean"].append(after["queue_ms"])
        for name, into in (("kafka_server_BytesInPerSec_total", topic_bytes), ("kafka_server_MessagesInPerSec_total", topic_records)):
            totals: dict[str, float] = {}
            for m0, m1 in zip(raw0, raw1):
                c0, c1 = _topic_counts(m0, name), _topic_counts(m1, name)
                for topic in c1:
                    totals[topic] = totals.get(topic, 0.0) + (c1[topic] - c0.get(topic, 0.0)) / period
            for topic, value in totals.items():
                into.setdefault(topic, [None] * (len(figures["CpuUser"]) - 1)).append(value)
    notes: tuple[str, ...] = ()
    if ALL_TOPICS in topic_bytes:
        notes = ("The exporters give bytes and records in for all topics together (no topic label): no neighbour is told "
                 "apart from the load.",)
    partitions = partitions_in_metrics([_labels(key) for _, raw, _ in scrapes[:1] for metrics in raw for key in metrics])
    return History(",".join(mask_url(url) for url in urls), "prometheus", scrapes[0][0], float(period), topic_bytes,
                   topic_records, brokers, notes, partitions)
