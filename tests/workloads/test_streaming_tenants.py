"""Streaming tenants in a scenario: each kind under its framework's names and defaults, --set on
their knobs, and bad values refused in one line naming the field (exit 2 on the command line)."""
import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "quietload"))
from _bad_input import BASE, assert_refused, write_yaml  # noqa: E402

from workloads import Scenario, ScenarioError  # noqa: E402
from workloads.streaming import (Flink, KafkaStreams, SparkContinuous, SparkMicroBatch, SparkRealTime,  # noqa: E402
                                 StreamingTenant)

PIPELINE = {"name": "fraud", "kind": "spark-microbatch", "topic": "in", "output_topic": "out", "rate": "1000/s",
            "record_size": "512B", "record_cost": "20us", "sla_p99": "1s"}


def scenario(**pipeline) -> dict:
    data = copy.deepcopy(BASE)
    data["cluster"]["topics"] += [{"name": "in", "partitions": 4}, {"name": "out", "partitions": 4}]
    data["tenants"].append({**PIPELINE, **pipeline})
    return data


def build(overrides=None, **pipeline) -> Scenario:
    from workloads.scenario import apply_overrides
    return Scenario.from_mapping(apply_overrides(scenario(**pipeline), overrides or []))


@pytest.mark.parametrize("kind, cls", [("spark-microbatch", SparkMicroBatch), ("spark-continuous", SparkContinuous),
                                       ("spark-realtime", SparkRealTime), ("kafka-streams", KafkaStreams),
                                       ("flink", Flink)])
def test_each_kind_builds_its_framework_s_tenant_beside_the_producers(kind, cls):
    loaded = build(kind=kind)
    producer, pipeline = loaded.tenants
    assert type(producer).__name__ == "Tenant" and not isinstance(producer, StreamingTenant)
    assert type(pipeline) is cls and pipeline.kind == kind
    # the Tenant fields are its upstream producer's: it feeds the input topic at the stated rate
    assert (pipeline.topic, pipeline.rate, pipeline.record_size, pipeline.sla.ms) == ("in", 1000.0, 512, 1000.0)
    assert pipeline.output_topic == "out" and pipeline.record_cost == pytest.approx(20e-6)


def test_the_frameworks_own_defaults():
    micro = build().tenants[1]
    assert (micro.processing_time_ms, micro.max_offsets_per_trigger, micro.async_progress,
            micro.async_checkpoint_interval_ms) == (0.0, None, False, 1000.0)
    assert (micro.consumer.fetch_min_bytes, micro.consumer.fetch_max_wait_ms, micro.consumer.max_poll_records,
            micro.consumer.max_partition_fetch_bytes) == (1, 500.0, 500, 1_048_576)
    assert micro.sink.linger_ms == 0.0 and micro.sink.acks == "all"
    streams = build(kind="kafka-streams").tenants[1]
    # StreamsConfig's overrides of its clients' defaults, and its commit interval per guarantee
    assert (streams.consumer.max_poll_records, streams.sink.linger_ms) == (1000, 100.0)
    assert (streams.num_stream_threads, streams.processing_guarantee, streams.commit_interval) == (1, "at_least_once", 30.0)
    assert build(kind="kafka-streams", **{"processing.guarantee": "exactly_once_v2"}).tenants[1].commit_interval == 0.1
    assert build(kind="spark-realtime").tenants[1].real_time_ms == 300_000.0
    flink = build(kind="flink").tenants[1]
    assert (flink.parallelism, flink.buffer_timeout_ms, flink.checkpoint_interval_ms, flink.exactly_once) == (1, 100.0, None, False)


def test_knobs_under_the_frameworks_names_and_set_overrides():
    micro = build(["tenants.1.processingTime=500ms", "tenants.1.asyncProgressTrackingEnabled=true",
                   "tenants.1.consumer.fetch.max.wait.ms=100", "tenants.1.sink.linger.ms=5"]).tenants[1]
    assert (micro.processing_time_ms, micro.async_progress, micro.consumer.fetch_max_wait_ms, micro.sink.linger_ms) == \
        (500.0, True, 100.0, 5.0)
    streams = build(["tenants.1.num.stream.threads=4", "tenants.1.commit.interval.ms=50"], kind="kafka-streams").tenants[1]
    assert (streams.num_stream_threads, streams.commit_interval) == (4, 0.05)
    flink = build(kind="flink", **{"parallelism.default": 3, "execution.buffer-timeout": "5ms",
                                   "execution.checkpointing.interval": "1s", "sink.delivery-guarantee": "exactly-once"}).tenants[1]
    assert (flink.workers, flink.buffer_timeout_ms, flink.checkpoint_interval_ms, flink.exactly_once) == (3, 5.0, 1000.0, True)


def test_a_streaming_tenant_round_trips_through_the_result_s_scenario_mapping():
    mapping = build(kind="kafka-streams").as_mapping()["tenants"][1]
    assert (mapping["kind"], mapping["output_topic"], mapping["num.stream.threads"], mapping["consumer"]["max.poll.records"]) == \
        ("kafka-streams", "out", 1, 1000)


