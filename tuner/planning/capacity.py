"""Capacity planning: how much batch ingest each cluster option absorbs with every neighbour within SLA.

The grid sweeps the batch load in the units an operator decides in: ``loads`` (``batch.loads``:
concurrent loads, each its own Spark job with its own executors) and ``executors``
(``spark.executor.instances`` of each job: its write cores, and so its ingest rate), with
``spacing`` (``batch.spacing``: seconds between load starts) and ``load_gb`` (GB of input files
per load, the dataset's file sizes scaled in proportion: a bigger file takes longer, not faster).
Every grid point runs on every cluster option (``tuner.planning.whatif``) with the same seed, and
``tuner.planning.search`` extends the grid until each option's first breach is bracketed.

A point's ingest (GB/hour) is the GB it loads, ``load_gb x loads``, over the time the cluster
takes them in, ``load_seconds`` (first load's start to last load's end), times 3600: the rate
of batch data the cluster absorbs while the loads run. A point is within SLA when every
neighbour's p99 during the load is at most its ``sla_p99``; run on several seeds, a point
counts at its worst: its longest load, each neighbour's highest p99. An option's capacity is
the largest ingest among its points within SLA; its headroom is that capacity over the ingest
of the scenario's own load (its files, ``batch.loads`` and ``batch.spacing``) on the current
cluster.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from simulator.contract.judgement import over_sla, worst_p99
from simulator.contract import result_path, scenario_path, scenario_stem
from simulator.contract.files import PLAN
from simulator.evaluator import Evaluator, model_evaluator
from tuner.planning.jobs import CopiedJob, at_once, one_job
from tuner.planning.search import LoadPoint, extend, point_of, refine
from tuner.planning.whatif import ClusterOption, cluster_options
from tuner.runner import Execution, Runner, simulated
from workloads import Scenario, ScenarioError
from workloads.limits import check_run_size
from workloads.reader import safe_yaml
from simulator.contract.explain import sla_sources
from simulator.evaluator import load_resolved
from workloads.scenario import Plan
from workloads.batch import first_job

GIB = 1024**3
DEFAULT_EXTEND = 3                        # rounds of extension past the grid (doublings of the loads)

Progress = Callable[[int, int, "str | None"], None]     # (points done, points in all, the runs' simulated time)


@dataclass(frozen=True)
class Grid:
    load_gb: tuple[float, ...]
    loads: tuple[int, ...]
    spacing_s: tuple[float, ...]
    executors: tuple[int, ...]
    cores: int                             # spark.executor.cores, the job's own

    @classmethod
    def of(cls, plan: Plan, current: LoadPoint) -> "Grid":
        """The plan's axes; an axis it leaves empty is the job's own (its concurrent loads and twice them)."""
        return cls(plan.load_gb or (current.load_gb,), plan.loads or (current.loads, 2 * current.loads),
                   plan.spacing or (current.spacing_s,), plan.executors or (current.executors,), current.cores)

    def points(self) -> list[LoadPoint]:
        return [LoadPoint(gb, loads, spacing, executors, self.cores) for gb, loads, spacing, executors
                in itertools.product(self.load_gb, self.loads, self.spacing_s, self.executors)]

    def to_dict(self) -> dict:
        return {"load_gb": list(self.load_gb), "loads": list(self.loads), "spacing_s": list(self.spacing_s),
                "executors": list(self.executors), "cores": self.cores}


def current_load(scenario: Scenario) -> LoadPoint:
    spark = scenario.batch.spark
    if spark is None:
        raise ScenarioError("batch.kind", "plan sizes a Spark job's files and executors; a producer job's load is "
                                          "its records: simulate it with --set batch.records=N or batch.producers=N")
    return LoadPoint(sum(scenario.dataset.file_sizes) / GIB, scenario.batch.loads, scenario.batch.spacing,
                     spark.executors, spark.executor_cores)


def ingest_gb_per_hour(point: LoadPoint, load_seconds: float) -> float:
    return point.load_gb * point.loads * 3600.0 / load_seconds if load_seconds > 0 else 0.0


def sized(mapping: dict, scenario: Scenario, point: LoadPoint, jobs: CopiedJob | None = None) -> dict:
    """``mapping`` loading ``point``: every file group's size scaled by one factor, so the dataset
    keeps its shape (file count, relative sizes) and totals ``load_gb``; counting ``jobs``, its
    ``loads`` are that many jobs of their own (``tuner.planning.jobs``)."""
    factor = point.load_gb * GIB / sum(scenario.dataset.file_sizes)
    changed = copy.deepcopy(mapping)
    changed["dataset"]["files"] = [{"size": max(1, round(g.size * factor)), "count": g.count} for g in scenario.dataset.files]
    job = first_job(changed)   # the night's first job, or the one job
    job["loads"] = point.loads
    job["spacing"] = f"{point.spacing_s!r}s"
    spark = job.setdefault("spark", {})
    spark["spark.executor.instances"], spark["spark.executor.cores"] = point.executors, point.cores
    if spark.get("vcpus") is not None:   # an executor's host has at least its cores
        spark["vcpus"] = max(int(spark["vcpus"]), point.cores)
    return at_once(changed, jobs, point.loads, scenario.load_start, point.spacing_s) if jobs else changed


def parse_plan_options(given: dict[str, Any]) -> dict[str, Any]:
    """Command-line what-ifs and axes (``{"brokers": "4,6"}``) parsed like the ``plan:`` section's
    lists; an error names the option (``--brokers``)."""
    fields = {f.name: f for f in dataclasses.fields(Plan)}
    parsed = {}
    for name, text in given.items():
        flag = "--broker-type" if name == "broker_types" else "--" + name.replace("_", "-")
        if text is None:
            continue
        if isinstance(text, bool):
            parsed[name] = text
            continue
        values = safe_yaml(f"[{text}]", flag, f"the list {text!r}")
        field = "loads" if name == "jobs_at_once" else name   # jobs at once count on the loads axis
        parsed[field] = fields[field].metadata["parse"](values, flag)
    return parsed


@dataclass(frozen=True)
class Kept:
    """Where a plan's points' RunResults go (``--keep-results DIR``), each named after the plan's scenario
    file and ``--set`` values, the cluster option and the point: two plans in one directory never collide."""

    directory: str
    scenario_stem: str
    overrides: tuple[str, ...]

    @classmethod
    def of(cls, keep_dir: str | Path | None, scenario_file: str | Path, overrides: Sequence[str]) -> "Kept | None":
        return cls(str(keep_dir), scenario_stem(scenario_file), tuple(overrides)) if keep_dir else None

    def path(self, option: str, point: LoadPoint, seed: int) -> Path:
        """``<dir>/<scenario file>-<option>-<load>gb-x<loads>-<spacing>s[-<overrides>]-seed<N>.json``."""
        return result_path(f"{self.scenario_stem}-{option}", list(self.overrides), seed,
                           f"{point.load_gb:g}gb-x{point.loads}-{point.spacing_s:g}s", Path(self.directory))


def build_tasks(scenario_file: str | Path, overrides: list[str], given: dict[str, Any], seeds: Sequence[int],
                keep_dir: str | Path | None = None, force: bool = False, job: str | None = None,
                as_jobs: bool = False) -> tuple[Scenario, Grid, list[ClusterOption], list[dict], CopiedJob | None]:
    """The scenario, the grid, the cluster options, one task per (option, point) and the job copied
    counted (``as_jobs``); every task's scenario is built here once, so bad input (or a point past
    the model's limits, unless ``force``) stops the plan before any run. A night's plan is one
    job's (``job``, default the first)."""
    mapping, jobs = one_job(load_resolved(scenario_file, overrides), job, as_jobs)
    scenario = Scenario.from_mapping(mapping, source=str(scenario_file))
    plan = dataclasses.replace(scenario.plan, **parse_plan_options(given))
    current = current_load(scenario)
    grid = Grid.of(plan, current)
    points = grid.points() + ([] if current in grid.points() else [current])
    options = cluster_options(mapping, plan)
    tasks = []
    for option, point in itertools.product(options, points):
        # checked before make_task lists the seeds; with or without --force, bad input stops here
        hint = f"at the plan's point {option.name}, {point.load_gb:g} GB x {point.loads}; --force runs it anyway"
        try:
            if jobs:   # sized first as as many loads of the one job: N jobs of a million would take long to build
                check_run_size(Scenario.from_mapping(sized(option.mapping, scenario, point, None)), hint, len(seeds), force=force)
            point_scenario = Scenario.from_mapping(sized(option.mapping, scenario, point, jobs))
            check_run_size(point_scenario, hint, runs=len(seeds), force=force)
        except ScenarioError as refused:     # the load's size and count named as the plan's options set them
            field = {"batch.loads": "--jobs-at-once" if jobs else "--loads", "dataset.files": "--load-gb",
                     "batch.spacing": "--spacing"}.get(refused.field, refused.field)
            raise ScenarioError(field, refused.problem.replace(f"{refused.field} of at most", f"{field} of at most")) from None
        tasks.append(make_task(option, scenario, point, seeds, Kept.of(keep_dir, scenario_file, overrides),
                               point == current, jobs))
    return scenario, grid, options, tasks, jobs


