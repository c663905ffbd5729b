"""A Spark Structured Streaming pipeline on PySpark 4.1 in local mode, in a driver process of its
own: the Kafka source reads the input topic, every record goes on unchanged (its value carries
the upstream producer's intended send time), the Kafka sink writes the output topic.

Triggers, by the tenant's kind: ``processingTime`` micro-batches (with or without
``asyncProgressTrackingEnabled``), ``continuous`` processing, and Spark 4.1's real-time mode.
PySpark 4.1.1's ``DataStreamWriter.trigger`` has no ``realTime`` keyword; the JVM's
``Trigger.RealTime`` (spark-sql-api 4.1.1) is set through the writer's Java object instead.

    python -m simulator.live.streaming_spark   (the request as one JSON line on standard input)

Prints RUNNING once the query started; stops when its standard input closes, after printing
each micro-batch's progress (``BATCHES``: when it started, its records and Spark's own
``durationMs`` parts) and the sink's produce requests (kafka-clients' request-total, from the
driver JVM's MBean server).
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from simulator.live._process import pin_self
from simulator.live.clients import property_text
from simulator.live.spark_job import JMX_ACCESS

RUNNING = "quietload: pipeline running"
PRODUCE_REQUESTS = "quietload: produce requests "
BATCHES = "quietload: batches "
# StreamingQueryProgress.durationMs parts kept per batch (MicroBatchExecution's names)
DURATIONS = ("triggerExecution", "latestOffset", "walCommit", "queryPlanning", "getBatch", "addBatch", "commitOffsets")


@dataclass(frozen=True)
class SparkTrigger:
    """A query's trigger (``DataStreamWriter.trigger``'s keyword and value) and the source's and
    sink's options that go with it."""

    trigger: dict[str, str]
    source: dict[str, Any] = field(default_factory=dict)
    sink: dict[str, Any] = field(default_factory=dict)


# every batch of a run kept, not Spark's last 100 (a 500 ms trigger makes 100 in 50 s)
RECENT_PROGRESS = 100_000


def micro_batches(tenant: Any) -> SparkTrigger:
    """``processingTime`` micro-batches; ``maxOffsetsPerTrigger`` on the source, asynchronous
    progress tracking on the sink (Spark's options)."""
    source = {"maxOffsetsPerTrigger": tenant.max_offsets_per_trigger} if tenant.max_offsets_per_trigger else {}
    sink = ({"asyncProgressTrackingEnabled": True,
             "asyncProgressTrackingCheckpointIntervalMs": int(tenant.async_checkpoint_interval_ms)}
            if tenant.async_progress else {})
    return SparkTrigger({"processingTime": f"{tenant.processing_time_ms:g} milliseconds"}, source, sink)


def continuous(tenant: Any) -> SparkTrigger:
    return SparkTrigger({"continuous": f"{tenant.continuous_ms:g} milliseconds"})


def real_time(tenant: Any) -> SparkTrigger:
    return SparkTrigger({"realTime": f"{tenant.real_time_ms:g} milliseconds"})


def request_for(tenant: Any, trigger: SparkTrigger, bootstrap: str, checkpoint: str, cpus: list[int], jars: list[str]) -> dict:
    """What the driver needs from a Spark streaming tenant (workloads.streaming): its ``trigger``
    under Spark's names, the source's and sink's Kafka client properties as ``kafka.*`` options."""
    source = {**{f"kafka.{name}": value for name, value in tenant.consumer.as_properties().items()}, **trigger.source}
    sink = {**{f"kafka.{name}": value for name, value in tenant.sink.as_properties().items()}, **trigger.sink}
    slots = max(tenant.slots or 1, 1)
    return {"bootstrap": bootstrap, "input": tenant.topic, "output": tenant.output_topic, "trigger": trigger.trigger,
            "source": {k: property_text(v) for k, v in source.items()},
            "sink": {k: property_text(v) for k, v in sink.items()}, "checkpoint": checkpoint, "cpus": cpus,
            "settings": {"spark.master": f"local[{slots}]", "spark.ui.enabled": "false",
                         "spark.ui.showConsoleProgress": "false", "spark.driver.memory": "512m",
                         "spark.sql.shuffle.partitions": "1", "spark.jars": ",".join(jars),
                         "spark.sql.streaming.numRecentProgressUpdates": str(RECENT_PROGRESS),
                         "spark.driver.extraJavaOptions": f"{JMX_ACCESS} -Djava.io.tmpdir={checkpoint}"}}


