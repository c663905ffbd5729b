"""Running a design's points, each repeated, with a line per run and an estimate of the time left.

A run that fails is tried once more (a fresh stack); a second failure is reported and the
design goes on without it. Bad input (the scenario, a missing Java, an unreachable cluster)
is not a failed run: it stops the design at once, as every later run would fail the same way.
"""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from simulator.evaluator import Evaluator
from simulator.live import StackError, resolve_jars
from simulator.live.jars import java_command
from simulator.contract import RunResult, result_path
from tuner.calibration.design import Point
from workloads import ScenarioError


@dataclass(frozen=True)
class PointRuns:
    """A point's runs that completed, and the ones that failed twice (seed, reason)."""

    point: Point
    results: list[RunResult]
    failed: list[tuple[int, str]] = field(default_factory=list)


def _clock(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def _is_bad_input(error: Exception) -> bool:
    text = str(error)
    return isinstance(error, ScenarioError) or (isinstance(error, StackError) and ("not found" in text or "answers" in text))


def run_points(points: tuple[Point, ...], profile: str, evaluator: Evaluator, repeat: int, say: Callable[[str], None],
               results_dir: Path | None = None, first_seed: int = 1) -> list[PointRuns]:
    """Every point ``repeat`` times on ``evaluator`` (seeds first_seed...), in point-major order;
    each RunResult is written to ``results_dir`` as it completes (<point>-<evaluator>-seed<N>.json)."""
    scenarios = [(point, point.scenario(profile)) for point in points]   # all settings checked before any run
    total, done, spent = len(points) * repeat, 0, 0.0
    out = []
    for point, scenario in scenarios:
        results, failed = [], []
        for seed in range(first_seed, first_seed + repeat):
            began = time.monotonic()
            result, reason = None, ""
            for attempt in (1, 2):
                try:
                    result = evaluator.evaluate(scenario, seed)
                    break
                except Exception as error:     # a failed run is retried once, then reported
                    if _is_bad_input(error):
                        raise
                    reason = str(error).splitlines()[0] if str(error) else type(error).__name__
                    say(f"  {point.name} seed {seed}: attempt {attempt} failed: {reason}")
            done += 1
            spent += time.monotonic() - began
            left = spent / done * (total - done)
            if result is None:
                failed.append((seed, reason))
                say(f"[{done}/{total}] {point.name} seed {seed}: FAILED twice ({reason}); ETA {_clock(left)}")
                continue
            results.append(result)
            if results_dir:
                result.write(result_path(point.name, [], seed, result.evaluator, results_dir))
            s = result.summary
            say(f"[{done}/{total}] {point.name} seed {seed}: {s.produce_requests:,} requests, "
                f"{s.records_per_request:.0f} records/request, load {s.load_seconds:.1f} s; ETA {_clock(left)}")
        out.append(PointRuns(point, results, failed))
    return out


def preflight(points: tuple[Point, ...], profile: str, overrides: list[str] | None, bootstrap_servers: str | None,
              metrics: list[str] | None, needs_broker_figures: bool = False) -> tuple[Point, ...]:
    """The points with ``overrides`` laid over each, every one checked before anything starts: the
    scenario reads, the CPU budgets fit this machine, Java is there for the local stack."""
    if metrics and not bootstrap_servers:
        raise ScenarioError("--metrics", "reads a staging cluster's brokers: give --bootstrap-servers too")
    if needs_broker_figures and bootstrap_servers and not metrics:
        raise ScenarioError("--metrics", "calibrating against --bootstrap-servers needs the brokers' own figures: "
                            "give each broker's Prometheus endpoint with --metrics URL")
    points = tuple(dataclasses.replace(p, overrides=(*p.overrides, *(overrides or ()))) for p in points)
    cores = len(os.sched_getaffinity(0))
    for point in points:
        scenario = point.scenario(profile)
        if bootstrap_servers is None and scenario.cluster.broker.vcpus > cores:
            raise ScenarioError("cluster.broker.vcpus", f"{point.name}: a budget of {scenario.cluster.broker.vcpus:g} "
                                f"vCPUs is above this machine's {cores} cores")
        if scenario.batch.spark.executor_cores > cores:
            raise ScenarioError("batch.spark.spark.executor.cores", f"{point.name}: {scenario.batch.spark.executor_cores} "
                                f"cores is above this machine's {cores}")
    if bootstrap_servers is None:
        java_command()      # no Java: one line now, not a failed run per point
    return points


def live_evaluator(run_dir: Path, bootstrap_servers: str | None, metrics: list[str] | None,
                   say: Callable[[str], None]) -> tuple[Evaluator, str]:
    """The live evaluator for the local stack (or the staging cluster), and the Kafka version it runs."""
    # the live stack's clients and sampler load only when a calibration runs live, not on the model
    from simulator.live.clients import security_from_environment
    from simulator.live.evaluator import LiveEvaluator

    options: dict[str, Any] = {"metrics_urls": metrics} if metrics else {}
    evaluator = LiveEvaluator(run_dir, bootstrap_servers, security_from_environment(), progress_line=say, **options)
    if bootstrap_servers:
        return evaluator, f"the cluster at {bootstrap_servers}"
    return evaluator, local_kafka_version(say)


def local_kafka_version(say: Callable[[str], None]) -> str:
    """The Kafka version the local stack runs (its jars, resolved once)."""
    return resolve_jars(say).version