def make_task(option: ClusterOption, scenario: Scenario, point: LoadPoint, seeds: Sequence[int],
              kept: Kept | None, current: bool = False, jobs: CopiedJob | None = None) -> dict:
    return {"option": option.name, **dataclasses.asdict(point), "current_plan": current, "seeds": list(seeds),
            "scenario": sized(option.mapping, scenario, point, jobs), "kept": kept,
            "jobs_at_once": jobs is not None}


def _round(value: Any) -> Any:
    return float(f"{value:.6g}") if isinstance(value, float) else value


def evaluate_point(evaluator: Evaluator, task: dict) -> dict:
    """Run one task on ``evaluator``, once per seed; the figures the plan keeps of it, each at its
    worst over the seeds (the runner's work: a module-level function, so process pools and
    Spark's Python workers can run it). A seed over a neighbour's SLA settles the point's verdict:
    the seeds after it are not run (``seeds_run`` says how many were)."""
    scenario = Scenario.from_mapping(task["scenario"])
    point = point_of(task)
    summaries = []
    for seed in task["seeds"]:
        result = evaluator.evaluate(scenario, seed, simulated)
        if task.get("kept"):
            result.write(task["kept"].path(task["option"], point, seed))
        summaries.append(result.summary)
        if any(over_sla(t.p99_ms_during, t.sla_p99_ms) for t in result.summary.tenants):
            break
    load_seconds = max(summary.load_seconds for summary in summaries)
    worst = [dataclasses.replace(t, p99_ms_during=worst_p99(s.tenants[i].p99_ms_during for s in summaries)).as_row()
             for i, t in enumerate(summaries[0].tenants)]
    tenants = [{key: _round(value) for key, value in row.items()} for row in worst]
    return {"option": task["option"], **{k: _round(v) for k, v in dataclasses.asdict(point).items()},
            "write_cores": point.write_cores * point.loads, "current_plan": task["current_plan"],
            **({"jobs_at_once": True} if task.get("jobs_at_once") else {}),
            "ingest_gb_per_hour": _round(ingest_gb_per_hour(point, load_seconds)),
            "produce_requests": max(summary.produce_requests for summary in summaries), "load_seconds": _round(load_seconds),
            "tenants": tenants, "feasible": all(within_sla(t) for t in tenants),
            **({"seeds_run": len(summaries)} if len(summaries) < len(task["seeds"]) else {})}


