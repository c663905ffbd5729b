"""Streaming neighbours: pipelines that consume a topic, do work per record and produce again.

A streaming tenant is a ``Tenant`` (its ``topic``, ``rate``, ``record_size``, ``client``,
``producer`` and ``keys`` describe the upstream producer that feeds the input topic at a fixed
rate) plus the pipeline: its ``kind``, the ``output_topic`` it writes, the CPU time it spends on
each record (``record_cost``), its consumer's fetch settings, its sink producer's settings, and
its framework's own knobs under the framework's names. Its ``sla_p99`` is on the end-to-end
latency: from the input record's intended send time (no coordinated omission) to the
acknowledgement of the output record it became (for exactly-once, the commit that makes the
output visible to read_committed consumers).

Kinds and knobs (defaults are the frameworks' own where they have one):

- ``spark-microbatch``: ``processingTime`` (the trigger interval; 0 = as fast as possible),
  ``maxOffsetsPerTrigger``, ``asyncProgressTrackingEnabled``,
  ``asyncProgressTrackingCheckpointIntervalMs``, ``stateful``, ``slots``.
- ``spark-continuous``: ``continuous`` (the trigger's checkpoint interval), ``slots``.
- ``spark-realtime``: ``realTime`` (Spark 4.1's trigger keyword: the checkpoint interval),
  ``slots``.
- ``kafka-streams``: ``num.stream.threads``, ``commit.interval.ms``, ``processing.guarantee``.
- ``flink``: ``parallelism.default``, ``execution.checkpointing.interval``,
  ``execution.buffer-timeout``, ``sink.delivery-guarantee``.

``slots`` are the task slots a Spark query holds: continuous and real-time mode reserve one
long-running task per input partition and refuse to start with fewer.

In a RunResult a streaming tenant has the producer tenants' shape, so that every check, study,
plan and report reads its SLA as theirs: ``tenants[i]`` = {``name``, ``client``, ``topic``,
``sla_p99_ms``, ``records``, ``produce_requests``, ``latency_ms``: {``before``|``during``|``after``:
{``p50``, ``p95``, ``p99``, ``p999``, ``max``}}} where ``latency_ms`` is END TO END (records by
their input record's intended send time), plus ``kind``, ``output_topic``, ``upstream_latency_ms``
(the upstream producer's send -> acknowledgement, same windows) and ``streaming`` (the framework's
figures, by evaluator); ``summary.tenants[i]`` carries ``p99_ms_before|during|after`` of the end
to end latency as for a producer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.producer import Client, ProducerConfig
from workloads.tenant import Tenant
from workloads.units import parse_bytes, parse_int_milliseconds, parse_milliseconds, parse_seconds

SINK_CLIENT = Client(kind="java", version=(3, 9, 0))   # the kafka-clients Spark 4.1 ships with


def _non_negative_ms(value: Any, path: str) -> float:
    return parse_milliseconds(value, path)


@dataclass(frozen=True)
class ConsumerConfig:
    """The pipeline's consumer fetch settings (KafkaConsumer's names and defaults)."""

    fetch_min_bytes: int = f.prop("fetch.min.bytes", f.positive(parse_bytes), default=1)
    fetch_max_wait_ms: float = f.prop("fetch.max.wait.ms", parse_int_milliseconds, default=500.0)
    max_poll_records: int = f.prop("max.poll.records", f.positive_int, default=500)
    max_partition_fetch_bytes: int = f.prop("max.partition.fetch.bytes", f.positive(parse_bytes), default=1_048_576)

    def as_properties(self) -> dict[str, Any]:
        """KafkaConsumer's names, each value as its configuration takes it (milliseconds: a whole int)."""
        return {key: int(value) if isinstance(value, float) else value for key, value in f.as_mapping(self).items()}


@dataclass(frozen=True, kw_only=True)
class StreamingTenant(Tenant):
    """A streaming pipeline fed by its own upstream producer (the ``Tenant`` fields)."""

    kind: str = f.prop(parse=f.text)                         # its record's name (workloads.kinds)
    output_topic: str = f.prop(parse=f.text)
    record_cost: float = f.prop(parse=parse_seconds)        # CPU time of the pipeline's work per record
    consumer: ConsumerConfig = f.prop(default_factory=ConsumerConfig)
    sink: ProducerConfig = f.prop()                          # the pipeline's producer to output_topic

    @property
    def workers(self) -> int | None:
        """Threads that process records at once (None: one per input partition)."""
        return None

    # Spark caches one producer per executor JVM: its tasks share it; other frameworks' workers
    # (Kafka Streams' stream threads, Flink's subtasks) each have their own
    producer_per_worker: ClassVar[bool] = True
    # continuous and real-time mode hold a long-running task per input partition
    task_per_partition: ClassVar[bool] = False

    @property
    def exactly_once(self) -> bool:
        return False

    @property
    def commit_every(self) -> float:
        """Seconds between the commits a worker thread makes itself (inf: none)."""
        return math.inf

    @property
    def plan_every(self) -> float:
        """Seconds between the stops a worker makes to plan the next long batch (inf: none)."""
        return math.inf

    @property
    def checkpoint_commit_every(self) -> float | None:
        """Seconds between the checkpoints that commit every sink's transaction (None: none)."""
        return None

    def check(self, path: str) -> None:
        """Checks of the pipeline on its own (``validate``: those that need the cluster)."""
        if self.output_topic == self.topic:
            raise ScenarioError(f.join(path, "output_topic"), f"is the input topic {self.topic!r}; a pipeline writes another topic")
        if self.exactly_once and self.sink.acks != "all":
            raise ScenarioError(f.join(path, "sink.acks"), "a transactional (exactly-once) producer needs acks all")

    def validate(self, cluster: Any, path: str) -> None:
        """Checks that need the cluster: the output topic exists; a query holding a task per input
        partition has a slot for each."""
        names = {t.name for t in cluster.topics}
        if self.output_topic not in names:
            raise ScenarioError(f.join(path, "output_topic"), f"topic {self.output_topic!r} is not in cluster.topics")
        partitions = cluster.topic(self.topic).partitions
        workers = self.workers
        if self.task_per_partition and workers is not None and workers < partitions:
            raise ScenarioError(f.join(path, "slots"), f"{workers} slots cannot hold a long-running task for each of "
                                                       f"the {partitions} partitions of {self.topic!r}")


