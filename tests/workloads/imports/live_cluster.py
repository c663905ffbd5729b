"""One real broker (the local stack's) with the topics a live import test needs; stopped and cleaned
however the test ends."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def broker_with_topics(run_dir: Path, topics: dict[str, int]) -> Iterator:
    from confluent_kafka.admin import AdminClient, NewTopic   # the live extra's: collected on a model-only install too
    from simulator.live import KafkaCluster
    with KafkaCluster(run_dir / "stack", brokers=1) as running:
        admin = AdminClient({"bootstrap.servers": running.bootstrap_servers})
        for future in admin.create_topics([NewTopic(name, count, 1) for name, count in topics.items()]).values():
            future.result(timeout=30)
        del admin            # its connections go now, not as the broker stops (librdkafka would log their failing)
        yield running
