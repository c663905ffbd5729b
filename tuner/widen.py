"""Never only "none": with no pick in the lever classes allowed, the cheapest lever of a wider
class that makes the closest trial pass on the model.

Lever classes are tried from the cheapest to change (the cluster owner's quota for the job)
to the dearest (the cluster's own settings); within a class, each knob in the registry's
order, its values from the nearest to the scenario's own outward. The first that meets every
constraint on the study's seeds is named, in one line, with what the model predicts for it.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from simulator.contract import explain as words
from workloads import Scenario, ScenarioError
from workloads.tuning import KNOBS, LEVERS, WHO, Knob, knobs_of

STEPS = 3          # values tried per knob


def _values(knob: Knob, scenario: Scenario) -> list[Any]:
    """A few values of ``knob`` away from the scenario's own, nearest first."""
    now = knob.current(scenario)
    if knob.kind == "choice":
        return [choice for choice in knob.bounds(scenario) if choice != now][:STEPS]
    low, high = knob.bounds(scenario)
    if knob.quota:          # a quota holds the load back: from the loosest (a fifth of the NIC) down
        return [type(high)(high / 2**i) for i in range(STEPS) if high / 2**i >= low]
    start = now or low
    if knob.name == "brokers":   # MSK adds brokers one per availability zone
        return [start + start * i for i in range(1, STEPS + 1) if start + start * i <= high]
    return [start * 2**i for i in range(1, STEPS + 1) if start * 2**i <= high]


def changes(scenario: Scenario, levers: tuple[str, ...]) -> Iterator[tuple[str, str, Any]]:
    """Single changes to try, cheapest first: ``(lever, knob name, value)`` by lever class in
    ``levers``' order, each class's knobs in the registry's order, values nearest first."""
    for lever in levers:
        for name in knobs_of((lever,)):
            for value in _values(KNOBS[name], scenario):
                yield lever, name, value


def wider_lever(scenario: Scenario, params: dict[str, Any], levers: tuple[str, ...],
                evaluate: Callable[[dict[str, Any]], Any]) -> str:
    """One line: the cheapest lever outside ``levers`` that makes ``params`` pass on the model
    (``evaluate`` gives an Outcome), or that none of them does."""
    wider = [lever for lever in LEVERS if lever not in levers]
    for lever, name, value in changes(scenario, tuple(wider)):
        try:
            outcome = evaluate({**params, name: value})
        except ScenarioError:
            continue
        if outcome.feasible:
            p99 = ", ".join(words.p99_of_sla(tenant, t["p99_ms_during"], t["sla_p99_ms"])
                            for tenant, t in outcome.figures["tenants"].items())
            return (f"it passes on the model with {WHO[lever]} setting {name} = {KNOBS[name].render(value)}: "
                    f"{outcome.produce_requests:,} produce requests, {p99} "
                    f"(--levers {','.join(sorted(set(levers) | {lever}, key=LEVERS.index))} searches it)")
    if not wider:
        return "no lever quietload knows makes it pass on the model: the SLA or the load must change"
    return (f"no single {' or '.join(wider)} lever makes it pass on the model either; "
            "the SLA or the load must change")
