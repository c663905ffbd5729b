"""The cluster's policy in the gate (``check --policy``): every job of the scenario against the class
it belongs to, one verdict per rule of that class (``policy.linger.ms``, ``policy.producer_byte_rate``,
...), in the gate report's one form beside the SLA rules, so that the JSON, the JUnit XML and the
exit code carry them alike. The rules read the run's resolved scenario (the job's settings with their
defaults), so ``check --policy`` judges a live run's file as it judges the model's.

A job that breaks a rule gets the change that keeps it to its class: the job's writer options at the
class's bounds, and the class's quota on its client.id as ``kafka-configs.sh`` sets it."""
from __future__ import annotations

import dataclasses

from judging.gate import FAIL, PASS, POLICY_RULE, GateReport, Verdict
from workloads.snippets import kafka_configs_lines
from workloads.policy import Breach, JobClass, Policy, bounds_of, job_identity, jobs_judged, judge
from workloads.settings import SETTINGS, property_text

def _verdict(breach: Breach, several: bool) -> Verdict:
    return Verdict(POLICY_RULE + breach.rule, PASS if breach.kept else FAIL, breach.sentence,
                   job=breach.job if several else "")


def _producer_changes(job_class: JobClass, broken: set[str]) -> list[tuple[str, str]]:
    """(property, value) at the class's bounds for the producer rules broken."""
    return [(name, property_text(value, SETTINGS[name].unit)) for name, value in bounds_of(job_class).items()
            if name in broken and SETTINGS[name].section == "producer"]


def _advice(job: dict, breaches: list[Breach], policy: Policy) -> tuple[list[str], list[str]]:
    """The lines that keep one job to its class: (advice, paste)."""
    broken = {b.rule for b in breaches if not b.kept}
    name, client_id, _ = job_identity(job)
    if not broken:
        return [], []
    if "class" in broken:
        return [f"{name}: no class of policy {policy.name} matches client.id {client_id}: give the job a client.id "
                "of a class, or the policy a class for it (the platform team)"], []
    job_class = policy.class_of(client_id, str(job.get("topic")))
    assert job_class is not None
    advice, paste = [], []
    if changes := _producer_changes(job_class, broken):
        advice.append(f"{name} (the job's owner): to keep to class {job_class.name}, "
                      + ", ".join(f"{key}={value}" for key, value in changes))
        paste += [f'.option("kafka.{key}", "{value}")' for key, value in changes]
    quota = {key: value for key, value in job_class.quota.settings().items() if key in broken}
    if quota:
        advice.append(f"{name} (the cluster's owner): the quota of class {job_class.name} on client.id {client_id}, "
                      + ", ".join(f"{key}={SETTINGS[key].render(value)}" for key, value in quota.items()))
        paste += kafka_configs_lines(quota, client_id)
    return advice, paste


def with_policy(report: GateReport, scenario: dict, policy: Policy) -> GateReport:
    """``report`` with the policy's verdicts on every job of ``scenario`` (a run's resolved scenario)
    after its own, and, for a job that breaks one, the change that keeps it to its class."""
    jobs = jobs_judged(scenario)
    verdicts, advice, paste = [], [], []
    for job in jobs:
        breaches = judge(job, policy)
        verdicts += [_verdict(b, len(jobs) > 1) for b in breaches]
        lines, pasted = _advice(job, breaches, policy)
        advice += lines
        paste += pasted
    return dataclasses.replace(report, verdicts=report.verdicts + tuple(verdicts),
                               recommendations=report.recommendations + tuple(advice),
                               paste=tuple(dict.fromkeys(report.paste + tuple(paste))))
