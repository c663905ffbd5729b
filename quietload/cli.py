"""The `quietload` command line: parse, build value objects, call one library function, render."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from quietload import __version__
from quietload.progress import SimulationProgress
from reports.summary import render_summary
from simulator.result import ResultError
from workloads import Scenario, ScenarioError

_HELP = (
    "quietload predicts what a Spark/Glue batch job that loads CSV files into Apache Kafka does "
    "to everybody else on a shared cluster, and which producer and Spark settings keep it quiet. "
    "It simulates the job's producers, the brokers' request handling and replication, and the "
    "latency-sensitive neighbour producers, and reports produce requests, batch sizes, broker "
    "idle time and each neighbour's p99 latency against its SLA before, during and after the load."
)


class _OneLineErrors(TyperGroup):
    """Every command's bad input (scenario, result file, file system) becomes one line
    ``error: ...`` on stderr and exit code 2, like a usage error, never a traceback."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (ScenarioError, ResultError) as error:
            message = str(error)
        except OSError as error:
            message = f"{error.filename}: {error.strerror}" if error.filename and error.strerror else str(error)
        typer.echo(f"error: {message}", err=True)
        raise typer.Exit(2)


app = typer.Typer(cls=_OneLineErrors, no_args_is_help=True, help=_HELP)


@app.callback()
def _root() -> None:
    # An explicit callback keeps Typer in multi-command mode even while only one
    # command exists (otherwise `quietload version` would not parse).
    pass


@app.command()
def version() -> None:
    """Print the quietload version."""
    typer.echo(__version__)


def _result_path(scenario_name: str, seed: int) -> Path:
    """``results/<scenario>-seed<N>.json``: results are files named after their parameters."""
    return Path("results") / f"{re.sub(r'[^A-Za-z0-9._-]+', '-', scenario_name)}-seed{seed}.json"


@app.command()
def simulate(
    scenario_file: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario YAML file.")],
    overrides: Annotated[list[str] | None, typer.Option("--set", metavar="KEY=VALUE",
                                                        help="Override a scenario key, e.g. batch.producer.linger.ms=10.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the run's jitter; same seed, same result.")] = 1,
    json_file: Annotated[Path | None, typer.Option("--json", metavar="FILE",
                                                   help="Where to write the RunResult (default: results/<scenario name>-seed<N>.json).")] = None,
) -> None:
    """Run SCENARIO on the model; print a summary and write the full RunResult as JSON.

    Example: quietload simulate workloads/catalog/paypay-glue-2gb.yaml --set batch.producer.linger.ms=10
    """
    from simulator.model.model import ModelEvaluator  # the codecs load only when a run needs them

    scenario = Scenario.from_yaml(scenario_file, overrides)
    with SimulationProgress(scenario.name) as progress:
        result = ModelEvaluator().evaluate(scenario, seed, progress=progress)
        progress.finish(result.summary["simulated_seconds"])
    path = result.write(json_file or _result_path(scenario.name, seed))
    typer.echo(render_summary(result))
    typer.echo(f"\nwrote {path}")


def main() -> None:
    app()
