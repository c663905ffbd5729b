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

from workloads.errors import ScenarioError
from workloads.imports import cloudwatch, prometheus
from workloads.imports.glue import fetch_glue_job, read_glue_job
from workloads.imports.network import Clients, Waits, aws_clients, aws_errors
from workloads.imports.msk import fetch_msk_cluster, read_msk_cluster, read_properties
from workloads.imports.script import input_files, read_script
from workloads.imports.scenario_writer import Imported
from workloads.reader import read_json, read_text
from workloads.units import parse_seconds

@dataclass(frozen=True)
class Request:
    glue_job: Path | None = None
    glue_job_name: str | None = None
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


def _s3_object(uri: str, clients: Clients, where: str, waits: Waits) -> str:
    bucket, _, key = uri.split("://", 1)[1].partition("/")
    with aws_errors(where, waits):
        body = clients("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    try:
        return body.decode()
    except UnicodeDecodeError:
        raise ScenarioError(where, f"{uri}: not a text file") from None


def gather(request: Request, clients: Clients | None = None) -> Imported:
    """Every source the request names, read and checked; nothing written."""
    if not any(given is not None and given != () for given in (
            request.glue_job, request.glue_job_name, request.script, request.msk_cluster, request.msk_cluster_arn,
            request.configuration, request.cloudwatch, request.prometheus)):
        raise ScenarioError("import", "nothing to import: give a job (--glue-job, --glue-job-name, --script), a cluster "
                                      "(--msk-cluster, --msk-cluster-arn) or its metrics (--cloudwatch, --prometheus)")
    clients = clients or aws_clients(request.waits)
    glue = None
    if request.glue_job or request.glue_job_name:
        if request.glue_job and request.glue_job_name:
            raise ScenarioError("--glue-job", "give the job's JSON or its name (--glue-job-name), not both")
        if request.glue_job:
            document = read_json(request.glue_job, "--glue-job")
        else:
            with aws_errors("--glue-job-name", request.waits):
                document = fetch_glue_job(str(request.glue_job_name), clients("glue"))
        glue = read_glue_job(document, "--glue-job" if request.glue_job else "--glue-job-name")
    script, files, notes = None, None, []
    location = request.script or (glue.script_location if glue else None)
    if location:
        where = "--script" if request.script else "--glue-job: Job.Command.ScriptLocation"
        try:
            text = (_s3_object(location, clients, where, request.waits) if location.startswith("s3://")
                    else read_text(Path(location), where))
        except (ScenarioError, ModuleNotFoundError) as error:     # ModuleNotFoundError: without the aws extra
            if request.script:
                raise
            text = None      # the job's own script is read when S3 is reachable; else its settings are assumed, and said
            notes.append(f"The job's script was not read ({error}); give --script job.py.")
        script = read_script(text, glue.parameters if glue else {}, where) if text is not None else None
        if script and script.input_paths:
            try:
                with aws_errors("input", request.waits):
                    files = input_files(script.input_paths, clients("s3"))
            except (ScenarioError, ModuleNotFoundError) as error:   # read when S3 is reachable; else assumed, and said
                notes.append(f"The input's sizes were not read from S3 ({error}).")
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
    return Imported(glue=glue, script=script, files=files, msk=msk, history=history, load_topic=request.load_topic,
                    partitions=dict(request.partitions), sla=request.sla, notes=tuple(notes))
