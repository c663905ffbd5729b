"""`quietload import --bootstrap-servers` against a real broker (the local stack's, one broker): the
topics' partition counts come from the cluster's metadata, and of the jobs a name pattern matches,
those whose script writes to those servers are imported."""
import json

import pytest
import yaml
from typer.testing import CliRunner

from live_cluster import broker_with_topics
from quietload.cli import app


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with broker_with_topics(tmp_path_factory.mktemp("bootstrap"), {"card-transactions": 30, "fraud-model-features": 3}) as running:
        yield running


def _job(name, script):
    return {"Name": name, "Command": {"Name": "glueetl", "ScriptLocation": str(script)}, "WorkerType": "G.1X",
            "NumberOfWorkers": 3, "GlueVersion": "4.0"}


@pytest.mark.live
def test_partition_counts_from_the_cluster_and_the_jobs_that_write_to_it(cluster, tmp_path):
    servers = cluster.bootstrap_servers
    ours, theirs = tmp_path / "load.py", tmp_path / "features.py"
    ours.write_text(f'df.write.format("kafka").option("kafka.bootstrap.servers", "{servers}")'
                    '.option("topic", "card-transactions").save()\n')
    theirs.write_text('df.write.format("kafka").option("kafka.bootstrap.servers", "b-1.analytics:9092")'
                      '.option("topic", "fraud-model-features").save()\n')
    jobs = tmp_path / "get-jobs.json"
    jobs.write_text(json.dumps({"Jobs": [_job("daily-card-load", ours), _job("fraud-model-refresh", theirs)]}))
    out = tmp_path / "night.yaml"
    result = CliRunner().invoke(app, ["import", "--glue-job", str(jobs), "--glue-job-pattern", "*", "--bootstrap-servers",
                                      servers, "--timeout", "20s", "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = yaml.safe_load(out.read_text())
    assert written["cluster"]["topics"] == [{"name": "card-transactions", "partitions": 30}]
    assert written["batch"]["topic"] == "card-transactions"
    assert f"Partition counts from the cluster's metadata through {servers}: card-transactions 30." in written["assumptions"]
    assert (f"Job 'fraud-model-refresh' matches '*' but its script writes elsewhere: left out (not writing to {servers})."
            in written["assumptions"])
