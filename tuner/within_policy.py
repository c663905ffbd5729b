"""A study inside the cluster's policy (``tune --policy FILE``): the class the job belongs to bounds the
knobs, so the pick keeps every rule ``check --policy`` holds the job to.

A policy's producer rules are floors (``linger.ms``, ``batch.size``, and the durability ``acks`` and
``enable.idempotence``: 0 < 1 < all, false < true), allowed codecs (``compression.type``) and ceilings
(``max.in.flight.requests.per.connection``); its quota rules are ceilings on the quota the job's
client.id is given (``producer_byte_rate``, ``request_percentage``; a job without a quota breaks
them). Each narrows its knob's range; a knob a rule names but the levers do not search is searched
within the rule all the same, since a pick outside it would fail the gate. The rounding of the pick
keeps within the ranges (``tuner.recommend.rounded_pick``), so what is printed keeps the rules too.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from tuner.space import KnobRange, SearchSpace
from workloads import Scenario, ScenarioError
from workloads.policy import JobClass, Policy, judge_scenario, rules_of
from workloads.settings import CEILING, FLOOR, ONE_OF, SETTINGS, Setting
from workloads.tuning import KNOBS


def _range(space: SearchSpace, name: str, scenario: Scenario) -> KnobRange:
    """The space's range of knob ``name``, or its default range when the levers do not search it."""
    found = next((r for r in space.ranges if r.name == name), None)
    if found is not None:
        return found
    knob = KNOBS[name]
    bounds = knob.bounds(scenario)
    if knob.kind == "choice":
        return KnobRange(knob, choices=tuple(bounds))
    return KnobRange(knob, low=bounds[0], high=bounds[1], integer=knob.integer)


def _between(r: KnobRange, low: float | None = None, high: float | None = None) -> KnobRange:
    """``r`` narrowed to [low, high] (a bound past the other end pins the knob at the bound)."""
    new_low = r.low if low is None else max(r.low, low)
    new_high = r.high if high is None else min(r.high, high)
    if low is not None and new_high < new_low:
        new_high = new_low
    if high is not None and new_low > new_high:
        new_low = new_high
    integer = r.integer and float(new_low).is_integer() and float(new_high).is_integer()
    return dataclasses.replace(r, low=new_low, high=new_high, integer=integer)


def job_class(scenario: Scenario, policy: Policy) -> JobClass:
    """The class of the policy the scenario's (first) job belongs to, or one line saying none fits."""
    job = scenario.batch
    found = policy.class_of(job.client_id, job.topic)
    if found is None:
        raise ScenarioError("--policy", f"no class of policy {policy.name!r} fits client.id {job.client_id!r} "
                                        f"(topic {job.topic}): check --policy would fail any pick (policy.class)")
    return found


def _setter(setting: Setting) -> Setting:
    """The setting whose knob sets ``setting`` along with its own value (enable.idempotence: acks), or itself."""
    if setting.name in KNOBS:
        return setting
    return next(s for s in SETTINGS.values() if setting.name in dict(s.also(None)))


def bounded(space: SearchSpace, scenario: Scenario, policy: Policy) -> tuple[SearchSpace, list[str]]:
    """The study's space within the rules of the job's class, and a line saying so."""
    rules = job_class(scenario, policy)
    narrowed: dict[str, KnobRange] = {}

    def narrow(name: str, **bounds: Any) -> None:
        current = narrowed.get(name) or _range(space, name, scenario)
        narrowed[name] = _between(current, **bounds) if "choices" not in bounds else \
            dataclasses.replace(current, choices=bounds["choices"])

    for setting, bound in rules_of(rules):
        knob = KNOBS[_setter(setting).name]
        current = narrowed.get(knob.name) or _range(space, knob.name, scenario)
        if knob.kind == "choice":   # the choices that keep the rule (acks's keep enable.idempotence's with their own)
            def keeps(choice: Any) -> bool:
                value = choice if knob.name == setting.name else dict(knob.also(choice))[setting.name]
                return setting.keeps(value, bound)
            narrow(knob.name, choices=tuple(c for c in current.choices if keeps(c))
                   or tuple(c for c in knob.bounds(scenario) if keeps(c)) or (bound if setting.rule == ONE_OF else (bound,)))
        elif setting.rule == FLOOR:
            narrow(knob.name, low=bound)
        elif setting.rule == CEILING:
            narrow(knob.name, high=bound)
    ruled = {_setter(setting).name for setting, _ in rules_of(rules)}
    ranges = [narrowed.pop(r.name, r) for r in space.ranges] + list(narrowed.values())
    within = ", ".join(f"{r.name} {r.describe()}" for r in ranges if r.name in ruled)
    return SearchSpace(tuple(ranges)), [f"searched inside policy {policy.name}, class {rules.name}: {within}"]


def kept(result_scenario: dict[str, Any], policy: Policy) -> list[str]:
    """Whether the pick's run keeps the policy, as ``check --policy`` judges it: one line, naming each
    rule it breaks and why it must (only a pick that meets no SLA inside the policy can)."""
    broken = [b for b in judge_scenario(result_scenario, policy) if not b.kept]
    if not broken:
        return [f"keeps every rule of policy {policy.name} (check --policy passes it)"]
    return [f"breaks policy {policy.name}: {'; '.join(b.sentence for b in broken)}"]
