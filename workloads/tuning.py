"""The settings quietload searches and recommends, each described once, and the scenario's
``tune:`` section that narrows them.

A ``Knob`` owns everything about one setting: its Kafka or Spark name, its scenario path (the
``--set`` key), whether it is a choice or a range and on which scale, the range searched by
default (around the scenario's own value), how its value is printed and written back, and who
must change it (its lever class: the job's owner, the cluster owner's quota for the job, or the
cluster's operator). The tuner, the gate's advice, the snippets and the report read it from here.
A producer's or a quota's knob is made from its setting's record (``workloads.settings``), and sets
its value on a typed scenario (``Knob.apply``); its ``--set`` form is how a person repeats it.

In the ``tune:`` section a choice knob takes a list of values (``compression.type: [none, zstd]``),
a range knob ``[low, high]`` (``linger.ms: [0, 50]``); a one-value list pins a knob.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from workloads import _fields as f
from workloads.broker_types import BROKER_TYPES, broker_type
from workloads.errors import ScenarioError
from workloads.quota import Quota
from workloads.settings import PRODUCER, QUOTA, Setting, property_text, rendered

LEVERS = ("job", "quota", "cluster")          # from the cheapest to change to the dearest
DEFAULT_LEVERS = ("job", "quota")
WHO = {"job": "the job's owner", "quota": "the cluster's owner, as a quota for the job's client.id",
       "cluster": "the cluster's operator"}


@dataclass(frozen=True)
class Knob:
    """A setting quietload can change: name, scenario path, kind, parser, lever class, scale and unit,
    its default range for a scenario, and the settings that go with a value (``acks=all`` brings
    ``enable.idempotence=true``)."""

    name: str
    path: tuple[str, ...]
    kind: str                      # "choice" or "range"
    parse: Callable[[Any, str], Any]
    lever: str = "job"             # one of LEVERS
    unit: str = ""                 # bytes, byte_rate, ms, percent, or "" (printed as it is)
    log: bool = False              # searched on a log scale: its effects scale with ratios
    integer: bool = True
    bounds: Callable[[Any], tuple] = lambda scenario: ()   # the default range (choices, or (low, high)) for a scenario
    also: Callable[[Any], tuple[tuple[str, Any], ...]] = lambda value: ()   # further (setting beside it, value) it sets
    command: str = ""              # the command that makes it ({value}: its property value), not a configuration line
    searched: bool = True          # in its lever class's default search (else only when ``tune.knobs`` names it)
    hardware: bool = False         # a change of the cluster's machines (brokers, their type), priced by the vCPUs it adds
    per: str = ""                  # what one value applies to, said after it ("per broker": Kafka meters a quota on each)

    @classmethod
    def of(cls, setting: Setting) -> "Knob":
        """The knob of a setting a study searches (workloads.settings): a producer's is the job's lever,
        a quota's the cluster owner's."""
        assert setting.tune is not None
        tune = setting.tune
        return cls(setting.name, ("batch", setting.section, setting.name), tune.kind, setting.parse,
                   lever="quota" if setting.section == "quota" else "job", unit=setting.unit, log=tune.log,
                   integer=tune.integer, bounds=tune.bounds, also=setting.also, per=setting.per, searched=tune.searched)

    @property
    def override_key(self) -> str:
        return ".".join(self.path)

    @property
    def quota(self) -> bool:
        return self.lever == "quota"

    def current(self, scenario: Any) -> Any:
        """Its value in ``scenario`` (a Scenario), read along its path by the file's keys."""
        value = scenario
        for key in self.path:
            # ``batch`` is the first job's (the night's others are addressed by their own paths)
            value = value.batch if key == "batch" and hasattr(value, "jobs") else getattr(value, f.keys_of(type(value))[key].name)
        return value

    def render(self, value: Any) -> str:
        """As people read it: ``1.0 MB``, ``50 ms``, ``20.0 MB/s per broker``."""
        return rendered(self.unit, value) + (f" {self.per}" if self.per and value is not None else "")

    def render_range(self, low: Any, high: Any) -> str:
        """``5.0 MB/s .. 250.0 MB/s (log)``: a stored study's identity, so without ``per`` (the words
        of a value's reading change; a study stored before must still resume)."""
        return f"{rendered(self.unit, low)} .. {rendered(self.unit, high)}{' (log)' if self.log else ''}"

    def property_value(self, value: Any) -> str:
        """As Kafka's or Spark's configuration takes it: ``131072``, ``zstd``, ``20971520``."""
        return property_text(value, self.unit)

    def override_value(self, value: Any) -> str:
        """As a scenario file (and ``--set``) takes it."""
        return f"{int(round(value))}B/s" if self.unit == "byte_rate" and value is not None else self.property_value(value)

    def setting(self, value: Any) -> str:
        """As a label names it: ``linger.ms=10``, ``producer_byte_rate=20.0 MB/s``, ``acks=all,
        enable.idempotence=true`` (with the settings that go with it)."""
        shown = self.render(value) if self.unit in ("bytes", "byte_rate") else self.property_value(value)
        return ", ".join([f"{self.name}={shown}"] + [f"{key}={property_text(v)}" for key, v in self.also(value)])

    def overrides(self, value: Any) -> list[str]:
        """The ``--set`` values that apply ``value``, with the settings that go with it: how a person
        repeats the change with ``quietload simulate``."""
        parent = ".".join(self.path[:-1])
        return [f"{self.override_key}={self.override_value(value)}"] + \
            [f"{parent}.{key}={property_text(v)}" for key, v in self.also(value)]

    def typed(self, value: Any) -> Any:
        """``value`` as the scenario holds it, through the knob's parser: a byte rate in whole bytes per
        second and a fraction to six significant figures, as a configuration file carries them."""
        where = self.override_key
        if self.unit == "byte_rate" and value is not None:
            if not value > 0:
                raise ScenarioError(where, f"must be greater than zero, got {value!r}")
            return float(int(round(value)))
        if isinstance(value, float):
            value = int(value) if value.is_integer() else float(f"{value:g}")
        return self.parse(value, where)

    def changes(self, value: Any) -> dict[tuple[str, ...], Any]:
        """The typed values ``value`` sets, at their paths (with the settings that go with it)."""
        return {self.path: self.typed(value), **{(*self.path[:-1], key): v for key, v in self.also(value)}}

    def file_changes(self, value: Any) -> dict[tuple[str, ...], Any]:
        """``changes`` as a scenario file's mapping holds them: a byte rate with its unit (``20971520B/s``),
        a whole number of milliseconds or percent as a whole number."""
        return {path: _file_value(typed, self.override_value if path == self.path and self.unit == "byte_rate" else None)
                for path, typed in self.changes(value).items()}

    def apply(self, scenario: Any, value: Any) -> Any:
        """``scenario`` (a Scenario) with ``value`` set, checked as a file's value would be."""
        return scenario.with_values(self.changes(value))


