"""Builders for small, deterministic model scenarios and a way to watch a run event by event."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from simulator.model.broker import ApiKeys, Request
from simulator.model.model import ModelEvaluator, ModelRun
from workloads import Scenario
from workloads.loader import merge as merged

# One broker, one bulk topic, one small uncompressed file, one executor with one core, no jitter:
# every figure of a run follows from the scenario alone.
BASE: dict[str, Any] = {
    "name": "mechanism",
    "cluster": {"brokers": 1, "topics": [{"name": "bulk", "partitions": 4}]},
    "dataset": {"files": [{"size": "2MB"}]},
    "batch": {"topic": "bulk", "client": {"kind": "java", "version": "3.6.1"},
              "spark": {"spark.executor.instances": 1, "spark.executor.cores": 1},
              "producer": {"batch.size": "16KB", "linger.ms": 0, "acks": "1"}},
    "windows": {"before": "1s", "after": "1s"},
    "jitter": {"append_rate": 0, "service_time": 0},
}


@pytest.fixture(scope="session")
def make_scenario() -> Callable[..., Scenario]:
    """``make_scenario(changes, more_changes, ...)``: BASE with each mapping laid over it."""
    def build(*changes: dict) -> Scenario:
        raw = BASE
        for change in changes:
            raw = merged(raw, change)
        return Scenario.from_mapping(raw)
    return build


@pytest.fixture(scope="session")
def evaluator() -> ModelEvaluator:
    """One evaluator for the session: it caches the sample rows' compression curves."""
    return ModelEvaluator()


@pytest.fixture
def traced_run(evaluator) -> Callable[[Scenario, int], ModelRun]:
    """Builds a ModelRun: add observers to ``run.engine.observers`` (called after every event)."""
    def build(scenario: Scenario, seed: int = 1) -> ModelRun:
        return ModelRun(scenario, seed, evaluator)
    return build


@pytest.fixture(scope="session")
def watch_requests() -> Callable[[ModelRun], "RequestLog"]:
    """Attaches a RequestLog to a traced run (before ``run.execute()``)."""
    def attach(run: ModelRun) -> RequestLog:
        log = RequestLog()
        run.engine.observers.append(log)
        return log
    return attach


class RequestLog:
    """Every produce request seen in a run (each passes through broker events), in order."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self._seen: set[int] = set()

    def __call__(self, action: Any, argument: Any) -> None:
        if isinstance(argument, Request) and argument.api == ApiKeys.PRODUCE and id(argument) not in self._seen:
            self._seen.add(id(argument))
            self.requests.append(argument)

    def of(self, producer) -> list[Request]:
        return [r for r in self.requests if r.client is producer.sender]

    def batches(self, producer) -> list:
        return [b for r in self.of(producer) for b in r.batches]
