"""The published shapes of streaming latency, on the model with the default profile (shapes, not
absolutes): micro-batch far above continuous processing and Kafka Streams, which are close;
asynchronous progress tracking cutting micro-batch latency about threefold (seeds/spark-async-
progress-tracking-latency.txt: 700-900 ms -> 150-250 ms); more partitions lowering
record-at-a-time latency at a fixed input rate (seeds/kafka-streaming-frameworks-latency.txt)."""
from __future__ import annotations

import pytest


def pipelines(*specs: dict, partitions: int = 4) -> dict:
    topics = [{"name": "bulk", "partitions": 4}, {"name": "out", "partitions": 4}]
    tenants = []
    for spec in specs:
        topics.append({"name": f"in-{spec['name']}", "partitions": spec.pop("partitions", partitions)})
        tenants.append({"kind": "kafka-streams", "topic": f"in-{spec['name']}", "output_topic": "out", "rate": "1000/s",
                        "record_size": "512B", "record_cost": "20us", "sla_p99": "1s",
                        "sink": {"linger.ms": 5}, **spec})    # the same sink producer settings for every framework
    return {"cluster": {"topics": topics}, "tenants": tenants, "windows": {"before": "4s", "after": "1s"}}


def p(result, name: str, percentile: str = "p50") -> float:
    (tenant,) = [t for t in result.tenants if t["name"] == name]
    return tenant["latency_ms"]["before"][percentile]


@pytest.fixture(scope="module")
def frameworks(make_scenario, evaluator):
    return evaluator.evaluate(make_scenario(pipelines(
        {"name": "micro", "kind": "spark-microbatch"},
        {"name": "micro-async", "kind": "spark-microbatch", "asyncProgressTrackingEnabled": True},
        {"name": "continuous", "kind": "spark-continuous"},
        {"name": "streams", "kind": "kafka-streams"})), 1)


def test_micro_batch_is_far_above_continuous_and_kafka_streams_which_are_close(frameworks):
    micro, continuous, streams = p(frameworks, "micro"), p(frameworks, "continuous"), p(frameworks, "streams")
    assert micro > 20 * max(continuous, streams)
    # both process record at a time behind the same sink producer: only their loops' own costs
    # differ (0.99x on seed 1), so "close" is within 20 %, not an order of magnitude
    assert 0.8 < continuous / streams < 1.25


def test_async_progress_tracking_cuts_micro_batch_latency_about_threefold(frameworks):
    for percentile in ("p50", "p99"):
        assert 2.5 < p(frameworks, "micro", percentile) / p(frameworks, "micro-async", percentile) < 4.5


@pytest.mark.parametrize("kind, workers", [("spark-continuous", {}), ("kafka-streams", {"num.stream.threads": 4})])
def test_more_partitions_lower_record_at_a_time_latency_at_a_fixed_rate(make_scenario, evaluator, kind, workers):
    """The upstream producer sends its keyed records in bursts (linger.ms 20: ~40 records every
    20 ms, spread over the partitions by key). At 400 us a record one thread works through each
    burst for 16 ms; over four partitions and four threads each takes a quarter of it."""
    upstream = {"rate": "2000/s", "record_cost": "400us", "keys": 1000, "producer": {"linger.ms": 20}}
    result = evaluator.evaluate(make_scenario(pipelines(
        {"name": "one", "kind": kind, "partitions": 1, **upstream},
        {"name": "four", "kind": kind, "partitions": 4, **upstream, **workers})), 1)
    in_pipeline = {name: t["streaming"]["parts_ms"]["before"]["in_pipeline"] for t in result.tenants for name in [t["name"]]}
    assert in_pipeline["four"] < in_pipeline["one"] / 2
    assert p(result, "four") < 0.8 * p(result, "one")
    # the tail is the first record of a burst, which waited 20 ms in the upstream producer's
    # batch and is processed first: more partitions do not shorten that wait
    assert p(result, "four", "p99") <= p(result, "one", "p99") * 1.05
