"""Capacity for the night: how many copies of one job the cluster takes at once before the first
breach. The job is one of the scenario (``--job NAME`` on a night's list; the only job
otherwise); ``--jobs-at-once 1,2,4`` runs that many copies of it side by side, each a job of its
own: its own Spark executors, its own ``client.id`` (``<client.id>-<k>``) and so its own quota, as
a night's jobs are (``batch.loads`` instead shares one client.id, and so one quota). The plan's
grid, extension and verdicts are the capacity plan's, on the ``loads`` axis."""
from __future__ import annotations

import copy
from dataclasses import dataclass

from workloads import ScenarioError


@dataclass(frozen=True)
class CopiedJob:
    """The job a night's capacity is counted in copies of: its name and client.id as copies extend them."""

    name: str
    client_id: str


def one_job(mapping: dict, name: str | None, as_jobs: bool) -> tuple[dict, CopiedJob | None]:
    """``mapping`` with one job left, given as a single mapping (so the plan's what-ifs and axes
    address it as ``batch.``), and the job copied when the plan counts jobs at once. A night's job is
    chosen by ``--job`` (default: its first); a file's own dataset becomes the scenario's."""
    batch = mapping.get("batch")
    if not isinstance(batch, list):
        if name is not None and name != "batch":
            raise ScenarioError("--job", f"the scenario has one job (batch); got {name!r}")
        return mapping, CopiedJob("batch", "batch-load") if as_jobs else None
    names = [job.get("name") for job in batch if isinstance(job, dict)]
    chosen = name if name is not None else names[0]
    if chosen not in names:
        raise ScenarioError("--job", f"no job named {chosen!r}; the night's jobs: {', '.join(map(str, names))}")
    job = copy.deepcopy(batch[names.index(chosen)])
    client_id = job.pop("client.id", None) or chosen
    job.pop("name")
    changed = {**copy.deepcopy(mapping), "batch": job}
    if "dataset" in job:
        changed["dataset"] = job.pop("dataset")
    return changed, CopiedJob(chosen, client_id) if as_jobs else None


def at_once(mapping: dict, copied: CopiedJob, count: int, start: float, spacing: float) -> dict:
    """``mapping``'s one job as ``count`` jobs of its own, ``spacing`` seconds apart from ``start``."""
    job = mapping["batch"]
    copies = []
    for k in range(1, count + 1):
        copies.append({"name": f"{copied.name}-{k}", "client.id": f"{copied.client_id}-{k}",
                       **{key: value for key, value in copy.deepcopy(job).items() if key not in ("loads", "spacing")},
                       "start": f"{start + (k - 1) * spacing!r}s"})
    return {**mapping, "batch": copies}
