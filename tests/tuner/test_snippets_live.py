"""The recommendation's PySpark snippet, pasted as it is, writes rows to a real broker: real
PySpark in local mode with Spark's Kafka sink, a real KRaft broker; the only edit is the
placeholders (bootstrap servers, topic), as a user's would be."""
import json
import os

import pytest
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic

from simulator.live import KafkaCluster
from simulator.live.logdump import broker_log_dirs, topic_batches
from simulator.live.spark_job import resolve_spark_jars
from workloads.snippets import BOOTSTRAP_PLACEHOLDER, TOPIC_PLACEHOLDER, rounded_params, snippets

TOPIC = "pasted"
ROWS = [(i, f"{i * 1.25:.2f}") for i in range(40)]
# a pick with the false precision a sampler gives, rounded as the recommendation rounds it
PICK = {"repartition": 2, "compression.type": "zstd", "linger.ms": 10, "batch.size": 125416,
        "buffer.memory": 33_000_000, "max.in.flight.requests.per.connection": 5}


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = (SparkSession.builder.master("local[1]").appName("quietload-snippet")
               .config("spark.jars", ",".join(str(jar) for jar in resolve_spark_jars()))
               .config("spark.ui.enabled", "false").config("spark.driver.memory", "512m").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _read_back(bootstrap_servers: str, expected: int) -> list[str]:
    consumer = Consumer({"bootstrap.servers": bootstrap_servers, "group.id": "snippet-check",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([TOPIC])
    values: list[str] = []
    try:
        for _ in range(60):
            message = consumer.poll(1.0)
            if message is not None and message.error() is None:
                values.append(message.value().decode())
            if len(values) >= expected:
                break
    finally:
        consumer.close()
    return values


@pytest.mark.live
def test_the_pasted_pyspark_snippet_writes_the_rows_with_its_own_options(tmp_path, spark):
    params = rounded_params(PICK)
    assert params["batch.size"] == 131072 and params["buffer.memory"] == 32 * 1024**2
    with KafkaCluster(tmp_path / "stack", brokers=1) as cluster:
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
        admin.create_topics([NewTopic(TOPIC, 2, 1)])[TOPIC].result(timeout=30)
        code = (snippets(params)["pyspark"].replace(BOOTSTRAP_PLACEHOLDER, cluster.bootstrap_servers)
                .replace(TOPIC_PLACEHOLDER, TOPIC))
        df = spark.createDataFrame(ROWS, "id INT, amount STRING")
        exec(compile(code, "<snippet>", "exec"), {"df": df})
        values = _read_back(cluster.bootstrap_servers, len(ROWS))
        batches = topic_batches(broker_log_dirs(cluster), TOPIC)
    assert sorted(json.loads(value)["id"] for value in values) == [i for i, _ in ROWS]
    assert {json.loads(value)["amount"] for value in values} == {amount for _, amount in ROWS}
    # the snippet's own producer settings reached the producer: every batch zstd-compressed
    assert sum(batch.records for batch in batches) == len(ROWS)
    assert {batch.codec for batch in batches} == {"zstd"}
