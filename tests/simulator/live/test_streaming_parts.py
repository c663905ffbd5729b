"""The live streaming tenants' parts that need no stack: the record header the end-to-end latency
is read from, which records count as lost, and each framework's settings under its own names."""
from array import array

import pytest

from simulator.live.pipelines import LAUNCHERS
from simulator.live.streaming import batch_figures
from simulator.live.streaming_feed import HEADER, _lost, decode, encode
from simulator.live.streaming_spark import batch_progress, request_for
from workloads import kinds

BASE = {"topic": "in", "output_topic": "out", "rate": "100/s", "record_size": "200B", "record_cost": "20us",
        "sla_p99": "1s", "client": {"kind": "librdkafka", "version": "2.3.0"}}


def tenant(**knobs):
    return kinds.tenant({**BASE, "name": "p", **knobs}, "tenants[0]")


def java_properties(tenant, bootstrap, security):
    return LAUNCHERS[tenant.kind].properties(tenant, bootstrap, security)


def spark_request(tenant):
    return request_for(tenant, LAUNCHERS[tenant.kind].trigger(tenant), "127.0.0.1:9092", "/tmp/checkpoint", [0], [])


def test_the_value_carries_the_intended_send_time_and_index():
    value = encode(1_795_000_000_123_456_789, 42, b"x" * 184)
    assert len(value) == 200 and HEADER.size == 16
    assert decode(value) == (1_795_000_000_123_456_789, 42)


def test_lost_records_are_those_sent_once_warm_and_never_seen():
    sent = array("q", [10, 20, 30, 40, 50])     # intended times of records 0..4
    assert _lost(sent, {1: None, 3: None}, warm_ns=25) == 2     # records 2 and 4; 0 was the warm-up's
    assert _lost(sent, {2: None, 3: None, 4: None}, warm_ns=25) == 0


def test_kafka_streams_gets_its_own_property_names():
    props = java_properties(tenant(kind="kafka-streams", **{"num.stream.threads": 2, "commit.interval.ms": "100ms",
                                                           "processing.guarantee": "exactly_once_v2"}), "127.0.0.1:9092", {})
    assert props["num.stream.threads"] == "2" and props["commit.interval.ms"] == "100"
    assert props["processing.guarantee"] == "exactly_once_v2"
    assert props["consumer.max.poll.records"] == "1000"      # Kafka Streams' own consumer override
    assert props["producer.linger.ms"] == "100"               # ... and producer override
    assert props["quietload.work.ns"] == "20000"


def test_flink_gets_its_settings_and_its_clients_prefixed():
    props = java_properties(tenant(kind="flink", **{"parallelism.default": 2, "execution.buffer-timeout": "5ms",
                                                   "execution.checkpointing.interval": "1s"}), "127.0.0.1:9092", {})
    assert (props["parallelism.default"], props["execution.buffer-timeout"], props["execution.checkpointing.interval"]) \
        == ("2", "5", "1000")
    assert props["consumer.fetch.min.bytes"] == "1" and props["producer.acks"] == "all"


@pytest.mark.parametrize("knobs, trigger", [
    ({"kind": "spark-microbatch", "processingTime": "500ms"}, {"processingTime": "500 milliseconds"}),
    ({"kind": "spark-continuous", "continuous": "1s"}, {"continuous": "1000 milliseconds"}),
    ({"kind": "spark-realtime", "realTime": "5min"}, {"realTime": "300000 milliseconds"}),
])
def test_spark_triggers_by_kind(knobs, trigger):
    request = spark_request(tenant(**knobs))
    assert request["trigger"] == trigger
    assert request["source"]["kafka.fetch.max.wait.ms"] == "500"


def test_async_progress_tracking_is_an_option_of_the_sink():
    request = spark_request(tenant(kind="spark-microbatch", processingTime="0ms", maxOffsetsPerTrigger=1000,
                                   asyncProgressTrackingEnabled=True))
    assert request["sink"]["asyncProgressTrackingEnabled"] == "true"
    assert request["sink"]["asyncProgressTrackingCheckpointIntervalMs"] == "1000"
    assert request["source"]["maxOffsetsPerTrigger"] == "1000"


def _progress(timestamp, rows, **durations):
    """A StreamingQueryProgress document as Spark writes it (the fields batch_progress reads)."""
    return {"id": "q", "batchId": 7, "timestamp": timestamp, "numInputRows": rows, "durationMs": durations,
            "stateOperators": []}


def test_a_micro_batch_querys_progress_keeps_the_batches_that_read_records():
    progress = [_progress("2026-11-24T09:00:00.500Z", 100, triggerExecution=90, latestOffset=2, walCommit=12,
                          queryPlanning=8, getBatch=0, addBatch=50, commitOffsets=11),
                _progress("2026-11-24T09:00:10.000Z", 0, triggerExecution=3, latestOffset=3)]   # no new record
    assert batch_progress(progress) == [
        {"start": 1795510800.5, "records": 100, "stateCommit": 0, "triggerExecution": 90, "latestOffset": 2,
         "walCommit": 12, "queryPlanning": 8, "getBatch": 0, "addBatch": 50, "commitOffsets": 11}]


def test_batches_per_window_in_the_models_shape_the_rest_of_a_trigger_is_its_planning():
    def batch(start, total, offsets, wal, tasks, commit):
        return {"start": 1000.0 + start, "records": 100, "stateCommit": 0, "triggerExecution": total,
                "latestOffset": offsets, "walCommit": wal, "queryPlanning": 5, "getBatch": 0, "addBatch": tasks,
                "commitOffsets": commit}
    batches = [batch(0.5, 90, 2, 12, 50, 11), batch(1.0, 110, 4, 14, 60, 13), batch(2.5, 200, 10, 20, 150, 10)]
    figures = batch_figures(batches, {"before": (0.0, 2.0), "during": (2.0, 3.0), "after": (3.0, 4.0)}, 1000.0)
    assert figures == {
        "before": {"count": 2, "records": 200, "batch_ms": 100.0, "offsets_ms": 3.0, "offset_log_ms": 13.0,
                   "planning_ms": 17.0, "tasks_ms": 55.0, "state_ms": 0.0, "commit_log_ms": 12.0},
        "during": {"count": 1, "records": 100, "batch_ms": 200.0, "offsets_ms": 10.0, "offset_log_ms": 20.0,
                   "planning_ms": 10.0, "tasks_ms": 150.0, "state_ms": 0.0, "commit_log_ms": 10.0},
        "after": {"count": 0, "records": 0, "batch_ms": None, "offsets_ms": None, "offset_log_ms": None,
                  "planning_ms": None, "tasks_ms": None, "state_ms": None, "commit_log_ms": None}}


def test_a_spark_query_keeps_every_batchs_progress():
    request = spark_request(tenant(kind="spark-microbatch"))
    assert request["settings"]["spark.sql.streaming.numRecentProgressUpdates"] == "100000"
