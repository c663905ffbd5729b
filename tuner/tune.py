"""``quietload tune`` as one library call: scenario -> study -> recommendation and files."""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from simulator.contract import RunResult, file_part, scenario_path
from simulator.contract.explain import sla_sources
from judging.margin import Margin, tenants_of
from tuner.objective import Objective
from tuner.recommend import (Recommendation, explain, missed_constraints, rounded_pick, snippets, spread_lines,
                             summary_figures)
from tuner.runner import Execution, Runner, usable_cores
from tuner.space import search_space
from tuner.identity import scenario_digest, scenario_fields
from tuner.study import Progress, StudySettings, StudySummary, closest_miss, run_study, tuning_work
from tuner.held_out import SCREEN_SEEDS, SeedRuns, HeldOut, cheapest_hardware, screened, judge_held_out
from workloads import Scenario, ScenarioError
from simulator.evaluator import load_resolved
from workloads.tuning import DEFAULT_LEVERS
from tuner.widen import wider_lever
from tuner.within_policy import bounded, kept
from workloads.policy import Policy


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
    levers: tuple[str, ...] = DEFAULT_LEVERS   # the lever classes searched (workloads.tuning.LEVERS)
    sampler: str = "tpe"
    out_dir: Path = Path("results")
    repeat: int | None = None      # model seeds per trial [default: the scenario's tune.repeat]
    validate: int | None = None    # held-out seeds the pick must hold on [default: tune.validate]
    prune: bool = True             # stop each trial at its verdict (tuner.study.StudySettings)
    prune_factor: float = 3.0
    policy: Policy | None = None   # the cluster's policy: the search keeps inside the job's class (tuner.within_policy)
    margin: float | None = None    # the model's error as a factor on each SLA [default: the profile's] (judging.margin)


@dataclass(frozen=True)
class TuneOutcome:
    summary: StudySummary
    recommendation: Recommendation
    baseline: RunResult
    picked: RunResult
    paths: list[Path]


def written_files(scenario_name: str) -> list[str]:
    """The names of the files a tune of the scenario writes into its ``--out`` directory."""
    return [scenario_path(scenario_name, kind, Path()).name
            for kind in ("study.db", "study.json", *Recommendation.FILES)]


def searched(levers: tuple[str, ...], policy: Policy | None) -> dict[str, str]:
    """What a study searched besides its scenario, as its study file holds it: a tune of the same scenario
    with other levers or inside a policy is another study, whose files must not replace these."""
    return {"levers": ",".join(levers), "policy": policy.name if policy is not None else "none"}


def settings_for(request: TuneRequest, scenario: Scenario) -> StudySettings:
    if request.storage is None:
        request.out_dir.mkdir(parents=True, exist_ok=True)
    # by default each resolved scenario gets its own study, so a changed SLA or --set never resumes
    # trials judged on the old one; a named study refuses another scenario (tuner.study)
    digest = scenario_digest(scenario_fields(scenario))[:8]
    levers = "" if request.levers == DEFAULT_LEVERS else "-" + "-".join(request.levers)
    levers += f"-in-{request.policy.name}" if request.policy is not None else ""   # a narrower space: a study of its own
    study = request.study_name or (f"{scenario.name}-{digest}{levers}"
                                   f"{'-random' if request.sampler == 'random' else ''}")
    trials = request.trials or scenario.tune.trials
    # a worker past the trials would run none, one past the cores only waits: each is a process with a model's memory
    return StudySettings(trials=trials, workers=min(request.workers, trials, usable_cores()), seed=request.seed,
                         storage=request.storage or f"sqlite:///{scenario_path(scenario.name, 'study.db', request.out_dir)}",
                         study_name=study, sampler=request.sampler, prefer=scenario.tune.prefer,
                         prune=request.prune, prune_factor=request.prune_factor)


def validated(objective: Objective, judge: Objective, summary: StudySummary, count: int,
               progress_line: Callable[[str], None] | None, runs: Callable[[int, int], None] | None,
               seed_runs: SeedRuns, margin: Margin) -> tuple[StudySummary, HeldOut | None]:
    """The study with its pick replaced by the first feasible trial, judged at its worst on
    ``judge``'s seeds, that holds on ``count`` seeds after those (no pick when none holds)."""
    if not count or not summary.front:
        return summary, None
    candidates = (screened(judge, summary.trials, seed_runs, progress_line) if judge.seeds != objective.seeds
                  else summary.trials)
    first = judge.seeds[-1] + 1
    validation = judge_held_out(judge, [c for c in candidates if c.feasible], summary.settings.prefer,
                                tuple(range(first, first + count)), progress_line, runs, seed_runs, judge.added_vcpus,
                                margin)
    validation = dataclasses.replace(validation, screened_on=judge.seeds)
    if validation.pick is None and validation.closest is None:    # none stayed within them at its worst
        validation = dataclasses.replace(validation, closest=closest_miss(candidates))
    validation = cheapest_hardware(judge, validation, seed_runs, progress_line)
    return dataclasses.replace(summary, pick=validation.pick, validation=validation.to_dict()), validation


