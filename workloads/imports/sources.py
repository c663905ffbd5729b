"""Read every source an import names (files, or AWS through boto3) into ``Imported``.

AWS calls go through clients made by ``clients`` (boto3's, bounded by the request's ``Waits``; a
test can hand in stubbed or LocalStack-bound ones); what AWS refuses or does not answer becomes
one line naming the call, never a traceback and never a credential.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from workloads import appendtrace
from workloads.errors import ScenarioError
from workloads.imports import cloudwatch, prometheus
from workloads.imports.history import History
from workloads.imports.jobs import glue_jobs, with_scripts
from workloads.imports.network import Clients, Waits, aws_clients, aws_errors
from workloads.imports.msk import fetch_msk_cluster, read_msk_cluster, read_properties
from workloads.imports.partitions import read_partitions
from workloads.imports.scenario_writer import GIVEN
from workloads.imports.sections import Imported, ImportedJob
from workloads.imports.night import check_predicates
from workloads.imports.triggers import Trigger, fetch_triggers, read_triggers
from workloads.reader import read_json, read_text
from workloads.units import parse_seconds
from workloads.urls import http_url

@dataclass(frozen=True)
class Request:
    glue_job: tuple[Path, ...] = ()           # GetJob or GetJobs answers
    glue_job_name: tuple[str, ...] = ()
    script: str | None = None                 # a path or an s3:// URI
    msk_cluster: Path | None = None
    msk_cluster_arn: str | None = None
    configuration: Path | None = None
    cloudwatch: str | None = None             # the cluster's name in AWS/Kafka
    since: float = 14 * 86400.0               # seconds of history, up to ``until``
    until: datetime | None = None
    period: int = 60
    prometheus: tuple[str, ...] = ()
    prometheus_for: float = 60.0
    load_topic: str | None = None
    partitions: dict[str, int] = field(default_factory=dict)
    sla: str | None = None
    waits: Waits = field(default_factory=Waits)
    glue_job_pattern: str | None = None       # every job whose name matches (and writes to bootstrap_servers)
    glue_triggers: tuple[Path, ...] = ()      # GetTriggers answers
    bootstrap_servers: str | None = None      # the cluster's, for its topics' partition counts
    trace: Path | None = None                 # the append-trace interceptor's file


SINCE_MAX_S = 455 * 86400.0     # CloudWatch keeps a metric 15 months, and no longer
FOR_MAX_S = 7 * 86400.0         # sampling exporters by hand: a week at most


def parse_since(text: str, where: str, longest: float = SINCE_MAX_S) -> float:
    """A duration in seconds: the units of a scenario's durations, and days (``14d``); at most ``longest``."""
    value = text.strip()
    if re.fullmatch(r"[0-9]+(\.[0-9]+)?d", value):
        seconds = float(value[:-1]) * 86400
    else:
        seconds = parse_seconds(value, where)
    if not seconds > 0:
        raise ScenarioError(where, f"expected a duration greater than zero, got {text!r}")
    if not seconds <= longest:
        shown = text if len(text) <= 20 else text[:20] + "..."
        most = f"{longest / 86400:g} days" if longest >= 86400 else f"{longest / 3600:g} h" if longest >= 3600 else f"{longest:g} s"
        raise ScenarioError(where, f"{shown!r} is longer than the {most} it can be"
                            + (" (CloudWatch keeps metrics 15 months)" if longest == SINCE_MAX_S else ""))
    return seconds


