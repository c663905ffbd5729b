"""A night's schedule with the gate's recommended change: ``tuner.planning.schedule`` searches the
starts; a job that breaches alone gets what ``quietload check`` would recommend for it alone
(``judging.advice``: candidates its own run's figures point to, each tried on the model on the
schedule's seeds, added while they help, every lever class allowed, judged on its neighbours' SLA
and its deadline only: the rules a schedule answers to)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from judging.advice import Change, tried_advice
from judging.gate import failed_rules, thresholds_of
from simulator.evaluator import Evaluator, model_evaluator
from tuner.planning.schedule import Progress, run_schedule
from workloads import Scenario
from workloads.scenario import with_file_values
from workloads.tuning import LEVERS

SCHEDULE_RULES = ("neighbour_sla", "load_deadline")


def job_change(evaluator: Evaluator, tried: Callable[[str], None]) -> Callable[[dict, list[int]], tuple[Change, ...]]:
    """The gate's passing set of changes for a job alone (its mapping, ``batch:`` one job), or ()."""
    def find(mapping: dict, seeds: list[int]) -> tuple[Change, ...]:
        def trial(changes: dict) -> list:
            changed = Scenario.from_mapping(with_file_values(mapping, changes))
            return [evaluator.evaluate(changed, seed) for seed in seeds]
        runs = trial({})
        thresholds = thresholds_of(runs[0].scenario)

        def judge(results: list) -> tuple[str, ...]:
            return tuple(rule for rule in failed_rules(results, thresholds) if rule in SCHEDULE_RULES)
        failed = set(judge(runs))
        if not failed:
            return ()
        return tried_advice(runs, runs[0], failed, trial, judge, thresholds.deadline, tried, LEVERS).changes
    return find


def schedule_night(scenario_file: str | Path, overrides: list[str] | None = None, window_s: float | None = None,
                   seed: int = 1, repeat: int = 3, trials: int = 12, changes: int = 32, workers: int | None = None,
                   progress: Progress | None = None, tried: Callable[[str], None] | None = None) -> tuple[dict, dict]:
    """``plan --schedule``: the night's schedule and its scenario (``tuner.planning.schedule.run_schedule``),
    a job that breaches alone changed as the gate recommends."""
    evaluator = model_evaluator()
    return run_schedule(scenario_file, overrides, window_s, seed, repeat, trials, changes, workers, progress, evaluator,
                        find_change=job_change(evaluator, tried or (lambda label: None)))
