"""The worst night a scenario allows, as a scenario mapping: every class's job ``jobs_at_once`` times,
each copy with a client.id of its own, the copies at once at their job's start (the scenario's
starts, e.g. a schedule's from ``plan --schedule``), with a policy's producer template and client
quota laid over every one of them (``quietload policy`` proves a policy on it).

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
from workloads import Scenario
from workloads.reader import safe_yaml
from workloads.tuning import KNOBS

# the knobs a policy's class states: its producer template and the quota per client
POLICY_KNOBS = ("linger.ms", "batch.size", "compression.type", "acks", "producer_byte_rate", "request_percentage")


def jobs_of(base: dict[str, Any]) -> list[dict[str, Any]]:
    """A scenario mapping's batch jobs: a night's list, or the one job."""
    batch = base.get("batch")
    return list(batch) if isinstance(batch, list) else [batch or {}]


def classes_of(base: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(name, client.id, topic) of each job of the scenario, as it resolves them: a job is its class."""
    return [(job.name, job.client_id, job.topic) for job in Scenario.from_mapping(base).jobs]


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
    """The scenario mapping of the worst night: ``jobs_at_once`` copies of every job, at once at the
    job's own start, each with ``params`` (the policy's knob values) laid over it."""
    jobs = jobs_of(base)
    if not isinstance(base.get("batch"), list) and jobs_at_once == 1:
        return {**base, "batch": lay(jobs[0], params)}
    scenario = Scenario.from_mapping(base)
    night = []
    for raw, job in zip(jobs, scenario.jobs):
        for number in range(1, jobs_at_once + 1):
            copied = jobs_at_once > 1
            night.append({**lay(raw, params), "start": f"{scenario.job_start(job):g}s",
                          "name": f"{job.name}-{number}" if copied else job.name,
                          "client.id": f"{job.client_id}-{number}" if copied else job.client_id})
    return {**base, "batch": night}


class NightObjective(Objective):
    """A study's objective on the worst night: the knob values are the policy's, laid over every job."""

    def __init__(self, base: dict, space: SearchSpace, seed: int, jobs_at_once: int, repeat: int = 1) -> None:
        self.jobs_at_once = jobs_at_once
        super().__init__(base, space, seed, repeat=repeat)

    def scenario(self, params: dict[str, Any]) -> Scenario:
        return Scenario.from_mapping(worst_night(self.base, self.jobs_at_once, params))

