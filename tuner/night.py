"""The worst night a scenario allows: every class's job ``jobs_at_once`` times, each copy with a
client.id of its own, the copies at once at their job's start (the scenario's starts, e.g. a
schedule's from ``plan --schedule``), with a policy's producer template and client quota laid over
every one of them (``quietload policy`` proves a policy on it).

A class is one of the scenario's batch jobs (its name, its client.id); its copies are named
``<name>-1`` .. ``<name>-N`` with client.ids ``<client.id>-1`` .. (one job at once keeps its own).
The template's values are set on each job as typed edits, through the knobs of
``workloads.tuning`` (``acks=all`` brings ``enable.idempotence=true``), the quota on each client.id.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from tuner.objective import Objective
from tuner.space import SearchSpace
from workloads import BatchJob, Scenario
from workloads.batch import SINGLE_JOB
from workloads.quota import QUOTA_CLIENT_ID
from workloads.tuning import KNOBS

# the knobs a policy's class states: its producer template and the quota per client (the rest a job's own)
POLICY_KNOBS = ("linger.ms", "batch.size", "compression.type", "acks", "max.in.flight.requests.per.connection",
                "producer_byte_rate", "request_percentage")


def classes_of(base: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(name, client.id, topic) of each job of the scenario, as it resolves them: a job is its class."""
    return [(job.name, job.client_id, job.topic) for job in Scenario.from_mapping(base).jobs]


def lay(scenario: Scenario, job: BatchJob, params: dict[str, Any]) -> BatchJob:
    """``job`` (one of ``scenario``'s) with the knob values set, checked as a file's values would be."""
    if not params:
        return job
    alone = dataclasses.replace(scenario, jobs=(job,), listed=False)
    return alone.with_values({path: value for name, knob_value in params.items()
                              for path, value in KNOBS[name].changes(knob_value).items()}).batch


def with_jobs(scenario: Scenario, jobs: list[BatchJob]) -> Scenario:
    """``scenario`` with ``jobs`` for its own, a list of them as a file's ``batch:`` list would be
    (one job named batch with client.id batch-load is the mapping form), checked as the file would be."""
    listed = len(jobs) > 1 or (jobs[0].name, jobs[0].client_id) != (SINGLE_JOB, QUOTA_CLIENT_ID)
    night = dataclasses.replace(scenario, jobs=tuple(jobs), listed=listed)
    night.validate()
    return night


def worst_night(scenario: Scenario, jobs_at_once: int, params: dict[str, Any]) -> Scenario:
    """The worst night: ``jobs_at_once`` copies of every job, at once at the job's own start, each
    with ``params`` (the policy's knob values) set on it."""
    laid = [lay(scenario, job, params) for job in scenario.jobs]
    if not scenario.listed and jobs_at_once == 1:
        return dataclasses.replace(scenario, jobs=tuple(laid))
    copied = jobs_at_once > 1
    return with_jobs(scenario, [
        dataclasses.replace(job, start=scenario.job_start(job),
                            name=f"{job.name}-{number}" if copied else job.name,
                            client_id=f"{job.client_id}-{number}" if copied else job.client_id)
        for job in laid for number in range(1, jobs_at_once + 1)])


class NightObjective(Objective):
    """A study's objective on the worst night: the knob values are the policy's, set on every job."""

    def __init__(self, base: dict, space: SearchSpace, seed: int, jobs_at_once: int, repeat: int = 1) -> None:
        self.jobs_at_once = jobs_at_once
        super().__init__(base, space, seed, repeat=repeat)
        self.night = Scenario.from_mapping(base)

    def scenario(self, params: dict[str, Any]) -> Scenario:
        return worst_night(self.night, self.jobs_at_once, params)
