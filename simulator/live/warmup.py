"""The brokers' JVMs warmed up before the windows, as a long-running cluster's are.

A broker the local stack starts for a run is a fresh JVM: for its first ~15 s of produce load
its JIT compiler threads take 20-45 % of its core and its request and network threads run code
not yet compiled, at several times a warm broker's CPU per request (bench/broker_time.py: 1.04
against 0.16 ms per request). A broker of a real cluster has run for days. So before the
neighbours start, a producer writes the job's kind of load (its record size, its topic's
partition count and replication, its acks) to a scratch topic at about a Spark core's rate,
long enough for the brokers' hot paths to be compiled. The topic is kept: deleting it would
put the brokers' log deletion inside the windows.
"""
from __future__ import annotations

import time
from typing import Callable

from workloads import Scenario
from workloads.settings import BATCH_SIZE_CONFIG, LINGER_MS_CONFIG

BROKER_WARM_UP_TOPIC = "quietload-broker-warm-up"
BROKER_WARM_UP_S = 15.0          # on a whole vCPU the JIT's share falls to ~1 % after 10-15 s of load
BROKER_WARM_UP_RATE = 20 * 1024**2   # bytes per second: a warm Spark core's append rate
RECORD_BYTES = 1024
CHUNK_S = 0.05


def warm_up_brokers(scenario: Scenario, bootstrap: str, security: dict[str, str], brokers: int,
                    say: Callable[[str], None]) -> dict[str, float]:
    """Produce to a scratch topic shaped like the job's; returns what was written. A broker held
    to a fraction of a vCPU compiles as much code at that fraction of the speed: it gets longer."""
    seconds = BROKER_WARM_UP_S / min(1.0, scenario.cluster.broker.vcpus)
    from confluent_kafka import Producer     # optional extra (live)
    from confluent_kafka.admin import AdminClient, NewTopic     # optional extra (live)

    topic = next(t for t in scenario.cluster.topics if t.name == scenario.batch.topic)
    replicas = min(topic.replication_factor or scenario.cluster.replication_factor, brokers)
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 3, **security})
    if BROKER_WARM_UP_TOPIC not in admin.list_topics(timeout=10).topics:
        config = {"min.insync.replicas": str(min(scenario.cluster.min_insync_replicas, replicas))}
        admin.create_topics([NewTopic(BROKER_WARM_UP_TOPIC, topic.partitions, replicas, config=config)]
                            )[BROKER_WARM_UP_TOPIC].result(timeout=30)
    producer = Producer({"bootstrap.servers": bootstrap, "log_level": 3, LINGER_MS_CONFIG: 5, BATCH_SIZE_CONFIG: 16384,
                         "acks": "all" if scenario.batch.producer.acks == "all" else "1",
                         "client.id": "quietload-broker-warm-up", **security})
    say(f"warming up the broker(s): {seconds:.0f} s of produce load to {BROKER_WARM_UP_TOPIC}")
    value = bytes(range(256)) * (RECORD_BYTES // 256)
    per_chunk = max(1, round(BROKER_WARM_UP_RATE * CHUNK_S / RECORD_BYTES))
    records = 0
    began = time.monotonic()
    next_chunk = began
    while time.monotonic() - began < seconds:
        for _ in range(per_chunk):
            try:
                producer.produce(BROKER_WARM_UP_TOPIC, value)
            except BufferError:          # the brokers are slower than the pace: let them catch up
                producer.poll(0.05)
                continue
            records += 1
        producer.poll(0)
        next_chunk += CHUNK_S
        time.sleep(max(0.0, next_chunk - time.monotonic()))
    left = producer.flush(30)
    return {"records": records - left, "seconds": time.monotonic() - began}
