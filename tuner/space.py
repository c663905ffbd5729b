"""The knobs a study searches and their ranges: the lever classes allowed, each knob's default range
for the scenario (workloads.tuning), laid over by its ``tune:`` section."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads import Scenario, ScenarioError
from workloads.tuning import DEFAULT_LEVERS, KNOBS, Knob, knobs_of
from workloads.units import format_bytes
from workloads.settings import BATCH_SIZE_CONFIG, BUFFER_MEMORY_CONFIG


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
        log = self.knob.log and self.low > 0
        if self.integer:
            return trial.suggest_int(self.name, int(self.low), int(self.high), log=log)
        return trial.suggest_float(self.name, float(self.low), float(self.high), log=log)

    def values(self) -> tuple:
        """Every value of a choice or whole-number range (a float range has too many to list: none)."""
        if self.knob.kind == "choice":
            return self.choices
        return tuple(range(int(self.low), int(self.high) + 1)) if self.integer else ()

    def describe(self) -> str:
        if self.knob.kind == "choice":
            return "{" + ", ".join(self.knob.render(c) for c in self.choices) + "}"
        return self.knob.render_range(self.low, self.high)


@dataclass(frozen=True)
class SearchSpace:
    """The knobs of one study, in a fixed order (the sampler's)."""

    ranges: tuple[KnobRange, ...]

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.ranges]

    def suggest(self, trial: Any) -> dict[str, Any]:
        return {r.name: r.suggest(trial) for r in self.ranges}

    def overrides(self, params: dict[str, Any]) -> list[str]:
        """``--set`` overrides (``batch.producer.linger.ms=50``) that repeat the knob values with
        ``quietload simulate`` (a trial's record; its scenario is made by ``apply``)."""
        return [value for name, value in params.items() for value in KNOBS[name].overrides(value)]

    def apply(self, scenario: Scenario, params: dict[str, Any]) -> Scenario:
        """``scenario`` with the knob values set, all at once (a typed edit, checked as a file's values)."""
        if not params:
            return scenario
        return scenario.with_values({path: value for name, knob_value in params.items()
                                     for path, value in KNOBS[name].changes(knob_value).items()})


def render_value(name: str, value: Any) -> str:
    """The value as people read it: ``1.0 MB``, ``50 ms``, ``20.0 MB/s per broker``."""
    return KNOBS[name].render(value)


def search_space(scenario: Scenario, levers: tuple[str, ...] = DEFAULT_LEVERS) -> SearchSpace:
    """The study's knobs: those of the lever classes allowed, and any knob the scenario's
    ``tune.knobs`` names, its ranges laid over the defaults."""
    given = scenario.tune.knobs
    for name in given:
        if KNOBS[name].lever not in levers:
            raise ScenarioError(f"tune.knobs.{name}", f"is a {KNOBS[name].lever} lever: searched only with "
                                                       f"--levers including {KNOBS[name].lever}")
    names = knobs_of(levers)
    names += [n for n in given if n not in names]
    if scenario.batch.spark is None:    # a producer job: no Spark side to search
        spark = [n for n in names if KNOBS[n].path[:2] == ("batch", "spark")]
        for name in spark:
            if name in given:
                raise ScenarioError(f"tune.knobs.{name}", "is a Spark setting; a producer job (kind: producer) has none")
        names = [n for n in names if n not in spark]
    ranges = []
    for name in names:
        knob = KNOBS[name]
        bounds = given.get(name) or knob.bounds(scenario)
        if knob.kind == "choice":
            ranges.append(KnobRange(knob, choices=tuple(bounds)))
        else:
            low, high = bounds
            integer = knob.integer and float(low).is_integer() and float(high).is_integer()
            ranges.append(KnobRange(knob, low=low, high=high, integer=integer))
    space = SearchSpace(tuple(ranges))
    _check_consistent(scenario, space)
    return space

def _check_consistent(scenario: Scenario, space: SearchSpace) -> None:
    """Refuse ranges whose trials the producer would reject, before any trial runs."""
    by_name = {r.name: r for r in space.ranges}
    batch, memory = by_name.get(BATCH_SIZE_CONFIG), by_name.get(BUFFER_MEMORY_CONFIG)
    max_request = scenario.batch.producer.max_request_size
    if batch and batch.high > max_request:
        raise ScenarioError("tune.knobs.batch.size", f"high {format_bytes(batch.high)} is above max.request.size "
                            f"({format_bytes(max_request)}): the producer would refuse it")
    if batch and memory and memory.low < batch.high:
        raise ScenarioError("tune.knobs.buffer.memory", f"low {format_bytes(memory.low)} cannot hold one batch of "
                            f"batch.size up to {format_bytes(batch.high)}")
