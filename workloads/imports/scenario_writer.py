"""The scenario of a user's own job and cluster, from whatever was imported; every figure none of
the sources gave is a stated default, listed in the scenario's ``assumptions`` as assumed.
"""
from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workloads._fields import keys_of
from workloads.errors import ScenarioError
from workloads.imports.glue import GlueJob
from workloads.imports.history import History, Neighbour, Window, find_loads, neighbours
from workloads.imports.msk import MskCluster
from workloads.imports.script import ScriptFacts
from workloads.reader import dump_yaml
from workloads.scenario import Scenario
from workloads.tenant import Tenant

# The stated defaults (each one, when used, is named in the scenario's assumptions)
DEFAULT_EXECUTORS, DEFAULT_CORES = 2, 4
DEFAULT_CLIENT = "3.9.0"                 # kafka-clients, when no Glue version says which
DEFAULT_PARTITIONS = 6
DEFAULT_FILE = 1024**3
DEFAULT_TENANT_CLIENT = {"kind": "java", "version": "3.9.0"}
DEFAULT_SLA = "10ms"
LOAD_TOPIC = "batch-load"


@dataclass(frozen=True)
class Imported:
    """What the sources gave; any of them may be missing."""

    glue: GlueJob | None = None
    script: ScriptFacts | None = None
    files: list[tuple[str, int]] | None = None       # the input's objects (key, size) from S3
    msk: MskCluster | None = None
    history: History | None = None
    load_topic: str | None = None                    # --load-topic
    partitions: dict[str, int] = field(default_factory=dict)   # --partitions TOPIC=N
    sla: str | None = None                           # the neighbours' p99 SLA (--sla)
    profile: str | None = None                       # a profile fitted to the history
    notes: tuple[str, ...] = ()                      # what could not be read, and so is assumed


@dataclass(frozen=True)
class Imports:
    scenario: Scenario
    mapping: dict
    loads: list[Window]
    neighbours: list[Neighbour]


def _load_topic(imported: Imported, said: list[str]) -> str:
    if imported.load_topic:
        return imported.load_topic
    if imported.script and imported.script.topic:
        return imported.script.topic
    if imported.history and imported.history.topic_bytes:
        peaks = {t: max((v for v in s if v is not None), default=0.0) for t, s in imported.history.topic_bytes.items()}
        topic = max(sorted(peaks), key=lambda t: peaks[t])
        said.append(f"Assumed: the load's topic is {topic!r}, the topic with the largest peak BytesInPerSec "
                    "(neither --load-topic nor the script names one).")
        return topic
    said.append(f"Assumed: the load's topic is {LOAD_TOPIC!r} (no source names one).")
    return LOAD_TOPIC


def _files(imported: Imported, loads: list[Window], said: list[str]) -> tuple[list[dict], str]:
    if imported.files:
        counts = Counter(size for _, size in imported.files)
        compression = "gzip" if all(key.endswith(".gz") for key, _ in imported.files) else "none"
        said.append(f"Input: {len(imported.files)} file(s) of {sum(counts.elements()):,} bytes in all, their sizes from S3 "
                    f"({', '.join(imported.script.input_paths) if imported.script else 'the script'}).")
        return [{"size": size, "count": n} for size, n in counts.items()], compression
    if loads:
        size = int(statistics.median(w.bytes for w in loads))
        said.append(f"Assumed: one input file of {size:,} bytes, the median bytes the load topic took in per past load "
                    f"({len(loads)} found in the metrics); the files' own sizes were not read from S3.")
        return [{"size": size}], "none"
    said.append(f"Assumed: one input file of {DEFAULT_FILE:,} bytes (no script input on S3, no past loads).")
    return [{"size": DEFAULT_FILE}], "none"


def _spark(imported: Imported, said: list[str]) -> tuple[dict, dict]:
    if imported.glue:
        said.extend(imported.glue.notes)
        spark, client = dict(imported.glue.spark), {"kind": "java", "version": imported.glue.client_version}
    else:
        spark = {"spark.executor.instances": DEFAULT_EXECUTORS, "spark.executor.cores": DEFAULT_CORES}
        client = {"kind": "java", "version": DEFAULT_CLIENT}
        said.append(f"Assumed: {DEFAULT_EXECUTORS} executors of {DEFAULT_CORES} cores and kafka-clients {DEFAULT_CLIENT} "
                    "(no Glue job given).")
    if imported.script and imported.script.repartition is not None:
        spark["repartition"] = imported.script.repartition
    return spark, client