def _file_value(typed: Any, written: Callable[[Any], str] | None) -> Any:
    """A typed value as a file states it: a byte rate with its unit, a whole float as the whole number."""
    if written is not None and typed is not None:
        return written(typed)
    return int(typed) if isinstance(typed, float) and typed.is_integer() else typed


def params_changes(params: dict[str, Any], index: int | None = None) -> dict[tuple[str, ...], Any]:
    """Knob values (``{linger.ms: 10.0}``) as the values a scenario file states, at their paths; with
    ``index``, a job's for the night's job ``index`` (``batch``, ``index``, ...; a cluster's the cluster's)."""
    return {(path[0], str(index), *path[1:]) if index is not None and path[0] == "batch" else path: value
            for name, knob_value in params.items() for path, value in KNOBS[name].file_changes(knob_value).items()}


def _partitions(scenario: Any) -> int:
    return scenario.cluster.topic(scenario.batch.topic).partitions


def _repartitions(scenario: Any) -> tuple:
    choices = [None] + [_partitions(scenario) * k for k in (1, 2, 3, 4)]
    current = scenario.batch.spark.repartition
    return tuple(choices + ([current] if current not in choices else []))


def _broker_types(scenario: Any) -> tuple:
    """The broker types the cluster can move to with MSK's UpdateBrokerType: its own kind (Standard, or
    Express for an Express cluster) with at least its brokers' vCPUs, smallest first; its own type first."""
    broker = scenario.cluster.broker
    express = bool(broker.type) and BROKER_TYPES[broker.type].express
    bigger = sorted((t for t in BROKER_TYPES.values() if t.express == express and t.vcpus >= broker.vcpus),
                    key=lambda t: t.vcpus)
    return tuple(dict.fromkeys([*([broker.type] if broker.type else []), *(t.name for t in bigger)]))


