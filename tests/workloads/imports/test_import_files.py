"""Importing a Glue job, its script and an MSK cluster from the files AWS returns: exact values,
the round trip of a scenario through those shapes, and the API paths' call shapes (botocore's
Stubber: Glue's and MSK's APIs are not in LocalStack's free edition)."""
import json
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

import exporter
from workloads import Scenario, ScenarioError
from workloads.broker_types import broker_settings, broker_type
from workloads.imports import Imported, Request, build, gather
from workloads.imports.glue import read_glue_job, spark_conf
from workloads.imports.msk import read_msk_cluster, read_properties
from workloads.imports.script import read_script

DATA = Path(__file__).parent / "data"
SECRET = "s3cr3t-do-not-print"


def _json(name):
    return json.loads((DATA / name).read_text())


def test_a_glue_job_gives_executors_cores_versions_and_spark_settings():
    job = read_glue_job(_json("get-job.json"))
    assert (job.glue_version, job.worker_type, job.workers, job.client_version) == ("4.0", "G.2X", 3, "2.8.1")
    assert job.spark == {"spark.executor.instances": 2, "spark.executor.cores": 8, "vcpus": 8,
                         "spark.sql.files.maxPartitionBytes": 134217728}
    assert job.script_location == "s3://glue-scripts/card-transactions-to-msk.py"
    assert job.parameters["topic"] == "card-transactions"


def test_glue_conf_holds_further_confs():
    assert spark_conf("spark.a=1 --conf spark.b=2", "w") == {"spark.a": "1", "spark.b": "2"}
    with pytest.raises(ScenarioError, match="expected Spark settings"):
        spark_conf("--conf hadoop.x=1", "w")


def test_the_script_is_read_not_run_and_its_secrets_are_never_read():
    job = read_glue_job(_json("get-job.json"))
    facts = read_script((DATA / "card-transactions-to-msk.py").read_text(), job.parameters)
    assert facts.producer == {"batch.size": 131072, "linger.ms": 10, "compression.type": "zstd"}
    assert (facts.topic, facts.repartition, facts.input_paths) == ("card-transactions", 60, ("s3://landing/card-transactions/",))
    assert facts.notes == ("The script sets kafka.buffer.memory from an expression quietload does not evaluate; its value is assumed.",)
    assert SECRET not in repr(facts)


def test_an_msk_cluster_and_its_configuration():
    cluster = read_msk_cluster(_json("describe-cluster-v2.json"), read_properties((DATA / "server.properties").read_text()))
    assert (cluster.brokers, cluster.kind.name, cluster.kafka_version, cluster.monitoring, cluster.tls_in_transit) == (
        3, "kafka.m5.large", "3.6.0", "PER_TOPIC_PER_BROKER", True)
    assert cluster.cluster == {"brokers": 3, "replication.factor": 3, "min.insync.replicas": 2,
                               "broker": {**broker_settings(broker_type("kafka.m5.large")), "num.io.threads": 8,
                                          "num.network.threads": 5, "num.replica.fetchers": 2}}


def test_without_a_configuration_msk_defaults_are_assumed_and_said():
    cluster = read_msk_cluster(_json("describe-cluster-v2.json"))
    assert cluster.cluster["broker"]["num.network.threads"] == 5 and cluster.cluster["min.insync.replicas"] == 2
    assert cluster.notes[-1] == ("Assumed, MSK's default configuration: num.io.threads 8, num.network.threads 5, "
                                 "num.replica.fetchers 2, default.replication.factor 3, min.insync.replicas 2.")


ROUND_TRIP = {
    "name": "settlements",
    "cluster": {"brokers": 3, "replication.factor": 3, "min.insync.replicas": 2,
                "broker": {**broker_settings(broker_type("kafka.m5.xlarge")), "num.io.threads": 16,
                           "num.network.threads": 6, "num.replica.fetchers": 4, "queued.max.requests": 800},
                "topics": [{"name": "card-settlements", "partitions": 30}]},
    "dataset": {"files": [{"size": 1_500_000_000, "count": 2}, {"size": 700_000_000}]},
    "batch": {"topic": "card-settlements", "client": {"kind": "java", "version": "3.4.1"},
              "spark": {"spark.executor.instances": 8, "spark.executor.cores": 4, "vcpus": 4,
                        "spark.sql.files.maxPartitionBytes": 64 * 1024**2, "spark.sql.files.openCostInBytes": 8 * 1024**2,
                        "repartition": 60},
              "producer": {"batch.size": 262144, "linger.ms": 20, "compression.type": "lz4"}},
}


