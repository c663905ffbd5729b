"""The one error a scenario can raise: it names the field and what is wrong with it."""
from __future__ import annotations


class ScenarioError(ValueError):
    """Unusable scenario input; ``str()`` is the one line shown to the user."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}" if field else problem)

    def __reduce__(self) -> tuple:
        # rebuilt from its two parts when a worker process hands it back (pickle would pass the one line)
        return (ScenarioError, (self.field, self.problem))
