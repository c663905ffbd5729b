"""Streaming tenants on real parts: `quietload live` with one pipeline of each kind beside a
small load (20 MB of CSV): Spark micro-batch with async progress tracking, Spark continuous
processing, Spark real-time mode, Kafka Streams and Flink, each fed by its own producer and
timed end to end by a consumer of its output topic. The run goes once for the module; the
tests read its RunResult file."""
import json
import os
import uuid
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG
from stack_probes import eventually
from test_signals import listeners_of, listening_sockets, still_listening

SMALL = ["--set", "cluster.brokers=1", "--set", "cluster.replication.factor=1", "--set", "cluster.min.insync.replicas=1",
         "--set", "dataset.files.0.size=20MB", "--set", "windows.before=2s", "--set", "windows.after=2s",
         "--set", "batch.spark.spark.executor.instances=1", "--set", "batch.spark.spark.executor.cores=1",
         # about a thousand requests of at most 32 KB, as in test_live_run
         "--set", "batch.producer.batch.size=16KB", "--set", "batch.producer.max.request.size=32KB"]
PIPELINES = {
    "fraud-microbatch": {"kind": "spark-microbatch", "processingTime": "500ms", "asyncProgressTrackingEnabled": True},
    "alerts-continuous": {"kind": "spark-continuous", "continuous": "1s"},
    "alerts-realtime": {"kind": "spark-realtime", "realTime": "5min"},
    "enrich-streams": {"kind": "kafka-streams", "commit.interval.ms": "100ms"},
    "enrich-flink": {"kind": "flink", "execution.buffer-timeout": "10ms"},
}


def _scenario(path: Path) -> Path:
    """The published load's scenario with one plain producer and the pipelines beside it."""
    raw = yaml.safe_load((CATALOG / "paypay-glue-2gb.yaml").read_text())
    raw["tenants"] = raw["tenants"][:1]
    for name, knobs in PIPELINES.items():
        raw["cluster"]["topics"] += [{"name": f"{name}-in", "partitions": 1}, {"name": f"{name}-out", "partitions": 1}]
        raw["tenants"].append({"name": name, "topic": f"{name}-in", "output_topic": f"{name}-out", "rate": "100/s",
                               "record_size": "200B", "record_cost": "20us", "sla_p99": "1s",
                               "client": {"kind": "librdkafka", "version": "2.3.0"}, **knobs})
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


CHECKOUT = str(Path(__file__).resolve().parents[3]).encode()   # this suite's tree: another suite's processes are not ours


def _pipeline_processes() -> list[str]:
    """Command lines of this checkout's pipeline or feed processes (their markers: the apps' main modules
    and classes; their interpreter, classpath or build directory in this checkout)."""
    markers = (b"simulator.live.streaming_spark", b"quietload.streaming.", b"quietload-streaming-")
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry.name.isdigit() and any(m in (cmdline := (entry / "cmdline").read_bytes()) for m in markers)
                    and CHECKOUT in cmdline):
                found.append(cmdline.replace(b"\0", b" ").decode()[:200])
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def streaming_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("streaming")
    result_file = base / "result.json"
    # every process the run starts inherits the marker, which is how its sockets are told from the machine's others
    name, value = "QUIETLOAD_TEST_RUN", uuid.uuid4().hex
    own_before = set(listening_sockets([os.getpid()]))
    os.environ[name] = value
    try:
        with listeners_of(f"{name}={value}") as started:
            outcome = CliRunner().invoke(app, ["live", str(_scenario(base / "scenario.yaml")), *SMALL, "--json", str(result_file),
                                               "--run-dir", str(base / "stack")])
    finally:
        del os.environ[name]
    return (outcome, json.loads(result_file.read_text()) if result_file.exists() else None,
            (dict(started), own_before))


@pytest.mark.live
def test_every_pipeline_has_end_to_end_latencies_in_every_window(streaming_run):
    outcome, result, _ = streaming_run
    assert outcome.exit_code == 0, outcome.output
    tenants = {t["name"]: t for t in result["tenants"]}
    assert list(tenants) == ["payment-api", *PIPELINES]
    for name, knobs in PIPELINES.items():
        tenant = tenants[name]
        assert tenant["kind"] == knobs["kind"] and tenant["output_topic"] == f"{name}-out"
        for window in ("before", "during", "after"):
            latency = tenant["latency_ms"][window]
            # 100 records a second over a window of at least 2 s; every one came out
            assert latency["count"] >= 150, (name, window, latency)
            assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"] <= latency["p999"] <= latency["max"]
            assert tenant["upstream_latency_ms"][window]["count"] >= latency["count"]
        assert tenant["failed"] == 0 and tenant["streaming"]["records_not_out"] == 0
        assert tenant["streaming"]["sink_produce_requests"] > 0


@pytest.mark.live
def test_a_pipelines_end_to_end_latency_is_longer_than_its_upstream_producers(streaming_run):
    _, result, _ = streaming_run
    for tenant in result["tenants"][1:]:
        for window in ("before", "after"):
            assert tenant["latency_ms"][window]["p50"] > tenant["upstream_latency_ms"][window]["p50"], tenant["name"]


@pytest.mark.live
def test_the_brokers_count_of_the_jobs_requests_leaves_out_the_pipelines(streaming_run):
    _, result, _ = streaming_run
    s = result["summary"]
    # the pipelines' producers and their upstream producers are counted with the neighbours
    assert abs(s["produce_requests"] - s["producer_request_total"]) <= 0.05 * s["producer_request_total"]


@pytest.mark.live
def test_nothing_is_left_running_or_listening(streaming_run):
    _, _, (started, own_before) = streaming_run
    assert _pipeline_processes() == []
    assert started, "the run's brokers and pipelines listened on no port while it ran"
    # the stack's JVMs were killed as the command returned; their sockets close as they exit. Only the
    # sockets the run's own processes held, and this process's own, are looked at: not the machine's
    assert eventually(lambda: still_listening(started), lambda left: not left, timeout=15.0) == {}
    assert set(listening_sockets([os.getpid()])) <= own_before