def _start(spark: Any, request: dict) -> Any:
    reader = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", request["bootstrap"])
              .option("subscribe", request["input"]).option("startingOffsets", "latest"))
    for option, value in request["source"].items():
        reader = reader.option(option, value)
    writer = (reader.load().selectExpr("key", "value").writeStream.format("kafka")
              .option("kafka.bootstrap.servers", request["bootstrap"]).option("topic", request["output"])
              .option("checkpointLocation", os.path.join(request["checkpoint"], "query")))
    for option, value in request["sink"].items():
        writer = writer.option(option, value)
    trigger = request["trigger"]
    if "processingTime" in trigger:
        writer = writer.trigger(processingTime=trigger["processingTime"])
    elif "continuous" in trigger:
        writer = writer.trigger(continuous=trigger["continuous"])
    else:   # no Python keyword in 4.1.1: the JVM's trigger on the writer's Java object; real-time
        writer = writer.outputMode("update")    # mode refuses Append (STREAMING_REAL_TIME_MODE.OUTPUT_MODE_NOT_SUPPORTED)
        writer._jwrite = writer._jwrite.trigger(spark._jvm.org.apache.spark.sql.streaming.Trigger.RealTime(trigger["realTime"]))
    return writer.start()


def batch_progress(progress: list[dict]) -> list[dict]:
    """The micro-batches that read records, from their StreamingQueryProgress documents: when each
    started (epoch s; ``timestamp`` is the trigger's start, UTC), its input records, the state
    stores' commit (ms) and the ``DURATIONS`` parts (ms). Progress of a trigger that found no new
    record (reported every ``noDataProgressEventInterval``) is left out, as the model counts no batch."""
    batches = []
    for p in progress:
        if not p.get("numInputRows"):
            continue
        durations = p.get("durationMs") or {}
        started = datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00")).timestamp()
        state = sum(op.get("commitTimeMs") or 0 for op in p.get("stateOperators") or ())
        batches.append({"start": started, "records": p["numInputRows"], "stateCommit": state,
                        **{name: durations.get(name, 0) for name in DURATIONS}})
    return batches


def _produce_requests(spark: Any) -> int:
    jvm = spark._jvm
    server = jvm.java.lang.management.ManagementFactory.getPlatformMBeanServer()
    pattern = jvm.javax.management.ObjectName("kafka.producer:type=producer-metrics,client-id=*")
    return round(sum(float(server.getAttribute(name, "request-total")) for name in server.queryNames(pattern, None)))


def main() -> int:
    from pyspark.sql import SparkSession     # optional extra (live)

    request = json.loads(sys.stdin.readline())
    pin_self(request["cpus"])   # the JVM that pyspark starts inherits it
    builder = SparkSession.builder.appName("quietload-streaming-pipeline")
    for key, value in request["settings"].items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    try:
        spark.sparkContext.setLogLevel("WARN")
        query = _start(spark, request)
        print(RUNNING, flush=True)
        while sys.stdin.readline():   # the parent closes our standard input to stop us
            pass
        if query.exception() is not None:
            print(f"quietload: the query failed: {query.exception()}", file=sys.stderr, flush=True)
            return 1
        try:
            if "processingTime" in request["trigger"]:     # micro-batches: each one's progress
                progress = [json.loads(p.json) for p in query.recentProgress]
                print(f"{BATCHES}{json.dumps(batch_progress(progress))}", flush=True)
            print(f"{PRODUCE_REQUESTS}{_produce_requests(spark)}", flush=True)
        finally:
            query.stop()
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