BAD = {
    "unknown kind": ({"kind": "storm"}, "tenants[1].kind: expected one of spark-microbatch, spark-continuous"),
    "another kind's knob": ({"kind": "kafka-streams", "processingTime": "1s"}, "tenants[1].processingTime: unknown key"),
    "no output topic": ({"output_topic": ...}, "tenants[1].output_topic: required but missing"),
    "output topic not in the cluster": ({"output_topic": "nowhere"}, "tenants[1].output_topic: topic 'nowhere' is not in cluster.topics"),
    "output is the input": ({"output_topic": "in"}, "tenants[1].output_topic: is the input topic 'in'"),
    "no record cost": ({"record_cost": ...}, "tenants[1].record_cost: required but missing"),
    "record cost without a unit": ({"record_cost": 20}, "tenants[1].record_cost: expected a duration with a unit"),
    "fetch.min.bytes zero": ({"consumer": {"fetch.min.bytes": 0}}, "tenants[1].consumer.fetch.min.bytes: must be greater than zero"),
    "unknown consumer property": ({"consumer": {"fetch.wait": 5}}, "tenants[1].consumer.fetch.wait: unknown key"),
    "max.poll.records zero": ({"consumer": {"max.poll.records": 0}}, "tenants[1].consumer.max.poll.records"),
    "async progress on a stateful query": ({"asyncProgressTrackingEnabled": True, "stateful": True},
                                           "tenants[1].asyncProgressTrackingEnabled: Spark supports it only in stateless"),
    "async progress not a boolean": ({"asyncProgressTrackingEnabled": "yes"}, "tenants[1].asyncProgressTrackingEnabled: expected true or false"),
    "too few slots for continuous": ({"kind": "spark-continuous", "slots": 2}, "tenants[1].slots: 2 slots cannot hold a long-running task"),
    "guarantee misspelt": ({"kind": "kafka-streams", "processing.guarantee": "exactly_once"}, "tenants[1].processing.guarantee: expected one of at_least_once, exactly_once_v2"),
    "exactly-once with acks 1": ({"kind": "flink", "sink.delivery-guarantee": "exactly-once", "sink": {"acks": 1}},
                                 "tenants[1].sink.acks: a transactional (exactly-once) producer needs acks all"),
    "input fed by a producer tenant too": ({"topic": "api"}, "tenants[1].topic: 'api' is also written by tenant 'api'"),
    "input is the load's topic": ({"topic": "bulk"}, "tenants[1].topic: 'bulk' is also written by the batch load"),
    "zero threads": ({"kind": "kafka-streams", "num.stream.threads": 0}, "tenants[1].num.stream.threads: expected a whole number of at least 1"),
}


def _without_deleted(pipeline: dict) -> dict:
    return {k: v for k, v in pipeline.items() if v is not ...}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_value_is_one_line_naming_the_field(case):
    changes, expected = BAD[case]
    data = scenario(**changes)
    data["tenants"][1] = _without_deleted(data["tenants"][1])
    with pytest.raises(ScenarioError) as refused:
        Scenario.from_mapping(data)
    assert str(refused.value).startswith(expected) and "\n" not in str(refused.value)


def test_the_command_line_refuses_a_bad_pipeline_with_exit_2(tmp_path):
    path = write_yaml(tmp_path, "scenario.yaml", scenario(**{"kind": "kafka-streams", "num.stream.threads": 0}))
    assert_refused(["simulate", path, "--json", str(tmp_path / "r.json")], "tenants[1].num.stream.threads")
    assert not (tmp_path / "r.json").exists()


def test_the_catalog_s_streaming_neighbours_beside_the_published_load():
    from workloads import CATALOG
    scenario = Scenario.from_yaml(CATALOG / "streaming-neighbours.yaml")
    producer, fraud, enrichment = scenario.tenants
    assert type(producer).__name__ == "Tenant" and scenario.batch.producer.linger_ms == 0.0
    assert (fraud.kind, fraud.processing_time_ms, fraud.async_progress) == ("spark-microbatch", 500.0, True)
    assert enrichment.kind == "kafka-streams"


def test_the_model_s_run_size_counts_a_pipeline_s_records_five_times():
    from workloads.limits import RunSize, estimate
    pipeline = build(rate="10000/s")
    producer = Scenario.from_mapping({**scenario(rate="10000/s"), "tenants": [   # the same tenant without its pipeline
        BASE["tenants"][0], {k: v for k, v in {**PIPELINE, "rate": "10000/s"}.items()
                             if k not in ("kind", "output_topic", "record_cost")}]})
    seconds = estimate(producer).seconds
    assert RunSize.total(estimate(pipeline).events) - RunSize.total(estimate(producer).events) == pytest.approx(4 * 10000 * seconds)
