"""The batch jobs of a scenario: the files a job reads, its Spark (or Glue) side, its producer and
quota, and a night's several jobs (``batch:`` a list) checked against each other.

A job is of one of two kinds: ``spark`` (the default: a Spark or Glue job writing files' rows) or
``producer`` (a plain producer application, as ``kafka-producer-perf-test`` runs one: instances
appending records of one size at a rate, or as fast as they can)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.producer import Client, ProducerConfig
from workloads.quota import QUOTA_CLIENT_ID, Quota
from workloads.units import parse_byte_rate, parse_bytes, parse_record_rate, parse_seconds
from workloads.versions import Platform, parse_version, platform

_seconds = parse_seconds
_positive_bytes = f.positive(parse_bytes)
SINGLE_JOB = "batch"   # the name of the one job a mapping gives
JOB_KINDS = ("spark", "producer")
# a producer job's record values: each its own random A-Z bytes (kafka-producer-perf-test 3.0 on),
# one random A-Z value repeated (perf-test before 3.0, KAFKA-12662), or the dataset's rows as JSON
PAYLOADS = ("random", "repeated", "rows")
# the keys only one kind of job takes: a job of the other kind that gives one is refused
_SPARK_KEYS = ("spark", "dataset", "platform")
_PRODUCER_KEYS = ("producers", "records", "record_size", "throughput", "payload", "keys", "host")


@dataclass(frozen=True)
class FileGroup:
    size: int = f.prop(parse=_positive_bytes)
    count: int = f.prop(parse=f.positive_int, default=1)


@dataclass(frozen=True)
class Dataset:
    """The CSV files the job reads, and where their rows come from."""

    files: tuple[FileGroup, ...] = f.prop(parse=lambda v, p: tuple(f.build(FileGroup, x, f"{p}[{i}]") for i, x in enumerate(v))
                                          if isinstance(v, list) and v else _no_files(v, p), default=())
    compression: str = f.prop(parse=f.one_of("none", "gzip"), default="none")
    rows: str = f.prop(parse=f.text, default="card-transactions")
    sample_rows: int = f.prop(parse=f.positive_int, default=2000)

    @property
    def splittable(self) -> bool:
        return self.compression == "none"

    @property
    def file_sizes(self) -> list[int]:
        return [group.size for group in self.files for _ in range(group.count)]


def _no_files(value: Any, path: str) -> None:
    raise ScenarioError(path, f"expected a non-empty list of files like [{{size: 2GB}}], got {value!r}")


@dataclass(frozen=True)
class Spark:
    """The Spark (or Glue) side: executors, file splitting, repartition, per-core rates."""

    executors: int = f.prop("spark.executor.instances", f.positive_int)
    executor_cores: int = f.prop("spark.executor.cores", f.positive_int, default=4)
    # the vCPUs an executor's threads share (its Glue worker's: G.1X 4, G.2X 8); by default its cores
    vcpus: int | None = f.prop(parse=f.positive_int, default=None)
    max_partition_bytes: int = f.prop("spark.sql.files.maxPartitionBytes", _positive_bytes, default=128 * 1024**2)
    open_cost_in_bytes: int = f.prop("spark.sql.files.openCostInBytes", _positive_bytes, default=4 * 1024**2)
    default_parallelism: int | None = f.prop("spark.default.parallelism", f.positive_int, default=None)
    repartition: int | None = f.prop(parse=f.or_none(f.positive_int), default=None)
    append_rate: float | None = f.prop(parse=f.positive(parse_byte_rate), default=None)
    shuffle_append_rate: float | None = f.prop(parse=f.positive(parse_byte_rate), default=None)
    csv_scan_rate: float | None = f.prop(parse=f.positive(parse_byte_rate), default=None)

    @property
    def slots(self) -> int:
        return self.executors * self.executor_cores

    @property
    def parallelism(self) -> int:
        """Spark's defaultParallelism: the setting, else all executor cores (at least 2)."""
        return self.default_parallelism or max(self.slots, 2)


def parse_throughput(value: Any, path: str) -> float | None:
    """``--throughput`` of kafka-producer-perf-test: records per second (``50000/s`` or a number), or
    ``unlimited`` (perf-test's -1): as fast as ``send()`` returns. None means unlimited."""
    if value in ("unlimited", -1, "-1"):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = f"{value}/s"
    rate = parse_record_rate(value, path)
    if rate <= 0:
        raise ScenarioError(path, f"expected records per second greater than zero, or unlimited, got {value!r}")
    return rate


