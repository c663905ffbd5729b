"""The Glue-style job end to end on real parts: the scenario's dataset (32 MB of CSV) uploaded to
LocalStack S3, read by PySpark over s3a, written to a real Kafka broker with the scenario's
producer settings, read back row by row. One broker and one LocalStack serve the module
(~20 s to start; the first run on a machine also resolves the Spark jars with Maven).
"""
import tempfile
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from simulator.live import KafkaCluster, StackError, metric_sum
from simulator.live import integrity
from simulator.live.s3 import LocalStackS3, upload_dataset, write_dataset_csv
from simulator.live.spark_job import producer_options, run_glue_job, spark_settings
from workloads import CATALOG, Scenario, ScenarioError

MB = 1024**2
# The published case (null keys, kafka-clients 2.8.1 defaults: acks=1, sticky partitioner) scaled
# to one broker and 2 x 16 MB, 8 MB splits, a repartition, and 16 KB batches (~190 produce requests).
OVERRIDES = ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
             "dataset.files=[{size: 16MB, count: 2}]", "batch.spark.spark.sql.files.maxPartitionBytes=8MB",
             "batch.spark.repartition=3", "batch.producer.batch.size=16KB"]


def _processes_using(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            pass
    return pids


def _scan_tasks(sizes: list[int], max_partition_bytes: int, open_cost: int, cores: int) -> int:
    """Spark's FilePartition: split each file at maxSplitBytes, then pack the splits, largest
    first, into partitions of at most maxSplitBytes counting openCostInBytes for each split."""
    max_split = min(max_partition_bytes, max(open_cost, sum(size + open_cost for size in sizes) // cores))
    splits = sorted((min(max_split, size - offset) for size in sizes for offset in range(0, size, max_split)), reverse=True)
    partitions, current = 0, 0
    for split in splits:
        if current and current + split > max_split:
            partitions, current = partitions + 1, 0
        current += split + open_cost
    return partitions + (1 if current else 0)


@pytest.fixture(scope="module")
def scenario():
    return Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", OVERRIDES)


@pytest.fixture(scope="module")
def stack(tmp_path_factory, scenario):
    run_dir = tmp_path_factory.mktemp("spark") / "stack"
    with KafkaCluster(run_dir, brokers=1) as cluster, LocalStackS3(run_dir) as s3:
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
        topic = scenario.cluster.topic(scenario.batch.topic)
        for name, partitions in ((topic.name, topic.partitions), ("hand-made", 2)):
            admin.create_topics([NewTopic(name, partitions, 1)])[name].result(timeout=30)
        yield cluster, s3


@pytest.fixture(scope="module")
def job(stack, scenario, tmp_path_factory):
    cluster, s3 = stack
    files = write_dataset_csv(scenario, tmp_path_factory.mktemp("dataset"))
    uris = upload_dataset(s3.endpoint_url, "landing", scenario.name, files)
    before = metric_sum(cluster.scrape(), "kafka_network_RequestsPerSec_total", request="Produce")
    report = run_glue_job(scenario, cluster.bootstrap_servers, uris, s3.endpoint_url)
    produce_requests = metric_sum(cluster.scrape(), "kafka_network_RequestsPerSec_total", request="Produce") - before
    return files, report, produce_requests


@pytest.mark.live
def test_every_row_arrives_exactly_once(stack, scenario, job):
    cluster, _ = stack
    files, report, _ = job
    expected = integrity.expected_digest(files, scenario.batch.key)
    verdict = integrity.verify(expected, integrity.read_back(cluster.bootstrap_servers, scenario.batch.topic, timeout_s=60))
    assert verdict.ok, verdict.render()
    assert verdict.rows_arrived == expected.rows == report.rows > 50_000   # ~615 bytes a row
    assert report.producer["record-send-total"] == report.rows              # no retries on loopback


@pytest.mark.live
def test_the_broker_counts_the_producers_own_requests_within_5_percent(job):
    _, report, produce_requests = job
    client_requests = report.producer["request-total"]   # also counts its few Metadata/ApiVersions/InitProducerId
    assert produce_requests > 120   # so its ~5 other requests stay under 5 %
    assert abs(client_requests - produce_requests) <= 0.05 * produce_requests
    assert report.producer["producers"] == 1   # local mode: one cached producer in the driver JVM
    assert 0 < report.producer["batch-size-avg"] <= 16 * 1024
    assert report.producer["records-per-request-avg"] > 1
    assert report.producer["compression-rate-avg"] == 1.0   # compression.type none
    assert report.producer["outgoing-byte-total"] > report.input_bytes   # JSON values outweigh the CSV


@pytest.mark.live
def test_the_job_splits_the_files_as_spark_plans_them_and_repartitions(scenario, job):
    files, report, _ = job
    sizes = [path.stat().st_size for path in files]
    assert report.tasks == _scan_tasks(sizes, 8 * MB, 4 * MB, report.cores) + 3
    assert (report.stages, report.write_tasks, report.cores) == (2, 3, 2)
    assert sum(sizes) <= report.input_bytes <= 1.01 * sum(sizes)   # a split reads on to its last line's end
    assert report.ended > report.started and report.wall_seconds == report.ended - report.started


@pytest.mark.live
def test_a_lost_and_a_duplicated_record_are_caught_on_a_real_topic(stack, tmp_path):
    cluster, _ = stack
    data = tmp_path / "rows.csv"
    data.write_text("id,amount\n1,10.00\n2,20.00\n3,30.00\n")
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers})
    for value in ('{"id":"1","amount":"10.00"}', '{"id":"2","amount":"20.00"}', '{"id":"2","amount":"20.00"}'):
        producer.produce("hand-made", value.encode())
    assert producer.flush(10) == 0
    verdict = integrity.verify(integrity.expected_digest([data], None),
                               integrity.read_back(cluster.bootstrap_servers, "hand-made", timeout_s=30))
    assert (verdict.rows_expected, verdict.rows_arrived, verdict.missing, verdict.duplicated, verdict.ok) == (3, 3, 1, 1, False)


@pytest.mark.live
def test_bad_input_is_one_line_before_spark_starts(stack, scenario):
    cluster, s3 = stack
    with pytest.raises(StackError) as bucket:
        run_glue_job(scenario, cluster.bootstrap_servers, ["s3a://no-such-bucket/x.csv"], s3.endpoint_url)
    assert str(bucket.value) == f"s3a://no-such-bucket/x.csv: bucket 'no-such-bucket' does not exist at {s3.endpoint_url}"
    with pytest.raises(StackError) as topic:
        run_glue_job(scenario, cluster.bootstrap_servers, ["s3a://landing/paypay-glue-2gb"], s3.endpoint_url, topic="nowhere")
    assert str(topic.value) == f"topic 'nowhere' does not exist on {cluster.bootstrap_servers}: create it first"


@pytest.mark.live
def test_a_failing_job_is_one_line_with_its_log_and_leaves_no_driver(stack, scenario, job, tmp_path, monkeypatch):
    cluster, s3 = stack
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))   # the driver's work dir, named on its and its JVM's command lines
    log = tmp_path / "spark-job.log"
    broken = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", OVERRIDES + ["batch.key=no_such_column"])
    with pytest.raises(StackError) as failure:
        run_glue_job(broken, cluster.bootstrap_servers, ["s3a://landing/paypay-glue-2gb"], s3.endpoint_url, log=log)
    message = str(failure.value)
    assert message.startswith("the Glue job failed: ") and "no_such_column" in message and message.endswith(f"(log: {log})")
    assert "\n" not in message and log.stat().st_size > 0
    assert _processes_using(str(tmp_path / "quietload-spark-")) == []


