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
