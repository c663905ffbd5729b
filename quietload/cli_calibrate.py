"""`quietload calibrate` and `quietload validate`: a cost profile fitted to live runs, and the model's
error on configurations the fit did not use."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quietload.extras import require
from quietload.paths import check_output_dir
from quietload.progress import say
from quietload.options import BootstrapServers, Metrics, Overrides, ReplaceProfile, RunDir
from quietload.terminal import echo

_Repeat = Annotated[int, typer.Option(min=1, help="Live runs of each configuration (seeds 1..N); figures are their medians.")]


def calibrate(
    name: Annotated[str, typer.Option("--name", metavar="NAME|PATH", help="The profile to write: a name (workloads/profiles/NAME.yaml) or a .yaml path.")] = "calibrated",
    base: Annotated[str, typer.Option("--base", metavar="PROFILE", help="The profile whose figures the design does not fit (kept, marked assumed).")] = "loopback",
    points: Annotated[list[str] | None, typer.Option("--point", metavar="NAME", help="Run only these design points (repeatable; default: all).")] = None,
    repeat: _Repeat = 3,
    force: ReplaceProfile = False,
    overrides: Overrides = None,
    bootstrap_servers: BootstrapServers = None,
    metrics: Metrics = None,
    results: Annotated[Path, typer.Option("--results", metavar="DIR", help="Where every run's RunResult goes.")] = Path("results/calibration"),
    refit: Annotated[Path | None, typer.Option("--from", metavar="DIR", help="Fit the earlier runs of the design in DIR (a --results directory) instead of running it.")] = None,
    run_dir: RunDir = Path(".quietload") / "calibrate",
) -> None:
    """Fit a cost profile to live runs: a small design of loads (one-record and full requests, one-record
    batches, wide rows, each codec) on the local stack or a staging cluster, each repeated; the brokers'
    handler-busy and CPU seconds against their requests, batches, records and bytes, by bounded least squares.

    Example: quietload calibrate --name this-machine --repeat 3
    """
    from tuner.calibration import CALIBRATION, calibrate as run, pick, profile_target, render_calibration
    from tuner.calibration.calibrate import fit_profile, runs_from_files
    from tuner.calibration.runs import live_evaluator, local_kafka_version, preflight

    target = profile_target(name, force)
    if refit:
        runs = runs_from_files(sorted(refit.glob("*.json")), pick(CALIBRATION, points, "--point"))
        echo(render_calibration(fit_profile(runs, base, target, local_kafka_version(say))))
        return
    check_output_dir(results, "--results")
    chosen = preflight(pick(CALIBRATION, points, "--point"), base, overrides, bootstrap_servers, metrics, True)
    require("live", "quietload calibrate")
    evaluator, version = live_evaluator(run_dir, bootstrap_servers, metrics, say)
    echo(render_calibration(run(evaluator, chosen, base, target, repeat, version, say, results)))


def validate(
    profile: Annotated[str, typer.Option("--profile", metavar="PROFILE", help="The profile the model runs with (e.g. a calibrated one).")] = "calibrated",
    configurations: Annotated[list[str] | None, typer.Option("--configuration", metavar="NAME", help="Run only these held-out configurations (repeatable; default: all).")] = None,
    repeat: _Repeat = 3,
    seeds: Annotated[int, typer.Option(min=1, help="Model seeds per configuration: the model's interval.")] = 5,
    overrides: Overrides = None,
    bootstrap_servers: BootstrapServers = None,
    metrics: Metrics = None,
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="Where fidelity.json/.md/.csv and every RunResult go.")] = Path("results/fidelity"),
    run_dir: RunDir = Path(".quietload") / "validate",
    history: Annotated[Path | None, typer.Option("--history", metavar="FILE", help="Instead: replay the past loads of a metrics history (written by quietload import) on the model, beside what was observed.")] = None,
    scenario_file: Annotated[Path | None, typer.Option("--scenario", metavar="FILE", help="With --history: the imported scenario.")] = None,
    last: Annotated[int | None, typer.Option("--last", min=1, help="With --history: only the last N past loads.")] = None,
) -> None:
    """Run held-out configurations (partitions, record size, codec, linger.ms 0/5/25, batch.size, repartition,
    keys, 3 brokers with acks=all, a 0.5-vCPU broker, a Spark micro-batch pipeline beside the load) live and on
    the model; print per configuration and figure the model's interval, the live median and spread, the error
    (a streaming neighbour's: its end-to-end latency), the summary errors, Spearman's rank correlations and the
    verdict of each target.

    Example: quietload validate --profile this-machine --repeat 3 --seeds 5
    (or, on your cluster's history: quietload validate --history mine.history.json --scenario mine.yaml)
    """
    if history is not None:
        from reports.fidelity import render_replay
        from tuner.calibration.replay import validate_history
        echo(render_replay(validate_history(history, scenario_file, seeds, say, last)))
        return
    from simulator.evaluator import model_evaluator
    from tuner.calibration import HELD_OUT, pick
    from tuner.calibration.runs import live_evaluator, preflight
    from reports.fidelity import render_validation, write_validation
    from tuner.fidelity import validate as run

    check_output_dir(out, "--out")
    chosen = preflight(pick(HELD_OUT, configurations, "--configuration"), profile, overrides, bootstrap_servers, metrics)
    require("live", "quietload validate")
    evaluator, _ = live_evaluator(run_dir, bootstrap_servers, metrics, say)
    validation = run(evaluator, model_evaluator(), chosen, profile, repeat, seeds, say, out)
    echo(render_validation(validation))
    for path in write_validation(validation, out):
        echo(f"wrote {path}")
