"""A relative SLA resolved once on the live stack: each neighbour's p99 in the first run's window
before the load, measured on the rig itself, then held to by that run and by every repeat of it.

The model resolves ``1.5x`` from its own neighbours alone (``simulator.model.alone``); a live run is
judged on what the rig measured, so its ``1.5x`` multiplies the p99 the rig measured without the load.
Taken from each run's own window, that figure moved with every repeat; taken once, from the first
run's, the repeats hold every neighbour to one SLA, and each result says which and where it came from
(``1.5x of 2.13ms (live seed 1 before the load)``). An SLA already resolved (a tuned scenario's, on the
model) is kept as it is, and says it is the model's.
"""
from __future__ import annotations

import copy
import dataclasses

from simulator.contract import RunResult
from workloads import Scenario


def provenance(seed: int) -> str:
    return f"live seed {seed} before the load"


def held_to_first_run(scenario: Scenario, first: RunResult) -> tuple[Scenario, RunResult]:
    """``scenario`` with each relative SLA resolved from ``first``'s neighbours' p99 before the load, for
    the runs after it, and ``first`` holding the same figures (its SLA in ms rounded as written). A
    neighbour that sent nothing before the load keeps its relative SLA (each run's own, or none)."""
    before = {t.name: t.p99_ms_before for t in first.summary.tenants}
    slas = {t.name: t.sla.resolved(before[t.name], provenance(first.seed)) for t in scenario.tenants
            if t.sla.relative and before.get(t.name) is not None}
    if not slas:
        return scenario, first
    scenario = dataclasses.replace(scenario, tenants=tuple(dataclasses.replace(t, sla=slas.get(t.name, t.sla))
                                                           for t in scenario.tenants))
    mapping = copy.deepcopy(first.scenario)
    for tenant in mapping.get("tenants") or []:
        if tenant.get("name") in slas:
            tenant["sla_p99"] = str(slas[tenant["name"]])
    tenants = tuple(dataclasses.replace(t, sla_p99_ms=slas[t.name].ms) if t.name in slas else t
                    for t in first.summary.tenants)
    return scenario, dataclasses.replace(first, scenario=mapping, summary=dataclasses.replace(first.summary, tenants=tenants))
