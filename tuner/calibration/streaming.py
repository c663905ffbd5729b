"""A profile's Spark micro-batch costs measured on live runs of a pipeline before the load.

The live stack reads each micro-batch's own progress (Spark's ``durationMs`` parts, per batch:
``simulator.live.streaming.batch_figures``). In the ``before`` window of ``MICROBATCH_ALONE``
(the pipeline of the held-out ``microbatch-neighbour``, with no other tenant, its batches before
the load starts) they measure the profile's fixed costs of a trigger:

- ``offset_log_write_ms``: walCommit, the offset log's write;
- ``commit_log_write_ms``: commitOffsets, the commit log's write;
- ``microbatch_planning_ms``: the rest of the trigger besides latestOffset and the two writes
  (queryPlanning, getBatch, the tasks' scheduling and run, the driver's bookkeeping). The model
  adds the tasks' own fetch and write of the records on its own; at 100 records a batch they are
  about a millisecond of it.

Each is the mean over every batch of the runs (the model charges a constant: the mean is what
it adds to the average record); its uncertainty is half the spread of the runs' means. The other
streaming costs (a state store's commit, the transactions' and a poll's) no run here exercises:
they stay the profile's, marked assumed. Nothing is fitted to the held-out figures.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuner.calibration.design import MICROBATCH, Point, with_pipeline
from tuner.calibration.runs import PointRuns
from workloads import ScenarioError
from workloads.reader import dump_yaml, read_yaml
from workloads.profile import CostProfile

MICROBATCH_ALONE = Point("microbatch-alone", "the micro-batch pipeline alone: its triggers' fixed costs",
                         ("windows.before=15s", *with_pipeline(MICROBATCH)))
# profile figure: how it is read from a batch's figures (``streaming.batches`` of a RunResult)
MEASURED = {"microbatch_planning_ms": ("planning_ms", "tasks_ms"), "offset_log_write_ms": ("offset_log_ms",),
            "commit_log_write_ms": ("commit_log_ms",)}
ASSUMED = ("state_commit_ms", "end_txn_request_us", "txn_marker_us", "poll_us")


@dataclass(frozen=True)
class StreamingCosts:
    """Measured figures: name -> (mean over every batch, half the spread of the runs' means), and
    each run's before-window batch figures."""

    measured: dict[str, tuple[float, float]]
    runs: list[tuple[int, dict]]            # (seed, the pipeline's batches in the before window)


def _before_batches(result: Any) -> dict:
    for tenant in result.tenants:
        batches = ((tenant.get("streaming") or {}).get("batches") or {}).get("before")
        if batches:     # a micro-batch query's (the only tenants that have batches)
            return batches
    raise ScenarioError("streaming costs", f"run seed {result.seed} has no micro-batch in its before window")


def measure(runs: PointRuns) -> StreamingCosts:
    """The micro-batch costs of ``runs`` (live runs of ``MICROBATCH_ALONE``)."""
    per_run = [(result.seed, _before_batches(result)) for result in runs.results]
    if not per_run:
        raise ScenarioError("streaming costs", "no run of the pipeline completed")
    measured = {}
    for name, parts in MEASURED.items():
        means = [sum(batches[part] for part in parts) for _, batches in per_run]
        counts = [batches["count"] for _, batches in per_run]
        mean = sum(m * c for m, c in zip(means, counts)) / sum(counts)
        measured[name] = (mean, (max(means) - min(means)) / 2)
    return StreamingCosts(measured, per_run)


def with_streaming_costs(profile_path: Path, costs: StreamingCosts, point: Point = MICROBATCH_ALONE) -> dict:
    """The profile's document with the measured figures in its ``streaming`` section and its
    provenance saying, for every streaming figure, measured (with the runs) or assumed."""
    document = read_yaml(profile_path, "--profile")
    provenance = document.get("provenance")
    if not isinstance(provenance, dict):
        raise ScenarioError("--profile", f"{profile_path} is not a calibrated profile (its provenance is prose)")
    section = document.setdefault("streaming", {})
    current = CostProfile.load(str(profile_path)).streaming
    parameters = [p for p in provenance.get("parameters", []) if not p["name"].startswith("streaming.")]
    for name, (value, spread) in costs.measured.items():
        section[name] = float(f"{value:.4g}")
        parameters.append({"name": f"streaming.{name}", "value": section[name], "source": "measured",
                           "uncertainty": float(f"{spread:.2g}")})
    for name in ASSUMED:
        section[name] = getattr(current, name)
        parameters.append({"name": f"streaming.{name}", "value": section[name], "source": "assumed"})
    runs = [r for r in provenance.get("runs", []) if r["point"] != point.name]
    runs += [{"point": point.name, "seed": seed, "overrides": list(point.overrides),
              "figures": {f"before_{key}": value for key, value in batches.items()}} for seed, batches in costs.runs]
    note = (f" The Spark micro-batch costs streaming.{', streaming.'.join(MEASURED)} are measured: the means over "
            f"the batches of {len(costs.runs)} live run(s) of {point.name} before the load, from Spark's own progress "
            "(walCommit, commitOffsets, and the rest of triggerExecution besides latestOffset and them); uncertainty: "
            "half the spread of the runs' means.")
    summary = provenance["summary"].split(" The Spark micro-batch costs")[0]
    document["provenance"] = {**provenance, "summary": summary + note, "runs": runs, "parameters": parameters}
    return document


def write_streaming_costs(profile_path: Path, costs: StreamingCosts) -> None:
    profile_path.write_text(dump_yaml(with_streaming_costs(profile_path, costs), width=110))
    CostProfile.load(str(profile_path))      # what was written reads back


def render_streaming_costs(costs: StreamingCosts) -> str:
    lines = [f"{'parameter':34} {'value':>12} {'± spread':>10}  source"]
    for name, (value, spread) in costs.measured.items():
        lines.append(f"{'streaming.' + name:34} {value:12.4g} {spread:10.3g}  measured")
    lines += [f"{'streaming.' + name:34} {'':>12} {'':>10}  assumed (not exercised)" for name in ASSUMED]
    for seed, b in costs.runs:
        lines.append(f"run {seed}: {b['count']} batches before the load, {b['records']} records; mean ms: batch "
                     f"{b['batch_ms']:.1f}, latestOffset {b['offsets_ms']:.1f}, walCommit {b['offset_log_ms']:.1f}, "
                     f"addBatch {b['tasks_ms']:.1f}, commitOffsets {b['commit_log_ms']:.1f}, the rest {b['planning_ms']:.1f}")
    return "\n".join(lines)
