"""A cluster's metric history on one time grid, and what it tells: the neighbours (each topic's
rate and record size), the quiet baseline, and the windows of past batch loads.

Both sources (CloudWatch's ``AWS/Kafka`` namespace and the brokers' JMX exporters) become a
``History``: per topic, records and bytes in per second summed over the brokers; per broker,
MSK's figures by MSK's names (``CpuUser``, ``CpuSystem``, ``RequestHandlerAvgIdlePercent`` in
percent, ``ProduceTotalTimeMsMean`` and its parts in ms, ``BytesInPerSec``, ``MessagesInPerSec``,
and ``ProduceRequestsPerSec`` where the source has it). A point is the average over its period;
``None`` where the source had no point.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workloads.errors import ScenarioError
from workloads.reader import read_json

BROKER_FIGURES = ("CpuUser", "CpuSystem", "RequestHandlerAvgIdlePercent", "ProduceTotalTimeMsMean",
                  "ProduceRequestQueueTimeMsMean", "ProduceLocalTimeMsMean", "ProduceResponseQueueTimeMsMean",
                  "ProduceResponseSendTimeMsMean", "BytesInPerSec", "MessagesInPerSec", "ProduceRequestsPerSec")
ALL_TOPICS = "(all topics)"   # a source without per-topic figures: the brokers' bytes and records of every topic
LOAD_SHARE = 0.2     # a load's period: the load topic's bytes above this share of its peak (and of its quiet level x 2)
SCHEMA = "quietload-history/1"
Series = list[float | None]


@dataclass(frozen=True)
class Window:
    """A past load: the grid's periods [first, last] in which the load topic's bytes were high."""

    first: int
    last: int
    start: float          # epoch seconds of the first period's start
    seconds: float
    records: float        # the load topic's records in the window, above its quiet rate
    bytes: float


@dataclass(frozen=True)
class Neighbour:
    topic: str
    rate: float           # records per second
    record_size: float    # bytes per record (BytesInPerSec / MessagesInPerSec)


@dataclass(frozen=True)
class History:
    cluster: str
    source: str                       # "cloudwatch" or "prometheus"
    start: float                      # epoch seconds of the first period
    period: float                     # seconds per point
    topic_bytes: dict[str, Series]
    topic_records: dict[str, Series]
    brokers: dict[str, dict[str, Series]]
    notes: tuple[str, ...] = field(default=())
    partitions: dict[str, int] = field(default_factory=dict)   # topic -> the partitions its metrics name

    @property
    def points(self) -> int:
        return len(next(iter(self.topic_bytes.values()), []))

    def to_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "cluster": self.cluster, "source": self.source, "start": self.start,
                "period": self.period, "topic_bytes": self.topic_bytes, "topic_records": self.topic_records,
                "brokers": self.brokers, "notes": list(self.notes),
                **({"partitions": self.partitions} if self.partitions else {})}

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return path

    @classmethod
    def read(cls, path: Path, where: str = "--history") -> "History":
        raw = read_json(path, where)
        if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
            raise ScenarioError(where, f"{path}: not a history file quietload wrote (no schema {SCHEMA!r})")
        try:
            history = cls(str(raw["cluster"]), str(raw["source"]), float(raw["start"]), float(raw["period"]),
                          dict(raw["topic_bytes"]), dict(raw["topic_records"]), dict(raw["brokers"]),
                          tuple(raw.get("notes", ())), dict(raw.get("partitions", {})))
        except (KeyError, TypeError, ValueError) as error:
            raise ScenarioError(where, f"{path}: a history file without {error}") from None
        _check_series(history, f"{path}", where)
        return history


def _check_series(history: History, source: str, where: str) -> None:
    """A history's period above 0, and every series one point per period, each at least 0 or missing (null)."""
    if not history.period > 0:
        raise ScenarioError(where, f"{source}: period must be greater than 0, got {history.period!r}")
    named = [(f"topic_bytes.{t}", s) for t, s in history.topic_bytes.items()]
    named += [(f"topic_records.{t}", s) for t, s in history.topic_records.items()]
    for broker, figures in history.brokers.items():
        if not isinstance(figures, dict):
            raise ScenarioError(where, f"{source}: brokers.{broker} must be a mapping of series")
        named += [(f"brokers.{broker}.{name}", s) for name, s in figures.items()]
    for name, series in named:
        if not isinstance(series, list) or len(series) != history.points:
            raise ScenarioError(where, f"{source}: {name} must be a list of {history.points} points, one per period")
        for i, value in enumerate(series):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise ScenarioError(where, f"{source}: {name}[{i}] must be a number of at least 0 or null, got {value!r}")


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def find_loads(history: History, topic: str) -> list[Window]:
    """The runs of periods in which ``topic`` took in more than LOAD_SHARE of its peak bytes and
    more than twice its quiet level (its median): the past batch loads."""
    if topic not in history.topic_bytes and ALL_TOPICS in history.topic_bytes:
        topic = ALL_TOPICS      # the loads show in every topic's sum, above the neighbours
    if topic not in history.topic_bytes:
        raise ScenarioError("--load-topic", f"topic {topic!r} has no BytesInPerSec in the metrics "
                            f"(topics: {', '.join(sorted(history.topic_bytes)) or 'none'})")
    series = history.topic_bytes[topic]
    known = [v for v in series if v is not None]
    quiet = _median(known)
    threshold = max(LOAD_SHARE * max(known, default=0.0), 2 * quiet)
    records = history.topic_records.get(topic) or [None] * len(series)
    quiet_records = _median([v for v in records if v is not None])
    windows, first = [], None
    for i, value in enumerate([*series, None]):
        high = value is not None and value > threshold and value > 0
        if high and first is None:
            first = i
        elif not high and first is not None:
            span = range(first, i)
            windows.append(Window(first, i - 1, history.start + first * history.period, len(span) * history.period,
                                  sum(max(0.0, (records[k] or 0.0) - quiet_records) for k in span) * history.period,
                                  sum(max(0.0, (series[k] or 0.0) - quiet) for k in span) * history.period))
            first = None
    return windows