def within_sla(tenant: dict) -> bool:
    """A neighbour that sent nothing during the load (no p99) did not breach."""
    return not over_sla(tenant["p99_ms_during"], tenant["sla_p99_ms"])


def _worst(tenants: list[dict]) -> dict | None:
    over = [t for t in tenants if not within_sla(t)]
    return max(over, key=lambda t: t["p99_ms_during"] / t["sla_p99_ms"]) if over else None


def option_verdict(option: ClusterOption, points: list[dict], current_ingest: float, bound: str | None = None) -> dict:
    """An option's capacity (largest ingest within SLA), the point it is reached at, the first
    breach (the point of least ingest over SLA and its worst neighbour) and the headroom."""
    within = [p for p in points if p["feasible"]]
    best = max(within, key=lambda p: p["ingest_gb_per_hour"]) if within else None
    over = [p for p in points if not p["feasible"]]
    first = min(over, key=lambda p: p["ingest_gb_per_hour"]) if over else None
    capacity = best["ingest_gb_per_hour"] if best else None
    where = ("load_gb", "loads", "spacing_s", "executors", "cores")
    if any(p.get("jobs_at_once") for p in points):   # counted in jobs at once: each job's ingest with them
        where += ("jobs_at_once", "ingest_gb_per_hour")
    breach = None
    if first:
        tenant = _worst(first["tenants"])
        breach = {"tenant": tenant["name"], "p99_ms_during": tenant["p99_ms_during"], "sla_p99_ms": tenant["sla_p99_ms"],
                  "ingest_gb_per_hour": first["ingest_gb_per_hour"], **{k: first[k] for k in where}}
    mine = next((p for p in points if p["current_plan"]), None)
    tried = [p["ingest_gb_per_hour"] for p in points]
    # no point within SLA: the capacity lies below the smallest point tried, not at zero (headroom None);
    # no point over it: at or beyond the largest point tried (the headroom a lower bound)
    return {"name": option.name, "changes": option.changes, "max_ingest_gb_per_hour": capacity,
            "max_point": {k: best[k] for k in where} if best else None, "first_breach": breach,
            "headroom": _round(capacity / current_ingest) if current_ingest and capacity is not None else None,
            "headroom_at_least": breach is None and capacity is not None,
            "ingest_tried_gb_per_hour": [min(tried), max(tried)] if tried else None,
            "bound": bound, "current_plan_feasible": mine["feasible"] if mine else None,
            **({"caveat": option.caveat} if option.caveat else {})}