@dataclass(frozen=True)
class ProducerHost:
    """The host each instance of a producer job runs on (one of its own each): its vCPUs."""

    vcpus: int = f.prop(parse=f.positive_int, default=4)


@dataclass(frozen=True)
class BatchJob:
    topic: str = f.prop(parse=f.text)
    # a Spark job's Spark side; a producer job has none
    spark: Spark | None = f.prop(default=None, unset_unsaid=True)
    # built by ``build`` for the job's client; the defaults: the default client's
    client: Client = f.prop(default_factory=Client)
    producer: ProducerConfig = f.prop(default_factory=lambda: ProducerConfig.build(None, Client(), "producer"))
    key: str | None = f.prop(parse=lambda v, p: None if v is None else f.text(v, p), default=None)   # a column of the rows
    start: float | None = f.prop(parse=_seconds, default=None)
    loads: int = f.prop(parse=f.positive_int, default=1)
    spacing: float = f.prop(parse=_seconds, default=0.0)
    quota: Quota = f.prop(parse=lambda v, p: f.build(Quota, v, p), default_factory=Quota)
    # the quota the file states, when the cluster's Express brokers hold the job to a lower byte rate
    stated_quota: Quota | None = f.prop(default=None, internal=True)
    # where the job runs, by name ({glue: 4.0}, {emr: 7.x}, {spark: 3.5}): its kafka-clients
    platform: dict | None = f.prop(parse=lambda v, p: _platform_mapping(v, p), default=None, unset_unsaid=True)
    # a night's jobs (``batch:`` a list) each name themselves; one job as a mapping is ``batch``
    name: str = f.prop(parse=f.client_id, default=SINGLE_JOB, unset_unsaid=True)
    # its producers' client.id, which the brokers meter and log (default: the name; one unnamed job's: batch-load)
    client_id: str = f.prop("client.id", f.client_id, default=QUOTA_CLIENT_ID, unset_unsaid=True)
    # the job's own files; unset: the scenario's ``dataset`` (Scenario resolves it)
    dataset: Dataset | None = f.prop(parse=lambda v, p: f.build(Dataset, v, p), default=None, unset_unsaid=True)
    own_dataset: bool = f.prop(default=False, internal=True)
    # its load, from its own start, must end within this (check's load_deadline); unset: check.deadline
    deadline: float | None = f.prop(parse=f.positive(_seconds), default=None, unset_unsaid=True)
    kind: str = f.prop(parse=f.one_of(*JOB_KINDS), default="spark", unset_unsaid=True)
    # a producer job (kind: producer), as kafka-producer-perf-test takes it: its instances, each
    # --num-records records of --record-size value bytes at --throughput records per second
    producers: int = f.prop(parse=f.positive_int, default=1, unset_unsaid=True)
    records: int | None = f.prop(parse=f.positive_int, default=None, unset_unsaid=True)
    record_size: int | None = f.prop(parse=_positive_bytes, default=None, unset_unsaid=True)
    throughput: float | None = f.prop(parse=parse_throughput, default=None, unset_unsaid=True)
    payload: str | None = f.prop(parse=f.one_of(*PAYLOADS), default=None, unset_unsaid=True)
    keys: int = f.prop(parse=f.non_negative_int, default=0, unset_unsaid=True)    # distinct keys; 0: null keys
    host: ProducerHost = f.prop(parse=lambda v, p: f.build(ProducerHost, v, p), default_factory=ProducerHost,
                                unset_unsaid=True)

    @property
    def instances(self) -> int:
        """Its producer processes: a Spark job's executors, a producer job's producers."""
        return self.spark.executors if self.spark is not None else self.producers

    @property
    def values(self) -> str:
        """Where its record values come from: a producer job's payload (unset: as the perf-test of its
        client's version makes them), a Spark job's rows."""
        if self.kind == "spark":
            return "rows"
        return self.payload or ("random" if self.client.version >= (3, 0, 0) else "repeated")

    @property
    def runs_on(self) -> Platform | None:
        return platform(self.platform, "batch.platform") if self.platform else None

    @classmethod
    def build(cls, raw: Any, path: str) -> "BatchJob":
        raw = f.require_mapping(raw, path)
        kind = f.one_of(*JOB_KINDS)(raw.get("kind", "spark"), f.join(path, "kind"))
        if kind == "producer":
            return cls._producer_job(raw, path)
        for key in _PRODUCER_KEYS:
            if key in raw:
                raise ScenarioError(f.join(path, key), "a Spark job's key? it is a producer job's (kind: producer)")
        where = f.join(path, "platform")
        runs_on = platform(raw["platform"], where) if raw.get("platform") is not None else None
        client = Client.build(raw.get("client"), f.join(path, "client"), runs_on.kafka_clients if runs_on else None)
        if runs_on and client.version != parse_version(runs_on.kafka_clients, where):
            raise ScenarioError(f.join(path, "client.version"),
                                f"{'.'.join(map(str, client.version))} is not the kafka-clients {runs_on.label} brings "
                                f"(Spark {runs_on.spark}: {runs_on.kafka_clients}); give one of them (batch.client.version= "
                                f"leaves it to the platform)")
        named = {"client_id": f.client_id(raw["name"], f.join(path, "name"))} \
            if raw.get("name") is not None and "client.id" not in raw else {}
        return f.build(cls, raw, path, client=client, own_dataset=raw.get("dataset") is not None, **named,
                       spark=f.build(Spark, raw.get("spark"), f.join(path, "spark")),
                       producer=ProducerConfig.build(raw.get("producer"), client, f.join(path, "producer")))

    @classmethod
    def _producer_job(cls, raw: dict, path: str) -> "BatchJob":
        """A plain producer application (``kind: producer``): no Spark side, no files, no key column."""
        for key in _SPARK_KEYS:
            if key in raw:
                raise ScenarioError(f.join(path, key), "a producer job (kind: producer) has no " +
                                    {"spark": "Spark side", "dataset": "files", "platform": "Spark platform"}[key])
        if raw.get("key") is not None:
            raise ScenarioError(f.join(path, "key"), "a producer job's records have no key column; "
                                                     "keys: N gives them N distinct keys")
        for key in ("records", "record_size"):
            if key not in raw and not (key == "record_size" and raw.get("payload") == "rows"):
                raise ScenarioError(f.join(path, key), "required but missing (a producer job's "
                                    + {"records": "--num-records per producer)", "record_size": "--record-size)"}[key])
        if raw.get("payload") == "rows" and "record_size" in raw:
            raise ScenarioError(f.join(path, "record_size"), "payload: rows sends the dataset's rows as they are; "
                                                             "leave record_size out")
        client = Client.build(raw.get("client"), f.join(path, "client"))
        named = {"client_id": f.client_id(raw["name"], f.join(path, "name"))} \
            if raw.get("name") is not None and "client.id" not in raw else {}
        return f.build(cls, raw, path, client=client, **named,
                       producer=ProducerConfig.build(raw.get("producer"), client, f.join(path, "producer")))


