"""A scenario written out as the user's AWS would describe it: the ``get-job`` and
``describe-cluster-v2`` responses (AWS's documented shapes), the job's script, the cluster's
server.properties, and the input's S3 listing. The import must read them back as the scenario."""
from __future__ import annotations

from workloads.broker_types import BROKER_TYPES, broker_settings
from workloads.imports.glue import GLUE_VERSIONS, WORKER_TYPES
from workloads.scenario import Scenario


def _glue_version(client: tuple[int, int, int]) -> str:
    text = ".".join(map(str, client))
    return next(v for v, (_, kafka) in GLUE_VERSIONS.items() if kafka == text)


def _worker_type(cores: int) -> str:
    return next(name for name, (vcpus, per) in WORKER_TYPES.items() if per == 1 and vcpus == cores and name.startswith("G."))


def _broker_type(scenario: Scenario) -> str:
    broker = scenario.cluster.broker
    for name, kind in BROKER_TYPES.items():
        settings = broker_settings(kind)
        if (not kind.express and settings["vcpus"] == broker.vcpus
                and float(settings["nic_bandwidth"][:-3]) == broker.nic_bandwidth
                and float(settings["disk_bandwidth"][:-3]) == broker.disk_bandwidth):
            return name
    raise ValueError("the scenario's brokers are no MSK broker type")


def get_job(scenario: Scenario, name: str = "load") -> dict:
    spark = scenario.batch.spark
    conf = [f"spark.sql.files.maxPartitionBytes={spark.max_partition_bytes}",
            f"spark.sql.files.openCostInBytes={spark.open_cost_in_bytes}"]
    return {"Job": {"Name": name, "Role": "arn:aws:iam::123456789012:role/loader",
                    "Command": {"Name": "glueetl", "ScriptLocation": f"s3://scripts/{name}.py", "PythonVersion": "3"},
                    "DefaultArguments": {"--job-language": "python", "--conf": " --conf ".join(conf),
                                         "--topic": scenario.batch.topic},
                    "MaxRetries": 0, "Timeout": 2880, "WorkerType": _worker_type(spark.executor_cores),
                    "NumberOfWorkers": spark.executors + 1, "GlueVersion": _glue_version(scenario.batch.client.version)}}


def script(scenario: Scenario, bucket: str, prefix: str) -> str:
    producer = scenario.batch.producer
    repartition = f".repartition({scenario.batch.spark.repartition})" if scenario.batch.spark.repartition else ""
    return "\n".join([
        "import sys",
        "from awsglue.utils import getResolvedOptions",
        "from pyspark.sql import SparkSession",
        "from pyspark.sql.functions import struct, to_json",
        'args = getResolvedOptions(sys.argv, ["JOB_NAME", "topic"])',
        f'INPUT = "s3://{bucket}/{prefix}"',
        "spark = SparkSession.builder.getOrCreate()",
        f"(spark.read.csv(INPUT, header=True){repartition}",
        '   .select(to_json(struct("*")).alias("value"))',
        '   .write.format("kafka")',
        '   .option("kafka.bootstrap.servers", "b-1:9092")',
        f'   .option("kafka.batch.size", "{producer.batch_size}")',
        f'   .option("kafka.linger.ms", {int(producer.linger_ms)})',
        f'   .option("kafka.compression.type", "{producer.compression_type}")',
        '   .option("topic", args["topic"])',
        "   .save())", ""])


def describe_cluster(scenario: Scenario, name: str = "payments") -> dict:
    return {"ClusterInfo": {
        "ClusterType": "PROVISIONED", "ClusterName": name, "State": "ACTIVE",
        "ClusterArn": f"arn:aws:kafka:eu-west-1:123456789012:cluster/{name}/0b3e4c2a-2",
        "Provisioned": {"BrokerNodeGroupInfo": {"InstanceType": _broker_type(scenario),
                                                "StorageInfo": {"EbsStorageInfo": {"VolumeSize": 1000}}},
                        "CurrentBrokerSoftwareInfo": {"KafkaVersion": "3.6.0"},
                        "EncryptionInfo": {"EncryptionInTransit": {"ClientBroker": "TLS", "InCluster": True}},
                        "EnhancedMonitoring": "PER_TOPIC_PER_BROKER",
                        "NumberOfBrokerNodes": scenario.cluster.brokers}}}


def server_properties(scenario: Scenario) -> str:
    broker, cluster = scenario.cluster.broker, scenario.cluster
    return "\n".join([f"default.replication.factor={cluster.replication_factor}",
                      f"min.insync.replicas={cluster.min_insync_replicas}",
                      f"num.io.threads={broker.num_io_threads}", f"num.network.threads={broker.num_network_threads}",
                      f"num.replica.fetchers={broker.num_replica_fetchers}",
                      f"queued.max.requests={broker.queued_max_requests}", ""])


def listing(scenario: Scenario, prefix: str) -> list[tuple[str, int]]:
    return [(f"{prefix}part-{i:03d}.csv", size) for i, size in enumerate(scenario.dataset.file_sizes)]
