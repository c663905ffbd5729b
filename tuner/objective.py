"""A trial: knob values -> a scenario (typed edits) -> model runs -> objectives and constraints.

Objectives, both minimised: the load's produce requests and its duration. Constraints
(feasible at <= 0, Optuna's convention), relative so that a sampler weighs a missed SLA and a
missed deadline alike: each neighbour's p99 during the load over its SLA, and the load's
duration over the scenario's ``check.deadline`` when it sets one.

A trial runs the model on one seed, or on ``repeat`` consecutive seeds (each its own jitter in
append rates and service times) and counts the worst of them: the most requests, the longest
load, each constraint's highest value. A setting whose outcome hinges on timing then loses to
one that holds on every seed.

A study's trial stops at its verdict (``trial_outcome``): one whose run the run-size estimate
refuses (``workloads.limits.check_run_size``: past a single run's time or memory, or a load that
cannot end within the run) is not run at all; a run stopped by the model
(``simulator.model.verdict``: a constraint missed beyond doubt, or more requests than a trial that
held, by the study's factor) or a seed that missed a constraint leaves the seeds after it unrun, and
the trial is pruned with its reason and its figures so far.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, Callable

from simulator.contract import RunResult
from simulator.contract.judgement import best_p99, worst_p99
from simulator.evaluator import Evaluator, RunStopped, StopWhen, model_evaluator, stops_early
from tuner.space import SearchSpace
from workloads import Scenario
from workloads.errors import ScenarioError
from workloads.limits import check_run_size

OBJECTIVES = ("produce_requests", "load_seconds")
_NOT_RUN_FIGURES = {"simulated_s": 0.0, "load_s": 0.0, "produce_requests": 0, "tenants": {}}   # a trial refused before its run


@dataclass(frozen=True)
class Outcome:
    """What one configuration did on the model: the study's values and the figures a report reads."""

    params: dict[str, Any]
    overrides: list[str]
    produce_requests: int
    load_seconds: float
    constraints: dict[str, float]
    figures: dict[str, Any] = field(default_factory=dict)
    pruned: str | None = None      # why the trial stopped at its verdict, its figures those so far
    stopped_on: int | None = None  # the seed it stopped on (pruned before any run: None), the seeds after it unrun

    @property
    def values(self) -> tuple[float, float]:
        return float(self.produce_requests), self.load_seconds

    @property
    def feasible(self) -> bool:
        return all(value <= 0 for value in self.constraints.values())


def figures_of(result: RunResult) -> dict[str, Any]:
    """The summary figures a recommendation compares, before and after."""
    summary = result.summary
    return {
        "produce_requests": summary.produce_requests, "batches": summary.batches,
        "mean_batch_bytes": summary.mean_batch_bytes, "compression_ratio": summary.compression_ratio,
        "load_seconds": summary.load_seconds, "wire_bytes": summary.wire_bytes,
        "tenants": {t.name: t.as_row(("p99_ms_before", "p99_ms_during", "sla_p99_ms")) for t in summary.tenants},
    }


def worst_figures(results: list[RunResult]) -> dict[str, Any]:
    """The figures of several seeds' runs, each at its worst, with the spread of those a
    recommendation quotes; one run's figures as they are."""
    each = [figures_of(result) for result in results]
    if len(each) == 1:
        return each[0]
    worst = {key: max(f[key] for f in each)
             for key in ("produce_requests", "batches", "compression_ratio", "load_seconds", "wire_bytes")}
    worst["mean_batch_bytes"] = min(f["mean_batch_bytes"] for f in each)
    worst["tenants"] = {name: {"p99_ms_before": best_p99(f["tenants"][name]["p99_ms_before"] for f in each),
                               "p99_ms_during": worst_p99(f["tenants"][name]["p99_ms_during"] for f in each),
                               "sla_p99_ms": tenant["sla_p99_ms"]}
                        for name, tenant in each[0]["tenants"].items()}
    worst["model_seeds"] = [result.seed for result in results]
    worst["spread"] = {key: [min(f[key] for f in each), max(f[key] for f in each)]
                       for key in ("produce_requests", "load_seconds")}
    worst["spread"]["p99_ms_during"] = {
        name: [best_p99(f["tenants"][name]["p99_ms_during"] for f in each), tenant["p99_ms_during"]]
        for name, tenant in worst["tenants"].items()}
    return worst


