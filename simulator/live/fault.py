"""A broker killed during a live run's load (``quietload live --kill-broker``): the scenario checked
to survive it (``check_broker_kill``), and the thread that kills the broker once the load has
written part of its records (``FaultInjector``)."""
from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any, Callable

from simulator.live.clients import QUIET_LOG
from simulator.live.kafka import KafkaCluster
from workloads import Scenario, ScenarioError


def check_broker_kill(scenario: Scenario, broker: int) -> None:
    """--kill-broker names a broker of the scenario's cluster whose death the load survives
    without losing an acknowledged row: every topic keeps min.insync.replicas in sync without
    it and the job waits for them (acks=all). Else one error, before anything starts."""
    cluster = scenario.cluster
    if not 0 <= broker < cluster.brokers:
        ids = "0" if cluster.brokers == 1 else f"0 to {cluster.brokers - 1}"
        raise ScenarioError("--kill-broker", f"broker {broker} is not in the scenario's cluster (broker ids {ids})")
    for topic in cluster.topics:
        rf = topic.replication_factor or cluster.replication_factor
        if rf - 1 < cluster.min_insync_replicas:
            raise ScenarioError("--kill-broker", f"topic {topic.name!r} has replication.factor {rf} and min.insync.replicas "
                                f"{cluster.min_insync_replicas}: without broker {broker} its partitions there "
                                + ("are gone" if rf == 1 else "take no acks=all write")
                                + "; a fault run needs replication.factor > min.insync.replicas")
    if scenario.batch.producer.acks != "all" or cluster.min_insync_replicas < 2:
        raise ScenarioError("--kill-broker", f"the job writes with acks={scenario.batch.producer.acks} and min.insync.replicas "
                            f"{cluster.min_insync_replicas}: a leader's death may lose rows it acknowledged alone; "
                            "a fault run needs acks=all and min.insync.replicas >= 2")


class FaultInjector:
    """Kills one broker (SIGKILL) once the load has written ``after_fraction`` of its rows,
    judged by the bulk topic's high watermarks; remembers when. ``before_kill`` runs just
    before the kill (the sampler's last scrape of the broker, so its counters reach its death)."""

    def __init__(self, cluster: KafkaCluster, broker: int, bootstrap: str, topic: str, rows: int,
                 after_fraction: float = 0.3, before_kill: Callable[[], None] = lambda: None) -> None:
        self.cluster, self.broker, self.bootstrap, self.topic = cluster, broker, bootstrap, topic
        self.before_kill = before_kill
        self.threshold = rows * after_fraction
        self.killed_at: float | None = None
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, name="quietload-fault", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._halt.set()
        self._thread.join()

    def _written(self, consumer: Any) -> int:
        from confluent_kafka import TopicPartition     # optional extra (live)
        metadata = consumer.list_topics(self.topic, timeout=5).topics[self.topic]
        return sum(consumer.get_watermark_offsets(TopicPartition(self.topic, p), timeout=5, cached=False)[1]
                   for p in metadata.partitions)

    def _run(self) -> None:
        from confluent_kafka import Consumer, KafkaException     # optional extra (live)
        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "quietload-fault",
                             "enable.auto.commit": False, **QUIET_LOG})
        try:
            while not self._halt.wait(0.2):
                try:
                    if self._written(consumer) >= self.threshold:
                        break
                except KafkaException:
                    continue
            else:
                return
            if self._halt.is_set():     # the load ended while the watermarks were read: no fault after it
                return
            node = next(n for n in self.cluster.nodes() if n.role == "broker" and n.node_id == self.broker)
            self.before_kill()
            os.kill(node.pid, signal.SIGKILL)
            self.killed_at = time.time()
        finally:
            consumer.close()
