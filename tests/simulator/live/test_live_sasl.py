"""`quietload live --bootstrap-servers` against a cluster that wants SASL/PLAIN credentials.

The local stack plays the user's cluster (one broker, a SASL_PLAINTEXT listener); the
credentials come only from QUIETLOAD_KAFKA_* variables. The neighbours (librdkafka), the Spark
job's producer (kafka-clients), kafka-configs (the quota) and the read-back consumer all log in;
the password appears in no output and no result, and the cluster keeps no quota of the run.
"""
import json
import socket

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from simulator.live import clients
from workloads import CATALOG
from stack_probes import PASSWORD, SECURITY, processes_using

SMALL = ["--set", "cluster.replication.factor=1", "--set", "cluster.min.insync.replicas=1",
         "--set", "dataset.files.0.size=4MB", "--set", "windows.before=1s", "--set", "windows.after=1s",
         "--set", "batch.quota.producer_byte_rate=64MB/s",
         "--set", "batch.spark.spark.executor.instances=1", "--set", "batch.spark.spark.executor.cores=1"]


@pytest.mark.live
def test_a_live_run_logs_in_everywhere_and_keeps_no_secret_or_quota(secured, tmp_path):
    result_file = tmp_path / "result.json"
    outcome = CliRunner().invoke(app, ["live", str(CATALOG / "paypay-glue-2gb.yaml"), *SMALL,
                                       "--bootstrap-servers", secured.bootstrap_servers, "--json", str(result_file),
                                       "--run-dir", str(tmp_path / "run")], env=SECURITY)
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(result_file.read_text())
    assert result["summary"]["integrity_ok"] is True and result["spark"]["rows"] > 5_000
    assert all(tenant["failed"] == 0 for tenant in result["tenants"])
    assert "client quota for batch-load: producer_byte_rate=67108864" in outcome.output
    assert PASSWORD not in outcome.output and PASSWORD not in result_file.read_text()
    login = clients.security_from_environment(SECURITY)
    assert clients.describe_client_quota(secured.bootstrap_servers, login) == {}


@pytest.mark.live
def test_without_credentials_the_cluster_is_one_line_and_exit_2(secured, tmp_path):
    outcome = CliRunner().invoke(app, ["live", str(CATALOG / "paypay-glue-2gb.yaml"), *SMALL,
                                       "--bootstrap-servers", secured.bootstrap_servers, "--run-dir", str(tmp_path / "run")])
    assert outcome.exit_code == 2
    errors = [line for line in outcome.output.splitlines() if line.startswith("error:")]
    assert errors == [f"error: --bootstrap-servers: a Kafka broker answers at {secured.bootstrap_servers} but not to clients "
                      "with security.protocol=PLAINTEXT: set QUIETLOAD_KAFKA_SECURITY_PROTOCOL and its credentials"]


@pytest.mark.live
def test_bootstrap_servers_nobody_answers_at_are_one_line_and_exit_2(tmp_path):
    with socket.socket() as probe:          # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    outcome = CliRunner().invoke(app, ["live", str(CATALOG / "paypay-glue-2gb.yaml"), *SMALL,
                                       "--bootstrap-servers", f"127.0.0.1:{port}", "--run-dir", str(tmp_path / "run")])
    assert outcome.exit_code == 2
    assert [line for line in outcome.output.splitlines() if line.startswith("error:")] == [
        f"error: --bootstrap-servers: no Kafka broker answers at 127.0.0.1:{port} within 10 s"]
    assert processes_using(tmp_path) == []
