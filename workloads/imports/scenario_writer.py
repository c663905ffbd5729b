"""The scenario of a user's own job and cluster, from whatever was imported; every figure none of
the sources gave is a stated default, listed in the scenario's ``assumptions`` as assumed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workloads._fields import keys_of
from workloads.errors import ScenarioError
from workloads.imports.history import Neighbour, Window, find_loads, neighbours
from workloads.imports.night_writer import night_jobs
from workloads.imports.sections import Imported, ImportedJob, job_topic, job_section
from workloads.reader import dump_yaml
from workloads.scenario import Scenario
from workloads.tenant import Tenant
from workloads.tuning import KNOBS

# The stated defaults (each one, when used, is named in the scenario's assumptions); a job's are in sections
DEFAULT_PARTITIONS = 6
DEFAULT_TENANT_CLIENT = {"kind": "java", "version": "3.9.0"}
DEFAULT_SLA = "10ms"
GIVEN = "given (--partitions)"      # a partition count's source that goes without saying

__all__ = ["Imported", "ImportedJob", "Imports", "build", "write"]


@dataclass(frozen=True)
class Imports:
    scenario: Scenario
    mapping: dict
    loads: list[Window]
    neighbours: list[Neighbour]


def _cluster(imported: Imported, topics: list[str], said: list[str]) -> dict:
    topics = list(dict.fromkeys(topics))
    if imported.msk:
        cluster = dict(imported.msk.cluster)
        said.extend(imported.msk.notes)
    else:
        brokers = len(imported.history.brokers) if imported.history else 3
        cluster = {"brokers": brokers, "replication.factor": min(3, brokers), "min.insync.replicas": min(2, brokers)}
        said.append(f"Assumed: {brokers} brokers with the scenario's default hardware (vCPUs 2) and MSK's default "
                    "configuration; no MSK cluster given.")
    counts, sources = dict(imported.partitions), dict(imported.partitions_from)
    if imported.history:        # the metrics' partition dimension, for the topics nothing else counted
        for topic, count in imported.history.partitions.items():
            if topic not in counts:
                counts[topic] = count
                sources[topic] = f"the {imported.history.source} metrics' partition dimension (the partitions they name)"
    read = [t for t in topics if t in counts and sources.get(t, GIVEN) != GIVEN]
    for source in dict.fromkeys(sources[t] for t in read):
        said.append("Partition counts from " + source + ": " + ", ".join(
            f"{t} {counts[t]}" for t in read if sources[t] == source) + ".")
    unknown = [t for t in topics if t not in counts]
    if unknown:
        said.append(f"Assumed: {DEFAULT_PARTITIONS} partitions for {', '.join(unknown)} (not read from the cluster "
                    "(--bootstrap-servers) nor in the metrics' partition dimension; give --partitions TOPIC=N).")
    cluster["topics"] = [{"name": t, "partitions": counts.get(t, DEFAULT_PARTITIONS)} for t in topics]
    return cluster


def _tenants(found: list[Neighbour], imported: Imported, said: list[str]) -> list[dict]:
    if not found:
        return []
    sla = imported.sla or DEFAULT_SLA
    said.append("Neighbours from the metrics' quiet periods (median records per second, bytes per record): "
                + "; ".join(f"{n.topic} {n.rate:.4g}/s of {n.record_size:.0f} B" for n in found) + ".")
    said.append(f"Assumed for every neighbour: a Java client {DEFAULT_TENANT_CLIENT['version']} with its defaults, no keys, "
                f"sla_p99 {sla}" + (" (given)" if imported.sla else "") + "; metrics do not say which client produces.")
    return [{"name": _name(n.topic), "topic": n.topic, "client": dict(DEFAULT_TENANT_CLIENT), "rate": f"{n.rate:.6g}/s",
             "record_size": max(1, round(n.record_size)), "sla_p99": sla} for n in found]


def _name(topic: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", topic).strip("-") or "neighbour"


def build(imported: Imported, name: str) -> Imports:
    """The scenario of what was imported, checked as ``simulate`` would read it."""
    if imported.sla is not None:        # judged by the tenant's own field, with or without a neighbour to hold to it
        keys_of(Tenant)["sla_p99"].metadata["parse"](imported.sla, "--sla")
    said: list[str] = list(imported.notes)
    if imported.jobs or imported.triggers:
        batch, dataset, topics, loads, found, job_names, extra = night_jobs(imported, said)
    else:
        load_topic = job_topic(imported, said)
        loads = find_loads(imported.history, load_topic) if imported.history else []
        found = neighbours(imported.history, load_topic, loads) if imported.history else []
        if imported.history:
            said.append(f"Metrics: {imported.history.source} of {imported.history.cluster!r}, {imported.history.points} points "
                        f"of {imported.history.period:g} s; {len(loads)} past load(s) on {load_topic!r}.")
            said.extend(imported.history.notes)
        batch, dataset = job_section(imported, load_topic, loads, said)
        topics, job_names, extra = [load_topic], [], {}
    cluster = _cluster(imported, [*topics, *(n.topic for n in found)], said)
    mapping: dict[str, Any] = {
        "name": name,
        "description": "Imported by quietload import from the job's and the cluster's own descriptions and metrics.",
        "assumptions": said,
        "profile": imported.profile or "default",
        "cluster": cluster,
        "dataset": dataset,
        "batch": batch,
        "tenants": _tenants(found, imported, said),
        **extra,
    }
    if not mapping["tenants"]:
        del mapping["tenants"]
    if imported.msk and imported.msk.kind.express and imported.msk.kind.express_ingress_quota:
        # MSK throttles an Express broker's client ingress at its quota; the load is nearly all of it (as plan's what-if)
        quota = imported.msk.kind.express_ingress_quota
        for job in batch if isinstance(batch, list) else [batch]:
            job["quota"] = {"producer_byte_rate": KNOBS["producer_byte_rate"].override_value(quota)}
        said.append(f"Express brokers: MSK throttles each broker's client ingress at {quota / 1e6:g} MB/s, metered on the "
                    "load as its producer_byte_rate per broker.")
    if imported.profile is None:
        said.append("Cost profile: default (assumed; no metrics history fitted).")
    try:
        scenario = Scenario.from_mapping(mapping, source=name)
    except ScenarioError as error:      # what a source gave, judged as a scenario file's value is; nothing written
        field = error.field
        if job_names and (match := re.match(r"batch\[(\d+)\]", field)) and int(match.group(1)) < len(job_names):
            field = f"job {job_names[int(match.group(1))]!r}: {field}"
        raise ScenarioError(field, f"{error.problem} (in the scenario the import would write; nothing written)") from None
    return Imports(scenario, mapping, loads, found)


def write(imports: Imports, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_yaml(imports.mapping, width=110))
    Scenario.from_yaml(path)       # what was written reads back
    return path
