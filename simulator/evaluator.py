"""The Evaluator protocol: a scenario and a seed in, a RunResult out."""
from __future__ import annotations

from typing import Callable, Protocol

from simulator.contract import RunResult
from workloads import Scenario

Progress = Callable[[float], None]


class Evaluator(Protocol):
    name: str

    def evaluate(self, scenario: Scenario, seed: int, progress: Progress | None = None) -> RunResult:
        """Run ``scenario``; ``progress`` receives the simulated seconds reached, now and then."""
        ...


def model_evaluator() -> Evaluator:
    """The model's evaluator, the default wherever a scenario runs. Its module (and the codecs it
    measures rows with) loads here, on the first run, not when a command starts."""
    from simulator.model.model import ModelEvaluator
    return ModelEvaluator()
