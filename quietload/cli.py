"""The `quietload` command line: parse, build value objects, call one library function, render."""
from __future__ import annotations

import copy
import dataclasses
import json
import math
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.main import get_command_name

import quietload
from quietload.coercion import PlainGroup, PlainTyper   # a command's plain values convert without pydantic
from quietload.cli_live import live
from quietload.cli_calibrate import calibrate, validate
from quietload.cli_plan import plan
from quietload.cli_policy import policy
from quietload.cli_stack import stack_app
from quietload.cli_tune import tune
from quietload.cli_import import import_
from quietload.extras import missing_extra
from quietload.paths import check_default_outputs, check_output_dir, check_output_file, is_stdout
from quietload.progress import simulation_progress
from quietload.stopping import exit_stopped, received, stop_exit_code, stop_line, stop_signals_interrupt
from quietload.terminal import echo, printable
from workloads.text import capped
from quietload.options import MarginOption, Overrides, PastLimits
from reports import DEFAULT_OUT_DIR
from reports.spread import render_spread
from reports.summary import render_summary
from simulator.evaluator import load_resolved, model_evaluator
from simulator.contract import ResultError, RunResult, result_path, scenario_stem
from workloads import Gate, Scenario, ScenarioError
from workloads.scenario import with_file_values
from workloads._fields import keys_of
from workloads.limits import check_run_size, estimate
from workloads.tuning import parse_levers

# What check, report and the live stack need loads when one of them runs, not with every command.
_GATE = Gate()   # the check: section's defaults, as the gate applies them

_HELP = (
    "quietload predicts what a Spark/Glue batch job that loads CSV files into Apache Kafka does "
    "to everybody else on a shared cluster, and which producer and Spark settings keep it quiet. "
    "It simulates the job's producers, the brokers' request handling and replication, and the "
    "latency-sensitive neighbour producers, and reports produce requests, batch sizes, broker "
    "idle time and each neighbour's p99 latency against its SLA before, during and after the load."
)


