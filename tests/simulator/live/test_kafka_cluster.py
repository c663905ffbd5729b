"""Real Kafka brokers from the Maven Central jars: lifecycle, clients, the JMX exporter, the CLI.

One single-broker cluster serves the module (~6 s to start on 2 cores); the CLI test starts
its own three brokers from a scenario. Every cluster is stopped and cleaned however a test ends.
"""
import json
import os
import signal
import socket
import time

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from typer.testing import CliRunner

from quietload.cli import app
from simulator.live import KafkaCluster, StackError, metric_sum, parse_metrics
from simulator.live import clients, kafka
from workloads import CATALOG, Quota, Scenario
from workloads.quota import QUOTA_CLIENT_ID
from stack_probes import eventually, listening, processes_using

RECORDS = 20
PRODUCE_TIME_PARTS = ["TotalTimeMs", "RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs",
                      "ResponseSendTimeMs"]


def _stack(*args: str):
    return CliRunner().invoke(app, ["stack", *args])


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with KafkaCluster(tmp_path_factory.mktemp("live") / "stack", brokers=1) as running:
        yield running


@pytest.fixture(scope="module")
def produced(cluster):
    """RECORDS records produced one request each (flush after every send); the client's own count
    of the produce requests it sent, from librdkafka's statistics."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic("payments", 1, 1)])["payments"].result(timeout=30)
    stats: list[str] = []
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "linger.ms": 0,
                         "statistics.interval.ms": 100, "stats_cb": stats.append})
    for i in range(RECORDS):
        producer.produce("payments", f"payment-{i}".encode())
        assert producer.flush(10) == 0
    seen = len(stats)
    while len(stats) < seen + 2:   # a statistics snapshot taken wholly after the last response
        producer.poll(0.1)
    brokers = json.loads(stats[-1])["brokers"].values()
    return sum(broker.get("req", {}).get("Produce", 0) for broker in brokers)


@pytest.mark.live
def test_the_broker_counts_the_produce_requests_the_client_sent(cluster, produced):
    metrics = eventually(cluster.scrape, lambda m: metric_sum(m, "kafka_network_RequestsPerSec_total", request="Produce") >= produced)
    assert produced >= RECORDS
    assert metric_sum(metrics, "kafka_network_RequestsPerSec_total", request="Produce") == produced
    assert metrics['kafka_network_TotalTimeMs_Count{request="Produce"}'] == produced
    assert metrics["kafka_server_MessagesInPerSec_total"] == RECORDS


@pytest.mark.live
def test_the_exporter_shows_the_broker_figures_quietload_reads(cluster, produced):
    metrics = cluster.scrape(0)
    assert metrics["kafka_server_BrokerState_Value"] == 3   # RUNNING
    # A broker-only node: its idle fractions are the broker's own (combined nodes read up to 2).
    assert 0 <= metrics["kafka_server_RequestHandlerAvgIdlePercent_OneMinuteRate"] <= 1
    assert 0 <= metrics["kafka_network_NetworkProcessorAvgIdlePercent_Value"] <= 1
    assert metrics["kafka_network_RequestQueueSize_Value"] >= 0
    for part in PRODUCE_TIME_PARTS:
        for statistic in ("50thPercentile", "99thPercentile", "999thPercentile", "Max", "Mean"):
            assert f'kafka_network_{part}_{statistic}{{request="Produce"}}' in metrics
    assert metrics['kafka_network_TotalTimeMs_Max{request="Produce"}'] >= metrics['kafka_network_LocalTimeMs_Max{request="Produce"}']


@pytest.mark.live
def test_the_records_read_back_in_order(cluster, produced):
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "quietload-tests",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition("payments", 0, OFFSET_BEGINNING)])
    values: list[str] = []
    deadline = time.monotonic() + 30
    while len(values) < RECORDS and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is not None and not message.error():
            values.append(message.value().decode())
    consumer.close()
    assert values == [f"payment-{i}" for i in range(RECORDS)]


@pytest.mark.live
def test_stack_status_shows_the_running_cluster(cluster):
    result = _stack("status", "--run-dir", str(cluster.run_dir))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"stack in {cluster.run_dir}: up, Kafka 4.1.1 (Maven Central)"
    assert lines[1] == f"bootstrap servers: {cluster.bootstrap_servers}"
    assert [line.split()[0] for line in lines[2:]] == ["controller", "broker-0"]
    assert all(line.endswith("running") for line in lines[2:])


def _throttled_ms(cluster, client_id: str, records: int) -> float:
    """Produce ``records`` records of 64 KB as ``client_id`` and return the longest throttle (ms)
    the broker's responses asked for (librdkafka's throttle callback)."""
    throttles: list[float] = []
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "client.id": client_id, "linger.ms": 5,
                         "throttle_cb": lambda event: throttles.append(event.throttle_time * 1000)})
    for _ in range(records):
        producer.produce("payments", b"x" * 65_536)
        producer.poll(0)
    assert producer.flush(60) == 0
    return max(throttles, default=0.0)


@pytest.mark.live
def test_the_jobs_client_quota_is_set_metered_and_cleared_on_the_brokers(cluster, produced):
    bootstrap = cluster.bootstrap_servers
    configs = clients.set_client_quota(bootstrap, Quota(producer_byte_rate=32 * 1024, request_percentage=50), {})
    assert configs == {"producer_byte_rate": "32768", "request_percentage": "50"}
    assert clients.describe_client_quota(bootstrap, {}) == {"producer_byte_rate": 32768.0, "request_percentage": 50.0}
    # 384 KB is over 32 KB/s even spread over the at least 10 s a young quota window spans, so
    # the broker throttles the job's client-id, and only it, for at most (rate - bound) / bound
    # x window: (39.3 KB/s with the batches' own bytes - 32) / 32 x 10 s = 2.3 s
    assert 0 < _throttled_ms(cluster, QUOTA_CLIENT_ID, 6) <= 2_300
    assert _throttled_ms(cluster, "payment-api", 6) == 0
    clients.clear_client_quota(bootstrap, configs, {})
    assert clients.describe_client_quota(bootstrap, {}) == {}


@pytest.mark.live
def test_stop_leaves_no_process_port_or_run_dir(cluster):
    # The module's last test: the fixture's own stop then finds nothing to do.
    nodes = cluster.nodes()
    ports = [port for node in nodes for port in (node.port, node.metrics_port) if port]
    assert processes_using(cluster.run_dir) and all(listening(port) for port in ports)
    cluster.stop()
    cluster.clean()
    assert processes_using(cluster.run_dir) == []
    assert [port for port in ports if listening(port)] == []
    assert not cluster.run_dir.exists()


@pytest.mark.live
def test_stack_up_and_down_twice_with_a_scenarios_three_brokers(tmp_path):
    run_dir = tmp_path / "stack"
    scenario = str(CATALOG / "paypay-glue-2gb.yaml")   # 3 brokers, RF 3, MSK's thread counts
    try:
        first = _stack("up", "--scenario", scenario, "--no-s3", "--run-dir", str(run_dir))
        assert first.exit_code == 0, first.output
        assert "waiting for the brokers to serve" in first.stderr and "3 broker(s) up in " in first.stderr
        second = _stack("up", "--scenario", scenario, "--no-s3", "--run-dir", str(run_dir))
        assert second.exit_code == 0, second.output
        assert second.stdout.startswith("already up\n") and second.stdout.splitlines()[1:] == first.stdout.splitlines()
        properties = (run_dir / "broker-2" / "server.properties").read_text().splitlines()
        for setting in ("num.io.threads=8", "num.network.threads=5", "num.replica.fetchers=2",
                        "queued.max.requests=500", "default.replication.factor=3", "min.insync.replicas=2"):
            assert setting in properties

        crashed = next(n for n in KafkaCluster(run_dir).nodes() if n.name == "broker-1")
        os.kill(crashed.pid, signal.SIGKILL)
        status = eventually(lambda: _stack("status", "--run-dir", str(run_dir)), lambda r: r.exit_code == 1)
        assert status.exit_code == 1, status.output
        assert status.stdout.startswith(f"stack in {run_dir}: crashed (broker-1 exited)")
        assert f"exited (log: {run_dir / 'broker-1.log'})" in status.stdout

        down = _stack("down", "--run-dir", str(run_dir))
        assert (down.exit_code, down.stdout) == (0, f"stopped controller, broker-0, broker-2 in {run_dir} (broker-1 had already exited)\n")
        again = _stack("down", "--run-dir", str(run_dir))
        assert (again.exit_code, again.stdout) == (0, f"nothing was running in {run_dir}\n")
        assert _stack("status", "--run-dir", str(run_dir)).exit_code == 3
        assert processes_using(run_dir) == [] and not run_dir.exists()
    finally:
        KafkaCluster(run_dir).stop()
        KafkaCluster(run_dir).clean()


@pytest.mark.live
def test_a_taken_port_is_one_error_line_and_starts_nothing(tmp_path):
    run_dir = tmp_path / "stack"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _stack("up", "--port", str(port), "--run-dir", str(run_dir))
    assert result.exit_code == 2
    assert result.stderr == f"error: 127.0.0.1:{port} (broker 0's listener) is taken: Address already in use\n"
    assert processes_using(run_dir) == [] and not run_dir.exists()


@pytest.mark.live
def test_a_broker_that_exits_while_starting_is_one_error_naming_its_log(tmp_path, monkeypatch):
    """A port taken between its reservation and the broker's bind: a race no check can close."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        reserve = kafka.reserve_ports
        monkeypatch.setattr(kafka, "reserve_ports", lambda wanted: {**reserve(wanted), "broker 0's listener": taken.getsockname()[1]})
        cluster = KafkaCluster(tmp_path / "stack")
        with pytest.raises(StackError) as failure:
            cluster.start()
    log = cluster.run_dir / "broker-0.log"
    assert str(failure.value) == f"broker-0 exited while starting: java.net.BindException: Address already in use (log: {log})"
    assert processes_using(cluster.run_dir) == []
    assert sorted(path.name for path in cluster.run_dir.iterdir()) == ["broker-0.log", "controller.log"]  # kept for the reader
    cluster.clean()
    assert not cluster.run_dir.exists()


