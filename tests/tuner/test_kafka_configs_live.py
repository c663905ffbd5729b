"""The kafka-configs.sh lines check and tune print, pasted as they are, set the quota and the brokers'
settings on a real KRaft broker, read back with kafka-configs.sh --describe. The script is Kafka's
bin/kafka-configs.sh as the distribution ships it (kafka-run-class.sh kafka.admin.ConfigCommand) on
the classpath the local stack runs its brokers from; the only edits are a user's: BOOTSTRAP_SERVERS
and an empty client.properties (a PLAINTEXT broker)."""
import os
import subprocess

import pytest

from simulator.live import KafkaCluster
from simulator.live.jars import java_command, resolve_jars
from workloads.snippets import QUOTA_CLIENT_ID, paste_lines
from workloads.tuning import KNOBS

MB = 1024**2
CHANGE = {"producer_byte_rate": 20 * MB, "request_percentage": 120.0, "num.replica.fetchers": 4, "num.io.threads": 16}
# the local stack's broker as it starts (Kafka's defaults): a dynamic thread pool may at most double per change
IN_FORCE = {"cluster": {"broker": {"num.replica.fetchers": 1, "num.io.threads": 8}}}


def _script(bin_dir) -> None:
    """bin/kafka-configs.sh: Kafka's own is `exec $(dirname $0)/kafka-run-class.sh kafka.admin.ConfigCommand "$@"`."""
    bin_dir.mkdir()
    script = bin_dir / "kafka-configs.sh"
    script.write_text(f'#!/bin/sh\nexec "{java_command()}" -Xmx128m -XX:TieredStopAtLevel=1 -cp "{resolve_jars().classpath}" '
                      'kafka.admin.ConfigCommand "$@"\n')
    script.chmod(0o755)


def _shell(line: str, cwd, env) -> str:
    done = subprocess.run(["sh", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


@pytest.mark.live
def test_the_printed_kafka_configs_lines_set_what_they_say_on_a_real_broker(tmp_path):
    typed = {name: KNOBS[name].typed(value) for name, value in CHANGE.items()}
    lines = [line for line in paste_lines(typed, IN_FORCE) if line.startswith("kafka-configs.sh ")]
    # the quota for the job's client.id, and the brokers' cluster-wide default in two steps: Kafka refuses 1 -> 4
    # fetchers at once ("value should not be greater than double the current value")
    assert [line.rpartition(" ")[2] for line in lines] == ["producer_byte_rate=20971520,request_percentage=120",
                                                           "num.io.threads=16,num.replica.fetchers=2",
                                                           "num.io.threads=16,num.replica.fetchers=4"]
    _script(tmp_path / "bin")
    (tmp_path / "client.properties").write_text("")
    with KafkaCluster(tmp_path / "stack", brokers=1) as cluster:
        env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}", "BOOTSTRAP_SERVERS": cluster.bootstrap_servers}
        for line in lines:
            _shell(line, tmp_path, env)
        quota = _shell(f'kafka-configs.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --describe --entity-type clients '
                       f"--entity-name {QUOTA_CLIENT_ID}", tmp_path, env)
        brokers = _shell('kafka-configs.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --describe --entity-type brokers '
                         "--entity-default", tmp_path, env)
    # "Quota configs for client-id 'batch-load' are request_percentage=120.0, producer_byte_rate=2.097152E7"
    head, _, listed = quota.strip().partition(" are ")
    assert head == f"Quota configs for client-id '{QUOTA_CLIENT_ID}'", quota
    assert {key: float(value) for key, _, value in (item.strip().partition("=") for item in listed.split(","))} == {
        "producer_byte_rate": 20 * MB, "request_percentage": 120.0}
    # "Default configs for brokers in the cluster are:\n  num.io.threads=16 sensitive=false synonyms={...}"
    described = {line.split()[0] for line in brokers.splitlines()[1:] if line.strip()}
    assert {"num.io.threads=16", "num.replica.fetchers=4"} <= described, brokers    # beside what the stack sets itself
