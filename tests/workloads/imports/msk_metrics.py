"""Metric data shaped as an MSK cluster publishes it to CloudWatch (namespace AWS/Kafka, dimensions
"Cluster Name", "Broker ID", "Topic"), written with put_metric_data, for the import to read back."""
from __future__ import annotations

from datetime import datetime, timezone

UNITS = {"BytesInPerSec": "Bytes/Second", "MessagesInPerSec": "Count/Second", "CpuUser": "Percent",
         "CpuSystem": "Percent", "RequestHandlerAvgIdlePercent": "Percent"}


def datums(cluster: str, start: float, period: float, series: dict[tuple[str, str, str | None], list[float | None]]):
    """(metric, broker, topic) -> one value per period from ``start`` (epoch seconds)."""
    for (metric, broker, topic), values in series.items():
        dimensions = [{"Name": "Cluster Name", "Value": cluster}, {"Name": "Broker ID", "Value": broker}]
        if topic is not None:
            dimensions.append({"Name": "Topic", "Value": topic})
        for k, value in enumerate(values):
            if value is None:
                continue
            yield {"MetricName": metric, "Dimensions": dimensions, "Value": float(value),
                   "Timestamp": datetime.fromtimestamp(start + k * period, timezone.utc),
                   "Unit": UNITS.get(metric, "Milliseconds"),
                   **({"StorageResolution": 1} if period < 60 else {})}


def put(client, cluster: str, start: float, period: float, series: dict) -> int:
    """Every point, 1,000 to a call (put_metric_data's limit); the number written."""
    batch, written = [], 0
    for datum in datums(cluster, start, period, series):
        batch.append(datum)
        if len(batch) == 1000:
            client.put_metric_data(Namespace="AWS/Kafka", MetricData=batch)
            written, batch = written + len(batch), []
    if batch:
        client.put_metric_data(Namespace="AWS/Kafka", MetricData=batch)
        written += len(batch)
    return written
