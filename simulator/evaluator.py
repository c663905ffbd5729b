"""The Evaluator protocol: a scenario and a seed in, a RunResult out."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol

from simulator.contract import RunResult
from simulator.stopping import RunStopped, StopWhen
from workloads import Scenario

Progress = Callable[[float], None]


class Evaluator(Protocol):
    name: str

    def evaluate(self, scenario: Scenario, seed: int, progress: Progress | None = None) -> RunResult:
        """Run ``scenario``; ``progress`` receives the simulated seconds reached, now and then."""
        ...


__all__ = ["Evaluator", "Progress", "RunStopped", "StopWhen", "load_resolved", "model_evaluator", "stops_early"]


def model_evaluator() -> Evaluator:
    """The model's evaluator, the default wherever a scenario runs. Its module (and the codecs it
    measures rows with) loads here, on the first run, not when a command starts."""
    from simulator.model.model import ModelEvaluator
    return ModelEvaluator()


def load_resolved(path: Path, overrides: list[str] | None = None) -> dict:
    """A scenario file's mapping with its ``--set`` values, each SLA relative to a neighbour's p99 alone
    resolved once on the model (``simulator.model.alone``), which loads here when a scenario has one."""
    from simulator.model.alone import load_resolved as resolve
    return resolve(path, overrides)


def stops_early(evaluator: object) -> bool:
    """Whether ``evaluator`` can stop a run at its verdict (``evaluate(..., stop=StopWhen(...))``)."""
    return bool(getattr(evaluator, "stops_early", False))
