"""The Evaluator protocol: a scenario and a seed in, a RunResult out."""
from __future__ import annotations

from typing import Any, Callable, Protocol

from simulator.contract import RunResult
from simulator.stopping import RunStopped, StopWhen
from workloads import Scenario

Progress = Callable[[float], None]


class Evaluator(Protocol):
    name: str

    def evaluate(self, scenario: Scenario, seed: int, progress: Progress | None = None) -> RunResult:
        """Run ``scenario``; ``progress`` receives the simulated seconds reached, now and then."""
        ...


__all__ = ["Evaluator", "Progress", "RunStopped", "StopWhen", "model_evaluator", "stops_early"]


def model_evaluator() -> Evaluator:
    """The model's evaluator, the default wherever a scenario runs. Its module (and the codecs it
    measures rows with) loads here, on the first run, not when a command starts."""
    from simulator.model.model import ModelEvaluator
    return _HeedingSignals(ModelEvaluator())


def _between_seconds(simulated_s: float) -> None:
    """Nothing: that the model calls a Python function is the point (see ``_HeedingSignals``)."""


class _HeedingSignals:
    """The model's evaluator, whose runs stop on Ctrl-C or SIGTERM within a simulated second.
    Python runs a signal's handler only between the instructions it interprets, and the compiled
    model runs none in its loop: a run told of no progress would finish (a minute, for a large
    night) before its command heard the signal. Every run here calls back once a simulated second."""

    def __init__(self, model: Evaluator) -> None:
        self.model, self.name = model, model.name

    def evaluate(self, scenario: Scenario, seed: int, progress: Progress | None = None, **options: Any) -> RunResult:
        return self.model.evaluate(scenario, seed, progress or _between_seconds, **options)

    def __getattr__(self, name: str) -> Any:   # the model's other parts (its rows, its row cache) as they are
        if name == "model":   # not set yet: an unpickled copy looking for its state
            raise AttributeError(name)
        return getattr(self.model, name)


def stops_early(evaluator: object) -> bool:
    """Whether ``evaluator`` can stop a run at its verdict (``evaluate(..., stop=StopWhen(...))``)."""
    return bool(getattr(evaluator, "stops_early", False))