def busy_periods(loads: list[Window], margin: int = 1) -> set[int]:
    """The periods a load touches, and ``margin`` periods either side of it."""
    return {k for w in loads for k in range(w.first - margin, w.last + margin + 1)}


def quiet_periods(history: History, loads: list[Window], margin: int = 1) -> list[int]:
    """The periods no load touches (``margin`` periods either side of a load left out too)."""
    busy = busy_periods(loads, margin)
    return [k for k in range(history.points) if k not in busy]


def neighbours(history: History, load_topic: str, loads: list[Window]) -> list[Neighbour]:
    """Each other topic's median rate and record size over the quiet periods."""
    quiet = quiet_periods(history, loads)
    found = []
    for topic in sorted(history.topic_bytes):
        if topic in (load_topic, ALL_TOPICS) or topic.startswith("__"):     # Kafka's internal topics are no producer's
            continue
        records = history.topic_records.get(topic)
        if records is None:
            raise ScenarioError("metrics", f"topic {topic!r} has BytesInPerSec but no MessagesInPerSec: its record size is unknown")
        pairs = [(r, b) for k in quiet if (r := records[k]) is not None and (b := history.topic_bytes[topic][k]) is not None
                 and r > 0]
        if not pairs:
            continue
        rate = _median([r for r, _ in pairs])
        size = sum(b for _, b in pairs) / sum(r for r, _ in pairs)
        found.append(Neighbour(topic, rate, size))
    return found


def baseline(history: History, loads: list[Window]) -> dict[str, dict[str, float]]:
    """Per broker, each figure's median over the quiet periods."""
    quiet = quiet_periods(history, loads)
    return {broker: {name: _median([v for k in quiet if (v := series[k]) is not None])
                     for name, series in figures.items() if any(series[k] is not None for k in quiet)}
            for broker, figures in sorted(history.brokers.items())}
