"""The scenario's ``tune:`` section: which knobs ``quietload tune`` searches and over what.

A knob is named as in Kafka or Spark and maps to one scenario path. A choice knob takes a
list of values (``compression.type: [none, zstd]``), a range knob ``[low, high]``
(``linger.ms: [0, 50]``); a one-value list pins a knob. Knobs not named keep the ranges the
tuner derives from the scenario.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.producer import parse_acks, parse_codec
from workloads.quota import Quota
from workloads.units import parse_bytes, parse_milliseconds


def _quota_value(name: str) -> Callable[[Any, str], Any]:
    """The quota field's own parser, so the tune range takes what ``batch.quota`` takes."""
    def parse(value: Any, path: str) -> Any:
        return {q.name: q for q in dataclasses.fields(Quota)}[name].metadata["parse"](value, path)
    return parse


@dataclass(frozen=True)
class Knob:
    """A tunable setting: its name, its scenario path, choice or range, and its value parser."""

    name: str
    path: tuple[str, ...]
    kind: str                      # "choice" or "range"
    parse: Callable[[Any, str], Any]
    quota: bool = False            # searched only with ``tune --quotas``

    @property
    def override_key(self) -> str:
        return ".".join(self.path)


KNOBS: dict[str, Knob] = {knob.name: knob for knob in (
    Knob("repartition", ("batch", "spark", "repartition"), "choice", f.or_none(f.positive_int)),
    Knob("compression.type", ("batch", "producer", "compression.type"), "choice", parse_codec),
    Knob("acks", ("batch", "producer", "acks"), "choice", parse_acks),
    Knob("linger.ms", ("batch", "producer", "linger.ms"), "range", parse_milliseconds),
    Knob("batch.size", ("batch", "producer", "batch.size"), "range", f.positive(parse_bytes)),
    Knob("buffer.memory", ("batch", "producer", "buffer.memory"), "range", f.positive(parse_bytes)),
    Knob("max.in.flight.requests.per.connection", ("batch", "producer", "max.in.flight.requests.per.connection"),
         "range", f.positive_int),
    Knob("producer_byte_rate", ("batch", "quota", "producer_byte_rate"), "range", _quota_value("producer_byte_rate"), quota=True),
    Knob("request_percentage", ("batch", "quota", "request_percentage"), "range", _quota_value("request_percentage"), quota=True),
)}


def quota_fields() -> set[str]:
    """The quota kinds this version's scenario (and model) knows."""
    return {field.name for field in dataclasses.fields(Quota)}


def _knob_range(name: str, value: Any, path: str) -> tuple:
    knob = KNOBS[name]
    if knob.quota and name not in quota_fields():
        raise ScenarioError(path, f"batch.quota has no {name} in this version")
    if not isinstance(value, list) or not value:
        form = "a non-empty list of values" if knob.kind == "choice" else "[low, high]"
        raise ScenarioError(path, f"empty search range: expected {form}, got {value!r}")
    values = tuple(knob.parse(item, f"{path}[{i}]") for i, item in enumerate(value))
    if knob.kind == "choice":
        return tuple(dict.fromkeys(values))
    if len(values) == 1:
        values = values * 2
    if len(values) != 2:
        raise ScenarioError(path, f"expected [low, high], got {len(values)} values")
    if values[0] > values[1]:
        raise ScenarioError(path, f"empty search range: low {value[0]!r} is above high {value[1]!r}")
    return values


def _knobs(value: Any, path: str) -> dict[str, tuple]:
    raw = f.require_mapping(value, path)
    for name in raw:
        if name not in KNOBS:
            raise ScenarioError(f.join(path, str(name)), f"unknown knob (known knobs: {', '.join(sorted(KNOBS))})")
    return {name: _knob_range(name, raw[name], f.join(path, name)) for name in raw}


@dataclass(frozen=True)
class Tuning:
    """Search ranges laid over the tuner's defaults, the preferred objective, the trial budget,
    the model seeds each trial runs and the held-out seeds the pick must hold on."""

    knobs: dict[str, tuple] = f.prop(parse=_knobs, default_factory=dict)   # knob name -> choices or (low, high)
    prefer: str = f.prop(parse=f.one_of("requests", "duration"), default="requests")
    trials: int = f.prop(parse=f.positive_int, default=100)
    repeat: int = f.prop(parse=f.positive_int, default=1)        # model seeds per trial; the worst counts
    # further seeds the front's points must hold on before one is picked (0: none): the best of
    # many trials on the study's seeds is also the luckiest timing
    validate: int = f.prop(parse=f.non_negative_int, default=20)