def _producer(imported: Imported, client: dict, said: list[str]) -> dict:
    producer = dict(imported.script.producer) if imported.script else {}
    if imported.script:
        said.extend(imported.script.notes)
        read = ", ".join(f"{k}={v}" for k, v in sorted(producer.items()))
        repartition = imported.script.repartition
        said.append("From the script: " + (read or "no producer property (the client's defaults)")
                    + (f"; repartition({repartition})" if repartition is not None else "; no repartition") + ".")
    else:
        said.append(f"Assumed: the producer's properties are kafka-clients {client['version']}'s defaults (no script given).")
    return producer


def _cluster(imported: Imported, topics: list[str], said: list[str]) -> dict:
    if imported.msk:
        cluster = dict(imported.msk.cluster)
        said.extend(imported.msk.notes)
    else:
        brokers = len(imported.history.brokers) if imported.history else 3
        cluster = {"brokers": brokers, "replication.factor": min(3, brokers), "min.insync.replicas": min(2, brokers)}
        said.append(f"Assumed: {brokers} brokers with the scenario's default hardware (vCPUs 2) and MSK's default "
                    "configuration; no MSK cluster given.")
    unknown = [t for t in topics if t not in imported.partitions]
    if unknown:
        said.append(f"Assumed: {DEFAULT_PARTITIONS} partitions for {', '.join(unknown)} (metrics do not carry partition "
                    "counts; give --partitions TOPIC=N).")
    cluster["topics"] = [{"name": t, "partitions": imported.partitions.get(t, DEFAULT_PARTITIONS)} for t in topics]
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
    load_topic = _load_topic(imported, said)
    loads = find_loads(imported.history, load_topic) if imported.history else []
    found = neighbours(imported.history, load_topic, loads) if imported.history else []
    if imported.history:
        said.append(f"Metrics: {imported.history.source} of {imported.history.cluster!r}, {imported.history.points} points "
                    f"of {imported.history.period:g} s; {len(loads)} past load(s) on {load_topic!r}.")
        said.extend(imported.history.notes)
    spark, client = _spark(imported, said)
    producer = _producer(imported, client, said)
    files, compression = _files(imported, loads, said)
    cluster = _cluster(imported, [load_topic, *(n.topic for n in found)], said)
    mapping: dict[str, Any] = {
        "name": name,
        "description": "Imported by quietload import from the job's and the cluster's own descriptions and metrics.",
        "assumptions": said,
        "profile": imported.profile or "default",
        "cluster": cluster,
        "dataset": {"files": files, **({"compression": compression} if compression != "none" else {})},
        "batch": {"topic": load_topic, "client": client, "spark": spark, "producer": producer},
        "tenants": _tenants(found, imported, said),
    }
    if not mapping["tenants"]:
        del mapping["tenants"]
    if imported.msk and imported.msk.kind.express and imported.msk.kind.express_ingress_quota:
        # MSK throttles an Express broker's client ingress at its quota; the load is nearly all of it (as plan's what-if)
        quota = imported.msk.kind.express_ingress_quota
        mapping["batch"]["quota"] = {"producer_byte_rate": f"{quota:.0f}B/s"}
        said.append(f"Express brokers: MSK throttles each broker's client ingress at {quota / 1e6:g} MB/s, metered on the "
                    "load as its producer_byte_rate per broker.")
    if imported.profile is None:
        said.append("Cost profile: default (assumed; no metrics history fitted).")
    try:
        scenario = Scenario.from_mapping(mapping, source=name)
    except ScenarioError as error:      # what a source gave, judged as a scenario file's value is; nothing written
        raise ScenarioError(error.field, f"{error.problem} (in the scenario the import would write; nothing written)") from None
    return Imports(scenario, mapping, loads, found)


def write(imports: Imports, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_yaml(imports.mapping, width=110))
    Scenario.from_yaml(path)       # what was written reads back
    return path
