"""A study inside the cluster's policy (``tune --policy FILE``): the class the job belongs to bounds the
knobs, so the pick keeps every rule ``check --policy`` holds the job to.

A policy's producer rules are floors (``linger.ms``, ``batch.size``), required values (``acks``,
``enable.idempotence``), allowed codecs (``compression.type``) and ceilings
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
from workloads.policy import JobClass, Policy, judge_scenario
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


def bounded(space: SearchSpace, scenario: Scenario, policy: Policy) -> tuple[SearchSpace, list[str]]:
    """The study's space within the rules of the job's class, and a line saying so."""
    rules = job_class(scenario, policy)
    template, quota = rules.producer, rules.quota
    narrowed: dict[str, KnobRange] = {}

    def narrow(name: str, **bounds: Any) -> None:
        current = narrowed.get(name) or _range(space, name, scenario)
        narrowed[name] = _between(current, **bounds) if "choices" not in bounds else \
            dataclasses.replace(current, choices=bounds["choices"])

    if template.linger_ms is not None:
        narrow("linger.ms", low=template.linger_ms)
    if template.batch_size is not None:
        narrow("batch.size", low=template.batch_size)
    if template.compression_type is not None:
        allowed = _range(space, "compression.type", scenario).choices
        narrow("compression.type", choices=tuple(c for c in allowed if c in template.compression_type)
               or template.compression_type)
    acks = _range(space, "acks", scenario).choices
    if template.acks is not None:
        acks = (template.acks,)
    if template.enable_idempotence is not None:   # the acks knob sets enable.idempotence with it (all: true)
        acks = tuple(a for a in acks if (a == "all") == template.enable_idempotence) or \
            (("all",) if template.enable_idempotence else ("1",))
    if template.acks is not None or template.enable_idempotence is not None:
        narrow("acks", choices=acks)
    if template.max_in_flight is not None:
        narrow("max.in.flight.requests.per.connection", high=template.max_in_flight)
    if quota.producer_byte_rate is not None:
        narrow("producer_byte_rate", high=quota.producer_byte_rate)
    if quota.request_percentage is not None:
        narrow("request_percentage", high=quota.request_percentage)
    ranges = [narrowed.pop(r.name, r) for r in space.ranges] + list(narrowed.values())
    within = ", ".join(f"{name} {narrowed_range.describe()}" for name, narrowed_range in
                       ((r.name, r) for r in ranges if r.name in _ruled(template, quota)))
    return SearchSpace(tuple(ranges)), [f"searched inside policy {policy.name}, class {rules.name}: {within}"]


def _ruled(template: Any, quota: Any) -> set[str]:
    names = {"linger.ms": template.linger_ms, "batch.size": template.batch_size,
             "compression.type": template.compression_type, "acks": template.acks or template.enable_idempotence,
             "max.in.flight.requests.per.connection": template.max_in_flight,
             "producer_byte_rate": quota.producer_byte_rate, "request_percentage": quota.request_percentage}
    return {name for name, rule in names.items() if rule is not None}


def kept(result_scenario: dict[str, Any], policy: Policy) -> list[str]:
    """Whether the pick's run keeps the policy, as ``check --policy`` judges it: one line, naming each
    rule it breaks and why it must (only a pick that meets no SLA inside the policy can)."""
    broken = [b for b in judge_scenario(result_scenario, policy) if not b.kept]
    if not broken:
        return [f"keeps every rule of policy {policy.name} (check --policy passes it)"]
    return [f"breaks policy {policy.name}: {'; '.join(b.sentence for b in broken)}"]
