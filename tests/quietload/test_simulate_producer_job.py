"""``quietload simulate`` of a plain producer job: its records' latency as perf-test prints it, in
the summary and the result file; a Spark key on it is one line naming the field, exit 2."""
import json

import yaml
from typer.testing import CliRunner

from quietload.cli import app

SCENARIO = {"name": "perf", "cluster": {"brokers": 1, "topics": [{"name": "bench", "partitions": 2}]},
            "batch": {"kind": "producer", "topic": "bench", "records": 2000, "record_size": "100B",
                      "throughput": "20000/s", "client": {"kind": "java", "version": "2.3.1"}},
            "windows": {"before": "1s", "after": "1s"}}


def test_simulate_prints_and_writes_the_jobs_record_latency(tmp_path):
    path = tmp_path / "perf.yaml"
    path.write_text(yaml.safe_dump(SCENARIO))
    result = CliRunner().invoke(app, ["simulate", str(path), "--json", str(tmp_path / "perf.json")])
    assert result.exit_code == 0, result.output
    latency = json.loads((tmp_path / "perf.json").read_text())["summary"]["record_latency_ms"]
    assert latency["count"] == 2000
    assert f"record latency (ms)   p50 {latency['p50']:,.2f}, p95 {latency['p95']:,.2f}" in result.output
    assert "1 producer instance(s), each on a host of its own" in result.output


def test_a_spark_key_on_a_producer_job_is_refused_naming_it(tmp_path):
    path = tmp_path / "perf.yaml"
    path.write_text(yaml.safe_dump(SCENARIO))
    result = CliRunner().invoke(app, ["simulate", str(path), "--set", "batch.spark.spark.executor.instances=2"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == "error: batch.spark: a producer job (kind: producer) has no Spark side"
