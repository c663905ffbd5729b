"""``quietload tune``: an Optuna study over the batch job's knobs, and its recommendation."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quietload.paths import check_output_dir, refuse_other_run
from quietload.progress import with_study_progress
from quietload.options import MarginOption, MaxMinutes, Overrides, PastLimits, Prune, PruneFactor
from quietload.terminal import echo


def tune(
    scenario_file: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario YAML file.")],
    overrides: Overrides = None,
    trials: Annotated[int | None, typer.Option(min=1, help="Completed trials the study should reach [default: the scenario's tune.trials, else 100].")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Processes for the trials (at most 2 at once; the same study "
                                                                     "with any count) and the held-out runs.")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the sampler and of every trial's (first) model run.")] = 1,
    repeat: Annotated[int | None, typer.Option(min=1, help="Run each trial on N model seeds (--seed onwards) and count its worst [default: the scenario's tune.repeat, else 1].")] = None,
    validate: Annotated[int | None, typer.Option(min=0, help="Before picking, run the Pareto front's points, in the preference's order, on N seeds the study never ran, and pick the first that meets the constraints on all of them; 0 skips it [default: the scenario's tune.validate, else 20].")] = None,
    storage: Annotated[str | None, typer.Option(metavar="URL", help="Optuna storage: an RDB URL (sqlite:///FILE, postgresql://...) [default: sqlite:///results/<scenario>-study.db].")] = None,
    study_name: Annotated[str | None, typer.Option(help="Study to create or resume [default: the scenario name].")] = None,
    levers: Annotated[str, typer.Option(metavar="CLASSES", help="Lever classes to search, comma-separated: job (the job's own settings), quota (the cluster owner's quota for the job), cluster (num.replica.fetchers, num.io.threads, num.network.threads, brokers).")] = "job,quota",
    sampler: Annotated[str, typer.Option(help="tpe (Optuna's TPE) or random (random search, for comparison).")] = "tpe",
    out_dir: Annotated[Path, typer.Option("--out", metavar="DIR", help="Where the study, recommendation and snippets go.")] = Path("results"),
    force: PastLimits = False,
    prune: Prune = True,
    prune_factor: PruneFactor = 3.0,
    max_minutes: MaxMinutes = 60.0,
    margin: MarginOption = None,
    policy_file: Annotated[Path | None, typer.Option("--policy", metavar="FILE", help="Search inside this policy (quietload policy writes one): the job's class bounds the knobs (its floors, ceilings, codecs and quota), so the pick passes check --policy.")] = None,
) -> None:
    """Search the levers allowed (the job's repartition, compression.type, acks with enable.idempotence,
    linger.ms, batch.size, buffer.memory, max.in.flight.requests.per.connection; its client quota;
    with --levers cluster the brokers' thread pools and count) for the fewest produce requests and the
    shortest load with every neighbour's p99 within its SLA (and the load within check.deadline).
    Writes the study JSON, a recommendation YAML, a tuned scenario and snippets. Exit 0 with a
    recommendation, 1 if no trial met the constraints (the closest is written, with the cheapest
    lever of a wider class that makes it pass), 2 for unusable input.

    With --policy, the search keeps inside the cluster's policy for the job's class.

    Example: quietload tune workloads/catalog/paypay-glue-2gb.yaml --trials 100 --workers 2
    """
    from tuner import TuneRequest, run_tune
    from tuner.tune import searched, written_files
    from workloads import Scenario, ScenarioError
    from workloads.limits import check_run_size, check_study_size
    from tuner.runner import usable_cores
    from workloads.policy import Policy
    from workloads.tuning import parse_levers
    if sampler not in ("tpe", "random"):
        raise ScenarioError("--sampler", f"expected tpe or random, got {sampler!r}")
    scenario = Scenario.from_yaml(scenario_file, overrides)
    policy = Policy.from_yaml(policy_file) if policy_file is not None else None   # refused before any run
    check_output_dir(out_dir, "--out", [("SCENARIO", scenario_file)], written_files(scenario.name))
    allowed = parse_levers(levers, "--levers")
    # a study file there of another scenario, other --set values, levers or policy is refused, not replaced
    refuse_other_run(out_dir / written_files(scenario.name)[1], "--out", scenario_file, list(overrides or []),
                     "study", searched(allowed, policy))
    # the scenario as given, on each trial's and each validation's seeds; the knobs move it little
    check_run_size(scenario, runs=repeat or scenario.tune.repeat, runs_field="--repeat" if repeat else "tune.repeat", force=force)
    check_run_size(scenario, runs=scenario.tune.validate if validate is None else validate,
                   runs_field="--validate" if validate is not None else "tune.validate", force=force)
    runs = repeat or scenario.tune.repeat
    check_study_size(scenario, trials or scenario.tune.trials, runs, scenario.tune.validate if validate is None else validate,
                     min(workers, trials or scenario.tune.trials, usable_cores()), max_minutes)
    request = TuneRequest(scenario_file, tuple(overrides or ()), trials, workers, seed, storage, study_name,
                          allowed, sampler, out_dir, repeat, validate,
                          prune, prune_factor, policy, margin)
    label = f"tuning {scenario_file.stem}"
    outcome = with_study_progress(label, lambda *progress: run_tune(request, *progress))
    echo(outcome.recommendation.render())
    echo("\n" + "\n".join(f"wrote {path}" for path in outcome.paths))
    raise typer.Exit(0 if outcome.recommendation.feasible else 1)
