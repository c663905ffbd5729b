"""Read every source an import names (files, or AWS through boto3) into ``Imported``.

AWS calls go through clients made by ``clients`` (boto3's, so a test can hand in stubbed or
LocalStack-bound ones); what AWS refuses becomes one line naming the call, never a traceback and
never a credential.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from workloads.errors import ScenarioError
from workloads.imports import cloudwatch, prometheus
from workloads.imports.glue import fetch_glue_job, read_glue_job
from workloads.imports.msk import fetch_msk_cluster, read_msk_cluster, read_properties
from workloads.imports.script import input_files, read_script
from workloads.imports.scenario_writer import Imported
from workloads.loader import read_text
from workloads.units import parse_seconds

Clients = Callable[[str], Any]


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


def parse_since(text: str, where: str) -> float:
    """A duration in seconds: the units of a scenario's durations, and days (``14d``)."""
    value = text.strip()
    if value.endswith("d") and value[:-1].replace(".", "", 1).isdigit():
        seconds = float(value[:-1]) * 86400
    else:
        seconds = parse_seconds(value, where)
    if not seconds > 0:
        raise ScenarioError(where, f"expected a duration greater than zero, got {text!r}")
    return seconds


def parse_until(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ScenarioError("--until", f"expected a time like 2026-11-20T00:00:00Z, got {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def boto3_clients(service: str) -> Any:
    import boto3     # an optional extra, loaded only when an import asks AWS
    return boto3.client(service)      # called inside the caller's aws_errors, which names the option


@contextmanager
def aws_errors(what: str) -> Iterator[None]:
    """botocore's exceptions as one line naming ``what``; none of them carries a secret key."""
    from botocore import exceptions as aws     # boto3's, loaded only when an import asks AWS
    try:
        yield
    except aws.NoCredentialsError:
        raise ScenarioError(what, "no AWS credentials found (AWS_PROFILE, or AWS_ACCESS_KEY_ID and "
                            "AWS_SECRET_ACCESS_KEY, or an instance role)") from None
    except aws.NoRegionError:
        raise ScenarioError(what, "no AWS region set (AWS_REGION or AWS_DEFAULT_REGION)") from None
    except aws.ClientError as error:
        detail = error.response.get("Error", {})
        raise ScenarioError(what, f"{detail.get('Code', 'error')}: {detail.get('Message', '')}".rstrip(": ")) from None
    except aws.EndpointConnectionError as error:
        raise ScenarioError(what, f"cannot reach {error.kwargs.get('endpoint_url', 'the endpoint')}") from None
    except aws.BotoCoreError as error:
        raise ScenarioError(what, type(error).__name__) from None


def _json(path: Path, where: str) -> Any:
    try:
        return json.loads(read_text(path, where))
    except json.JSONDecodeError as error:
        raise ScenarioError(where, f"{path}: not JSON ({error.msg} at line {error.lineno})") from None


def _s3_object(uri: str, clients: Clients, where: str) -> str:
    bucket, _, key = uri.split("://", 1)[1].partition("/")
    with aws_errors(where):
        body = clients("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    try:
        return body.decode()
    except UnicodeDecodeError:
        raise ScenarioError(where, f"{uri}: not a text file") from None


def gather(request: Request, clients: Clients = boto3_clients) -> Imported:
    """Every source the request names, read and checked; nothing written."""
    glue = None
    if request.glue_job or request.glue_job_name:
        if request.glue_job and request.glue_job_name:
            raise ScenarioError("--glue-job", "give the job's JSON or its name (--glue-job-name), not both")
        if request.glue_job:
            document = _json(request.glue_job, "--glue-job")
        else:
            with aws_errors("--glue-job-name"):
                document = fetch_glue_job(str(request.glue_job_name), clients("glue"))
        glue = read_glue_job(document, "--glue-job" if request.glue_job else "--glue-job-name")
    script, files, notes = None, None, []
    location = request.script or (glue.script_location if glue else None)
    if location:
        where = "--script" if request.script else "--glue-job: Job.Command.ScriptLocation"
        try:
            text = (_s3_object(location, clients, where) if location.startswith("s3://")
                    else read_text(Path(location), where))
        except (ScenarioError, ModuleNotFoundError) as error:     # ModuleNotFoundError: without the aws extra
            if request.script:
                raise
            text = None      # the job's own script is read when S3 is reachable; else its settings are assumed, and said
            notes.append(f"The job's script was not read ({error}); give --script job.py.")
        script = read_script(text, glue.parameters if glue else {}, where) if text is not None else None
        if script and script.input_paths:
            try:
                with aws_errors("input"):
                    files = input_files(script.input_paths, clients("s3"))
            except (ScenarioError, ModuleNotFoundError) as error:   # read when S3 is reachable; else assumed, and said
                notes.append(f"The input's sizes were not read from S3 ({error}).")
    msk = None
    if request.msk_cluster or request.msk_cluster_arn:
        if request.msk_cluster and request.msk_cluster_arn:
            raise ScenarioError("--msk-cluster", "give the cluster's JSON or its ARN (--msk-cluster-arn), not both")
        properties = read_properties(read_text(request.configuration, "--configuration")) if request.configuration else None
        if request.msk_cluster:
            document = _json(request.msk_cluster, "--msk-cluster")
        else:
            with aws_errors("--msk-cluster-arn"):
                document = fetch_msk_cluster(str(request.msk_cluster_arn), clients("kafka"))
        msk = read_msk_cluster(document, properties, "--msk-cluster" if request.msk_cluster else "--msk-cluster-arn")
    elif request.configuration:
        raise ScenarioError("--configuration", "is the configuration of an MSK cluster: give --msk-cluster or --msk-cluster-arn too")
    history = None
    if request.cloudwatch and request.prometheus:
        raise ScenarioError("--cloudwatch", "read the metrics from CloudWatch or from --prometheus, not both")
    if request.cloudwatch:
        end = request.until or datetime.now(timezone.utc)
        with aws_errors("--cloudwatch"):
            history = cloudwatch.fetch(clients("cloudwatch"), request.cloudwatch, end - timedelta(seconds=request.since),
                                       end, request.period, msk.monitoring if msk else None)
    elif request.prometheus:
        vcpus = msk.kind.vcpus if msk else 2
        history = prometheus.sample(list(request.prometheus), request.prometheus_for, request.period, vcpus)
    return Imported(glue=glue, script=script, files=files, msk=msk, history=history, load_topic=request.load_topic,
                    partitions=dict(request.partitions), sla=request.sla, notes=tuple(notes))