def test_the_producers_properties_become_kafka_options():
    glue4 = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml")   # kafka-clients 2.8.1: acks=1, no idempotence
    assert producer_options(glue4) == {
        "kafka.acks": "1", "kafka.batch.size": "131072", "kafka.buffer.memory": "33554432", "kafka.client.id": "batch-load",
        "kafka.compression.type": "none",
        "kafka.enable.idempotence": "false", "kafka.linger.ms": "0", "kafka.max.in.flight.requests.per.connection": "5",
        "kafka.max.request.size": "1048576"}
    tuned = Scenario.from_yaml(CATALOG / "paypay-glue-2gb-fixed.yaml")
    assert producer_options(tuned)["kafka.compression.type"] == tuned.batch.producer.compression_type


def test_the_sessions_settings_follow_the_scenario():
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", OVERRIDES + ["batch.spark.spark.default.parallelism=6"])
    settings = spark_settings(scenario, "http://127.0.0.1:4566", cores=2)
    assert {key: settings[key] for key in ("spark.master", "spark.ui.enabled", "spark.sql.files.maxPartitionBytes",
                                           "spark.sql.files.openCostInBytes", "spark.default.parallelism",
                                           "spark.hadoop.fs.s3a.endpoint", "spark.hadoop.fs.s3a.path.style.access")} == {
        "spark.master": "local[2]", "spark.ui.enabled": "false", "spark.sql.files.maxPartitionBytes": str(8 * MB),
        "spark.sql.files.openCostInBytes": str(4 * MB), "spark.default.parallelism": "6",
        "spark.hadoop.fs.s3a.endpoint": "http://127.0.0.1:4566", "spark.hadoop.fs.s3a.path.style.access": "true"}
    assert not any(key.startswith("spark.hadoop.fs.s3a") for key in spark_settings(scenario, None, cores=1))


def test_a_librdkafka_batch_client_is_refused():
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["batch.client.kind=librdkafka", "batch.client.version=2.3.0"])
    with pytest.raises(ScenarioError, match="batch.client.kind: Spark's Kafka sink runs the Java producer, not librdkafka"):
        producer_options(scenario)