def _threads(low_share: float, high_factor: int, least: int = 1) -> Callable[[Any], Callable[[Any], tuple]]:
    def bounds_of(attribute: str) -> Callable[[Any], tuple]:
        def bounds(scenario: Any) -> tuple:
            now = getattr(scenario.cluster.broker, attribute)
            return (max(least, int(now * low_share)), max(now * high_factor, least + 1))
        return bounds
    return bounds_of


KNOBS: dict[str, Knob] = {knob.name: knob for knob in (
    Knob("repartition", ("batch", "spark", "repartition"), "choice", f.or_none(f.positive_int), bounds=_repartitions),
    *(Knob.of(setting) for setting in PRODUCER if setting.tune),
    # the gate's change for a load in several waves of tasks; a study searches it when tune.knobs names it
    Knob("spark.executor.instances", ("batch", "spark", "spark.executor.instances"), "range", f.positive_int,
         bounds=lambda s: (s.batch.spark.executors, 4 * s.batch.spark.executors), searched=False),
    *(Knob.of(setting) for setting in QUOTA if setting.tune),
    Knob("num.replica.fetchers", ("cluster", "broker", "num.replica.fetchers"), "range", f.positive_int,
         lever="cluster", bounds=lambda s: (1, max(8, s.cluster.broker.num_replica_fetchers))),
    Knob("num.io.threads", ("cluster", "broker", "num.io.threads"), "range", f.positive_int, lever="cluster",
         bounds=_threads(0.5, 4)("num_io_threads")),
    Knob("num.network.threads", ("cluster", "broker", "num.network.threads"), "range", f.positive_int, lever="cluster",
         bounds=_threads(0.5, 3)("num_network_threads")),
    Knob("brokers", ("cluster", "brokers"), "range", f.positive_int, lever="cluster",
         bounds=lambda s: (s.cluster.brokers, 3 * s.cluster.brokers), hardware=True,
         command='aws kafka update-broker-count --cluster-arn "$CLUSTER_ARN" --current-version "$CLUSTER_VERSION" '
                 '--target-number-of-broker-nodes {value}'),
    Knob("cluster.broker.type", ("cluster", "broker", "type"), "choice", lambda v, p: broker_type(f.text(v, p), p).name,
         lever="cluster", bounds=_broker_types, hardware=True,
         command='aws kafka update-broker-type --cluster-arn "$CLUSTER_ARN" --current-version "$CLUSTER_VERSION" '
                 '--target-instance-type {value}'),
)}


def knobs_of(levers: tuple[str, ...]) -> list[str]:
    """The knobs of those lever classes, in the registry's order (the sampler's)."""
    return [name for name, knob in KNOBS.items() if knob.lever in levers and knob.searched
            and (not knob.quota or name in quota_fields())]


def parse_levers(value: Any, path: str) -> tuple[str, ...]:
    """``job,quota`` -> ("job", "quota"), in LEVERS' order; an unknown class is refused."""
    names = [part.strip() for part in (value.split(",") if isinstance(value, str) else value or [])]
    unknown = [name for name in names if name not in LEVERS]
    if unknown or not names:
        raise ScenarioError(path, f"expected lever classes from {', '.join(LEVERS)} (e.g. job,quota), got {value!r}")
    return tuple(lever for lever in LEVERS if lever in names)


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
