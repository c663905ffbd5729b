"""The runs calibration and validation make: small loads on one machine, each a named point.

Every point is the published case cut down to what the local rig runs in under a minute (a few
MB of CSV, one broker unless the point says otherwise, a one-core Spark job, short windows),
plus the settings that make it what it is. The calibration points separate the broker's cost
terms: many one-record requests against few full ones (per request against per record and
byte), one-record batches many to a request (per batch), rows of 2.5 KB against 1 KB (per
record against per byte), and each codec (decompression per byte). They run without
neighbours, so that every busy handler second is the job's. The held-out points are
configurations the fit never sees, each different in kind, with the neighbours running; one of
them has a streaming neighbour (a Spark micro-batch pipeline) beside the plain producer.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from workloads import CATALOG, Scenario, ScenarioError
from workloads.units import parse_bytes

SAMPLES = Path(__file__).parent / "samples"
BASE_SCENARIO = CATALOG / "paypay-glue-2gb.yaml"
BASE = ("cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
        "cluster.network_rtt=0.1ms", "cluster.broker.vcpus=1",
        "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1",
        "dataset.files.0.size=4MB", "windows.before=3s", "windows.after=2s",
        "batch.producer.batch.size=16KB", "batch.producer.max.request.size=1MB")
ALONE = ("tenants=[]",)


@dataclass(frozen=True)
class Point:
    """One configuration: its name, what it is for, and its settings over ``BASE``."""

    name: str
    purpose: str
    overrides: tuple[str, ...]

    def scenario(self, profile: str, scenario_file: Path = BASE_SCENARIO) -> Scenario:
        return Scenario.from_yaml(scenario_file, [*BASE, f"profile={profile}", f"name={self.name}", *self.overrides])


def _codec(codec: str) -> Point:
    return Point(f"codec-{codec}", f"the broker's {codec} decompression per byte",
                 (*ALONE, f"batch.producer.compression.type={codec}", "batch.producer.batch.size=64KB",
                  "batch.producer.linger.ms=50", "cluster.topics.0.partitions=1", "dataset.files.0.size=8MB"))


CALIBRATION = (
    Point("one-record-requests", "per request: a one-record batch per request",
          (*ALONE, "batch.producer.batch.size=1KB", "batch.producer.linger.ms=0", "cluster.topics.0.partitions=1")),
    Point("full-requests", "per record and byte: few requests of one full 256 KB batch",
          (*ALONE, "batch.producer.batch.size=256KB", "batch.producer.linger.ms=50", "cluster.topics.0.partitions=1",
           "dataset.files.0.size=8MB")),
    Point("one-record-batches", "per batch: one-record batches, one per partition, many to a request",
          (*ALONE, "batch.producer.batch.size=1KB", "batch.producer.linger.ms=50", "cluster.topics.0.partitions=30")),
    Point("wide-rows", "per byte against per record: 2.5 KB rows in full requests",
          (*ALONE, f"dataset.rows={SAMPLES / 'wide-rows.csv'}", "batch.producer.batch.size=256KB",
           "batch.producer.linger.ms=50", "cluster.topics.0.partitions=1", "dataset.files.0.size=8MB")),
    *(_codec(codec) for codec in ("lz4", "zstd", "snappy", "gzip")),
)

# A Spark Structured Streaming pipeline as the live stack runs it: its query passes records through
# unchanged (simulator/live/streaming_spark.py), so no per-record work on the model either.
PIPELINE_TOPICS = ({"name": "card-transactions", "partitions": 30}, {"name": "payment-events", "partitions": 6},
                   {"name": "fraud-microbatch-in", "partitions": 1}, {"name": "fraud-microbatch-out", "partitions": 1})
PAYMENT_API = {"name": "payment-api", "topic": "payment-events", "client": {"kind": "java", "version": "4.1.0"},
               "rate": "500/s", "record_size": "1KB", "keys": 1000, "sla_p99": "10ms"}
MICROBATCH = {"name": "fraud-microbatch", "kind": "spark-microbatch", "topic": "fraud-microbatch-in",
              "output_topic": "fraud-microbatch-out", "client": {"kind": "librdkafka", "version": "2.3.0"},
              "rate": "200/s", "record_size": "200B", "record_cost": "0us", "sla_p99": "1s", "processingTime": "500ms"}


def with_pipeline(*tenants: dict) -> tuple[str, ...]:
    """Overrides that put ``tenants`` (JSON is YAML) beside the load, with the pipeline's topics."""
    return (f"cluster.topics={json.dumps(list(PIPELINE_TOPICS))}", f"tenants={json.dumps(list(tenants))}")