def tune(request: TuneRequest, progress: Progress | None = None,
         progress_line: Callable[[str], None] | None = None,
         validation_runs: Callable[[int, int], None] | None = None) -> TuneOutcome:
    """Run (or resume) the study, pick from its feasible Pareto front the first point that holds
    on held-out seeds, explain the pick against the scenario as it is, and write the study JSON,
    the recommendation, the tuned scenario and the snippets under ``out_dir``."""
    base = load_resolved(request.scenario_file, list(request.overrides))
    scenario = Scenario.from_mapping(base, source=str(request.scenario_file))
    space, inside = search_space(scenario, request.levers), []
    if request.policy is not None:
        space, inside = bounded(space, scenario, request.policy)
    objective = Objective(base, space, request.seed, repeat=request.repeat or scenario.tune.repeat)
    settings = settings_for(request, scenario)
    # one set of worker processes for the trials, the held-out seeds, the rounded pick and the runs before and after
    work = functools.partial(tuning_work, objective.on(None))
    with Runner(work, objective.evaluator, Execution(workers=settings.workers)) as runner:
        summary = run_study(objective, settings, progress, progress_line, runner)
        seed_runs = SeedRuns(objective, runner, settings.workers)
        seed_runs.submit({}, objective.seed)   # the baseline, while the front is validated
        count = scenario.tune.validate if request.validate is None else request.validate
        judge = objective.judged(SCREEN_SEEDS)
        margin = Margin.of(scenario.profile, request.margin)
        summary, validation = validated(objective, judge, summary, count, progress_line, validation_runs, seed_runs,
                                         margin)
        judge = judge if validation is not None else objective    # the seeds the pick was judged on
        chosen = summary.pick or (validation.closest if validation else None) or closest_miss(summary.trials) \
            or closest_miss(summary.pruned)   # all pruned: the one that missed by the least so far, marked
        if chosen is None:
            raise ScenarioError("tune", f"no trial of study {summary.name!r} completed ({summary.failed} failed)")
        held = validation is None or validation.pick is not None
        params, rounding = rounded_pick(judge, chosen, validation.seeds if validation and held else (), seed_runs)
        baseline, picked = seed_runs.result({}, objective.seed), seed_runs.result(params, objective.seed)
        feasible = chosen.feasible and held
        # what the printed (rounded) values miss, from the very runs the "why" quotes
        shown = seed_runs.outcome_on(params, judge.seeds)
        wider = "" if feasible else wider_lever(scenario, params, request.levers,
                                                lambda p: seed_runs.outcome_on(p, judge.seeds))
    recommendation = Recommendation(
        scenario_name=file_part(scenario.name), source=str(request.scenario_file), seed=request.seed,
        trial=chosen.number, feasible=feasible, params=params, wider=wider,
        overrides=list(request.overrides) + objective.space.overrides(params), given=list(request.overrides), before=summary_figures(baseline),
        after=summary_figures(picked),
        explanation=(explain(baseline, picked, scenario, params) + spread_lines(chosen.figures)
                     + (validation.lines() if validation else []) + rounding + inside
                     + (kept(picked.scenario, request.policy) if request.policy is not None else [])),
        snippets=snippets(params, scenario.batch.key, scenario),
        missed=missed_constraints(shown.constraints, shown.figures) + ([] if held else validation.missed(chosen.number)),
        model_seeds=list(judge.seeds), validation=validation.to_dict() if validation else None,
        sla_sources=sla_sources(base), marginal=margin.marginal(tenants_of(shown.figures)) if feasible else "")
    study_file = scenario_path(recommendation.scenario_name, "study.json", request.out_dir)
    paths = [summary.write_json(study_file, {"name": scenario.name, "source": str(request.scenario_file),
                                             "overrides": list(request.overrides),
                                             "digest": scenario_digest(scenario_fields(scenario)),
                                             **searched(request.levers, request.policy),
                                             "slas": sla_sources(base)},
                                summary_figures(baseline),
                                {"trial": recommendation.trial, "meets_constraints": recommendation.feasible,
                                 "params": params, "missed": recommendation.missed,
                                 "wider_lever": recommendation.wider or None})]
    paths += recommendation.write(request.out_dir, base)
    return TuneOutcome(summary, recommendation, baseline, picked, paths)
