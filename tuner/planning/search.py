"""How a plan finds each option's capacity beyond its grid: it extends the grid until the first
breach is bracketed (or says the bound it reached), then bisects between the bracket's points.

Both move in the units an operator decides in: concurrent loads (``batch.loads``) and the job's
ingest rate, its write cores (``spark.executor.instances`` x ``spark.executor.cores``). An
option no point kept within SLA is tried on a slower job (half its executors, then half their
cores) down to one load on one core; one no point took over SLA on twice its concurrent loads,
up to ``steps`` doublings or a load past the model's limits.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from tuner.planning.whatif import ClusterOption

# the axes a step moves along, in the order a bisection prefers them
AXES = ("loads", "executors", "cores")

Tasks = Callable[[list[tuple[ClusterOption, "LoadPoint"]]], list[dict]]   # run points, in order


@dataclass(frozen=True)
class LoadPoint:
    """A grid point: ``loads`` concurrent loads of ``load_gb`` each, ``spacing_s`` apart, each job
    writing on ``executors`` executors of ``cores`` cores."""

    load_gb: float
    loads: int
    spacing_s: float
    executors: int
    cores: int

    @property
    def write_cores(self) -> int:
        return self.executors * self.cores


def point_of(found: dict) -> LoadPoint:
    return LoadPoint(found["load_gb"], found["loads"], found["spacing_s"], found["executors"], found["cores"])


def _slower(point: LoadPoint) -> LoadPoint | None:
    """One load at half the job's ingest rate: half its executors, then half their cores."""
    if point.loads > 1:
        return dataclasses.replace(point, loads=1)
    if point.executors > 1:
        return dataclasses.replace(point, executors=point.executors // 2)
    if point.cores > 1:
        return dataclasses.replace(point, cores=point.cores // 2)
    return None


def extend(tasks_of: Tasks, options: list[ClusterOption], points: list[dict], steps: int,
           fits: Callable[[ClusterOption, LoadPoint], bool]) -> tuple[list[dict], dict[str, str]]:
    """Up to ``steps`` rounds: every option without a breach runs twice its largest concurrent
    loads, every option without a point within SLA a slower job, all in one batch a round. The
    points added, and for each option that ended unbracketed the bound it reached, in words."""
    added: list[dict] = []
    bounds: dict[str, str] = {}
    for round_ in range(steps + 1):
        asks: list[tuple[ClusterOption, LoadPoint]] = []
        bounds = {}
        for option in options:
            mine = [p for p in points + added if p["option"] == option.name]
            tried = {point_of(p) for p in mine}
            if not any(not p["feasible"] for p in mine):
                top = max(tried, key=lambda p: (p.loads * p.write_cores, p.load_gb))
                more = dataclasses.replace(top, loads=2 * top.loads)
                if not fits(option, more):
                    bounds[option.name] = f"the next step, {more.loads} loads, is past the model's limits (--force)"
                else:
                    bounds[option.name] = f"the plan stopped at {top.loads} loads (--extend tries further)"
                    asks.append((option, more))
            elif not any(p["feasible"] for p in mine):
                # the slowest job tried (fewest write cores at once, then the smallest load), one step slower
                low = min(tried, key=lambda p: (p.loads * p.write_cores, p.load_gb))
                slower = _slower(low)
                while slower is not None and slower in tried:
                    low, slower = slower, _slower(slower)
                if slower is None:
                    bounds[option.name] = "even one load on one core breaches"
                else:
                    bounds[option.name] = f"the plan stopped at one load on {low.write_cores} cores (--extend tries further)"
                    asks.append((option, slower))
        if not asks or round_ == steps:
            break
        added += tasks_of(asks)
    return added, bounds


def _differ(low: dict, high: dict) -> str | None:
    """The one axis two points differ on (size and spacing equal), else None."""
    if (low["load_gb"], low["spacing_s"]) != (high["load_gb"], high["spacing_s"]):
        return None
    differing = [axis for axis in AXES if low[axis] != high[axis]]
    return differing[0] if len(differing) == 1 and low[differing[0]] < high[differing[0]] else None


def bracket(points: list[dict]) -> tuple[dict, dict] | None:
    """The option's point of most ingest within SLA and the least-ingest point over SLA that differs
    from it on one axis only, upwards: the two points its capacity lies between."""
    within = [p for p in points if p["feasible"]]
    if not within:
        return None
    best = max(within, key=lambda p: p["ingest_gb_per_hour"])
    over = [p for p in points if not p["feasible"] and _differ(best, p)]
    return (best, min(over, key=lambda p: p["ingest_gb_per_hour"])) if over else None


def refine(tasks_of: Tasks, options: list[ClusterOption], points: list[dict], steps: int) -> list[dict]:
    """``steps`` bisections of each option's bracket along its one differing axis (whole loads,
    executors or cores): each step runs the midpoint on every option still bracketed, in one
    batch, until the two ends are neighbours. The points it adds."""
    brackets = {o.name: bracket([p for p in points if p["option"] == o.name]) for o in options}
    added: list[dict] = []
    for _ in range(steps):
        mids: list[tuple[ClusterOption, tuple[dict, dict], LoadPoint]] = []
        for option in options:
            pair = brackets[option.name]
            axis = _differ(*pair) if pair else None
            if pair is None or axis is None or pair[1][axis] - pair[0][axis] < 2:
                continue
            middle = (pair[0][axis] + pair[1][axis]) // 2
            mids.append((option, pair, dataclasses.replace(point_of(pair[0]), **{axis: middle})))
        if not mids:
            break
        for (option, (low, high), _point), found in zip(mids, tasks_of([(o, p) for o, _, p in mids])):
            found["refined"] = True
            brackets[option.name] = (found, high) if found["feasible"] else (low, found)
            added.append(found)
    return added
