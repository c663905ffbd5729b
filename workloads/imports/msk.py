"""An MSK cluster (the JSON of ``aws kafka describe-cluster-v2``) and its configuration
(``server.properties``) as the scenario's cluster: broker count and type (through
``workloads.broker_types``), Kafka version, thread pools, replication defaults, TLS in transit,
and the monitoring level its CloudWatch metrics are published at.

MSK's default configuration (Amazon MSK Developer Guide, "Default Amazon MSK configuration",
https://docs.aws.amazon.com/msk/latest/developerguide/msk-default-configuration.html):
num.io.threads 8, num.network.threads 5, num.replica.fetchers 2, default.replication.factor 3
and min.insync.replicas 2 on clusters over three availability zones (2 and 1 over two).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads.broker_types import BrokerType, broker_settings, broker_type
from workloads.errors import ScenarioError
from workloads.scenario import insync_within_replicas
from workloads.units import whole_number

MIB = 1024**2
# server.properties key -> scenario key under cluster.broker (None: under cluster)
BROKER_PROPERTIES = ("num.io.threads", "num.network.threads", "num.replica.fetchers", "queued.max.requests",
                     "replica.fetch.wait.max.ms", "replica.fetch.max.bytes")
CLUSTER_PROPERTIES = {"default.replication.factor": "replication.factor", "min.insync.replicas": "min.insync.replicas"}
MSK_DEFAULTS = {"num.io.threads": 8, "num.network.threads": 5, "num.replica.fetchers": 2}
MONITORING_LEVELS = ("DEFAULT", "PER_BROKER", "PER_TOPIC_PER_BROKER", "PER_TOPIC_PER_PARTITION")


@dataclass(frozen=True)
class MskCluster:
    name: str
    brokers: int
    kind: BrokerType
    kafka_version: str
    monitoring: str
    tls_in_transit: bool
    cluster: dict[str, Any]       # the scenario's cluster (without topics)
    notes: tuple[str, ...]


def read_properties(text: str, where: str = "--configuration") -> dict[str, str]:
    """A Java properties file's ``key=value`` (or ``key: value``) lines; comments and blanks skipped."""
    properties = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith(("#", "!")):
            continue
        separator = min((i for i in (line.find("="), line.find(":")) if i > 0), default=-1)
        if separator < 0:
            raise ScenarioError(where, f"line {number} is not key=value")
        properties[line[:separator].strip()] = line[separator + 1:].strip()
    return properties


def _whole(properties: dict[str, str], key: str, where: str) -> int:
    value, number = properties[key], whole_number(properties[key])
    if number is None or number < 1:
        shown = repr(value) if len(value) <= 20 else repr(value[:20]) + "..."
        raise ScenarioError(f"{where}: {key}", f"expected a whole number of at least 1, got {shown}")
    return number


def read_msk_cluster(document: Any, properties: dict[str, str] | None = None, where: str = "--msk-cluster") -> MskCluster:
    info = document.get("ClusterInfo") if isinstance(document, dict) else None
    if not isinstance(info, dict) or "ClusterType" not in info:
        raise ScenarioError(where, 'not the JSON of `aws kafka describe-cluster-v2`: no "ClusterInfo" with a "ClusterType"')
    if info["ClusterType"] != "PROVISIONED" or not isinstance(info.get("Provisioned"), dict):
        raise ScenarioError(f"{where}: ClusterInfo.ClusterType", f"quietload models provisioned clusters, got {info['ClusterType']!r}")
    provisioned = info["Provisioned"]
    group = provisioned.get("BrokerNodeGroupInfo") or {}
    kind = broker_type(str(group.get("InstanceType")), f"{where}: ClusterInfo.Provisioned.BrokerNodeGroupInfo.InstanceType")
    brokers = provisioned.get("NumberOfBrokerNodes")
    if isinstance(brokers, bool) or not isinstance(brokers, int) or brokers < 1:
        raise ScenarioError(f"{where}: ClusterInfo.Provisioned.NumberOfBrokerNodes", f"expected a whole number of brokers, got {brokers!r}")
    version = str((provisioned.get("CurrentBrokerSoftwareInfo") or {}).get("KafkaVersion") or "unknown")
    monitoring = str(provisioned.get("EnhancedMonitoring") or "DEFAULT")
    if monitoring not in MONITORING_LEVELS:
        raise ScenarioError(f"{where}: ClusterInfo.Provisioned.EnhancedMonitoring", f"unknown level {monitoring!r}")
    transit = (provisioned.get("EncryptionInfo") or {}).get("EncryptionInTransit") or {}
    tls = transit.get("ClientBroker", "TLS") != "PLAINTEXT"     # MSK's default is TLS
    broker: dict[str, Any] = dict(broker_settings(kind))
    notes = [f"Amazon MSK {info.get('ClusterName', '?')!r}: {brokers} x {kind.name} brokers ({kind.vcpus} vCPUs; network "
             f"and EBS figures from {', '.join(kind.sources)}, at the instance's burst, as a load of minutes runs), "
             f"Kafka {version}, monitoring level {monitoring}, TLS between clients and brokers: {'yes' if tls else 'no'}."]
    throughput = ((group.get("StorageInfo") or {}).get("EbsStorageInfo") or {}).get("ProvisionedThroughput") or {}
    if throughput.get("Enabled") and isinstance(throughput.get("VolumeThroughput"), int) and not kind.express:
        broker["disk_bandwidth"] = f"{min(throughput['VolumeThroughput'] * MIB, kind.ebs_burst):.0f}B/s"
        notes.append(f"Provisioned storage throughput {throughput['VolumeThroughput']} MiB/s.")
    properties = properties or {}
    cluster: dict[str, Any] = {"brokers": brokers}
    for key in BROKER_PROPERTIES:
        if key in properties:
            broker[key] = _whole(properties, key, "--configuration")
    given = [key for key in (*BROKER_PROPERTIES, *CLUSTER_PROPERTIES) if key in properties]
    assumed = [key for key in MSK_DEFAULTS if key not in properties]
    for key in assumed:
        broker[key] = MSK_DEFAULTS[key]
    if "default.replication.factor" in properties:
        cluster["replication.factor"] = min(_whole(properties, "default.replication.factor", "--configuration"), brokers)
    cluster.setdefault("replication.factor", min(3, brokers))
    if "min.insync.replicas" in properties:
        cluster["min.insync.replicas"] = _whole(properties, "min.insync.replicas", "--configuration")
        insync_within_replicas(cluster["min.insync.replicas"], cluster["replication.factor"], "--configuration: min.insync.replicas",
                               f" (default.replication.factor on {brokers} brokers)")
    cluster.setdefault("min.insync.replicas", min(2, cluster["replication.factor"]) if brokers >= 3 else 1)
    if given:
        notes.append("From the cluster's configuration: " + ", ".join(f"{k} {properties[k]}" for k in given) + ".")
    defaults = [k for k in (*assumed, *CLUSTER_PROPERTIES) if k not in properties]
    if defaults:
        notes.append("Assumed, MSK's default configuration: " + ", ".join(
            f"{k} {broker.get(k, cluster.get(CLUSTER_PROPERTIES.get(k, k)))}" for k in defaults) + ".")
    cluster["broker"] = broker
    return MskCluster(str(info.get("ClusterName", "")), brokers, kind, version, monitoring, tls, cluster, tuple(notes))


def fetch_msk_cluster(arn: str, client: Any) -> dict:
    """``describe-cluster-v2`` through boto3's Kafka client (given, so a test can stub it)."""
    return client.describe_cluster_v2(ClusterArn=arn)
