"""Neighbour producers on a real broker: fixed-rate records, latency from the intended send time."""
import time

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from simulator.live import KafkaCluster, metric_sum
from simulator.live.neighbours import Neighbours, librdkafka_config
from workloads import Tenant

RATE = 200


def _tenant(name: str, kind: str, **producer) -> Tenant:
    return Tenant.build({"name": name, "topic": f"{name}-events", "rate": f"{RATE}/s", "record_size": "1KB",
                         "sla_p99": "10ms", "keys": 10, "client": {"kind": kind, "version": "2.3.0" if kind == "librdkafka" else "4.1.0"},
                         "producer": producer}, "tenants[0]")


def test_a_java_tenant_keeps_its_clients_defaults_under_librdkafka_names():
    config = librdkafka_config(_tenant("payments", "java"), "127.0.0.1:9092")
    assert {k: config[k] for k in ("linger.ms", "batch.size", "acks", "enable.idempotence",
                                   "max.in.flight.requests.per.connection", "client.id")} == {
        "linger.ms": 5.0, "batch.size": 16384, "acks": "all", "enable.idempotence": True,
        "max.in.flight.requests.per.connection": 5, "client.id": "payments"}
    assert config["queue.buffering.max.kbytes"] == 32 * 1024      # buffer.memory 32 MB
    # kafka-clients turns Nagle off on its sockets; a librdkafka application keeps librdkafka's default
    assert config["socket.nagle.disable"] is True
    assert "socket.nagle.disable" not in librdkafka_config(_tenant("scores", "librdkafka"), "127.0.0.1:9092")


def test_security_settings_are_passed_through():
    config = librdkafka_config(_tenant("payments", "librdkafka"), "b:9096",
                               {"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512"})
    assert config["security.protocol"] == "SASL_SSL" and config["bootstrap.servers"] == "b:9096"


@pytest.mark.live
def test_neighbours_send_at_their_rate_and_every_record_gets_a_latency(tmp_path):
    tenants = [_tenant("payments", "java"), _tenant("scores", "librdkafka", **{"linger.ms": 0})]
    with KafkaCluster(tmp_path / "stack", brokers=1) as cluster:
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
        for future in admin.create_topics([NewTopic(t.topic, 2, 1) for t in tenants]).values():
            future.result(timeout=30)
        neighbours = Neighbours(tenants, cluster.bootstrap_servers, seed=7)
        neighbours.start()
        began = time.time()
        time.sleep(3.0)
        traces = neighbours.stop()
        ended = time.time()
        metrics = cluster.scrape(0)
    assert [t.name for t in traces] == ["payments", "scores"]
    for trace in traces:
        assert trace.failed == 0
        # records are due every 1/RATE s from the start: as many as fit in the time it ran
        assert RATE * 2.5 <= trace.sent <= RATE * (ended - began + 1.0)
        assert all(b - a == pytest.approx(1 / RATE, abs=1e-6) for a, b in zip(trace.intended, trace.intended[1:]))
        assert len(trace.latency) == trace.sent and min(trace.latency) > 0
        assert 0 < trace.produce_requests <= trace.sent
    # linger.ms=5 packs records into fewer requests than linger.ms=0
    assert traces[0].produce_requests < traces[1].produce_requests
    assert metric_sum(metrics, "kafka_network_RequestsPerSec_total", request="Produce") == sum(t.produce_requests for t in traces)
