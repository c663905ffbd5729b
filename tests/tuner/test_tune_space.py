import dataclasses

import pytest

from tuner import search_space
from workloads import Quota, Scenario, ScenarioError
from workloads.tuning import Tuning


def test_defaults_follow_the_scenario(tiny):
    space = search_space(Scenario.from_mapping(tiny), ("job",))
    described = {r.name: r.describe() for r in space.ranges}
    assert described == {
        "repartition": "{none, 4, 8, 12, 16}",            # around the topic's 4 partitions
        "compression.type": "{none, gzip, snappy, lz4, zstd}",
        "acks": "{1, all}",                                # all with enable.idempotence=true
        "linger.ms": "0 ms .. 100 ms",
        "batch.size": "16.0 KB .. 1.0 MB (log)",            # up to the client's max.request.size
        "buffer.memory": "32.0 MB .. 512.0 MB (log)",
        "max.in.flight.requests.per.connection": "1 .. 5",
    }
    assert space.overrides({"acks": "all"}) == ["batch.producer.acks=all", "batch.producer.enable.idempotence=true"]


def test_each_lever_class_adds_its_knobs_and_the_default_is_job_and_quota(tiny):
    scenario = Scenario.from_mapping(tiny)
    job = search_space(scenario, ("job",)).names
    assert search_space(scenario).names == job + ["producer_byte_rate", "request_percentage"]
    cluster = {r.name: r.describe() for r in search_space(scenario, ("cluster",)).ranges}
    broker = scenario.cluster.broker
    assert cluster == {"num.replica.fetchers": f"1 .. {max(8, broker.num_replica_fetchers)}",
                       "num.io.threads": f"{broker.num_io_threads // 2} .. {broker.num_io_threads * 4}",
                       "num.network.threads": f"{max(1, broker.num_network_threads // 2)} .. {broker.num_network_threads * 3}",
                       "brokers": f"{scenario.cluster.brokers} .. {3 * scenario.cluster.brokers}",
                       "cluster.broker.type": "{" + ", ".join(f"kafka.{family}.{size}" for size in
                                                             ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge",
                                                              "12xlarge", "16xlarge") for family in ("m5", "m7g"))
                                              + ", kafka.m5.24xlarge}"}


def test_the_broker_type_lever_tries_the_standard_types_from_the_clusters_own_up(tiny_with):
    typed = Scenario.from_mapping(tiny_with({"cluster": {"broker": {"type": "kafka.m7g.8xlarge"}}}))
    assert search_space(typed, ("cluster",)).ranges[-1].choices == (
        "kafka.m7g.8xlarge", "kafka.m5.8xlarge", "kafka.m5.12xlarge", "kafka.m7g.12xlarge", "kafka.m5.16xlarge",
        "kafka.m7g.16xlarge", "kafka.m5.24xlarge")
    express = Scenario.from_mapping(tiny_with({"cluster": {"broker": {"type": "express.m7g.12xlarge"}}}))
    assert search_space(express, ("cluster",)).ranges[-1].choices == ("express.m7g.12xlarge", "express.m7g.16xlarge")
    assert search_space(typed, ("cluster",)).overrides({"cluster.broker.type": "kafka.m5.24xlarge"}) == [
        "cluster.broker.type=kafka.m5.24xlarge"]


def test_a_job_already_repartitioned_keeps_its_own_count_among_the_choices(tiny_with):
    space = search_space(Scenario.from_mapping(tiny_with({"batch": {"spark": {"repartition": 7}}})))
    assert space.ranges[0].choices == (None, 4, 8, 12, 16, 7)


def test_quota_knobs_are_searched_with_the_quota_lever_and_follow_the_model(tiny):
    space = search_space(Scenario.from_mapping(tiny), ("job", "quota"))
    quota_kinds = {f.name for f in dataclasses.fields(Quota)}
    expected = [n for n in ("producer_byte_rate", "request_percentage") if n in quota_kinds]
    assert "producer_byte_rate" in expected
    assert space.names == search_space(Scenario.from_mapping(tiny), ("job",)).names + expected
    rate = next(r for r in space.ranges if r.name == "producer_byte_rate")
    assert (rate.low, rate.high, rate.integer) == (1024**2, 25 * 1024**2, False)   # NIC 125 MB/s: 1/250 .. 1/5
    assert space.overrides({"producer_byte_rate": 20.5 * 1024**2}) == ["batch.quota.producer_byte_rate=21495808B/s"]


def test_scenario_ranges_lay_over_the_defaults(tiny_with):
    scenario = Scenario.from_mapping(tiny_with({"tune": {
        "knobs": {"linger.ms": [5, "50ms"], "compression.type": ["none", "zstd"], "repartition": ["none", 30, 120],
                  "batch.size": ["64KB", "512KB"], "acks": ["1", "all"]},
        "prefer": "duration", "trials": 40}}))
    assert (scenario.tune.prefer, scenario.tune.trials, scenario.tune.repeat, scenario.tune.validate) == ("duration", 40, 1, 20)
    assert Scenario.from_mapping(tiny_with({"tune": {"repeat": 3, "validate": 0}})).tune == Tuning(repeat=3, validate=0)
    described = {r.name: r.describe() for r in search_space(scenario).ranges}
    assert described["linger.ms"] == "5 ms .. 50 ms"
    assert described["compression.type"] == "{none, zstd}"
    assert described["repartition"] == "{none, 30, 120}"
    assert described["batch.size"] == "64.0 KB .. 512.0 KB (log)"
    assert described["acks"] == "{1, all}"      # a knob outside the default six, named by the scenario
    assert described["buffer.memory"] == "32.0 MB .. 512.0 MB (log)"


