"""A relative SLA resolved once: each neighbour's p99 alone, the neighbours without the load.

An SLA of ``1.5x`` holds a neighbour to 1.5 times its p99 alone. Taken from each run's own window
before the load, that figure moved with the seed (a study's trials, a policy's night and a check each
held the neighbour to a different SLA). Here it is measured once, on the scenario's cluster with its
neighbours and no load, over ``ALONE_SEEDS`` pooled (each seed the scenario's window before its
first load), and written back into the scenario mapping as ``1.5x of 8.21ms (model seeds 1-5)``
(``workloads.sla``): every run, trial and check of that mapping then holds the neighbour to the
same figure, and says where it came from. The scenario's knobs applied later (a trial's, a
recommended change's) keep it: one SLA per study.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from simulator.contract.histograms import LatencyHistogram
from simulator.model.metrics import Latencies
from simulator.model.model import ModelEvaluator, ModelRun, heed_signals
from workloads import Scenario, ScenarioError
from workloads.scenario import load_mapping
from workloads.units import format_seeds

ALONE_SEEDS = (1, 2, 3, 4, 5)
SETTLE_S = 2.0    # after the window: the records sent at its end acknowledged

_resolved: dict[str, dict] = {}   # one resolution per scenario mapping in a process (a study resolves once)


class NeighboursAlone(ModelRun):
    """The scenario's cluster and neighbours with no load built at all: nothing of the jobs' settings
    (their tasks, executors, repartition) draws from the run's random stream before the neighbours
    do, so their p99 alone is the same whatever a trial or a change sets for the job."""

    def _build_loads(self, appends: Any) -> None:
        self.load_plan, self.bulk_record_bytes = None, 0.0


def p99_alone(scenario: Scenario, seeds: tuple[int, ...] = ALONE_SEEDS,
              evaluator: ModelEvaluator | None = None) -> dict[str, float | None]:
    """Each neighbour's p99 (ms) over the records meant to be sent before the scenario's first load,
    the load held back, its seeds' records pooled; None for one that sent none."""
    evaluator = evaluator or ModelEvaluator()
    window = min(scenario.job_start(job) for job in scenario.jobs)
    pooled = {tenant.name: LatencyHistogram() for tenant in scenario.tenants}
    for seed in seeds:
        run = NeighboursAlone(scenario, seed, evaluator)
        run.engine.stop_at = window + SETTLE_S
        for fetcher in run.fetchers:
            run.engine.at(0.0, fetcher.start)
        run.engine.run(heed_signals)
        for tenant in run.tenants:
            histogram = pooled[tenant.spec.name]
            if isinstance(tenant.latencies, Latencies):
                histogram.add(tenant.latencies.before)
            else:   # a streaming pipeline's (intended, latency) pairs
                for intended, latency in tenant.latencies:
                    if 0.0 <= intended < window and latency > 0.0:
                        histogram.record(latency)
    return {name: histogram.percentile(0.99) for name, histogram in pooled.items()}


def provenance(seeds: tuple[int, ...]) -> str:
    return f"model {format_seeds(seeds)}"


def load_resolved(path: Path, overrides: list[str] | None = None) -> dict:
    """A scenario file's mapping with its ``--set`` values, each relative SLA resolved (``with_slas_resolved``)."""
    return with_slas_resolved(load_mapping(path, list(overrides or [])), str(path))


def with_slas_resolved(mapping: dict, source: str = "", seeds: tuple[int, ...] = ALONE_SEEDS,
                       evaluator: ModelEvaluator | None = None) -> dict:
    """``mapping`` with each relative SLA resolved (``1.5x`` -> ``1.5x of 8.21ms (model seeds 1-5)``);
    the mapping itself when none is relative."""
    scenario = Scenario.from_mapping(mapping, source)
    relative = [(i, tenant) for i, tenant in enumerate(scenario.tenants) if tenant.sla.relative]
    if not relative:
        return mapping
    key = json.dumps([mapping, list(seeds)], sort_keys=True, default=str)
    if key not in _resolved:
        alone = p99_alone(scenario, seeds, evaluator)
        resolved = copy.deepcopy(mapping)
        for index, tenant in relative:
            if alone[tenant.name] is None:
                raise ScenarioError(f"tenants[{index}].sla_p99", f"{tenant.sla.describe()} needs a p99 alone, but "
                                                                 f"{tenant.name} sent no record alone on {provenance(seeds)}")
            resolved["tenants"][index]["sla_p99"] = str(tenant.sla.resolved(alone[tenant.name], provenance(seeds)))
        _resolved[key] = resolved
    return copy.deepcopy(_resolved[key])
