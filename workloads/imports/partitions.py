"""A topic's partition count, read from the cluster: its metadata through the bootstrap servers
(confluent-kafka's AdminClient, the client the live stack already uses; ``quietload[live]``), or
the partition dimension of the metrics an import read (CloudWatch's ``Partition``, a JMX
exporter's ``partition`` label). Each count says where it came from.
"""
from __future__ import annotations

import time
from typing import Any

from workloads.errors import ScenarioError
from workloads.imports.network import Waits


def _quiet(_: Any) -> None:
    """librdkafka's errors are told through the metadata call's outcome, not printed."""


def read_partitions(bootstrap: str, topics: list[str], waits: Waits, what: str = "--bootstrap-servers") -> dict[str, int]:
    """Every named topic's partition count in the cluster's metadata (a topic it does not hold is left
    out); a cluster that does not answer within ``--timeout`` (and the import's ``--deadline``) is one
    line naming it and the time waited."""
    try:
        from confluent_kafka import KafkaException
        from confluent_kafka.admin import AdminClient
    except ModuleNotFoundError:
        raise ScenarioError(what, "reading the cluster's topics needs confluent-kafka (pip install 'quietload[live]')") from None
    limit = min(waits.timeout, waits.left(what, bootstrap))
    began = time.monotonic()
    settings: dict[str, Any] = {"bootstrap.servers": bootstrap, "error_cb": _quiet, "log_level": 0,
                                "socket.connection.setup.timeout.ms": max(1000, int(limit * 1000))}
    admin = AdminClient(settings)
    try:
        with waits.slow(f"{bootstrap} ({what}: the topics' partition counts)"):
            metadata = admin.list_topics(timeout=limit)     # every topic's: naming one would create it where auto-create is on
    except KafkaException as error:
        reason = error.args[0].str() if error.args and hasattr(error.args[0], "str") else str(error)
        raise ScenarioError(what, f"{bootstrap}: no broker answered within --timeout {waits.timeout:g} s "
                                  f"({time.monotonic() - began:.1f} s waited: {reason})") from None
    return {t: len(metadata.topics[t].partitions) for t in topics
            if t in metadata.topics and metadata.topics[t].error is None and metadata.topics[t].partitions}


def partitions_in_metrics(dimensions: list[dict[str, str]]) -> dict[str, int]:
    """Partition counts from the metrics' dimensions (or labels): each topic's distinct partitions."""
    seen: dict[str, set[str]] = {}
    for labels in dimensions:
        topic = labels.get("Topic", labels.get("topic"))
        partition = labels.get("Partition", labels.get("partition"))
        if topic and partition is not None:
            seen.setdefault(topic, set()).add(partition)
    return {topic: len(parts) for topic, parts in sorted(seen.items())}
