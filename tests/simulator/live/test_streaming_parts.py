"""The live streaming tenants' parts that need no stack: the record header the end-to-end latency
is read from, which records count as lost, and each framework's settings under its own names."""
from array import array

import pytest

from simulator.live.streaming import java_properties
from simulator.live.streaming_feed import HEADER, _lost, decode, encode
from simulator.live.streaming_spark import request_for
from workloads import streaming

BASE = {"topic": "in", "output_topic": "out", "rate": "100/s", "record_size": "200B", "record_cost": "20us",
        "sla_p99": "1s", "client": {"kind": "librdkafka", "version": "2.3.0"}}


def tenant(**knobs):
    return streaming.build({**BASE, "name": "p", **knobs}, "tenants[0]")


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
    request = request_for(tenant(**knobs), "127.0.0.1:9092", "/tmp/checkpoint", [0], [])
    assert request["trigger"] == {"kind": knobs["kind"], **trigger}
    assert request["source"]["kafka.fetch.max.wait.ms"] == "500"


def test_async_progress_tracking_is_an_option_of_the_sink():
    request = request_for(tenant(kind="spark-microbatch", processingTime="0ms", maxOffsetsPerTrigger=1000,
                                 asyncProgressTrackingEnabled=True), "127.0.0.1:9092", "/tmp/checkpoint", [0], [])
    assert request["sink"]["asyncProgressTrackingEnabled"] == "true"
    assert request["sink"]["asyncProgressTrackingCheckpointIntervalMs"] == "1000"
    assert request["source"]["maxOffsetsPerTrigger"] == "1000"