def constraints_of(result: RunResult, deadline_s: float | None) -> dict[str, float]:
    for index, tenant in enumerate(result.summary.tenants):    # no p99 during the load: nothing to hold to the SLA
        if tenant.p99_ms_during is None or tenant.sla_p99_ms is None:
            raise ScenarioError(f"tenants[{index}].rate", f"{tenant.name} sent no record during the load on seed {result.seed}: "
                                                          "too few records to judge its SLA; give it a higher rate or a longer load")
    constraints = {f"sla:{t.name}": t.p99_ms_during / t.sla_p99_ms - 1.0 for t in result.summary.tenants}
    if deadline_s is not None:
        constraints["deadline"] = result.summary.load_seconds / deadline_s - 1.0
    return constraints


class Objective:
    """Callable on an Optuna trial (a study's, or ``optuna.trial.FixedTrial`` in a test).

    ``base`` is the scenario as a raw mapping (a file with its ``--set`` overrides applied); each
    trial sets its knob values on the scenario it makes (``SearchSpace.apply``), checked as
    ``quietload simulate --set`` would check them.
    """

    def __init__(self, base: dict, space: SearchSpace, seed: int, evaluator: Evaluator | None = None, repeat: int = 1) -> None:
        self.base, self.space, self.seed = base, space, seed
        self.seeds = tuple(range(seed, seed + repeat))
        self.start = Scenario.from_mapping(base)      # the scenario as it is, each trial's knob values laid over it
        self.deadline_s = self.start.check.deadline
        self._evaluator = evaluator

    def on(self, evaluator: Evaluator | None) -> "Objective":
        """This objective run on ``evaluator`` (a worker process's own; None: the model, built on first use)."""
        other = copy.copy(self)
        other._evaluator = evaluator
        return other

    def judged(self, seeds: int) -> "Objective":
        """This objective counting the worst of at least ``seeds`` seeds (its own and the ones after)."""
        other = copy.copy(self)
        other.seeds = tuple(range(self.seed, self.seed + max(seeds, self.repeat)))
        return other

    @property
    def repeat(self) -> int:
        return len(self.seeds)

    @property
    def evaluator(self) -> Evaluator:
        if self._evaluator is None:   # built on the first run: the codecs load only when a run needs them
            self._evaluator = model_evaluator()
        return self._evaluator

    def scenario(self, params: dict[str, Any]) -> Scenario:
        return self.space.apply(self.start, params)

    def added_vcpus(self, params: dict[str, Any]) -> float:
        """The price of the knob values' cluster changes: the share of vCPUs they add to the cluster
        (its brokers times each broker's vCPUs, what MSK bills a cluster by: broker-hours of the broker
        type, whose price follows its vCPUs). The job's settings, a quota and the brokers' thread pools
        and fetchers add none: each is a configuration change, not hardware."""
        before, after = self.scenario({}).cluster, self.scenario(params).cluster
        return max(0.0, after.brokers * after.broker.vcpus / (before.brokers * before.broker.vcpus) - 1.0)

    def run(self, params: dict[str, Any]) -> RunResult:
        """The model's RunResult on the first seed for these knob values (``{}``: the scenario as it is)."""
        return self.run_on(params, self.seed)

    def run_on(self, params: dict[str, Any], seed: int) -> RunResult:
        return self.evaluator.evaluate(self.scenario(params), seed)

    def evaluate(self, params: dict[str, Any]) -> Outcome:
        return self.evaluate_on(params, self.seeds)

    def evaluate_on(self, params: dict[str, Any], seeds: tuple[int, ...],
                    results: list[RunResult] | None = None) -> Outcome:
        """The outcome on ``seeds``, counted at the worst of them (``results``: their runs, when run elsewhere)."""
        if results is None:
            scenario = self.scenario(params)
            results = [self.evaluator.evaluate(scenario, seed) for seed in seeds]
        each = [constraints_of(result, self.deadline_s) for result in results]
        return Outcome(params=dict(params), overrides=self.space.overrides(params),
                       produce_requests=max(int(r.summary.produce_requests) for r in results),
                       load_seconds=max(float(r.summary.load_seconds) for r in results),
                       constraints={key: max(c[key] for c in each) for key in each[0]}, figures=worst_figures(results))

    def trial_outcome(self, params: dict[str, Any], stop: StopWhen | None = None,
                      progress: Callable[[int, float], None] | None = None) -> Outcome:
        """The outcome on the objective's seeds, stopped at its verdict: a run the model stops
        (``stop``), or a seed that misses a constraint, leaves the seeds after it unrun (pruned).
        ``progress`` hears (seed, simulated seconds) as each run goes."""
        if stop is None or not stops_early(self.evaluator):
            return self.evaluate(params)
        scenario, results = self.scenario(params), []
        try:   # one run past the limits of a single run (the run-size estimate): not run at all
            check_run_size(scenario, hint="the trial is not run")
        except ScenarioError as refused:
            return self._stopped(params, [], str(refused), _NOT_RUN_FIGURES)
        for seed in self.seeds:
            told = None if progress is None else functools.partial(progress, seed)
            try:
                results.append(self.evaluator.evaluate(scenario, seed, told, stop=stop))   # type: ignore[call-arg]
            except RunStopped as stopped:
                return self._stopped(params, results, f"seed {seed}: {stopped.reason}", stopped.figures, seed)
            outcome = self.evaluate_on(params, self.seeds[:len(results)], results)
            if not outcome.feasible and len(results) < len(self.seeds):
                missed = ", ".join(key for key, value in outcome.constraints.items() if value > 0)
                return dataclasses.replace(outcome, pruned=f"seed {seed}: over {missed}; seeds after it not run", stopped_on=seed)
        return self.evaluate_on(params, self.seeds, results)

    def _stopped(self, params: dict[str, Any], results: list[RunResult], reason: str, figures: dict[str, Any],
                 seed: int | None = None) -> Outcome:
        """A trial whose run stopped: its figures so far, with the constraints already missed (on
        the stopped run as it stood, and on the seeds before it) as the sampler's measure of how far;
        ``seed`` the one whose run stopped (None: the trial not run at all)."""
        missed = {f"sla:{name}": tenant["p99_ms_during"] / tenant["sla_p99_ms"] - 1.0
                  for name, tenant in figures["tenants"].items()
                  if tenant.get("sla_p99_ms") is not None and tenant["p99_ms_during"] > tenant["sla_p99_ms"]}
        if self.deadline_s is not None and figures["load_s"] > self.deadline_s:
            missed["deadline"] = figures["load_s"] / self.deadline_s - 1.0
        requests, load_s = figures["produce_requests"], figures["load_s"]
        if results:
            earlier = self.evaluate_on(params, self.seeds[:len(results)], results)
            for key, value in earlier.constraints.items():
                if value > 0:
                    missed[key] = max(value, missed.get(key, value))
            requests, load_s = max(requests, earlier.produce_requests), max(load_s, earlier.load_seconds)
        return Outcome(params=dict(params), overrides=self.space.overrides(params), produce_requests=requests,
                       load_seconds=load_s, constraints=missed, figures=figures, pruned=reason,
                       stopped_on=seed)

    def __call__(self, trial: Any) -> tuple[float, float]:
        outcome = self.evaluate(self.space.suggest(trial))
        record(trial, outcome)
        return outcome.values


def record(trial: Any, outcome: Outcome) -> None:
    """Constraints where Optuna's samplers and Pareto front read them; figures as user attrs."""
    for key, value in outcome.constraints.items():
        trial.set_constraint(key, value)
    trial.set_user_attr("overrides", outcome.overrides)
    trial.set_user_attr("figures", outcome.figures)