class _OneLineErrors(PlainGroup):
    """Every command's bad input (scenario, result file, file system) becomes one line
    ``error: ...`` on stderr and exit code 2, like a usage error, never a traceback."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return self._one_line_errors(ctx)
        except KeyboardInterrupt as stop:   # Ctrl-C, SIGTERM, SIGHUP: what ran below has ended or kept its work
            echo(stop_line(stop), err=True)
            raise typer.Exit(stop_exit_code()) from None
        except Exception as error:
            if received() is None or isinstance(error, typer.Exit):
                raise
            echo(stop_line(error), err=True)   # e.g. the pool a worker left, killed by the same signal first
            raise typer.Exit(stop_exit_code()) from None

    def _one_line_errors(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (ScenarioError, ResultError) as error:
            message = str(error)
        except ModuleNotFoundError as error:   # an optional part not installed (pyproject's extras)
            if (extra := missing_extra(error)) is None:
                raise
            message = extra
        except typer.TyperException as error:   # click's errors, under typer's public base class
            if not _usage_error(error):
                raise
            where = f"{ctx.command_path}: " if (ctx := getattr(error, "ctx", None)) else ""
            message = where + " ".join(error.format_message().split())
        except OSError as error:
            message = f"{error.filename}: {error.strerror}" if error.filename and error.strerror else str(error)
        except RecursionError:   # input nested past what the readers check: still one line, not a traceback
            message = "the input is nested too deeply to read"
        except MemoryError:
            message = "the input needs more memory than this machine has; see docs/scenarios.md: Limits"
        echo(f"error: {capped(printable(message, lines=False))}", err=True)      # one line, whatever the input held
        raise typer.Exit(2)


def _usage_error(error: typer.TyperException) -> bool:
    """A bad option or argument (click's usage errors, typer.BadParameter among them, end with exit code 2):
    the same one line as bad input. A command named without its arguments shows its help, as before (the
    error typer raises for it, told apart by its name as typer's own rich_utils does)."""
    return error.exit_code == 2 and type(error).__name__ != "NoArgsIsHelpError"


class _OnlyTheCommandNamed(PlainTyper):
    """A command line that names a command builds that command alone: typer reads every
    command's options from its function's signature when it builds one, a tenth of a
    command's start for all of them. The group's help, no command or a name that is none of
    them builds them all, as before (the same help, errors and suggestions)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        given = kwargs["args"] if "args" in kwargs else args[0] if args else None
        words = list(sys.argv[1:] if given is None else given)
        first = words[0] if words else None
        commands = [c for c in self.registered_commands
                    if (c.name or get_command_name(c.callback.__name__ if c.callback else "")) == first]
        groups = [g for g in self.registered_groups if g.name == first]
        if not commands and not groups:
            return super().__call__(*args, **kwargs)
        named = copy.copy(self)
        named.registered_commands, named.registered_groups = commands, groups
        return typer.Typer.__call__(named, *args, **kwargs)


# Click's plain help wraps every text to 80 columns; rich's tables cut option names and values short.
app = _OnlyTheCommandNamed(cls=_OneLineErrors, no_args_is_help=True, help=_HELP, rich_markup_mode=None)


def _print_version(given: bool) -> None:
    if given:
        typer.echo(quietload.__version__)
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                                   help="Print the quietload version and exit.")] = False) -> None:
    pass


@app.command()
def version() -> None:
    """Print the quietload version."""
    typer.echo(quietload.__version__)


def _finite(value: float | None) -> float | None:
    """NaN and infinities are no threshold (click's ranges let some through)."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"expected a finite number, got {value}")
    return value


def _run_model(scenario_file: Path, overrides: list[str] | None, seeds: range, force: bool = False,
               write_results: bool = False) -> list[RunResult]:
    """The scenario's RunResult for each seed from the model, with the progress line on stderr; with
    ``write_results``, the default result files (results/<scenario file>-...-seed<N>.json) checked first,
    as --json would be, and none of them another scenario's."""
    scenario = Scenario.from_mapping(load_resolved(scenario_file, overrides), source=str(scenario_file))
    check_run_size(scenario, runs=len(seeds), force=force)   # before a path per seed is named
    if write_results:
        given = list(overrides or [])
        check_default_outputs([result_path(scenario_stem(scenario_file), given, seed) for seed in seeds], "--json",
                              [("SCENARIO", scenario_file)], (scenario_file, given))
    evaluator, results = model_evaluator(), []
    for seed in seeds:
        with simulation_progress(scenario.name, estimate(scenario).seconds) as progress:
            results.append(dataclasses.replace(evaluator.evaluate(scenario, seed, progress=progress.update),
                                               overrides=list(overrides or [])))
            progress.finish(results[-1].summary.simulated_seconds)
    return results


def _settings(scenario: dict[str, Any]) -> dict[str, Any]:
    """A resolved scenario's job, cluster and neighbours without where a run placed its components
    (``hosts``, ``placement``: a live run's own) and without its SLAs' resolution (a live run resolves a
    relative SLA on its first run, the model on its own seeds)."""
    settings = {key: value for key, value in scenario.items() if key not in ("hosts", "placement")}
    settings["tenants"] = [{key: value for key, value in tenant.items() if key != "sla_p99"}
                           for tenant in scenario.get("tenants") or []]
    return settings


def _named_scenario(result: RunResult) -> tuple[Path | None, list[str]]:
    """The scenario file (and --set values) a result names, when it is here and still gives the result's
    job, cluster and neighbours; with the result's SLAs where it resolved them otherwise (a live run's)."""
    source = result.scenario.get("source")
    if not source or not Path(source).is_file():
        return None, []
    overrides = list(result.overrides or [])
    try:
        here = Scenario.from_mapping(load_resolved(Path(source), overrides), source=source).as_mapping()
    except ScenarioError:
        return None, []
    if _settings(here) != _settings(result.scenario):
        return None, []
    held = [f"tenants.{index}.sla_p99={tenant['sla_p99']}" for index, (tenant, ours)
            in enumerate(zip(result.scenario.get("tenants") or [], here.get("tenants") or []))
            if tenant.get("sla_p99") != ours.get("sla_p99")]
    return Path(source), overrides + held


def _model_trial(scenario_file: Path, overrides: list[str] | None, seeds: list[int]) -> Any:
    """The scenario with values set at their paths, run on ``seeds``: how check tries its advice."""
    evaluator, base = model_evaluator(), load_resolved(scenario_file, overrides)   # the SLAs the check judged by
    return lambda changes: [evaluator.evaluate(Scenario.from_mapping(with_file_values(base, changes),
                                                                     source=str(scenario_file)), seed)
                            for seed in seeds]


@app.command()
def simulate(
    scenario_file: Annotated[Path, typer.Argument(metavar="SCENARIO", help="Scenario YAML file.")],
    overrides: Overrides = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the run's jitter; same seed, same result.")] = 1,
    repeat: Annotated[int, typer.Option(min=1, help="Run seeds SEED..SEED+N-1 and show the spread of the figures.")] = 1,
    json_file: Annotated[Path | None, typer.Option("--json", metavar="FILE",
                                                   help="Where to write the RunResult (- for standard output; default: results/<scenario file>-<overrides>-seed<N>.json, never another scenario's).")] = None,
    force: PastLimits = False,
) -> None:
    """Run SCENARIO on the model; print a summary and write the full RunResult as JSON.

    Example: quietload simulate workloads/catalog/paypay-glue-2gb.yaml --set batch.producer.linger.ms=10
    """
    if json_file and repeat > 1:
        raise ScenarioError("--json", "names one result file; with --repeat each seed's goes to results/")
    check_output_file(json_file, "--json", stdout=True, inputs=[("SCENARIO", scenario_file)])
    results = _run_model(scenario_file, overrides, range(seed, seed + repeat), force, write_results=json_file is None)
    if is_stdout(json_file):   # the JSON alone on stdout, so that it pipes; the summary on stderr
        typer.echo(results[0].to_json(), nl=False)
        echo(render_summary(results[0]), err=True)
        return
    paths = [r.write(json_file or result_path(scenario_stem(scenario_file), r.overrides, r.seed)) for r in results]
    echo(render_summary(results[0]))
    if repeat > 1:
        echo("\n" + render_spread(results))
    echo("\nwrote " + ", ".join(str(p) for p in paths))


@app.command()
def check(
    scenario_file: Annotated[Path | None, typer.Argument(metavar="SCENARIO", help="Scenario YAML file to run on the model (or give --result).")] = None,
    overrides: Overrides = None,
    seed: Annotated[int | None, typer.Option(min=0, help="Seed of the run's jitter (default 1).")] = None,
    repeat: Annotated[int | None, typer.Option(min=1, help="Run N seeds (--seed onwards): a rule fails if it fails on any of them.")] = None,
    result_files: Annotated[list[Path] | None, typer.Option("--result", metavar="RUNRESULT.json",
                                                           help="Check this RunResult file (any evaluator's) instead of running SCENARIO; repeat it for several runs of one scenario, judged like --repeat.")] = None,
    junit_file: Annotated[Path | None, typer.Option("--junit", metavar="FILE", help="Also write the verdicts as JUnit XML.")] = None,
    json_file: Annotated[Path | None, typer.Option("--json", metavar="FILE", help="Also write the verdicts as JSON (- for standard output).")] = None,
    handler_idle_min: Annotated[float | None, typer.Option(min=0, max=100, callback=_finite, help=f"Least RequestHandlerAvgIdlePercent of each broker during the load (%) [default: the scenario's check.handler_idle_min, else {_GATE.handler_idle_min:g}].")] = None,
    cpu_max: Annotated[float | None, typer.Option(min=0, max=100, callback=_finite, help=f"Most CPU of each broker during the load (%) [default: check.cpu_max, else {_GATE.cpu_max:g}].")] = None,
    requests_per_broker_max: Annotated[float | None, typer.Option(min=0, callback=_finite, help=f"Most produce requests per second per broker during the load [default: check.requests_per_broker_max, else {_GATE.requests_per_broker_max:g}].")] = None,
    deadline: Annotated[str | None, typer.Option(metavar="DURATION", help="The load must finish within this, e.g. 10min.")] = None,
    levers: Annotated[str, typer.Option(metavar="CLASSES", help="Lever classes a recommended change may use: job, quota, cluster (as tune's --levers).")] = "job,quota",
    policy_file: Annotated[Path | None, typer.Option("--policy", metavar="FILE", help="Also hold every job to this policy (quietload policy writes one): its class's producer template and quota, one rule each.")] = None,
    margin: MarginOption = None,
    force: PastLimits = False,
) -> None:
    """Gate a batch job before it ships: neighbours' p99 within SLA, broker handler idle, broker CPU,
    produce requests per broker, load deadline. Exit 0 if every rule passes, 1 if one fails (with the
    recommended change), 2 for unusable input, 3 if there is nothing to judge (no neighbour measured
    during the load).

    Example: quietload check workloads/catalog/paypay-glue-2gb.yaml --junit check.xml
    """
    from judging.gate import check_runs, thresholds_of
    from reports.junit import write_junit
    from judging.policy_gate import with_policy
    from judging.margin import Margin
    from workloads.policy import Policy

    inputs = [("SCENARIO", scenario_file), *(("--result", path) for path in result_files or ())]
    check_output_file(junit_file, "--junit", inputs=inputs)
    check_output_file(json_file, "--json", stdout=True, inputs=inputs, outputs=[("--junit", junit_file)])
    policy = Policy.from_yaml(policy_file) if policy_file is not None else None   # refused before any run
    started = datetime.now(timezone.utc)   # the JUnit suite's timestamp and time
    given = {"handler_idle_min": handler_idle_min, "cpu_max": cpu_max,
             "requests_per_broker_max": requests_per_broker_max,
             "deadline": keys_of(Gate)["deadline"].metadata["parse"](deadline, "--deadline") if deadline is not None else None}
    if scenario_file is not None and not result_files:
        first = seed or 1
        results = _run_model(scenario_file, overrides, range(first, first + (repeat or 1)), force)
    elif result_files and scenario_file is None:
        if overrides or seed is not None or repeat is not None:
            raise ScenarioError("--result", "--set, --seed and --repeat change a scenario run; a result file is checked as it is")
        results = [RunResult.read(path) for path in result_files]
        for what, of in (("scenarios", lambda r: str(r.scenario.get("name"))), ("evaluators", lambda r: r.evaluator)):
            if len(found := sorted({of(r) for r in results})) > 1:
                raise ScenarioError("--result", f"the results are runs of different {what} ({', '.join(found)}); check one at a time")
    else:
        raise ScenarioError("SCENARIO", "give either a scenario file or --result RUNRESULT.json")
    # the scenario's own `check:` section, with the options given here laid over it
    thresholds = dataclasses.replace(thresholds_of(results[0].scenario),
                                     **{k: v for k, v in given.items() if v is not None})
    # the recommended change is run on the model first, on the same seeds, when there is a scenario to run
    # a result file's changes are tried on the scenario file it names, as that file is now, when it is here
    # and still describes the run: check SCENARIO and check --result of its run then recommend alike
    allowed = parse_levers(levers, "--levers")
    scenario_file, overrides = (scenario_file, overrides) if not result_files else _named_scenario(results[0])
    trial = _model_trial(scenario_file, overrides, [r.seed for r in results]) if scenario_file else None
    report = check_runs(results, thresholds, trial, lambda label: echo(f"check: trying {label} on the model", err=True),
                        allowed, Margin.of(results[0].scenario.get("profile"), margin))
    if policy is not None:
        report = with_policy(report, results[0].scenario, policy)
    if junit_file:
        write_junit(report, junit_file, started, (datetime.now(timezone.utc) - started).total_seconds())
    if is_stdout(json_file):   # the verdicts' JSON alone on stdout, the rendering on stderr
        typer.echo(json.dumps(report.to_dict(), indent=1))
    elif json_file:
        report.write_json(json_file)
    echo(report.render(), err=is_stdout(json_file))
    raise typer.Exit(report.exit_code)


@app.command()
def report(
    result_files: Annotated[list[Path], typer.Argument(metavar="RESULT.json...", help="RunResult files (any evaluator's), plan files (quietload plan), study files (quietload tune) and gate results (quietload check --json).")],
    out_dir: Annotated[Path, typer.Option("--out", metavar="DIR", help="Directory the report files go to.")] = DEFAULT_OUT_DIR,
) -> None:
    """Turn RunResult, plan, study and gate-result files into report.md, runs.csv, report.json and a
    self-contained report.html with plots (batch_sizes.csv with batch-size distributions, versus.csv
    with model and live runs of one scenario, plans.csv and trials.csv with plan and study files);
    reads the files only, never runs the simulator.

    Example: quietload report results/paypay-glue-2gb-seed1.json results/paypay-glue-2gb-fixed-seed1.json --out report
    """
    from reports.report import REPORT_FILES, report_files

    check_output_dir(out_dir, "--out", [("the report", path) for path in result_files], REPORT_FILES)
    # a report is made again from its files at any time: an earlier one in DIR is replaced, and said so
    earlier = [name for name in REPORT_FILES if (out_dir / name).is_file()]
    for path in report_files(result_files, out_dir):
        echo(f"wrote {path}")
    if earlier:
        echo(f"replaced the earlier report in {out_dir} (its {', '.join(earlier)}); --out DIR keeps reports apart")


app.command()(tune)
app.command()(plan)
app.command()(policy)
app.command()(live)
app.command()(calibrate)
app.command()(validate)
app.command("import")(import_)

app.add_typer(stack_app, name="stack")


def main() -> None:
    with stop_signals_interrupt():
        try:
            app()
        except SystemExit:
            if received() is not None:
                exit_stopped()
            raise
