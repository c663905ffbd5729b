"""``quietload tune`` as one library call: scenario -> study -> recommendation and files."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from simulator.result import RunResult
from tuner.objective import Objective
from tuner.recommend import Recommendation, explain, missed_constraints, snippets, spread_lines, summary_figures
from tuner.space import search_space
from tuner.study import Progress, StudySettings, StudySummary, closest_miss, run_study
from workloads import Scenario, ScenarioError
from workloads.loader import load_mapping


@dataclass(frozen=True)
class TuneRequest:
    """What the user asked for; unset fields come from the scenario's ``tune:`` section or defaults."""

    scenario_file: Path
    overrides: tuple[str, ...] = ()
    trials: int | None = None
    workers: int = 1
    seed: int = 1
    storage: str | None = None
    study_name: str | None = None
    quotas: bool = False
    sampler: str = "tpe"
    out_dir: Path = Path("results")
    repeat: int | None = None      # model seeds per trial [default: the scenario's tune.repeat]


@dataclass(frozen=True)
class TuneOutcome:
    summary: StudySummary
    recommendation: Recommendation
    baseline: RunResult
    picked: RunResult
    paths: list[Path]


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name)


def settings_for(request: TuneRequest, scenario: Scenario) -> StudySettings:
    name = _file_name(scenario.name)
    if request.storage is None:
        request.out_dir.mkdir(parents=True, exist_ok=True)
    study = request.study_name or f"{scenario.name}{'-quotas' if request.quotas else ''}{'-random' if request.sampler == 'random' else ''}"
    return StudySettings(trials=request.trials or scenario.tune.trials, workers=request.workers, seed=request.seed,
                         storage=request.storage or f"sqlite:///{request.out_dir / f'{name}-study.db'}",
                         study_name=study, sampler=request.sampler, prefer=scenario.tune.prefer)


def tune(request: TuneRequest, progress: Progress | None = None) -> TuneOutcome:
    """Run (or resume) the study, pick from its feasible Pareto front, explain the pick against
    the scenario as it is, and write the study JSON, the recommendation, the tuned scenario and
    the snippets under ``out_dir``."""
    base = load_mapping(request.scenario_file, list(request.overrides))
    scenario = Scenario.from_mapping(base, source=str(request.scenario_file))
    objective = Objective(base, search_space(scenario, request.quotas), request.seed,
                          repeat=request.repeat or scenario.tune.repeat)
    summary = run_study(objective, settings_for(request, scenario), progress)
    chosen = summary.pick or closest_miss(summary.trials)
    if chosen is None:
        raise ScenarioError("tune", f"no trial of study {summary.name!r} completed ({summary.failed} failed)")
    baseline, picked = objective.run({}), objective.run(chosen.params)
    recommendation = Recommendation(
        scenario_name=_file_name(scenario.name), source=str(request.scenario_file), seed=request.seed,
        trial=chosen.number, feasible=chosen.feasible, params=chosen.params,
        overrides=list(request.overrides) + chosen.overrides, before=summary_figures(baseline),
        after=summary_figures(picked),
        explanation=explain(baseline, picked, scenario, chosen.params) + spread_lines(chosen.figures),
        snippets=snippets(chosen.params), missed=missed_constraints(chosen.constraints, chosen.figures),
        model_seeds=list(objective.seeds))
    study_file = request.out_dir / f"{recommendation.scenario_name}-study.json"
    paths = [summary.write_json(study_file, {"name": scenario.name, "source": str(request.scenario_file),
                                             "overrides": list(request.overrides)}, summary_figures(baseline))]
    paths += recommendation.write(request.out_dir, base)
    return TuneOutcome(summary, recommendation, baseline, picked, paths)
