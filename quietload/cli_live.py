"""`quietload live`: the scenario on real parts (Kafka brokers, LocalStack S3, Spark), one RunResult per run."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from quietload.extras import require
from quietload.paths import check_default_outputs, check_output_file, is_stdout
from quietload.progress import say
from quietload.options import BootstrapServers, Overrides, RunDir
from reports.spread import render_spread, write_spread
from reports.summary import render_summary
from simulator.contract import RunResult, result_path, scenario_stem, spread_path
from workloads import Scenario, ScenarioError
from quietload.terminal import echo


def live(
    scenario_file: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario YAML file.")],
    overrides: Overrides = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the neighbours' keys and payloads.")] = 1,
    repeat: Annotated[int, typer.Option(min=1, max=100, help="Run N times, at most 100 (seeds SEED..SEED+N-1, a fresh stack of a minute or more each) and show the spread.")] = 1,
    json_file: Annotated[Path | None, typer.Option("--json", metavar="FILE",
                                                   help="Where to write the RunResult (- for standard output; default: results/<scenario>-live-<overrides>-seed<N>.json).")] = None,
    bootstrap_servers: BootstrapServers = None,
    kill_broker: Annotated[int | None, typer.Option("--kill-broker", metavar="ID",
                                                    help="Kill this local broker (SIGKILL) once 30 % of the rows are written; the result marks the fault.")] = None,
    run_dir: RunDir = Path(".quietload") / "live",
    pin: Annotated[bool, typer.Option(help="Hold each broker, the Spark job and the neighbours to their CPU budgets (cgroup quotas as root, else pinning to cores).")] = True,
) -> None:
    """Run SCENARIO on real parts: Kafka brokers, the dataset in LocalStack S3, the Glue-style Spark
    job and the neighbour producers; every row is read back and checked. Exit 1 if a row was lost
    or duplicated, 2 for unusable input.

    Example: quietload live workloads/catalog/paypay-glue-2gb.yaml --set dataset.files.0.size=40MB --set batch.spark.spark.executor.instances=1 --set batch.spark.spark.executor.cores=1 --repeat 3
    """
    require("live", "quietload live")
    from simulator.live.clients import security_from_environment
    from simulator.live.alone import held_to_first_run
    from simulator.live.evaluator import LiveEvaluator

    if json_file and repeat > 1:
        raise ScenarioError("--json", "names one result file; with --repeat each run's goes to results/")
    check_output_file(json_file, "--json", stdout=True, inputs=[("SCENARIO", scenario_file)])
    scenario = Scenario.from_yaml(scenario_file, overrides)
    stem, given = scenario_stem(scenario_file), list(overrides or [])
    if json_file is None:
        runs = [result_path(stem, given, s, "live") for s in range(seed, seed + repeat)]
        spread = [spread_path(stem, given, seed, seed + repeat - 1, "live")] if repeat > 1 else []
        check_default_outputs(runs, "--json", [("SCENARIO", scenario_file)], (scenario_file, given))
        check_default_outputs(spread, "--json", [("SCENARIO", scenario_file)])
    evaluator = LiveEvaluator(run_dir, bootstrap_servers, security_from_environment(), kill_broker, say, pin)
    evaluator.budgets(scenario)     # one the machine cannot give fails before any run
    results: list[RunResult] = []
    paths: list[Path] = []
    for run_seed in range(seed, seed + repeat):
        say(f"live run {run_seed - seed + 1} of {repeat}: {scenario.name}")
        results.append(dataclasses.replace(evaluator.evaluate(scenario, run_seed), overrides=list(overrides or [])))
        if run_seed == seed:   # one SLA for every run: a relative one resolved from the first run's p99 before the load
            scenario, results[-1] = held_to_first_run(scenario, results[-1])
        if is_stdout(json_file):   # the JSON alone on stdout, so that it pipes; the summary on stderr
            typer.echo(results[-1].to_json(), nl=False)
        else:
            paths.append(path := results[-1].write(json_file or result_path(stem, results[-1].overrides, run_seed, "live")))
            say(f"wrote {path}")
    echo(render_summary(results[-1]), err=is_stdout(json_file))
    if repeat > 1:
        echo("\n" + render_spread(results))
        spread_file = spread_path(stem, results[-1].overrides, seed, seed + repeat - 1, "live")
        say(f"wrote {write_spread(results, paths, spread_file)}")
    lost = [r.seed for r in results if not r.summary.integrity_ok]
    if lost:
        echo(f"\nINTEGRITY FAILED in run(s) with seed {', '.join(map(str, lost))}: rows lost or duplicated", err=True)
        raise typer.Exit(1)
