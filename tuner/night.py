"""The worst night a scenario allows, as a scenario mapping: every class's job ``jobs_at_once`` times,
each copy with a client.id of its own, all starting at the same moment, with a policy's producer
template and client quota laid over every one of them (``quietload policy`` proves a policy on it).

A class is one of the scenario's batch jobs (its name, its client.id); its copies are named
``<name>-1`` .. ``<name>-N`` with client.ids ``<client.id>-1`` .. (one job at once keeps its own).
The template's values are laid over each job as ``--set`` would lay them (the knobs of
``workloads.tuning``: ``acks=all`` brings ``enable.idempotence=true``), the quota on each client.id.
"""
from __future__ import annotations

import copy
from typing import Any

from tuner.objective import Objective
from tuner.space import SearchSpace
from workloads import Scenario, ScenarioError
from workloads.quota import QUOTA_CLIENT_ID
from workloads.reader import safe_yaml
from workloads.tuning import KNOBS

# the knobs a policy's class states: its producer template and the quota per client
POLICY_KNOBS = ("linger.ms", "batch.size", "compression.type", "acks", "producer_byte_rate", "request_percentage")


def jobs_of(base: dict[str, Any]) -> list[dict[str, Any]]:
    """A scenario mapping's batch jobs: a night's list, or the one job."""
    batch = base.get("batch")
    return list(batch) if isinstance(batch, list) else [batch or {}]


def identity(job: dict[str, Any], index: int, several: bool) -> tuple[str, str]:
    """(name, client.id) of a job as the scenario states it; one job alone is ``batch``, ``batch-load``."""
    if not several and not job.get("name"):
        return "batch", str(job.get("client.id") or QUOTA_CLIENT_ID)
    name = str(job.get("name") or f"batch-{index + 1}")
    return name, str(job.get("client.id") or name)


def _starts(base: dict[str, Any]) -> list[float]:
    """Each job's first load's start (seconds from the run's start), as the scenario resolves it."""
    scenario = Scenario.from_mapping(base)
    jobs = getattr(scenario, "jobs", None) or (scenario.batch,)
    start_of = getattr(scenario, "job_start", None)
    return [float(start_of(job)) if start_of else float(scenario.load_start) for job in jobs]


def lay(job: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """``job`` with the knob values laid over it as ``--set batch.<section>.<property>=<value>`` would."""
    job = copy.deepcopy(job)
    for name, value in params.items():
        for override in KNOBS[name].overrides(value):
            key, _, text = override.partition("=")
            section, _, prop = key.removeprefix("batch.").partition(".")
            job.setdefault(section, {})
            if job[section] is None:
                job[section] = {}
            job[section][prop] = safe_yaml(text, key, "--set value")
    return job


def worst_night(base: dict[str, Any], jobs_at_once: int, params: dict[str, Any]) -> dict[str, Any]:
    """The scenario mapping of the worst night: ``jobs_at_once`` copies of every job, all starting
    when the earliest did, each with ``params`` (the policy's knob values) laid over it."""
    jobs = jobs_of(base)
    several = isinstance(base.get("batch"), list) or jobs_at_once > 1
    if not several:
        return {**base, "batch": lay(jobs[0], params)}
    start = min(_starts(base))
    night = []
    for index, job in enumerate(jobs):
        name, client_id = identity(job, index, isinstance(base.get("batch"), list))
        for copy_number in range(1, jobs_at_once + 1):
            one = {**lay(job, params), "start": f"{start:g}s"}
            if jobs_at_once > 1:
                one.update({"name": f"{name}-{copy_number}", "client.id": f"{client_id}-{copy_number}"})
            else:
                one.update({"name": name, "client.id": client_id})
            night.append(one)
    return {**base, "batch": night}


def classes_of(base: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(class name, client.id, topic) of each job of the scenario: a job is its class."""
    jobs = jobs_of(base)
    several = isinstance(base.get("batch"), list)
    return [(*identity(job, i, several), str(job.get("topic"))) for i, job in enumerate(jobs)]


class NightObjective(Objective):
    """A study's objective on the worst night: the knob values are the policy's, laid over every job."""

    def __init__(self, base: dict, space: SearchSpace, seed: int, jobs_at_once: int, repeat: int = 1) -> None:
        if jobs_at_once > 1 and not isinstance(base.get("batch"), list) and "name" not in _list_form_fields():
            raise ScenarioError("--jobs-at-once", "several copies of a job need a scenario of several jobs "
                                                  "(batch: a list), which this version does not read")
        self.jobs_at_once = jobs_at_once
        super().__init__(base, space, seed, repeat=repeat)

    def scenario(self, params: dict[str, Any]) -> Scenario:
        return Scenario.from_mapping(worst_night(self.base, self.jobs_at_once, params))


def _list_form_fields() -> set[str]:
    """The fields a job of a night's list may state (its ``name``), in this version's scenario."""
    from workloads._fields import keys_of
    from workloads.scenario import BatchJob
    return set(keys_of(BatchJob))
