"""A scenario's ``check:`` and ``plan:`` sections: what ``quietload check`` holds the job to and what
``quietload plan`` sweeps, kept with the job's scenario."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads import _fields as f
from workloads.broker_types import broker_type
from workloads.errors import ScenarioError
from workloads.units import LONG_MAX, parse_byte_rate, parse_record_rate, parse_seconds

_seconds = parse_seconds


def _percent(value: Any, path: str) -> float:
    text = str(value).strip().rstrip("%").strip()
    try:
        number = float(text)
    except ValueError:
        raise ScenarioError(path, f"expected a percentage like 30 or 30%, got {value!r}") from None
    if not 0 <= number <= 100:
        raise ScenarioError(path, f"expected a percentage from 0 to 100, got {value!r}")
    return number


@dataclass(frozen=True)
class Gate:
    """What ``quietload check`` holds the job to, kept with the job's scenario."""

    handler_idle_min: float = f.prop(parse=_percent, default=30.0)      # RequestHandlerAvgIdlePercent
    cpu_max: float = f.prop(parse=_percent, default=60.0)               # the MSK guidance
    requests_per_broker_max: float = f.prop(parse=f.positive(parse_record_rate), default=5000.0)
    deadline: float | None = f.prop(parse=f.positive(_seconds), default=None)


def _values(parse: f.Parser) -> f.Parser:
    """One value or a non-empty list of them, each parsed, as a tuple."""
    def parse_all(value: Any, path: str) -> tuple:
        items = value if isinstance(value, list) else [value]
        if not items:
            raise ScenarioError(path, "expected at least one value")
        return tuple(parse(item, f"{path}[{i}]" if isinstance(value, list) else path) for i, item in enumerate(items))
    return parse_all


def parse_broker_type(value: Any, path: str) -> str:
    """An MSK broker type's name (kafka.m5.large), one of ``workloads.broker_types``."""
    return broker_type(f.text(value, path), path).name


def _number(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ScenarioError(path, f"expected a finite number greater than zero, got {value!r}")
    return float(value)


def _gigabytes(value: Any, path: str) -> float:
    """GB of input files: a size Kafka and Spark can hold (at most 2^63-1 bytes)."""
    number = _number(value, path)
    if number * 1024**3 > LONG_MAX:
        raise ScenarioError(path, f"{value!r} GB is more bytes than Kafka and Spark take (2^63-1)")
    return number


@dataclass(frozen=True)
class Plan:
    """What ``quietload plan`` sweeps, kept with the job's scenario: the batch-load grid (empty:
    the job's own load, its concurrent loads and twice them) and the cluster what-ifs, each tried
    alone on the scenario's cluster."""

    load_gb: tuple[float, ...] = f.prop(parse=_values(_gigabytes), default=())
    loads: tuple[int, ...] = f.prop(parse=_values(f.positive_int), default=())
    spacing: tuple[float, ...] = f.prop(parse=_values(_seconds), default=())
    brokers: tuple[int, ...] = f.prop(parse=_values(f.positive_int), default=())
    broker_types: tuple[str, ...] = f.prop("broker_type", _values(parse_broker_type), default=())
    replication_factor: tuple[int, ...] = f.prop("replication.factor", _values(f.positive_int), default=())
    broker_down: bool = f.prop(parse=f.boolean, default=False)
    quota: tuple[float, ...] = f.prop(parse=_values(f.positive(parse_byte_rate)), default=())  # producer_byte_rate
    executors: tuple[int, ...] = f.prop(parse=_values(f.positive_int), default=(), unset_unsaid=True)  # per load's job
    # a night's schedule (plan --schedule): the window its jobs start and end in, from windows.before
    window: float | None = f.prop(parse=f.positive(_seconds), default=None, unset_unsaid=True)