def _sections(scenario):
    data = scenario.as_mapping()
    return {key: data[key] for key in ("cluster", "dataset", "batch")}


def test_a_scenario_written_in_aws_shapes_imports_back_as_the_same_scenario():
    original = Scenario.from_mapping(ROUND_TRIP)
    job = read_glue_job(exporter.get_job(original))
    imported = Imported(glue=job, script=read_script(exporter.script(original, "landing", "day=1/"), job.parameters),
                        files=exporter.listing(original, "day=1/"),
                        msk=read_msk_cluster(exporter.describe_cluster(original),
                                             read_properties(exporter.server_properties(original))),
                        partitions={"card-settlements": 30})
    assert _sections(build(imported, "settlements").scenario) == _sections(original)


def test_the_api_paths_make_the_calls_aws_documents(tmp_path):
    glue, kafka = boto3.client("glue", region_name="eu-west-1"), boto3.client("kafka", region_name="eu-west-1")
    arn = _json("describe-cluster-v2.json")["ClusterInfo"]["ClusterArn"]
    with Stubber(glue) as glue_stub, Stubber(kafka) as kafka_stub:
        job = _json("get-job.json")
        for when in ("CreatedOn", "LastModifiedOn"):
            del job["Job"][when]      # the stub checks types: the CLI's JSON holds these as text
        glue_stub.add_response("get_job", job, {"JobName": "card-transactions-to-msk"})
        cluster = _json("describe-cluster-v2.json")
        del cluster["ClusterInfo"]["CreationTime"]
        kafka_stub.add_response("describe_cluster_v2", cluster, {"ClusterArn": arn})
        (tmp_path / "job.py").write_text((DATA / "card-transactions-to-msk.py").read_text().replace("args[\"input_path\"]", "None"))
        imported = gather(Request(glue_job_name=("card-transactions-to-msk",), msk_cluster_arn=arn, script=str(tmp_path / "job.py")),
                          {"glue": glue, "kafka": kafka}.__getitem__)
        glue_stub.assert_no_pending_responses()
        kafka_stub.assert_no_pending_responses()
    assert (imported.glue.worker_type, imported.msk.kind.name, imported.script.repartition) == ("G.2X", "kafka.m5.large", 60)


def test_handler_idle_published_as_a_fraction_is_read_as_one():
    from workloads.imports.cloudwatch import _history
    values = {("RequestHandlerAvgIdlePercent", "1", None): [0.9, 0.35, None], ("RequestHandlerAvgIdlePercent", "2", None): [92.0, 35.0, 90.0],
              ("BytesInPerSec", "1", "t"): [10.0, 20.0, 10.0]}
    history = _history("c", 0.0, 60, values)
    assert history.brokers["1"]["RequestHandlerAvgIdlePercent"] == [90.0, 35.0, None]
    assert history.brokers["2"]["RequestHandlerAvgIdlePercent"] == [92.0, 35.0, 90.0]
    assert history.brokers["1"]["BytesInPerSec"] == [10.0, 20.0, 10.0]      # the broker's total from its topics'
    assert history.notes == ("Broker 1's RequestHandlerAvgIdlePercent points are fractions (all at most 1): read as 0-1.",)


def test_an_express_cluster_throttles_the_load_at_its_quota():
    cluster = _json("describe-cluster-v2.json")
    cluster["ClusterInfo"]["Provisioned"]["BrokerNodeGroupInfo"]["InstanceType"] = "express.m7g.large"
    kind = broker_type("express.m7g.large")
    imports = build(Imported(msk=read_msk_cluster(cluster), load_topic="bulk"), "express")
    assert imports.scenario.batch.quota.producer_byte_rate == round(kind.express_ingress_quota)
    assert imports.scenario.cluster.broker.vcpus == kind.vcpus
