"""``quietload policy``: a policy for the scenario's batch jobs, proven on the model for its worst night."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quietload.judging import exit_without_neighbours
from quietload.options import MarginOption, MaxMinutes, Overrides, PastLimits, Prune, PruneFactor
from quietload.paths import check_output_dir, refuse_other_run
from quietload.progress import with_study_progress
from quietload.terminal import echo


def policy(
    scenario_file: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario YAML file: the cluster, its neighbours and the night's batch jobs.")],
    out_dir: Annotated[Path, typer.Option("--out", metavar="DIR", help="Where the policy, its quota commands and its proof go.")] = Path("results"),
    jobs_at_once: Annotated[int, typer.Option(min=1, help="The worst night: this many copies of every job of the scenario at once, each with a client.id of its own.")] = 1,
    overrides: Overrides = None,
    trials: Annotated[int | None, typer.Option(min=1, help="Completed trials of the search [default: the scenario's tune.trials, else 100].")] = None,
    repeat: Annotated[int | None, typer.Option(min=1, help="Model seeds per trial (--seed onwards), the worst counts [default: tune.repeat, else 1].")] = None,
    validate: Annotated[int | None, typer.Option(min=1, help="Held-out seeds the policy must hold on, after the trials' [default: tune.validate, else 20].")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the sampler and of every trial's first model run.")] = 1,
    force: PastLimits = False,
    prune: Prune = True,
    prune_factor: PruneFactor = 3.0,
    max_minutes: MaxMinutes = 60.0,
    margin: MarginOption = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Trials at once, each in its own process, at most 2 (the same study with any count) "
                    "[default: 1 for a scenario of one job at once, as tune runs it; else the usable cores]; "
                    "held-out runs use the usable cores.")] = None,
) -> None:
    """Derive a policy for the scenario's batch jobs: tune the worst night (--jobs-at-once copies of every
    job at once) as tune tunes a scenario, and state the region around its held pick per class of job
    (one per job of the scenario): the producer template (the least linger.ms, batch.size and acks, the
    codec, the most max.in.flight.requests.per.connection) and the quota per client.id
    (producer_byte_rate, request_percentage), proven on the model over held-out seeds. Writes the
    policy YAML (check --policy reads it), the kafka-configs.sh commands that set the quotas and the
    proof (quietload report renders it). Exit 0 if the policy held on every held-out seed, 1 if not
    (the closest is written, marked), 2 for unusable input, 3 if there is nothing to judge (no
    neighbours in the scenario: nothing is written).

    Example: quietload policy workloads/catalog/night-three-jobs.yaml --out policy/
    """
    from tuner.policy import PolicyRequest, derive, trial_workers, written_files
    from workloads import Scenario
    from workloads.limits import check_run_size, check_study_size
    scenario = Scenario.from_yaml(scenario_file, overrides)
    check_output_dir(out_dir, "--out", [("SCENARIO", scenario_file)], written_files(scenario.name))
    # a proof there of another scenario, other --set values or another worst night is refused, not replaced
    refuse_other_run(out_dir / next(n for n in written_files(scenario.name) if n.endswith("policy.json")), "--out",
                     scenario_file, list(overrides or []), "policy", {"jobs_at_once": jobs_at_once})
    check_run_size(scenario, runs=validate or scenario.tune.validate, runs_field="--validate", force=force)
    exit_without_neighbours(scenario, "a policy")
    check_study_size(scenario, trials or scenario.tune.trials, repeat or scenario.tune.repeat,
                     validate or scenario.tune.validate, trial_workers(workers, scenario, jobs_at_once), max_minutes,
                     copies=jobs_at_once)
    request = PolicyRequest(scenario_file, tuple(overrides or ()), jobs_at_once, trials, repeat, validate, seed, out_dir,
                            prune, prune_factor, margin, workers)
    label = f"policy for {scenario_file.stem}"
    outcome = with_study_progress(label, lambda *progress: derive(request, *progress))
    echo(outcome.render())
    echo("\n" + "\n".join(f"wrote {path}" for path in outcome.paths))
    raise typer.Exit(0 if outcome.held else 1)
