"""The knobs a study searches and their ranges: derived from the scenario, laid over by its ``tune:`` section."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads import Scenario, ScenarioError
from workloads.producer import CODECS
from workloads.tuning import KNOBS, Knob, quota_fields
from workloads.units import format_bytes

KB, MB = 1024, 1024**2
LINGER_MS_MAX = 100
MAX_IN_FLIGHT_MAX = 5            # above 5 the idempotent producer gives up its ordering guarantee
DEFAULT_KNOBS = ("repartition", "compression.type", "linger.ms", "batch.size", "buffer.memory",
                 "max.in.flight.requests.per.connection")
QUOTA_KNOBS = ("producer_byte_rate", "request_percentage")
_LOG_SCALE = {"batch.size", "buffer.memory", "producer_byte_rate"}   # effects scale with ratios


@dataclass(frozen=True)
class KnobRange:
    """One knob's search range: ``choices`` for a choice knob, else ``low``..``high``."""

    knob: Knob
    choices: tuple = ()
    low: float = 0
    high: float = 0
    integer: bool = True

    @property
    def name(self) -> str:
        return self.knob.name

    def suggest(self, trial: Any) -> Any:
        if self.knob.kind == "choice":
            return trial.suggest_categorical(self.name, list(self.choices))
        log = self.name in _LOG_SCALE and self.low > 0
        if self.integer:
            return trial.suggest_int(self.name, int(self.low), int(self.high), log=log)
        return trial.suggest_float(self.name, float(self.low), float(self.high), log=log)

    def describe(self) -> str:
        if self.knob.kind == "choice":
            return "{" + ", ".join(render_value(self.name, c) for c in self.choices) + "}"
        scale = " (log)" if self.name in _LOG_SCALE else ""
        return f"{render_value(self.name, self.low)} .. {render_value(self.name, self.high)}{scale}"


@dataclass(frozen=True)
class SearchSpace:
    """The knobs of one study, in a fixed order (the sampler's order)."""

    ranges: tuple[KnobRange, ...]

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.ranges]

    def suggest(self, trial: Any) -> dict[str, Any]:
        return {r.name: r.suggest(trial) for r in self.ranges}

    def overrides(self, params: dict[str, Any]) -> list[str]:
        """``--set`` overrides (``batch.producer.linger.ms=50``) that apply the knob values."""
        return [f"{KNOBS[name].override_key}={override_value(name, value)}" for name, value in params.items()]


def override_value(name: str, value: Any) -> str:
    """The value as a scenario file takes it (bytes as whole numbers, rates with /s)."""
    if value is None:
        return "none"
    if name == "producer_byte_rate":
        return f"{int(round(value))}B/s"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render_value(name: str, value: Any) -> str:
    """The value as people read it: ``1.0 MB``, ``50 ms``, ``20.0 MB/s``."""
    if value is None:
        return "none"
    if name in ("batch.size", "buffer.memory"):
        return format_bytes(value)
    if name == "producer_byte_rate":
        return f"{format_bytes(value)}/s"
    if name == "linger.ms":
        return f"{value:g} ms"
    if name == "request_percentage":
        return f"{value:g} %"
    return str(value)


def _defaults(scenario: Scenario, name: str) -> tuple:
    """Ranges around the job's own settings, within what the client and cluster allow."""
    producer, partitions = scenario.batch.producer, scenario.cluster.topic(scenario.batch.topic).partitions
    if name == "repartition":
        choices = [None] + [partitions * k for k in (1, 2, 3, 4)]
        current = scenario.batch.spark.repartition
        return tuple(choices + ([current] if current not in choices else []))
    if name == "compression.type":
        return CODECS
    if name == "acks":
        return ("1", "all")
    if name == "linger.ms":
        return (0, max(LINGER_MS_MAX, int(producer.linger_ms)))
    if name == "batch.size":
        return (min(16 * KB, producer.batch_size), producer.max_request_size)
    if name == "buffer.memory":
        return (min(32 * MB, producer.buffer_memory), max(512 * MB, producer.buffer_memory))
    if name == "max.in.flight.requests.per.connection":
        return (1, MAX_IN_FLIGHT_MAX)
    if name == "producer_byte_rate":   # per broker: from a sliver of the broker's NIC to a fifth of it
        nic = scenario.cluster.broker.nic_bandwidth
        return (float(max(MB, round(nic / 250))), float(round(nic / 5)))
    if name == "request_percentage":   # % of one thread's time per quota window (Kafka: may exceed 100)
        return (10.0, 200.0)
    raise KeyError(name)


def search_space(scenario: Scenario, quotas: bool = False) -> SearchSpace:
    """The study's knobs: the issue's six, the quota kinds the model knows with ``quotas``, and any
    knob the scenario's ``tune.knobs`` names (e.g. ``acks``), its ranges laid over the defaults."""
    given = scenario.tune.knobs
    if not quotas:
        for name in given:
            if KNOBS[name].quota:
                raise ScenarioError(f"tune.knobs.{name}", "is a quota knob: searched only with --quotas")
    names = list(DEFAULT_KNOBS) + [n for n in QUOTA_KNOBS if quotas and n in quota_fields()]
    names += [n for n in given if n not in names]
    ranges = []
    for name in names:
        knob, bounds = KNOBS[name], given.get(name) or _defaults(scenario, name)
        if knob.kind == "choice":
            ranges.append(KnobRange(knob, choices=tuple(bounds)))
        else:
            low, high = bounds
            integer = name not in ("request_percentage", "producer_byte_rate") and float(low).is_integer() \
                and float(high).is_integer()
            ranges.append(KnobRange(knob, low=low, high=high, integer=integer))
    space = SearchSpace(tuple(ranges))
    _check_consistent(scenario, space)
    return space


def _check_consistent(scenario: Scenario, space: SearchSpace) -> None:
    """Refuse ranges whose trials the producer would reject, before any trial runs."""
    by_name = {r.name: r for r in space.ranges}
    batch, memory = by_name.get("batch.size"), by_name.get("buffer.memory")
    max_request = scenario.batch.producer.max_request_size
    if batch and batch.high > max_request:
        raise ScenarioError("tune.knobs.batch.size", f"high {format_bytes(batch.high)} is above max.request.size "
                            f"({format_bytes(max_request)}): the producer would refuse it")
    if batch and memory and memory.low < batch.high:
        raise ScenarioError("tune.knobs.buffer.memory", f"low {format_bytes(memory.low)} cannot hold one batch of "
                            f"batch.size up to {format_bytes(batch.high)}")