def parse_until(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ScenarioError("--until", f"expected a time like 2026-11-20T00:00:00Z, got {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def gather(request: Request, clients: Clients | None = None) -> Imported:
    """Every source the request names, read and checked; nothing written."""
    if not any(given is not None and given != () for given in (
            request.glue_job, request.glue_job_name, request.glue_job_pattern, request.script, request.msk_cluster,
            request.msk_cluster_arn, request.configuration, request.cloudwatch, request.prometheus, request.trace)):
        raise ScenarioError("import", "nothing to import: give a job (--glue-job, --glue-job-name, --script), a cluster "
                                      "(--msk-cluster, --msk-cluster-arn), its metrics (--cloudwatch, --prometheus) "
                                      "or a job's append trace (--trace)")
    for url in request.prometheus:
        http_url(url, "--prometheus")
    traced = appendtrace.appends(appendtrace.read_trace(request.trace), None) if request.trace else None
    if traced is not None and traced.records == 0:
        raise ScenarioError("--trace", f"{request.trace}: no send() recorded: the interceptor saw no record")
    clients = clients or aws_clients(request.waits)
    glue = glue_jobs(request.glue_job, request.glue_job_name, request.glue_job_pattern, request.script, clients, request.waits)
    triggers = _triggers(request, clients, bool(request.glue_job))
    check_predicates(triggers, [job.name for job in glue])          # before any script or input is read
    if len(glue) > 1 and request.load_topic:
        raise ScenarioError("--load-topic", "names one job's topic; with several jobs each job's script names its own")
    jobs, notes = with_scripts(glue, request.glue_job_pattern, request.script, request.bootstrap_servers, clients,
                               request.waits)
    msk = None
    if request.msk_cluster or request.msk_cluster_arn:
        if request.msk_cluster and request.msk_cluster_arn:
            raise ScenarioError("--msk-cluster", "give the cluster's JSON or its ARN (--msk-cluster-arn), not both")
        properties = read_properties(read_text(request.configuration, "--configuration")) if request.configuration else None
        if request.msk_cluster:
            document = read_json(request.msk_cluster, "--msk-cluster")
        else:
            with aws_errors("--msk-cluster-arn", request.waits):
                document = fetch_msk_cluster(str(request.msk_cluster_arn), clients("kafka"))
        msk = read_msk_cluster(document, properties, "--msk-cluster" if request.msk_cluster else "--msk-cluster-arn")
    elif request.configuration:
        raise ScenarioError("--configuration", "is the configuration of an MSK cluster: give --msk-cluster or --msk-cluster-arn too")
    history = None
    if request.cloudwatch is not None and not request.cloudwatch.strip():
        raise ScenarioError("--cloudwatch", "expected the MSK cluster's name, got an empty one")
    if request.cloudwatch and request.prometheus:
        raise ScenarioError("--cloudwatch", "read the metrics from CloudWatch or from --prometheus, not both")
    if request.cloudwatch:
        end = request.until or datetime.now(timezone.utc)
        try:
            start = end - timedelta(seconds=request.since)
        except OverflowError:
            raise ScenarioError("--since", f"{request.since / 86400:g} days before --until {end.date().isoformat()} is before the year 1") from None
        cloudwatch.grid(start, end, request.period)      # refused before any call
        with aws_errors("--cloudwatch", request.waits):
            history = cloudwatch.fetch(clients("cloudwatch"), request.cloudwatch, start, end, request.period,
                                       msk.monitoring if msk else None)
    elif request.prometheus:
        vcpus = msk.kind.vcpus if msk else 2
        history = prometheus.sample(list(request.prometheus), request.prometheus_for, request.period, vcpus, request.waits)
    topics = [job.script.topic for job in jobs if job.script and job.script.topic] + ([request.load_topic] if request.load_topic else [])
    partitions, sources = _partitions(request, history, topics, notes)
    one = jobs[0] if len(jobs) == 1 else ImportedJob(None, None, None)
    return Imported(glue=one.glue, script=one.script, files=one.files, msk=msk, history=history,
                    load_topic=request.load_topic, partitions=partitions, sla=request.sla,
                    notes=tuple(notes + list(one.notes)), jobs=tuple(jobs) if len(jobs) > 1 else (),
                    triggers=tuple(triggers), partitions_from=sources,
                    night=request.until.date() if request.until else None, trace=traced,
                    trace_file=str(request.trace) if request.trace else None)


def _triggers(request: Request, clients: Clients, from_files: bool) -> list[Trigger]:
    """The triggers of the files given; with jobs read through boto3 and no files, GetTriggers' own."""
    triggers: list[Trigger] = []
    for path in request.glue_triggers:
        triggers += read_triggers(read_json(path, "--glue-triggers"), f"--glue-triggers {path.name}")
    names = [t.name for t in triggers]
    for i, name in enumerate(names):
        if names.index(name) != i:
            raise ScenarioError("--glue-triggers", f"trigger {name!r} is given twice")
    if not request.glue_triggers and not from_files and (len(request.glue_job_name) > 1 or request.glue_job_pattern):
        with aws_errors("--glue-triggers", request.waits):
            triggers = read_triggers(fetch_triggers(clients("glue")), "GetTriggers")
    return triggers


def _partitions(request: Request, history: History | None, topics: list[str],
                notes: list[str]) -> tuple[dict[str, int], dict[str, str]]:
    """Partition counts: --partitions, else the cluster's metadata through --bootstrap-servers (the metrics'
    partition dimension comes after, when the scenario is built); each with where it came from."""
    counts = dict(request.partitions)
    sources = {topic: GIVEN for topic in counts}
    if request.bootstrap_servers:
        wanted = [t for t in topics if t not in counts]
        if history is not None:
            wanted += [t for t in history.topic_bytes if t not in counts and t not in wanted]
        try:
            read = read_partitions(request.bootstrap_servers, wanted, request.waits) if wanted else {}
        except ScenarioError as error:       # read when the cluster answers; else from the metrics or assumed, and said
            notes.append(f"The topics' partition counts were not read from the cluster ({error}).")
            read = {}
        counts.update(read)
        sources.update({t: f"the cluster's metadata through {request.bootstrap_servers}" for t in read})
    return counts, sources
