"""`quietload plan`: capacity planning over a grid of batch loads and cluster what-ifs."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quietload.paths import check_default_outputs, check_output_dir, check_output_file
from quietload.judging import exit_without_neighbours
from quietload.options import MaxMinutes, Overrides, PastLimits
from workloads import Scenario, ScenarioError
from quietload.terminal import echo

def plan(
    scenario_file: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario YAML file (its `plan:` section gives defaults).")],
    overrides: Overrides = None,
    loads: Annotated[str | None, typer.Option(metavar="N,...", help="Concurrent loads, each its own Spark job [default: the job's batch.loads and twice it].")] = None,
    jobs_at_once: Annotated[str | None, typer.Option(metavar="N,...", help="Jobs of one class at once, each its own job and client.id (and quota), in place of --loads: how many the cluster takes before the first breach, e.g. 1,2,4,8.")] = None,
    job: Annotated[str | None, typer.Option(metavar="NAME", help="A night's job whose capacity the plan counts [default: its first].")] = None,
    executors: Annotated[str | None, typer.Option(metavar="N,...", help="Executors of each load's job (its write cores, so its ingest rate: executors x spark.executor.cores) [default: the job's].")] = None,
    load_gb: Annotated[str | None, typer.Option(metavar="GB,...", help="GB of input files per load (the dataset's files scaled): a bigger load takes longer, not faster [default: the job's].")] = None,
    spacing: Annotated[str | None, typer.Option(metavar="DURATION,...", help="Time between load starts, e.g. 0,60s [default: the job's batch.spacing].")] = None,
    brokers: Annotated[str | None, typer.Option(metavar="N,...", help="What-if: broker counts, e.g. 4,6.")] = None,
    broker_types: Annotated[str | None, typer.Option("--broker-type", metavar="NAME,...", help="What-if: MSK broker types, e.g. kafka.m5.xlarge,express.m7g.large (see docs/planning.md).")] = None,
    profile: Annotated[str | None, typer.Option("--profile", hidden=True, help="Refused: see --broker-type.")] = None,
    replication_factor: Annotated[str | None, typer.Option(metavar="N,...", help="What-if: replication factor of every topic.")] = None,
    broker_down: Annotated[bool | None, typer.Option("--broker-down/--no-broker-down", help="What-if: one broker down for the whole run.")] = None,
    quota: Annotated[str | None, typer.Option(metavar="RATE,...", help="What-if: producer_byte_rate quota on the batch client, per broker, e.g. 20MB/s.")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of every point's run: same seed, same plan.")] = 1,
    repeat: Annotated[int | None, typer.Option(min=1, help="Run every point on N seeds (--seed onwards) and count it at its worst: its longest load, each neighbour's highest p99 [default: 1; a schedule's nights 3].")] = None,
    extend: Annotated[int, typer.Option(min=0, metavar="STEPS", help="Extend each option's points up to STEPS times until its first breach is bracketed: twice the concurrent loads while none breached, a slower job (half its executors, then cores) while none held (one run per option per step).")] = 3,
    refine: Annotated[int, typer.Option(min=0, metavar="STEPS", help="Bisect each option's capacity STEPS times between its last point within SLA and the next over it, in whole loads, executors or cores (one run per option per step).")] = 0,
    engine: Annotated[str, typer.Option(help="local (processes on this machine) or spark.")] = "local",
    workers: Annotated[int | None, typer.Option(min=1, help="Processes of the local engine, at least 1 [default: the CPU count].")] = None,
    master: Annotated[str, typer.Option(help="Spark master URL of the spark engine.")] = "local[*]",
    json_file: Annotated[Path | None, typer.Option("--json", metavar="FILE", help="Where to write the plan (default: results/<scenario file>[-<overrides>]-plan.json, never another scenario's); the points' CSV goes next to it.")] = None,
    keep_results: Annotated[Path | None, typer.Option(metavar="DIR", help="Also write every point's full RunResult into DIR.")] = None,
    force: PastLimits = False,
    schedule: Annotated[bool, typer.Option("--schedule", help="A night's jobs (`batch:` a list): the start times within --window that keep every neighbour within its SLA and end every job in the window and within check.deadline, or the smallest change that would (see docs/planning.md).")] = False,
    window: Annotated[str | None, typer.Option(metavar="DURATION", help="With --schedule: the window the jobs start and end in, from windows.before, e.g. 2h [default: the scenario's plan.window, else windows.max_duration less windows.before and windows.after].")] = None,
    trials: Annotated[int, typer.Option(min=1, help="With --schedule: schedules tried (the first: the jobs back to back).")] = 12,
    changes: Annotated[int, typer.Option(min=0, help="With --schedule: single changes tried at most when a job breaches alone.")] = 32,
    out: Annotated[Path | None, typer.Option(metavar="FILE", help="With --schedule: where to write the scenario with the chosen starts (default: results/<scenario>-schedule.yaml).")] = None,
    max_minutes: MaxMinutes = 60.0,
) -> None:
    """Capacity planning: how many concurrent loads, at what ingest rate (GB/hour), each cluster option
    absorbs with every neighbour within its SLA, the headroom of the job's current load, and what to try next.
    Exit 0, 2 for unusable input, 3 if there is nothing to judge (no neighbours in the scenario).

    Example: quietload plan workloads/catalog/paypay-glue-2gb-fixed.yaml --loads 1,2 --brokers 4,6 --broker-down --quota 20MB/s

    Example: quietload plan --schedule workloads/catalog/night-three-jobs.yaml --window 10min
    """
    given = {"load_gb": load_gb, "loads": loads, "executors": executors, "spacing": spacing, "brokers": brokers, "broker_types": broker_types,
             "replication_factor": replication_factor, "broker_down": broker_down, "quota": quota}
    if schedule:
        from quietload.cli_schedule import plan_schedule   # the night's schedule, its own options
        plan_schedule(scenario_file, overrides, given, window, seed, repeat, trials, changes, workers, json_file, out,
                      max_minutes)
        return
    if window is not None or out is not None:
        raise ScenarioError("--window" if window is not None else "--out", "only a schedule takes it: add --schedule")
    from quietload.progress import plan_progress   # the planner loads only when a plan runs
    from reports.sections.plan import render_plan_csv, render_plan_table
    from simulator.contract import scenario_stem
    from tuner.planning import current_load, plan_path, run_plan, write_plan
    if profile is not None:   # once plan's broker types; the name now belongs to the cost profile
        raise ScenarioError("--profile", "plan's broker types are --broker-type (e.g. kafka.m5.xlarge); "
                                         "the cost profile is the scenario's `profile` (--set profile=NAME)")
    if jobs_at_once is not None:
        if loads is not None:
            raise ScenarioError("--jobs-at-once", "counts jobs of their own where --loads counts one job's loads: give one of them")
        given["jobs_at_once"] = jobs_at_once
    csv_file = json_file.with_suffix(".csv") if json_file else None
    check_output_file(json_file, "--json", inputs=[("SCENARIO", scenario_file)], outputs=[("--json's CSV", csv_file)])
    check_output_file(csv_file, "--json", inputs=[("SCENARIO", scenario_file)])
    scenario = Scenario.from_yaml(scenario_file, overrides)
    default = plan_path(scenario_stem(scenario_file), overrides)
    if json_file is None:    # results/<scenario file>[-<overrides>]-plan.json and its CSV, as if --json had named them
        check_default_outputs([default], "--json", [("SCENARIO", scenario_file)], (scenario_file, list(overrides or [])), "plan")
        check_default_outputs([default.with_suffix(".csv")], "--json", [("SCENARIO", scenario_file)])
    check_output_dir(keep_results, "--keep-results")
    current_load(scenario)     # a job plan cannot size is unusable input (exit 2) before nothing to judge (exit 3)
    exit_without_neighbours(scenario, "a capacity plan")
    with plan_progress(scenario_file.stem) as progress:
        result = run_plan(scenario_file, overrides, given, seed, engine, workers, master, keep_results, progress.update,
                          repeat or 1, force, refine, extend_steps=extend, job=job, as_jobs=jobs_at_once is not None)
        progress.finish()
    path = write_plan(result, json_file or default)
    csv_path = path.with_suffix(".csv")
    csv_path.write_text(render_plan_csv([result]))
    echo(render_plan_table(result) + f"\n\nwrote {path}, {csv_path}")