@dataclass(frozen=True, kw_only=True)
class SparkQuery(StreamingTenant):
    """A Structured Streaming query: its tasks run on ``slots`` cores (default one per partition)."""

    slots: int | None = f.prop(parse=f.positive_int, default=None)
    producer_per_worker: ClassVar[bool] = False

    @property
    def workers(self) -> int | None:
        return self.slots


@dataclass(frozen=True, kw_only=True)
class SparkMicroBatch(SparkQuery):
    processing_time_ms: float = f.prop("processingTime", _non_negative_ms, default=0.0)
    max_offsets_per_trigger: int | None = f.prop("maxOffsetsPerTrigger", f.positive_int, default=None)
    async_progress: bool = f.prop("asyncProgressTrackingEnabled", f.boolean, default=False)
    # AsyncProgressTrackingMicroBatchExecution's default: progress written at most once a second
    async_checkpoint_interval_ms: float = f.prop("asyncProgressTrackingCheckpointIntervalMs", _non_negative_ms, default=1000.0)
    stateful: bool = f.prop(parse=f.boolean, default=False)

    def check(self, path: str) -> None:
        super().check(path)
        if self.async_progress and self.stateful:
            raise ScenarioError(f.join(path, "asyncProgressTrackingEnabled"), "Spark supports it only in stateless queries (stateful: true)")


@dataclass(frozen=True, kw_only=True)
class SparkContinuous(SparkQuery):
    continuous_ms: float = f.prop("continuous", f.positive(_non_negative_ms), default=1000.0)
    task_per_partition: ClassVar[bool] = True


@dataclass(frozen=True, kw_only=True)
class SparkRealTime(SparkQuery):
    real_time_ms: float = f.prop("realTime", f.positive(_non_negative_ms), default=300_000.0)   # 5 minutes
    task_per_partition: ClassVar[bool] = True

    @property
    def plan_every(self) -> float:
        return self.real_time_ms / 1e3


GUARANTEES = ("at_least_once", "exactly_once_v2")


@dataclass(frozen=True, kw_only=True)
class KafkaStreams(StreamingTenant):
    num_stream_threads: int = f.prop("num.stream.threads", f.positive_int, default=1)
    # StreamsConfig: 30000 ms, or 100 ms under exactly-once
    commit_interval_ms: float | None = f.prop("commit.interval.ms", _non_negative_ms, default=None)
    processing_guarantee: str = f.prop("processing.guarantee", f.one_of(*GUARANTEES), default="at_least_once")

    @property
    def workers(self) -> int | None:
        return self.num_stream_threads

    @property
    def exactly_once(self) -> bool:
        return self.processing_guarantee == "exactly_once_v2"

    @property
    def commit_interval(self) -> float:
        """Seconds between commits (Kafka Streams' default for the guarantee when not set)."""
        if self.commit_interval_ms is not None:
            return self.commit_interval_ms / 1e3
        return 0.1 if self.exactly_once else 30.0

    @property
    def commit_every(self) -> float:
        return self.commit_interval


DELIVERY = ("none", "at-least-once", "exactly-once")


@dataclass(frozen=True, kw_only=True)
class Flink(StreamingTenant):
    parallelism: int = f.prop("parallelism.default", f.positive_int, default=1)
    checkpoint_interval_ms: float | None = f.prop("execution.checkpointing.interval", f.positive(_non_negative_ms), default=None)
    buffer_timeout_ms: float = f.prop("execution.buffer-timeout", _non_negative_ms, default=100.0)
    delivery_guarantee: str = f.prop("sink.delivery-guarantee", f.one_of(*DELIVERY), default="at-least-once")

    @property
    def workers(self) -> int | None:
        return self.parallelism

    @property
    def exactly_once(self) -> bool:
        return self.delivery_guarantee == "exactly-once"

    @property
    def checkpoint_commit_every(self) -> float | None:
        # the exactly-once sink commits at checkpoints; unset, the model checkpoints once a minute
        return (self.checkpoint_interval_ms or 60_000.0) / 1e3 if self.exactly_once else None