# a load of a few seconds, so that its window holds whole seconds of the brokers' and neighbours' figures
HELD = "dataset.files.0.size=12MB"
HELD_OUT = (
    Point("linger-0", "linger.ms=0: batches as large as the sender's pace makes them", (HELD, "batch.producer.linger.ms=0")),
    Point("linger-5", "linger.ms=5", (HELD, "batch.producer.linger.ms=5")),
    Point("linger-25", "linger.ms=25", (HELD, "batch.producer.linger.ms=25")),
    Point("batch-64k", "batch.size=64KB at linger.ms=0", (HELD, "batch.producer.batch.size=64KB", "batch.producer.linger.ms=0")),
    Point("keyed-6-partitions", "records keyed by card_id over 6 partitions",
          (HELD, "batch.key=card_id", "cluster.topics.0.partitions=6", "batch.producer.linger.ms=5")),
    Point("narrow-rows-zstd", "65-byte rows (a sensor feed's CSV) compressed with zstd",
          (f"dataset.rows={SAMPLES / 'narrow-rows.csv'}", "batch.producer.compression.type=zstd",
           "batch.producer.linger.ms=5", "dataset.files.0.size=6MB")),
    Point("repartition-3", "repartition(3): three write tasks after a shuffle", (HELD, "batch.spark.repartition=3")),
    # the brokers' one core split in three: a budget this machine can give each of them
    Point("rf3-acks-all", "3 brokers of a third of a vCPU each, replication factor 3, acks=all with idempotence",
          (HELD, "cluster.brokers=3", "cluster.broker.vcpus=0.33", "cluster.replication.factor=3", "cluster.min.insync.replicas=2",
           "batch.producer.acks=all", "batch.producer.enable.idempotence=true", "batch.producer.linger.ms=5")),
    Point("half-vcpu-broker", "a broker held to 0.5 vCPU, linger.ms=0", (HELD, "cluster.broker.vcpus=0.5", "batch.producer.linger.ms=0")),
    # a load of ~2 s after 6 s without it: a few of the pipeline's triggers during the load, a dozen before
    Point("microbatch-neighbour", "a Spark micro-batch pipeline (500 ms trigger, progress logs on its path) beside payment-api",
          ("dataset.files.0.size=36MB", "windows.before=6s", *with_pipeline(PAYMENT_API, MICROBATCH))),
)


def pick(points: tuple[Point, ...], names: list[str] | None, option: str) -> tuple[Point, ...]:
    """The named points, in the order given; every point when ``names`` is empty."""
    if not names:
        return points
    known = {p.name: p for p in points}
    for name in names:
        if name not in known:
            raise ScenarioError(option, f"unknown configuration {name!r} (known: {', '.join(known)})")
    return tuple(known[name] for name in names)


SIZE = "dataset.files.0.size="


def scaled(point: Point, factor: float) -> Point:
    """``point`` with its CSV ``factor`` times as large: a longer load, its warm-up a smaller part of it
    (the judge's steady state; docs/fidelity.md)."""
    if factor <= 0:
        raise ScenarioError("--scale", f"must be above 0, not {factor:g}")
    size = [o for o in (*BASE, *point.overrides) if o.startswith(SIZE)][-1]
    scaled_bytes = round(parse_bytes(size[len(SIZE):], SIZE[:-1]) * factor)
    return Point(point.name, point.purpose, (*point.overrides, f"{SIZE}{scaled_bytes}B"))
