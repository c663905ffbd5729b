"""`quietload import --prometheus` against a real broker and its JMX exporter (the local stack's):
a load produced while the import samples is counted record for record and found as a past load."""
import json
import threading
import time

import pytest
import yaml
from typer.testing import CliRunner

from live_cluster import broker_with_topics
from quietload.cli import app

RECORDS, VALUE = 20_000, b"x" * 1000
NEIGHBOUR_RATE = 50      # records per second, before, during and after the load


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with broker_with_topics(tmp_path_factory.mktemp("prom"), {"bulk": 4, "payments": 2}) as running:
        yield running


def _produce(servers: str, stop: threading.Event, counted: dict) -> None:
    """A neighbour at NEIGHBOUR_RATE throughout, and after 4 s a load of RECORDS records on bulk."""
    from confluent_kafka import Producer
    producer = Producer({"bootstrap.servers": servers, "linger.ms": 5})
    started, sent = time.monotonic(), 0
    while not stop.is_set():
        producer.produce("payments", b"p" * 200)
        sent += 1
        counted["neighbour"] = sent
        if counted.get("load") is None and time.monotonic() - started > 4:
            for _ in range(RECORDS):
                while True:
                    try:
                        producer.produce("bulk", VALUE)
                        break
                    except BufferError:
                        producer.poll(0.01)
            producer.flush(30)
            counted["load"] = RECORDS
        producer.poll(0)
        time.sleep(max(0.0, started + sent / NEIGHBOUR_RATE - time.monotonic()))
    producer.flush(30)


@pytest.mark.live
def test_a_load_sampled_from_the_exporter_is_counted_and_found(cluster, tmp_path):
    stop, counted = threading.Event(), {}
    worker = threading.Thread(target=_produce, args=(cluster.bootstrap_servers, stop, counted))
    broker = next(n for n in cluster.nodes() if n.role == "broker")
    url = f"http://127.0.0.1:{broker.metrics_port}/metrics"
    worker.start()
    try:
        outcome = CliRunner().invoke(app, ["import", "--prometheus", url, "--for", "14s", "--period", "1",
                                           "--load-topic", "bulk", "--out", str(tmp_path / "local.yaml")])
    finally:
        stop.set()
        worker.join()
    assert outcome.exit_code == 0, outcome.output
    history = json.loads((tmp_path / "local.history.json").read_text())
    broker = history["brokers"]["0"]
    assert counted["load"] == RECORDS
    # a period's records are the counter's difference between two scrapes (kept per period, not bent by when a busy
    # machine let a scrape come), so the series' sum is what the broker counted between the first scrape and the
    # last: the load's all (it lies within the sampling), and of the neighbour's at most what it sent in all
    total = sum(broker["MessagesInPerSec"]) * history["period"]
    assert RECORDS <= round(total) <= RECORDS + counted["neighbour"]
    assert all(0 <= v <= 100 for v in broker["RequestHandlerAvgIdlePercent"])
    assert sum(broker["ProduceRequestsPerSec"]) > 0 and max(broker["CpuUser"]) > 0
    assert "(all topics)" in history["topic_bytes"]
    scenario = yaml.safe_load((tmp_path / "local.yaml").read_text())
    assert scenario["batch"]["topic"] == "bulk" and "tenants" not in scenario
    assert "past loads:" in outcome.output and outcome.output.count(" UTC ") == 1
