"""An MSK cluster's metrics from CloudWatch (namespace ``AWS/Kafka``) through boto3's
``list_metrics`` and ``get_metric_data``, as a ``History``.

Metric names, dimensions and monitoring levels as the Amazon MSK Developer Guide documents them
("Amazon MSK metrics for monitoring Standard brokers with CloudWatch",
https://docs.aws.amazon.com/msk/latest/developerguide/metrics-details.html): ``CpuUser``,
``CpuSystem``, ``BytesInPerSec`` and ``MessagesInPerSec`` per broker at ``DEFAULT``;
``BytesInPerSec`` per topic (dimensions Cluster Name, Broker ID, Topic) at ``DEFAULT``;
``RequestHandlerAvgIdlePercent`` and ``ProduceTotalTimeMsMean`` with its parts per broker from
``PER_BROKER``; ``MessagesInPerSec`` per topic from ``PER_TOPIC_PER_BROKER``. Rates are bytes or
messages per second, CPU and idle figures percent, times milliseconds; each point is the
``Average`` statistic over the period (MSK publishes once a minute).
"""
from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Any

from workloads.errors import ScenarioError
from workloads.imports.partitions import partitions_in_metrics
from workloads.imports.history import History

NAMESPACE = "AWS/Kafka"
DIMENSIONS = ("Cluster Name", "Broker ID", "Topic")
LEVELS = ("DEFAULT", "PER_BROKER", "PER_TOPIC_PER_BROKER")
# metric -> the monitoring level MSK publishes it from
BROKER_METRICS = {"CpuUser": "DEFAULT", "CpuSystem": "DEFAULT", "BytesInPerSec": "DEFAULT", "MessagesInPerSec": "DEFAULT",
                  "RequestHandlerAvgIdlePercent": "PER_BROKER", "ProduceTotalTimeMsMean": "PER_BROKER",
                  "ProduceRequestQueueTimeMsMean": "PER_BROKER", "ProduceLocalTimeMsMean": "PER_BROKER",
                  "ProduceResponseQueueTimeMsMean": "PER_BROKER", "ProduceResponseSendTimeMsMean": "PER_BROKER"}
TOPIC_METRICS = {"BytesInPerSec": "DEFAULT", "MessagesInPerSec": "PER_TOPIC_PER_BROKER"}
NEEDED = ("CpuUser", "CpuSystem", "RequestHandlerAvgIdlePercent")
QUERIES_PER_CALL = 500     # get_metric_data's limit
POINTS_MAX = 100_800       # points of one series: what one get_metric_data call returns at most


def _level_note(metric: str, level: str, cluster_level: str | None) -> str:
    have = f"; the cluster's level is {cluster_level}" if cluster_level else ""
    return f"MSK publishes {metric} from monitoring level {level}{have}"


def _series_key(metric: dict) -> tuple[str, str, str | None]:
    dims = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
    for name in dims:
        if name not in DIMENSIONS:
            raise ScenarioError("--cloudwatch", f"metric {metric['MetricName']} has an unknown dimension {name!r} "
                                f"(MSK's are {', '.join(DIMENSIONS)})")
    return metric["MetricName"], dims.get("Broker ID", ""), dims.get("Topic")


def list_series(client: Any, cluster: str) -> tuple[list[dict], dict[str, int]]:
    """The metrics of ``cluster`` that quietload reads, as list_metrics gives them, and the partitions
    per topic that the metrics with a ``Partition`` dimension name (PER_TOPIC_PER_PARTITION's)."""
    wanted = set(BROKER_METRICS) | set(TOPIC_METRICS)
    found, dimensions = [], []
    for page in client.get_paginator("list_metrics").paginate(
            Namespace=NAMESPACE, Dimensions=[{"Name": "Cluster Name", "Value": cluster}]):
        found += [m for m in page.get("Metrics", []) if m["MetricName"] in wanted]
        dimensions += [{d["Name"]: d["Value"] for d in m.get("Dimensions", [])} for m in page.get("Metrics", [])]
    if not found:
        raise ScenarioError("--cloudwatch", f"no {NAMESPACE} metrics for cluster {cluster!r}")
    return found, partitions_in_metrics(dimensions)


def _select(metrics: list[dict], level: str | None) -> dict[tuple[str, str, str | None], dict]:
    """Per-broker and per-topic series; a metric the source does not publish is named with its level."""
    chosen = {}
    for metric in metrics:
        name, broker, topic = _series_key(metric)
        if not broker:
            continue          # cluster-wide series: the per-broker ones carry the same and more
        if (topic is None and name in BROKER_METRICS) or (topic is not None and name in TOPIC_METRICS):
            chosen[(name, broker, topic)] = metric
    names = {(name, topic is not None) for name, _, topic in chosen}
    for name in NEEDED:
        if (name, False) not in names:
            raise ScenarioError("--cloudwatch", f"no {name} per broker: {_level_note(name, BROKER_METRICS[name], level)}")
    for name, published in TOPIC_METRICS.items():
        if (name, True) not in names:
            raise ScenarioError("--cloudwatch", f"no {name} per topic: {_level_note(name, published, level)}")
    return chosen


