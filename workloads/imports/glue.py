"""A Glue job (the JSON of ``aws glue get-job``) as the scenario's batch job: workers -> executors,
cores and vCPUs; Glue version -> Spark and kafka-clients versions (and so the producer's defaults);
``--conf`` and job parameters -> Spark settings.

Worker types: AWS Glue worker types, https://docs.aws.amazon.com/glue/latest/dg/worker-types.html
(a DPU is 4 vCPUs and 16 GB; G.1X 1 DPU, G.2X 2, G.4X 4, G.8X 8, G.12X 12, G.16X 16; R.* the same
vCPUs with double memory; G.025X 2 vCPUs, streaming jobs; Standard 4 vCPUs and 2 executors per
worker, per the AWS CDK's WorkerType reference). Glue versions:
https://docs.aws.amazon.com/glue/latest/dg/release-notes.html (5.1 Spark 3.5.6, 5.0 Spark 3.5.4,
4.0 Spark 3.3.0, 3.0 Spark 3.1.1, 2.0 Spark 2.4.3). The kafka-clients version is the one
spark-sql-kafka-0-10 of that Spark release depends on (its pom's kafka.version: Spark 3.5 3.4.1,
3.3 2.8.1, 3.1 2.6.0, 2.4 2.0.0).
"""
from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from typing import Any

from workloads.errors import ScenarioError
from workloads.units import whole_number
from workloads.versions import GLUE_SPARK, platform

# worker type -> (vCPUs per worker, executors per worker)
WORKER_TYPES = {"G.025X": (2, 1), "G.1X": (4, 1), "G.2X": (8, 1), "G.4X": (16, 1), "G.8X": (32, 1),
                "G.12X": (48, 1), "G.16X": (64, 1), "R.1X": (4, 1), "R.2X": (8, 1), "R.4X": (16, 1),
                "R.8X": (32, 1), "Standard": (4, 2)}
# Glue version -> (Spark, kafka-clients that its spark-sql-kafka-0-10 brings): workloads.versions' tables
GLUE_VERSIONS = {glue: (spark, platform({"glue": glue}, "glue").kafka_clients) for glue, spark in GLUE_SPARK.items()}
DEFAULT_GLUE_VERSION = "0.9"    # get-job omits GlueVersion for jobs created before versions existed
SPARK_SETTINGS = ("spark.executor.instances", "spark.executor.cores", "spark.sql.files.maxPartitionBytes",
                  "spark.sql.files.openCostInBytes", "spark.default.parallelism")


@dataclass(frozen=True)
class GlueJob:
    """What a Glue job says about the batch job."""

    name: str
    glue_version: str
    worker_type: str
    workers: int
    script_location: str | None
    spark: dict[str, Any]                     # the scenario's batch.spark
    client_version: str                       # kafka-clients
    parameters: dict[str, str] = field(default_factory=dict)   # job parameters without their "--"
    notes: tuple[str, ...] = ()


def _number(value: Any, where: str) -> int:
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 1
            or value != int(value)):
        shown = repr(value) if len(repr(value)) <= 20 else repr(value)[:20] + "..."
        raise ScenarioError(where, f"expected a whole number of workers of at least 1, got {shown}")
    return int(value)


def spark_conf(text: str, where: str) -> dict[str, str]:
    """Glue's ``--conf`` value: ``k=v`` or ``k=v --conf k2=v2`` (Glue passes further --conf inside it)."""
    settings = {}
    for token in shlex.split(text):
        if token == "--conf":
            continue
        key, sep, value = token.partition("=")
        if not sep or not key.startswith("spark."):
            raise ScenarioError(where, f"expected Spark settings like spark.sql.shuffle.partitions=60, got {token.split('=')[0]!r}")
        settings[key] = value
    return settings


def read_glue_job(document: Any, where: str = "--glue-job") -> GlueJob:
    """The job of a ``get-job`` response (``{"Job": {...}}``)."""
    job = document.get("Job") if isinstance(document, dict) else None
    if not isinstance(job, dict) or not isinstance(job.get("Command"), dict):
        raise ScenarioError(where, 'not the JSON of `aws glue get-job`: no "Job" object with a "Command"')
    command = job["Command"]
    if command.get("Name") not in ("glueetl", "gluestreaming"):
        raise ScenarioError(f"{where}: Job.Command.Name", f"a Spark job is glueetl or gluestreaming, got {command.get('Name')!r}")
    worker_type = job.get("WorkerType")
    if worker_type is None:
        raise ScenarioError(f"{where}: Job.WorkerType", "missing: a job sized by MaxCapacity alone names no worker type")
    if worker_type not in WORKER_TYPES:
        raise ScenarioError(f"{where}: Job.WorkerType", f"unknown worker type {worker_type!r} (known: {', '.join(WORKER_TYPES)})")
    workers = _number(job.get("NumberOfWorkers"), f"{where}: Job.NumberOfWorkers")
    version = str(job.get("GlueVersion") or DEFAULT_GLUE_VERSION)
    if version not in GLUE_VERSIONS:
        raise ScenarioError(f"{where}: Job.GlueVersion", f"Glue {version} is not one quietload knows (known: {', '.join(GLUE_VERSIONS)})")
    spark_version, client_version = GLUE_VERSIONS[version]
    arguments = job.get("DefaultArguments") or {}
    if not isinstance(arguments, dict):
        raise ScenarioError(f"{where}: Job.DefaultArguments", "expected an object of job parameters")
    conf = spark_conf(str(arguments["--conf"]), f"{where}: Job.DefaultArguments.--conf") if "--conf" in arguments else {}
    vcpus, per_worker = WORKER_TYPES[worker_type]
    if workers < 2 and per_worker == 1:
        raise ScenarioError(f"{where}: Job.NumberOfWorkers", f"{workers} {worker_type} worker runs only the driver: no executor writes")
    spark: dict[str, Any] = {"spark.executor.instances": workers * per_worker - 1,
                             "spark.executor.cores": vcpus // per_worker, "vcpus": vcpus // per_worker}
    for key in SPARK_SETTINGS:
        if key in conf:
            spark[key] = conf[key] if whole_number(conf[key]) is None else whole_number(conf[key])
    notes = [f"AWS Glue {version} (Spark {spark_version}; its spark-sql-kafka-0-10 brings kafka-clients {client_version}), "
             f"from the job {job.get('Name', '?')!r}.",
             f"{workers} {worker_type} workers ({vcpus} vCPUs each): one executor slot runs the driver, so "
             f"{spark['spark.executor.instances']} executors of {spark['spark.executor.cores']} cores, as Glue sizes them."]
    if set(conf) & set(SPARK_SETTINGS):
        notes.append("Spark settings from the job's --conf: " + ", ".join(sorted(set(conf) & set(SPARK_SETTINGS))) + ".")
    parameters = {k[2:]: str(v) for k, v in arguments.items() if isinstance(k, str) and k.startswith("--")}
    return GlueJob(str(job.get("Name", "")), version, worker_type, workers, command.get("ScriptLocation"), spark,
                   client_version, parameters, tuple(notes))


def fetch_glue_job(name: str, client: Any) -> dict:
    """``get-job`` through boto3's Glue client (given, so a test can stub it)."""
    return client.get_job(JobName=name)