def _platform_mapping(value: Any, path: str) -> dict:
    runs_on = platform(value, path)
    return {runs_on.name: runs_on.version}


def parse_jobs(value: Any, path: str) -> tuple[BatchJob, ...]:
    """``batch:`` as one job (a mapping, as ever) or a night's jobs (a list, each named, in file order)."""
    if not isinstance(value, list):
        return (BatchJob.build(value, path),)
    if not value:
        raise ScenarioError(path, "expected at least one batch job (a mapping, or a list of named jobs)")
    built = []
    for i, raw in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(raw, dict):
            raise ScenarioError(where, f"expected a mapping of the job's keys, got {type(raw).__name__}")
        if raw.get("name") is None:
            raise ScenarioError(f"{where}.name", "required but missing (each job of a list is named)")
        built.append(BatchJob.build(raw, where))
    for field in ("name", "client_id"):
        f.said_once(built, path, "{value!r} is also batch[{first}]'s {key}; each job has its own", field)
    return tuple(built)


def job_path(index: int, listed: bool) -> str:
    """Where a job is in the file: ``batch`` for one job given as a mapping, ``batch[i]`` in a list."""
    return f"batch[{index}]" if listed else "batch"


def for_job(overrides: Iterable[str], index: int) -> list[str]:
    """``--set`` values of one job (``batch.``...) addressed to job ``index`` of a night's list
    (``batch[index].``...); the others (the cluster's) as they are."""
    return [f"batch[{index}].{line.removeprefix('batch.')}" if line.startswith("batch.") else line for line in overrides]


def job_mappings(scenario: dict) -> list[dict]:
    """A scenario mapping's jobs (a scenario file's or a result's ``scenario``): its ``batch`` mapping
    alone, or each of its list."""
    batch = scenario.get("batch")
    return [job for job in batch if isinstance(job, dict)] if isinstance(batch, list) else [batch] if isinstance(batch, dict) else []


def first_job(scenario: dict) -> dict:
    """The first job's mapping (the only one, unless ``batch:`` lists a night's); {} when there is none."""
    return (job_mappings(scenario) or [{}])[0]
