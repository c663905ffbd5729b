"""A trial: knob values -> scenario overrides -> one model run -> objectives and constraints.

Objectives, both minimised: the load's produce requests and its duration. Constraints
(feasible at <= 0, Optuna's convention), relative so that a sampler weighs a missed SLA and a
missed deadline alike: each neighbour's p99 during the load over its SLA, and the load's
duration over the scenario's ``check.deadline`` when it sets one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulator.result import RunResult
from tuner.space import SearchSpace
from workloads import Scenario
from workloads.loader import apply_overrides

OBJECTIVES = ("produce_requests", "load_seconds")


@dataclass(frozen=True)
class Outcome:
    """What one configuration did on the model: the study's values and the figures a report reads."""

    params: dict[str, Any]
    overrides: list[str]
    produce_requests: int
    load_seconds: float
    constraints: dict[str, float]
    figures: dict[str, Any] = field(default_factory=dict)

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
        "produce_requests": summary["produce_requests"], "batches": summary["batches"],
        "mean_batch_bytes": summary["mean_batch_bytes"], "compression_ratio": summary["compression_ratio"],
        "load_seconds": summary["load_seconds"], "wire_bytes": summary["wire_bytes"],
        "tenants": {t["name"]: {"p99_ms_before": t["p99_ms_before"], "p99_ms_during": t["p99_ms_during"],
                                "sla_p99_ms": t["sla_p99_ms"]} for t in summary["tenants"]},
    }


def constraints_of(result: RunResult, deadline_s: float | None) -> dict[str, float]:
    constraints = {f"sla:{t['name']}": t["p99_ms_during"] / t["sla_p99_ms"] - 1.0 for t in result.summary["tenants"]}
    if deadline_s is not None:
        constraints["deadline"] = result.summary["load_seconds"] / deadline_s - 1.0
    return constraints


class Objective:
    """Callable on an Optuna trial (a study's, or ``optuna.trial.FixedTrial`` in a test).

    ``base`` is the scenario as a raw mapping (a file with its ``--set`` overrides applied), so
    each trial lays its own overrides over it exactly as ``quietload simulate --set`` would.
    """

    def __init__(self, base: dict, space: SearchSpace, seed: int, evaluator: Any = None) -> None:
        self.base, self.space, self.seed = base, space, seed
        self.deadline_s = Scenario.from_mapping(base).check.deadline
        self._evaluator = evaluator

    @property
    def evaluator(self) -> Any:
        if self._evaluator is None:
            from simulator.model.model import ModelEvaluator  # the codecs load only when a run needs them
            self._evaluator = ModelEvaluator()
        return self._evaluator

    def scenario(self, params: dict[str, Any]) -> Scenario:
        return Scenario.from_mapping(apply_overrides(self.base, self.space.overrides(params)))

    def run(self, params: dict[str, Any]) -> RunResult:
        """The model's RunResult for these knob values (``{}``: the scenario as it is)."""
        return self.evaluator.evaluate(self.scenario(params), self.seed)

    def evaluate(self, params: dict[str, Any]) -> Outcome:
        result = self.run(params)
        return Outcome(params=dict(params), overrides=self.space.overrides(params),
                       produce_requests=int(result.summary["produce_requests"]),
                       load_seconds=float(result.summary["load_seconds"]),
                       constraints=constraints_of(result, self.deadline_s), figures=figures_of(result))

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
