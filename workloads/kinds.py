"""Neighbour kinds by registration: one record per kind, as Kafka's ``ApiKeys`` lists its requests.

A tenant's ``kind`` (none: a producer) chooses its record here: the value object its mapping
builds and the framework's own overrides of its clients' defaults. Each evaluator registers what
runs a kind under the same name (``simulator.model.pipelines``, ``simulator.live.pipelines``);
nothing else asks which kind a tenant is. A new kind: its record here (with its value class in
``workloads.streaming``), its model pipeline and its live app.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.producer import Client, ProducerConfig
from workloads.streaming import (SINK_CLIENT, ConsumerConfig, Flink, KafkaStreams, SparkContinuous, SparkMicroBatch,
                                 SparkRealTime, StreamingTenant)
from workloads.tenant import Tenant
from workloads.settings import LINGER_MS_CONFIG

PRODUCER = "producer"     # a tenant that names no kind


@dataclass(frozen=True)
class NeighbourKind:
    name: str                      # the tenant's ``kind``
    value: type[Tenant]            # the value object its mapping builds
    # the framework's own overrides of its clients' defaults, under Kafka's names
    consumer: Mapping[str, Any] = field(default_factory=dict)
    sink: Mapping[str, Any] = field(default_factory=dict)

    @property
    def pipeline(self) -> bool:
        """A streaming pipeline fed by its own upstream producer (the ``Tenant`` fields), timed end to end."""
        return self.name != PRODUCER


KINDS: tuple[NeighbourKind, ...] = (
    NeighbourKind(PRODUCER, Tenant),
    NeighbourKind("spark-microbatch", SparkMicroBatch),
    NeighbourKind("spark-continuous", SparkContinuous),
    NeighbourKind("spark-realtime", SparkRealTime),
    # StreamsConfig's CONSUMER/PRODUCER_DEFAULT_OVERRIDES: max.poll.records 1000, linger.ms 100
    NeighbourKind("kafka-streams", KafkaStreams, consumer={"max.poll.records": 1000}, sink={LINGER_MS_CONFIG: 100}),
    NeighbourKind("flink", Flink),
)
_BY_NAME = {kind.name: kind for kind in KINDS}
_BY_VALUE = {kind.value: kind for kind in KINDS}
PIPELINE_KINDS = tuple(kind.name for kind in KINDS if kind.pipeline)


def kind_of(tenant: Tenant) -> NeighbourKind:
    """A tenant's record, by the value object it is."""
    return _BY_VALUE[type(tenant)]


def is_pipeline(tenant: Tenant) -> bool:
    return kind_of(tenant).pipeline


def kind_class(raw: Any) -> type:
    """The value object a tenant's mapping builds: a producer ``Tenant`` unless it names a kind
    (one it does not know: the pipelines' base, so that the kind is what is refused)."""
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind is None:
        return Tenant
    known = _BY_NAME.get(str(kind))
    return known.value if known is not None and known.pipeline else StreamingTenant


def tenant(raw: Any, path: str) -> Tenant:
    """A tenant from its mapping: a streaming pipeline if it names a ``kind``, else a producer."""
    raw = f.require_mapping(raw, path)
    if "kind" not in raw:
        return Tenant.build(raw, path)
    kind = _BY_NAME[f.one_of(*PIPELINE_KINDS)(raw.get("kind"), f.join(path, "kind"))]
    client = Client.build(raw.get("client"), f.join(path, "client"))
    consumer_raw = {**kind.consumer, **f.require_mapping(raw.get("consumer"), f.join(path, "consumer"))}
    sink_raw = {**kind.sink, **f.require_mapping(raw.get("sink"), f.join(path, "sink"))}
    built = f.build(kind.value, raw, path, client=client,
                    consumer=f.build(ConsumerConfig, consumer_raw, f.join(path, "consumer")),
                    producer=ProducerConfig.build(raw.get("producer"), client, f.join(path, "producer")),
                    sink=ProducerConfig.build(sink_raw, SINK_CLIENT, f.join(path, "sink")))
    built.check(path)
    return built


def check_inputs(scenario: Any) -> None:
    """A pipeline's input topic is written by its upstream producer alone: its latency follows
    that producer's records (the load's, another tenant's or another pipeline's output would be
    read too but not timed)."""
    writers: dict[str, list[str]] = {}
    for job in scenario.jobs:
        writers.setdefault(job.topic, []).append("the batch load" if len(scenario.jobs) == 1 else f"batch job {job.name!r}")
    for tenant in scenario.tenants:
        writers.setdefault(tenant.topic, []).append(f"tenant {tenant.name!r}")
        if is_pipeline(tenant):
            writers.setdefault(tenant.output_topic, []).append(f"tenant {tenant.name!r}'s output")
    for i, tenant in enumerate(scenario.tenants):
        others = [w for w in writers[tenant.topic] if w != f"tenant {tenant.name!r}"]
        if is_pipeline(tenant) and others:
            raise ScenarioError(f"tenants[{i}].topic", f"{tenant.topic!r} is also written by {others[0]}; "
                                                       "a pipeline's input topic is fed by its own producer alone")