def run_plan(scenario_file: str | Path, overrides: list[str] | None = None, given: dict[str, Any] | None = None,
             seed: int = 1, engine: str = "local", workers: int | None = None, master: str = "local[*]",
             keep_dir: str | Path | None = None, progress: Progress | None = None, repeat: int = 1,
             force: bool = False, refine_steps: int = 0, evaluator: Evaluator | None = None,
             extend_steps: int = DEFAULT_EXTEND, job: str | None = None, as_jobs: bool = False) -> dict:
    """The plan of ``scenario_file``: every (cluster option, load point) on ``evaluator`` [default:
    the model] (on ``repeat`` seeds from ``seed``), up to ``extend_steps`` rounds extending each
    option's points until its first breach is bracketed, ``refine_steps`` bisections of each
    option's bracket, and each option's verdict. The same plan whatever the engine and the worker count.
    ``as_jobs``: the ``loads`` are jobs at once, each its own (``tuner.planning.jobs``), of ``job``'s class."""
    execution = Execution(engine, workers, master).checked()
    if repeat < 1:
        raise ScenarioError("--repeat", f"expected at least 1, got {repeat}")
    seeds = range(seed, seed + repeat)   # a list only once the limits have passed it
    scenario, grid, options, tasks, jobs = build_tasks(scenario_file, overrides or [], given or {}, seeds, keep_dir, force,
                                                       job, as_jobs)
    report = progress or (lambda done, total, running: None)
    evaluator = evaluator or model_evaluator()
    with Runner(evaluate_point, evaluator, execution) as runner:
        done = [0]
        total = [len(tasks) + (extend_steps + refine_steps) * len(options)]   # at most: an option settled stops early

        def run(batch: list[dict]) -> list[dict]:
            found = runner.run(batch, lambda finished, _: report(done[0] + finished, total[0], runner.running() or ""))
            done[0] += len(found)
            return found

        def points_of(asks: list[tuple[ClusterOption, LoadPoint]]) -> list[dict]:
            return run([make_task(o, scenario, p, seeds, Kept.of(keep_dir, scenario_file, overrides or []), jobs=jobs)
                        for o, p in asks])

        def fits(option: ClusterOption, point: LoadPoint) -> bool:
            if force:
                return True
            try:
                check_run_size(Scenario.from_mapping(sized(option.mapping, scenario, point, jobs)), runs=len(seeds))
            except ScenarioError:
                return False
            return True

        points = run(tasks)
        extended, bounds = extend(points_of, options, points, extend_steps, fits)
        points += extended
        if refine_steps:
            points += refine(points_of, options, points, refine_steps)
    current = next(p for p in points if p["option"] == "current" and p["current_plan"])
    by_option = {o.name: [p for p in points if p["option"] == o.name] for o in options}
    return {**PLAN.document(), "scenario": scenario.name,
            "source": str(scenario_file), "overrides": list(overrides or []), "evaluator": evaluator.name,
            "seed": seed, "seeds": list(seeds),
            "grid": grid.to_dict(), "extend_steps": extend_steps, "refine_steps": refine_steps,
            **({"jobs_at_once": {"job": jobs.name, "client_id": jobs.client_id}} if jobs else {}),
            "current_plan": {k: current[k] for k in ("load_gb", "loads", "spacing_s", "executors", "cores",
                                                     "ingest_gb_per_hour", "feasible", "jobs_at_once") if k in current},
            "options": [option_verdict(o, by_option[o.name], current["ingest_gb_per_hour"], bounds.get(o.name))
                        for o in options],
            "points": points, "slas": sla_sources(scenario.as_mapping())}


def plan_path(scenario_stem: str, overrides: list[str] | None = None) -> Path:
    """``results/<scenario file>[-<overrides>]-plan.json``, named like the run results."""
    return scenario_path(scenario_stem, "plan.json", overrides=overrides or [])


def write_plan(plan: dict, path: str | Path) -> Path:
    return PLAN.write(plan, path)
