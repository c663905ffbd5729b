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

from dataclasses import dataclass
from typing import Any

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.producer import Client, ProducerConfig
from workloads.tenant import Tenant
from workloads.units import parse_bytes, parse_int_milliseconds, parse_milliseconds, parse_seconds

KINDS = ("spark-microbatch", "spark-continuous", "spark-realtime", "kafka-streams", "flink")
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


@dataclass(frozen=True, kw_only=True)
class StreamingTenant(Tenant):
    """A streaming pipeline fed by its own upstream producer (the ``Tenant`` fields)."""

    kind: str = f.prop(parse=f.one_of(*KINDS))
    output_topic: str = f.prop(parse=f.text)
    record_cost: float = f.prop(parse=parse_seconds)        # CPU time of the pipeline's work per record
    consumer: ConsumerConfig = f.prop(default_factory=ConsumerConfig)
    sink: ProducerConfig = f.prop()                          # the pipeline's producer to output_topic

    @property
    def workers(self) -> int | None:
        """Threads that process records at once (None: one per input partition)."""
        return None

    def validate(self, cluster: Any, path: str) -> None:
        validate(self, cluster, path)

    @property
    def exactly_once(self) -> bool:
        return False


@dataclass(frozen=True, kw_only=True)
class SparkQuery(StreamingTenant):
    """A Structured Streaming query: its tasks run on ``slots`` cores (default one per partition)."""

    slots: int | None = f.prop(parse=f.positive_int, default=None)

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


@dataclass(frozen=True, kw_only=True)
class SparkContinuous(SparkQuery):
    continuous_ms: float = f.prop("continuous", f.positive(_non_negative_ms), default=1000.0)


@dataclass(frozen=True, kw_only=True)
class SparkRealTime(SparkQuery):
    real_time_ms: float = f.prop("realTime", f.positive(_non_negative_ms), default=300_000.0)   # 5 minutes


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


CLASSES: dict[str, type[StreamingTenant]] = {
    "spark-microbatch": SparkMicroBatch, "spark-continuous": SparkContinuous, "spark-realtime": SparkRealTime,
    "kafka-streams": KafkaStreams, "flink": Flink}

# The frameworks' own client overrides: Kafka Streams sets max.poll.records 1000 on its
# consumer and linger.ms 100 on its producer (StreamsConfig's CONSUMER/PRODUCER_DEFAULT_OVERRIDES).
_CONSUMER_DEFAULTS = {"kafka-streams": {"max.poll.records": 1000}}
_SINK_DEFAULTS = {"kafka-streams": {"linger.ms": 100}}


def kind_class(raw: Any) -> type:
    """The value object a tenant's mapping builds: a producer ``Tenant`` unless it names a kind."""
    kind = raw.get("kind") if isinstance(raw, dict) else None
    return CLASSES.get(str(kind), StreamingTenant) if kind is not None else Tenant


def tenant(raw: Any, path: str) -> Tenant:
    """A tenant from its mapping: a streaming pipeline if it names a ``kind``, else a producer."""
    raw = f.require_mapping(raw, path)
    return build(raw, path) if "kind" in raw else Tenant.build(raw, path)


def build(raw: dict, path: str) -> StreamingTenant:
    kind = f.one_of(*KINDS)(raw.get("kind"), f.join(path, "kind"))
    cls = CLASSES[kind]
    client = Client.build(raw.get("client"), f.join(path, "client"))
    consumer = f.build(ConsumerConfig, {**_CONSUMER_DEFAULTS.get(kind, {}), **f.require_mapping(raw.get("consumer"), f.join(path, "consumer"))},
                       f.join(path, "consumer"))
    sink_raw = {**_SINK_DEFAULTS.get(kind, {}), **f.require_mapping(raw.get("sink"), f.join(path, "sink"))}
    tenant = f.build(cls, raw, path, client=client, consumer=consumer,
                     producer=ProducerConfig.build(raw.get("producer"), client, f.join(path, "producer")),
                     sink=ProducerConfig.build(sink_raw, SINK_CLIENT, f.join(path, "sink")))
    _check(tenant, path)
    return tenant


def _check(tenant: StreamingTenant, path: str) -> None:
    if tenant.output_topic == tenant.topic:
        raise ScenarioError(f.join(path, "output_topic"), f"is the input topic {tenant.topic!r}; a pipeline writes another topic")
    if isinstance(tenant, SparkMicroBatch) and tenant.async_progress and tenant.stateful:
        raise ScenarioError(f.join(path, "asyncProgressTrackingEnabled"), "Spark supports it only in stateless queries (stateful: true)")
    if tenant.exactly_once and tenant.sink.acks != "all":
        raise ScenarioError(f.join(path, "sink.acks"), "a transactional (exactly-once) producer needs acks all")


def validate(tenant: StreamingTenant, cluster: Any, path: str) -> None:
    """Checks that need the cluster: the output topic exists; Spark's continuous and real-time
    modes hold one task per input partition."""
    names = {t.name for t in cluster.topics}
    if tenant.output_topic not in names:
        raise ScenarioError(f.join(path, "output_topic"), f"topic {tenant.output_topic!r} is not in cluster.topics")
    partitions = cluster.topic(tenant.topic).partitions
    if isinstance(tenant, (SparkContinuous, SparkRealTime)) and tenant.slots is not None and tenant.slots < partitions:
        raise ScenarioError(f.join(path, "slots"), f"{tenant.slots} slots cannot hold a long-running task for each of "
                                                   f"the {partitions} partitions of {tenant.topic!r}")


def check_inputs(scenario: Any) -> None:
    """A pipeline's input topic is written by its upstream producer alone: its latency follows
    that producer's records (the load's, another tenant's or another pipeline's output would be
    read too but not timed)."""
    writers: dict[str, list[str]] = {}
    for job in scenario.jobs:
        writers.setdefault(job.topic, []).append("the batch load" if len(scenario.jobs) == 1 else f"batch job {job.name!r}")
    for tenant in scenario.tenants:
        writers.setdefault(tenant.topic, []).append(f"tenant {tenant.name!r}")
        if isinstance(tenant, StreamingTenant):
            writers.setdefault(tenant.output_topic, []).append(f"tenant {tenant.name!r}'s output")
    for i, tenant in enumerate(scenario.tenants):
        others = [w for w in writers[tenant.topic] if w != f"tenant {tenant.name!r}"]
        if isinstance(tenant, StreamingTenant) and others:
            raise ScenarioError(f"tenants[{i}].topic", f"{tenant.topic!r} is also written by {others[0]}; "
                                                       "a pipeline's input topic is fed by its own producer alone")


def is_streaming(tenant: Any) -> bool:
    return isinstance(tenant, StreamingTenant)
