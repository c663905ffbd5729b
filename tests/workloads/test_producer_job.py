"""A plain producer application as a batch job (``kind: producer``), as kafka-producer-perf-test
takes one: instances, records, record size, throughput, payload, its producer properties."""
import copy

import pytest

from workloads import Scenario, ScenarioError
from workloads.scenario import apply_overrides

JOB = {"kind": "producer", "topic": "bench", "records": 50000, "record_size": "100B",
       "client": {"kind": "java", "version": "2.8.1"}, "producer": {"acks": 1, "batch.size": "8KB"}}
BASE = {"name": "perf", "cluster": {"brokers": 1, "topics": [{"name": "bench", "partitions": 6}]}, "batch": JOB,
        "windows": {"before": "1s", "after": "1s"}}


def scenario(**job) -> Scenario:
    raw = copy.deepcopy(BASE)
    raw["batch"] = {k: v for k, v in {**JOB, **job}.items() if v is not ...}
    return Scenario.from_mapping(raw)


def test_a_producer_job_takes_perf_tests_options_and_needs_no_dataset():
    job = scenario(producers=3, throughput="50000/s", host={"vcpus": 2}).batch
    assert (job.kind, job.spark, job.instances, job.records, job.record_size) == ("producer", None, 3, 50000, 100)
    assert (job.throughput, job.host.vcpus, job.keys, job.producer.batch_size) == (50000.0, 2, 0, 8192)


@pytest.mark.parametrize("given", ["unlimited", -1, "-1", ...])
def test_throughput_unlimited_is_perf_tests_minus_one_and_the_default(given):
    assert scenario(throughput=given).batch.throughput is None


def test_throughput_as_a_plain_number_is_records_per_second():
    assert scenario(throughput=1500).batch.throughput == 1500.0


@pytest.mark.parametrize("version, payload", [("2.8.1", "repeated"), ("3.0.0", "random"), ("4.1.0", "random")])
def test_the_payload_is_what_the_client_versions_perf_test_sends_unless_said(version, payload):
    assert scenario(client={"kind": "java", "version": version}).batch.values == payload
    assert scenario(payload="rows", record_size=...).batch.values == "rows"


def test_the_job_writes_back_only_what_a_producer_job_says():
    written = scenario(throughput="2000/s").as_mapping()
    assert "dataset" not in written and "spark" not in written["batch"]
    assert {k: written["batch"][k] for k in ("kind", "records", "record_size", "throughput")} == \
        {"kind": "producer", "records": 50000, "record_size": 100, "throughput": 2000.0}


def test_set_reaches_a_producer_jobs_keys():
    raw = copy.deepcopy(BASE)
    built = Scenario.from_mapping(apply_overrides(raw, ["batch.throughput=20000/s", "batch.producers=2",
                                                        "batch.host.vcpus=1"]))
    assert (built.batch.throughput, built.batch.producers, built.batch.host.vcpus) == (20000.0, 2, 1)


@pytest.mark.parametrize("job, field, words", [
    ({"spark": {"spark.executor.instances": 1}}, "batch.spark", "has no Spark side"),
    ({"dataset": {"files": [{"size": "1MB"}]}}, "batch.dataset", "has no files"),
    ({"key": "card_id"}, "batch.key", "no key column"),
    ({"records": ...}, "batch.records", "required but missing"),
    ({"record_size": ...}, "batch.record_size", "required but missing"),
    ({"payload": "rows"}, "batch.record_size", "leave record_size out"),
    ({"throughput": "0/s"}, "batch.throughput", "greater than zero"),
    ({"throughput": "fast"}, "batch.throughput", "record rate"),
    ({"kind": "flink"}, "batch.kind", "expected one of"),
    ({"record_size": "2MB"}, "batch.record_size", "larger than the job's max.request.size"),
    ({"producers": 0}, "batch.producers", "at least 1"),
])
def test_bad_producer_jobs_are_refused_naming_the_field(job, field, words):
    with pytest.raises(ScenarioError) as error:
        scenario(**job)
    assert error.value.field == field and words in str(error.value)


def test_a_spark_job_refuses_a_producer_jobs_keys_and_still_needs_files():
    raw = copy.deepcopy(BASE)
    raw["batch"] = {"topic": "bench", "spark": {"spark.executor.instances": 1}, "throughput": "1/s"}
    with pytest.raises(ScenarioError) as error:
        Scenario.from_mapping(raw)
    assert error.value.field == "batch.throughput"
    del raw["batch"]["throughput"]
    with pytest.raises(ScenarioError) as error:
        Scenario.from_mapping(raw)
    assert error.value.field == "dataset.files"
