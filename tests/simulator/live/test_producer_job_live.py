"""`quietload live` of a plain producer job: Kafka's own kafka-producer-perf-test from the brokers'
jars against one real broker; the result holds its records' latency percentiles as perf-test
printed them and its requests, counted by the producer and by the broker alike."""
import json

import pytest
import yaml
from typer.testing import CliRunner

from quietload.cli import app

RECORDS = 20_000
SCENARIO = {"name": "perf-live", "cluster": {"brokers": 1, "replication.factor": 1, "min.insync.replicas": 1,
                                             "broker": {"vcpus": 1}, "topics": [{"name": "bench", "partitions": 3}]},
            "batch": {"kind": "producer", "topic": "bench", "records": RECORDS, "record_size": "100B",
                      "throughput": "10000/s", "client": {"kind": "java", "version": "4.1.1"},
                      "producer": {"acks": 1, "linger.ms": 0, "batch.size": "16KB"}, "host": {"vcpus": 1}},
            "windows": {"before": "1s", "after": "1s"}}


@pytest.mark.live
def test_a_producer_jobs_live_run_gives_its_record_latency_and_request_counts(tmp_path):
    path, result_file = tmp_path / "perf.yaml", tmp_path / "result.json"
    path.write_text(yaml.safe_dump(SCENARIO))
    outcome = CliRunner().invoke(app, ["live", str(path), "--json", str(result_file), "--run-dir", str(tmp_path / "stack")])
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(result_file.read_text())
    s = result["summary"]
    latency = s["record_latency_ms"]
    assert latency["count"] == RECORDS
    assert 0 <= latency["p50"] <= latency["p95"] <= latency["p99"] <= latency["p999"] <= latency["max"]
    assert s["integrity_ok"] is True and result["producers"][0]["name"] == "perf-test"
    # perf-test's own request-total (with its few Metadata and ApiVersions requests) and the broker's Produce count
    assert s["producer_request_total"] > RECORDS / 200   # at most ~160 records of 100 B fill a 16 KB batch
    assert abs(s["produce_requests"] - s["producer_request_total"]) <= 0.05 * s["producer_request_total"] + 5