@pytest.mark.live
def test_kafka_home_without_libs_is_one_error_line(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFKA_HOME", str(tmp_path))
    result = _stack("up", "--run-dir", str(tmp_path / "stack"))
    assert (result.exit_code, result.stderr) == (2, f"error: KAFKA_HOME={tmp_path} has no libs/ folder: point it at an unpacked Kafka distribution\n")
    assert not (tmp_path / "stack").exists()


def test_missing_java_is_one_error_line(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    result = _stack("up", "--run-dir", str(tmp_path / "stack"))
    assert (result.exit_code, result.stderr) == (2, f"error: java not found (JAVA_HOME={tmp_path}): the Kafka brokers need Java 17 or later\n")
    assert not (tmp_path / "stack").exists()


def test_a_scenarios_cluster_sets_the_brokers_properties():
    cluster = KafkaCluster.for_scenario(Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml"))
    assert cluster.brokers == 3
    assert cluster.settings == {"num_network_threads": 5, "num_io_threads": 8, "num_replica_fetchers": 2,
                                "queued_max_requests": 500, "replica_fetch_wait_max_ms": 500,
                                "replica_fetch_max_bytes": 1_048_576, "default_replication_factor": 3,
                                "min_insync_replicas": 2, "internal_replication_factor": 3, "internal_min_isr": 2,
                                "sasl_plain_user": None, "request_log": True}   # neighbours produce beside the job


def test_prometheus_samples_are_keyed_by_name_and_sorted_labels():
    text = ('# TYPE kafka_network_RequestsPerSec_total counter\n'
            'kafka_network_RequestsPerSec_total{version="11",request="Produce"} 7.0\n'
            'kafka_network_RequestsPerSec_total{request="Produce",version="12"} 5.0\n'
            'kafka_network_RequestsPerSec_total{request="FetchFollower",version="17"} 40.0\n'
            'jvm_memory_pool_used_bytes{pool="G1 Eden Space"} 1.5E7\n'
            'kafka_server_BrokerState_Value 3.0\n')
    metrics = parse_metrics(text)
    assert metrics == {'kafka_network_RequestsPerSec_total{request="Produce",version="11"}': 7.0,
                       'kafka_network_RequestsPerSec_total{request="Produce",version="12"}': 5.0,
                       'kafka_network_RequestsPerSec_total{request="FetchFollower",version="17"}': 40.0,
                       'jvm_memory_pool_used_bytes{pool="G1 Eden Space"}': 1.5e7,
                       "kafka_server_BrokerState_Value": 3.0}
    assert metric_sum(metrics, "kafka_network_RequestsPerSec_total", request="Produce") == 12.0
    assert metric_sum(metrics, "kafka_network_RequestsPerSec_total") == 52.0