def grid(start: datetime, end: datetime, period: int) -> tuple[int, int]:
    """The first point's epoch second and the points per series, refused before any call when
    CloudWatch has no such period or one series would hold more than POINTS_MAX points."""
    if period < 1 or (period < 60 and period not in (1, 5, 10, 30)):
        raise ScenarioError("--period", f"CloudWatch periods are 1, 5, 10, 30 or a multiple of 60 seconds, got {period}")
    first = int(start.timestamp()) // period * period
    points = max(1, int((end.timestamp() - first) // period))
    if points > POINTS_MAX:
        raise ScenarioError("--since", f"{points:,} points of {period} s per series, more than the {POINTS_MAX:,} a "
                                       f"history holds; a --period of at least {_fitting_period(end.timestamp() - first)} s fits")
    return first, points


def fetch(client: Any, cluster: str, start: datetime, end: datetime, period: int, level: str | None = None) -> History:
    """Every series of ``cluster`` from ``start`` to ``end`` at ``period`` seconds, on one grid."""
    first, points = grid(start, end, period)
    listed, partitions = list_series(client, cluster)
    chosen = _select(listed, level)
    keys = sorted(chosen, key=lambda k: (k[0], k[1], k[2] or ""))
    values: dict[tuple[str, str, str | None], list[float | None]] = {k: [None] * points for k in keys}
    for offset in range(0, len(keys), QUERIES_PER_CALL):
        batch = keys[offset:offset + QUERIES_PER_CALL]
        queries = [{"Id": f"m{offset + i}", "ReturnData": True,
                    "MetricStat": {"Metric": {k: chosen[key][k] for k in ("Namespace", "MetricName", "Dimensions")},
                                   "Period": period, "Stat": "Average"}} for i, key in enumerate(batch)]
        for page in client.get_paginator("get_metric_data").paginate(
                MetricDataQueries=queries, StartTime=datetime.fromtimestamp(first, timezone.utc),
                EndTime=datetime.fromtimestamp(first + points * period, timezone.utc), ScanBy="TimestampAscending"):
            for result in page.get("MetricDataResults", []):
                key = keys[int(result["Id"][1:])]
                for stamp, value in zip(result.get("Timestamps", []), result.get("Values", [])):
                    index = int((stamp.timestamp() - first) // period)
                    if 0 <= index < points:
                        values[key][index] = float(value)
    for (name, broker, topic), series in values.items():
        if all(v is None for v in series):
            where = f"topic {topic!r} on broker {broker}" if topic else f"broker {broker}"
            raise ScenarioError("--cloudwatch", f"metric {name} of {where} has no data points from "
                                f"{start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} UTC")
    return dataclasses.replace(_history(cluster, first, period, values), partitions=partitions)


def _fitting_period(seconds: float) -> int:
    """The shortest CloudWatch period (a multiple of 60 s) that keeps ``seconds`` within POINTS_MAX points."""
    needed = -(-int(seconds) // POINTS_MAX)
    return max(60, -(-needed // 60) * 60)


def _add(total: list[float | None], series: list[float | None]) -> list[float | None]:
    return [None if a is None and b is None else (a or 0.0) + (b or 0.0) for a, b in zip(total, series)]


def _history(cluster: str, first: float, period: int, values: dict) -> History:
    topic_bytes: dict[str, list] = {}
    topic_records: dict[str, list] = {}
    brokers: dict[str, dict[str, list]] = {}
    per_topic: dict[tuple[str, str], list] = {}
    for (name, broker, topic), series in values.items():
        if topic is None:
            brokers.setdefault(broker, {})[name] = series
        else:
            into = topic_bytes if name == "BytesInPerSec" else topic_records
            into[topic] = _add(into.get(topic, [None] * len(series)), series)
            per_topic[(broker, name)] = _add(per_topic.get((broker, name), [None] * len(series)), series)
    for (broker, name), series in per_topic.items():     # a broker's own total, where only its topics' are listed
        brokers.setdefault(broker, {}).setdefault(name, series)
    notes = []
    for broker, figures in sorted(brokers.items()):
        idle = figures.get("RequestHandlerAvgIdlePercent")
        # MSK documents a percentage; Kafka's meter is a fraction. A broker whose every point is at most 1 over the
        # whole history was not idle under 1 % for weeks: its points are fractions, read as such and said
        if idle and all(v is None or v <= 1.0 for v in idle):
            figures["RequestHandlerAvgIdlePercent"] = [None if v is None else 100.0 * v for v in idle]
            notes.append(f"Broker {broker}'s RequestHandlerAvgIdlePercent points are fractions (all at most 1): read as 0-1.")
    return History(cluster, "cloudwatch", float(first), float(period), topic_bytes, topic_records, brokers, tuple(notes))
