"""`quietload live` end to end on real parts: one broker, LocalStack S3, the Spark job, the neighbours.

A small load (20 MB of CSV) runs once for the module; the tests read its RunResult file. The
run's stack lives in the test's directory and must be gone when the command returns.
"""
import json

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG
from stack_probes import processes_using

SMALL = ["--set", "cluster.brokers=1", "--set", "cluster.replication.factor=1", "--set", "cluster.min.insync.replicas=1",
         "--set", "dataset.files.0.size=20MB", "--set", "windows.before=2s", "--set", "windows.after=2s",
         "--set", "batch.spark.spark.executor.instances=1", "--set", "batch.spark.spark.executor.cores=1",
         # requests of at most 32 KB: about a thousand of them, so that the producer's few Metadata and
         # ApiVersions requests (which its request-total counts too) weigh well under 1 %
         "--set", "batch.producer.batch.size=16KB", "--set", "batch.producer.max.request.size=32KB"]


@pytest.fixture(scope="module")
def live_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("live")
    result_file, run_dir = base / "result.json", base / "stack"
    outcome = CliRunner().invoke(app, ["live", str(CATALOG / "paypay-glue-2gb.yaml"), *SMALL, "--json", str(result_file),
                                       "--run-dir", str(run_dir)])
    return outcome, json.loads(result_file.read_text()) if result_file.exists() else None, run_dir


@pytest.mark.live
def test_every_row_arrives_exactly_once(live_run):
    outcome, result, _ = live_run
    assert outcome.exit_code == 0, outcome.output
    assert result["evaluator"] == "live" and result["summary"]["integrity_ok"] is True
    assert "every row exactly once" in outcome.stdout
    assert result["spark"]["rows"] > 30_000     # 20 MB of card-transaction CSV rows
    # the job's own records, send() to acknowledgement, from its append trace: every row once
    latency = result["summary"]["record_latency_ms"]
    assert latency["count"] == result["spark"]["rows"] and 0 < latency["p50"] <= latency["p99"] <= latency["max"]


@pytest.mark.live
def test_the_brokers_count_of_the_jobs_requests_agrees_with_the_producers_own(live_run):
    _, result, _ = live_run
    s = result["summary"]
    # the brokers' Produce count less the neighbours' (librdkafka's own count) against the job's
    # request-total, which also counts the producer's few metadata and version requests
    assert s["produce_requests"] > 0
    assert abs(s["produce_requests"] - s["producer_request_total"]) <= 0.05 * s["producer_request_total"]
    assert s["broker_produce_requests"] == s["produce_requests"] + s["neighbour_produce_requests"]


@pytest.mark.live
def test_the_result_has_the_models_schema_with_windows_and_timelines(live_run):
    _, result, _ = live_run
    before, during, after = (result["windows"][w] for w in ("before", "during", "after"))
    assert before[0] == 0 and before[1] == during[0] < during[1] == after[0] < after[1]
    assert [t["name"] for t in result["summary"]["tenants"]] == ["payment-api", "fraud-scoring"]
    for tenant in result["tenants"]:
        assert tenant["failed"] == 0 and tenant["latency_ms"]["during"]["count"] > 0
    seconds = len(result["timelines"]["second"])
    assert seconds == int(after[1]) + (after[1] % 1 > 0)
    assert max(v or 0 for v in result["timelines"]["produce_requests_per_s"]) > 0


@pytest.mark.live
def test_nothing_is_left_running_or_on_disk(live_run):
    _, _, run_dir = live_run
    assert processes_using(run_dir) == []
    assert not run_dir.exists() or not any(run_dir.rglob("*.properties"))
