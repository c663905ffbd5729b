"""delivery.timeout.ms (KIP-91): a batch not acknowledged that long after its first record was
appended expires, in the accumulator or in flight, and its records fail with a TimeoutException;
Spark's Kafka sink rethrows it, so the write task and the job fail. The published job held to a
64 KB/s quota on each broker waits longer than 30 s for its turn; with the default 120 s its
80 s load expires nothing."""
import pytest

from simulator.model.model import ModelEvaluator
from workloads import CATALOG, Client, ProducerConfig, Scenario, ScenarioError, client_defaults
from workloads.settings import librdkafka_properties
from workloads.tuning import KNOBS, Tuning, knobs_of

THROTTLED = ["dataset.files.0.size=16MB", "batch.quota.producer_byte_rate=64KB/s", "windows.before=1s", "windows.after=1s"]


def _run(*overrides):
    return ModelEvaluator().evaluate(Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", [*THROTTLED, *overrides]), 1)


def test_batches_waiting_longer_than_delivery_timeout_expire_and_the_job_fails():
    result = _run("batch.producer.delivery.timeout.ms=30s")
    assert [round(p["expired_records"], 2) for p in result.producers] == [7443.86, 8858.86]
    assert result.spark["failed"] == ("TimeoutException: 16,303 records expired after delivery.timeout.ms; the Kafka sink "
                                      "rethrows it and the write task, then the job, fails")


def test_with_the_clients_default_nothing_expires_and_the_file_says_nothing_of_it():
    result = _run()
    assert result.summary.load_seconds < 120.0
    assert all("expired_records" not in p for p in result.producers) and "failed" not in result.spark
    assert "delivery.timeout.ms" not in result.scenario["batch"]["producer"]


def test_kafka_refuses_a_delivery_timeout_below_linger_plus_request_timeout():
    with pytest.raises(ScenarioError, match=r"^batch.producer.delivery.timeout.ms: 30000 ms is less than linger.ms \+ "
                                            r"request.timeout.ms \(10 \+ 30000 ms\)$"):
        Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["batch.producer.linger.ms=10", "batch.producer.delivery.timeout.ms=30s"])


def test_each_clients_default_and_librdkafkas_name():
    assert client_defaults(Client("java", (3, 9, 0)))["delivery.timeout.ms"] == 120_000.0
    assert client_defaults(Client("java", (2, 0, 1)))["delivery.timeout.ms"] is None    # KIP-91 came with 2.1
    assert client_defaults(Client("librdkafka", (2, 3, 0)))["delivery.timeout.ms"] == 300_000.0
    producer = ProducerConfig.build({"delivery.timeout.ms": "200s"}, Client("librdkafka", (2, 3, 0)), "producer")
    assert librdkafka_properties(producer)["message.timeout.ms"] == 200_000.0


def test_a_study_searches_it_only_when_its_tune_section_names_it():
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml")
    assert "delivery.timeout.ms" not in knobs_of(("job", "quota", "cluster"))
    assert KNOBS["delivery.timeout.ms"].bounds(scenario) == (30_100.0, 600_000.0)
    assert Tuning(knobs={"delivery.timeout.ms": (60_000.0, 300_000.0)}).knobs == {"delivery.timeout.ms": (60_000.0, 300_000.0)}


def test_a_policy_holds_a_job_to_a_floor_with_the_value_its_client_runs_with():
    from workloads.policy import JobClass, Match, Policy, Template, judge
    policy = Policy(name="p", classes=(JobClass(name="loads", match=Match(client_id=("*",)),
                                                producer=Template(delivery_timeout_ms=180_000.0)),))
    left = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml").as_mapping()["batch"]     # kafka-clients 2.8.1: 120 s
    [breach] = judge(left, policy)
    assert (breach.rule, breach.value, breach.kept) == ("delivery.timeout.ms", "120000 ms", False)
    longer = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["batch.producer.delivery.timeout.ms=5min"])
    assert [b.kept for b in judge(longer.as_mapping()["batch"], policy)] == [True]