def test_acks_minus_one_is_all_in_a_tune_choice_as_in_the_producer_and_in_kafka(tiny_with):
    scenario = Scenario.from_mapping(tiny_with({"batch": {"producer": {"acks": -1}},
                                                "tune": {"knobs": {"acks": ["1", "-1"]}}}))
    assert scenario.batch.producer.acks == "all"
    acks = next(r for r in search_space(scenario).ranges if r.name == "acks")
    assert acks.choices == ("1", "all") and acks.describe() == "{1, all}"
    with pytest.raises(ScenarioError) as refused:
        Scenario.from_mapping(tiny_with({"tune": {"knobs": {"acks": ["1", "2"]}}}))
    assert str(refused.value) == "tune.knobs.acks[1]: expected 0, 1 or all, got '2'"


def test_overrides_use_the_scenario_keys(tiny):
    space = search_space(Scenario.from_mapping(tiny))
    params = {"repartition": None, "compression.type": "zstd", "linger.ms": 10, "batch.size": 65536,
              "buffer.memory": 67108864, "max.in.flight.requests.per.connection": 1}
    assert space.overrides(params) == [
        "batch.spark.repartition=none", "batch.producer.compression.type=zstd", "batch.producer.linger.ms=10",
        "batch.producer.batch.size=65536", "batch.producer.buffer.memory=67108864",
        "batch.producer.max.in.flight.requests.per.connection=1"]


BAD_RANGES = {
    "unknown knob": ({"knobs": {"lingr.ms": [0, 5]}}, "tune.knobs.lingr.ms: unknown knob (known knobs: acks, batch.size, "),
    "low above high": ({"knobs": {"linger.ms": [50, 0]}}, "tune.knobs.linger.ms: empty search range: low 50 is above high 0"),
    "empty choices": ({"knobs": {"compression.type": []}}, "tune.knobs.compression.type: empty search range"),
    "not a list": ({"knobs": {"batch.size": "64KB"}}, "tune.knobs.batch.size: empty search range: expected [low, high]"),
    "three bounds": ({"knobs": {"linger.ms": [0, 5, 10]}}, "tune.knobs.linger.ms: expected [low, high], got 3 values"),
    "bad value": ({"knobs": {"compression.type": ["none", "brotli"]}}, "tune.knobs.compression.type[1]: expected one of"),
    "bad unit": ({"knobs": {"batch.size": ["16KB", "1XB"]}}, "tune.knobs.batch.size[1]: unknown size unit"),
    "bad preference": ({"prefer": "latency"}, "tune.prefer: expected one of requests, duration"),
    "unknown key": ({"trails": 10}, "tune.trails: unknown key"),
}


@pytest.mark.parametrize("tune, message", BAD_RANGES.values(), ids=BAD_RANGES.keys())
def test_bad_ranges_name_the_field(tiny_with, tune, message):
    with pytest.raises(ScenarioError) as error:
        Scenario.from_mapping(tiny_with({"tune": tune}))
    assert str(error.value).startswith(message), str(error.value)


def test_ranges_the_producer_would_refuse_are_refused_before_any_trial(tiny_with):
    with pytest.raises(ScenarioError, match=r"^tune.knobs.batch.size: high 2.0 MB is above max.request.size \(1.0 MB\)"):
        search_space(Scenario.from_mapping(tiny_with({"tune": {"knobs": {"batch.size": ["16KB", "2MB"]}}})))
    with pytest.raises(ScenarioError, match=r"^tune.knobs.buffer.memory: low 512.0 KB cannot hold one batch"):
        search_space(Scenario.from_mapping(tiny_with({"tune": {"knobs": {"buffer.memory": ["512KB", "64MB"]}}})))


def test_quota_ranges_need_the_quota_lever(tiny_with):
    scenario = Scenario.from_mapping(tiny_with({"tune": {"knobs": {"producer_byte_rate": ["5MB/s", "50MB/s"]}}}))
    with pytest.raises(ScenarioError, match=r"^tune.knobs.producer_byte_rate: is a quota lever: searched only with --levers including quota"):
        search_space(scenario, ("job",))
    ranges = {r.name: r for r in search_space(scenario).ranges}
    assert (ranges["producer_byte_rate"].low, ranges["producer_byte_rate"].high) == (5 * 1024**2, 50 * 1024**2)


def test_a_producer_jobs_study_searches_no_spark_setting():
    raw = {"name": "perf", "cluster": {"brokers": 1, "topics": [{"name": "bench", "partitions": 2}]},
           "batch": {"kind": "producer", "topic": "bench", "records": 100, "record_size": "100B"}}
    names = [r.name for r in search_space(Scenario.from_mapping(raw)).ranges]
    assert "repartition" not in names and {"linger.ms", "batch.size", "compression.type"} <= set(names)
    raw["tune"] = {"knobs": {"repartition": [None, 4]}}
    with pytest.raises(ScenarioError) as error:
        search_space(Scenario.from_mapping(raw))
    assert error.value.field == "tune.knobs.repartition"
