"""A plain producer job (``kind: producer``) on the model, as kafka-producer-perf-test runs: its
throttle's bursts, its unthrottled send() loop, its payload's compression, and its records'
latency from send() to acknowledgement, which Spark jobs report too."""
from __future__ import annotations

import pytest

from simulator._core import RecordLatencies
from simulator.model.model import ModelEvaluator
from workloads import Scenario
from workloads.loader import merge

PERF = {"name": "perf", "cluster": {"brokers": 1, "topics": [{"name": "bench", "partitions": 1}]},
        "batch": {"kind": "producer", "topic": "bench", "records": 4000, "record_size": "100B",
                  "client": {"kind": "java", "version": "3.6.1"},
                  "producer": {"acks": 1, "linger.ms": 0, "batch.size": "16KB"}},
        "windows": {"before": "1s", "after": "1s"}, "jitter": {"append_rate": 0, "service_time": 0}}


def run(change: dict | None = None, evaluator=ModelEvaluator(row_cache=None)):
    return evaluator.evaluate(Scenario.from_mapping(merge(PERF, change or {})), 1)


def test_a_throttled_instance_sends_at_its_throughput_in_bursts_of_its_sleep():
    # 10,000 records/s: ahead of the rate by the 2 ms deficit, it sleeps it (+0.1 ms of wake, the
    # default profile): bursts of ~21 records every ~2.1 ms, and a request never carries more
    result = run({"batch": {"throughput": "10000/s"}})
    s = result.summary
    assert 0.39 <= s.load_seconds <= 0.41                     # 4,000 records at 10,000/s
    assert s.record_latency_ms["count"] == 4000
    assert s.records_per_request <= 21.5
    assert s.produce_requests >= 4000 / 21.5
    assert result.scenario["batch"]["throughput"] == 10000.0


def test_unthrottled_it_appends_at_its_send_loops_pace_and_batches_fill():
    s = run().summary
    # default profile: 1 us a send() + 2 ns a value byte: 1.2 us a 100-byte record, 4,000 in ~5 ms
    assert s.load_seconds < 0.05
    throttled = run({"batch": {"throughput": "10000/s"}}).summary
    assert s.records_per_request > 3 * throttled.records_per_request
    assert s.record_latency_ms["count"] == 4000


def test_several_instances_each_send_their_records_on_a_producer_of_their_own():
    result = run({"batch": {"producers": 3, "throughput": "10000/s"}})
    assert [p["records"] for p in result.producers] == pytest.approx([4000, 4000, 4000])
    assert result.summary.record_latency_ms["count"] == 12000


@pytest.mark.parametrize("payload, lowest, highest", [("random", 0.55, 0.75), ("repeated", 0.0, 0.1)])
def test_perf_tests_payloads_compress_as_the_codec_finds_them(payload, lowest, highest):
    # random A-Z: log2(26) = 4.7 bits a byte; one value repeated: zstd finds every record but the first
    s = run({"batch": {"payload": payload, "producer": {"compression.type": "zstd", "linger.ms": 5}}}).summary
    assert lowest <= s.compression_ratio <= highest


def test_flow_batches_records_count_at_points_stepping_over_the_spans_they_were_appended_in():
    latencies = RecordLatencies()
    for _ in range(8):    # each appended over 1 ms, acknowledged at 3 ms: one point a batch, 8 positions in turn
        latencies.batch_acked(0.0, 0.001, 1.0, 0.003)
    figures = latencies.summary()
    assert figures["count"] == 8 and figures["max"] == pytest.approx(3.0)
    # the 4th of the 8 positions, 2 ms + 3.5/8 ms, in its 1 % bucket
    assert 2.4375 <= figures["p50"] <= 2.4375 * 1.0101
    latencies.records_acked([0.0, 0.0], 0.010)
    assert latencies.summary()["count"] == 10 and latencies.summary()["max"] == pytest.approx(10.0)


def test_a_spark_jobs_records_report_their_latency_too(make_scenario, evaluator):
    s = evaluator.evaluate(make_scenario(), 1).summary
    assert s.record_latency_ms["count"] == pytest.approx(s.records_per_request * s.produce_requests, rel=1e-3)
    assert 0 < s.record_latency_ms["p50"] <= s.record_latency_ms["p99"] <= s.record_latency_ms["max"]
