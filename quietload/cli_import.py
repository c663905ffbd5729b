"""`quietload import`: the user's own Glue job, MSK cluster and metrics as a scenario file."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from quietload.options import ReplaceProfile
from quietload.terminal import echo

_File = Annotated[Path | None, typer.Option(metavar="FILE")]


def _partitions(values: list[str] | None) -> dict[str, int]:
    from workloads import ScenarioError
    from workloads.units import whole_number
    out = {}
    for value in values or []:
        topic, _, count = value.rpartition("=")
        number = whole_number(count)
        if not topic or number is None or number < 1:
            raise ScenarioError("--partitions", f"expected TOPIC=N with N at least 1, got {value[:40]!r}")
        out[topic] = number
    return out


def import_(
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The scenario file to write.")],
    glue_job: Annotated[list[Path] | None, typer.Option("--glue-job", metavar="JOB.json", help="The JSON `aws glue get-job` (or get-jobs) returns; repeat it for a night's jobs.")] = None,
    glue_job_name: Annotated[list[str] | None, typer.Option("--glue-job-name", metavar="NAME", help="A Glue job, read through boto3 (repeatable).")] = None,
    glue_job_pattern: Annotated[str | None, typer.Option("--glue-job-pattern", metavar="PATTERN", help="Every job whose name matches (fnmatch), among --glue-job's or all of get-jobs'; with --bootstrap-servers, those whose script writes to them.")] = None,
    glue_triggers: Annotated[list[Path] | None, typer.Option("--glue-triggers", metavar="TRIGGERS.json", help="The JSON `aws glue get-triggers` returns: when each job starts.")] = None,
    bootstrap_servers: Annotated[str | None, typer.Option("--bootstrap-servers", metavar="HOST:PORT,...", help="The cluster's brokers: its topics' partition counts are read from them.")] = None,
    script: Annotated[str | None, typer.Option("--script", metavar="job.py|s3://...", help="The job's PySpark script (read, never run); default: the job's ScriptLocation.")] = None,
    msk_cluster: Annotated[Path | None, typer.Option("--msk-cluster", metavar="CLUSTER.json", help="The JSON `aws kafka describe-cluster-v2` returns.")] = None,
    msk_cluster_arn: Annotated[str | None, typer.Option("--msk-cluster-arn", metavar="ARN", help="The MSK cluster, read through boto3.")] = None,
    configuration: Annotated[Path | None, typer.Option("--configuration", metavar="server.properties", help="The cluster's configuration.")] = None,
    cloudwatch: Annotated[str | None, typer.Option("--cloudwatch", metavar="CLUSTER_NAME", help="Read the cluster's AWS/Kafka metrics from CloudWatch.")] = None,
    since: Annotated[str, typer.Option("--since", metavar="DURATION", help="How much CloudWatch history, e.g. 14d or 36h.")] = "14d",
    until: Annotated[str | None, typer.Option("--until", metavar="ISO-TIME", help="The history's end (default: now), e.g. 2026-11-20T00:00:00Z; a night's triggers are read from that day on.")] = None,
    period: Annotated[int, typer.Option("--period", metavar="SECONDS", help="Seconds per metric point (MSK publishes each minute).")] = 60,
    prometheus: Annotated[list[str] | None, typer.Option("--prometheus", metavar="URL", help="A broker's JMX exporter endpoint, once per broker.")] = None,
    prometheus_for: Annotated[str, typer.Option("--for", metavar="DURATION", help="With --prometheus: how long to sample, e.g. 10min.")] = "1min",
    load_topic: Annotated[str | None, typer.Option("--load-topic", metavar="TOPIC", help="The batch load's topic (default: the script's).")] = None,
    partitions: Annotated[list[str] | None, typer.Option("--partitions", metavar="TOPIC=N", help="A topic's partition count (repeatable).")] = None,
    sla: Annotated[str | None, typer.Option("--sla", metavar="DURATION", help="The neighbours' p99 SLA (default 10ms, assumed).")] = None,
    profile: Annotated[str | None, typer.Option("--profile", metavar="NAME|PATH", help="Fit a cost profile to the metrics' past loads and write it here.")] = None,
    history: Annotated[Path | None, typer.Option("--history", metavar="FILE", help="Where the metrics go, for validate --history (default: beside --out).")] = None,
    timeout: Annotated[str, typer.Option("--timeout", metavar="DURATION", help="How long one network call may wait in all: its connection, its answer and its retries (a slow one is said on stderr after 5 s).")] = "20s",
    deadline: Annotated[str, typer.Option("--deadline", metavar="DURATION", help="How long the import may wait on the network in all (beyond --for's sampling).")] = "10min",
    trace: Annotated[Path | None, typer.Option("--trace", metavar="FILE.qltrace", help="The job's append trace (the interceptor's quietload-trace-PID.qltrace): its append rate per thread.")] = None,
    force: ReplaceProfile = False,
) -> None:
    """Write a scenario of your own Glue job and MSK cluster, with the neighbours, the quiet baseline and the
    past loads found in the cluster's metrics; what no source gives is a stated default, listed in the
    scenario's assumptions. With --profile, fit the broker's costs to the past loads.

    Example: quietload import --glue-job job.json --msk-cluster cluster.json --cloudwatch payments --since 14d --out mine.yaml

    A night: quietload import --glue-job daily.json --glue-job hourly.json --glue-triggers triggers.json --out night.yaml
    """
    from quietload.paths import check_output_file
    from tuner.calibration.calibrate import profile_target
    from tuner.calibration.history import import_and_write, render_import
    from workloads.imports import Request, gather
    from workloads.imports.network import Waits
    from workloads.imports.sources import FOR_MAX_S, parse_since, parse_until

    inputs = [*(("--glue-job", job) for job in glue_job or []), *(("--glue-triggers", t) for t in glue_triggers or []),
              ("--msk-cluster", msk_cluster), ("--configuration", configuration), ("--trace", trace),
              ("--script", script if script and "://" not in script else None)]
    check_output_file(out, "--out", inputs=inputs)            # before any source is read
    metrics = history or (out.with_name(out.stem + ".history.json") if cloudwatch or prometheus else None)
    check_output_file(metrics, "--history", inputs=inputs, outputs=[("--out", out)])
    if profile:   # a bare name goes to workloads/profiles/NAME.yaml: checked as a path given would be
        check_output_file(profile_target(profile, force, "--profile"), "--profile", inputs=inputs, outputs=[("--out", out), ("--history", metrics)])
    request = Request(tuple(glue_job or ()), tuple(glue_job_name or ()), script, msk_cluster, msk_cluster_arn, configuration,
                      cloudwatch, parse_since(since, "--since"), parse_until(until), period, tuple(prometheus or ()),
                      parse_since(prometheus_for, "--for", FOR_MAX_S), load_topic, _partitions(partitions), sla,
                      Waits(parse_since(timeout, "--timeout", 3600.0), parse_since(deadline, "--deadline", 86400.0),
                            tell=lambda line: echo(line, err=True)),
                      glue_job_pattern, tuple(glue_triggers or ()), bootstrap_servers, trace)
    outcome = import_and_write(gather(request), out, history, profile, force)
    echo(render_import(outcome))
    for warning in outcome.warnings:
        echo(f"warning: {warning}", err=True)
