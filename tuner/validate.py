"""Held-out seeds for the study's Pareto front: the pick must hold on seeds no trial ran.

The fewest requests within the SLA among many trials is also the luckiest timing: often a
setting that only just made it on the study's seeds. Before one is recommended, the front's
points, in the order the preference ranks them, run on further model seeds; the first that
meets its constraints on every one of them is the pick.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from tuner.objective import Objective
from tuner.study import TrialRecord, ranked

Progress = Callable[[str], None]   # one line per front point tried


@dataclass(frozen=True)
class Tried:
    """One front point on the held-out seeds: the seeds it missed its constraints on."""

    trial: int
    over_on: tuple[int, ...]
    produce_requests: int          # its worst seed's

    def to_dict(self) -> dict[str, Any]:
        return {"trial": self.trial, "over_on": list(self.over_on), "produce_requests": self.produce_requests}


@dataclass(frozen=True)
class Validation:
    seeds: tuple[int, ...]
    tried: list[Tried] = field(default_factory=list)
    pick: TrialRecord | None = None        # the first that held on every seed
    closest: TrialRecord | None = None     # with none: the one that missed on the fewest seeds

    @property
    def label(self) -> str:
        return f"held-out model seeds {self.seeds[0]}-{self.seeds[-1]}" if len(self.seeds) > 1 else f"held-out model seed {self.seeds[0]}"

    def to_dict(self) -> dict[str, Any]:
        chosen = self.pick or self.closest
        return {"seeds": list(self.seeds), "held": self.pick is not None, "pick": chosen.number if chosen else None,
                "tried": [t.to_dict() for t in self.tried]}

    def missed(self, trial: int) -> list[str]:
        """What ``trial`` missed on the held-out seeds, as the recommendation lists misses."""
        over = next((t.over_on for t in self.tried if t.trial == trial), ())
        return [f"over its constraints on {len(over)} of {len(self.seeds)} {self.label} ({', '.join(map(str, over))})"] if over else []

    def lines(self) -> list[str]:
        """The validation in words, for the recommendation."""
        missed = [f"trial {t.trial} ({t.produce_requests:,} requests) missed on seed{'s' if len(t.over_on) > 1 else ''} "
                  f"{', '.join(map(str, t.over_on))}" for t in self.tried if t.over_on]
        if self.pick is None:
            return [f"no point of the front held on {self.label}: " + "; ".join(missed)]
        before = f", after {'; '.join(missed)}" if missed else ""
        return [f"held its constraints on {self.label}{before}"]


def validate_front(objective: Objective, front: list[TrialRecord], prefer: str, seeds: tuple[int, ...],
                   progress: Progress | None = None) -> Validation:
    """Each front point in the preference's order on ``seeds``, until one holds on all of them."""
    tried: list[Tried] = []
    for trial in ranked(front, prefer):
        outcomes = [objective.evaluate_on(trial.params, (seed,)) for seed in seeds]
        over = tuple(seed for seed, outcome in zip(seeds, outcomes) if not outcome.feasible)
        tried.append(Tried(trial.number, over, max(outcome.produce_requests for outcome in outcomes)))
        if progress:
            progress(f"trial {trial.number} on {len(seeds)} held-out seeds: " +
                     (f"missed on {len(over)}" if over else "held"))
        if not over:
            return Validation(seeds, tried, pick=trial)
    fewest = min(range(len(tried)), key=lambda i: (len(tried[i].over_on), i), default=None)
    return Validation(seeds, tried, closest=ranked(front, prefer)[fewest] if fewest is not None else None)
