"""Issue 25, problem 7: the cluster and the job as an operator names them (an MSK broker type, the
Kafka version, TLS, the job's platform), and versions quietload does not know refused."""
import pytest
from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG, Scenario, ScenarioError
from workloads.broker_types import broker_settings, broker_type
from workloads.versions import platform

BASELINE = str(CATALOG / "paypay-glue-2gb.yaml")


def _scenario(*overrides: str) -> Scenario:
    return Scenario.from_yaml(BASELINE, list(overrides))


def _refused(*words: str) -> str:
    outcome = CliRunner().invoke(app, list(words))
    lines = outcome.stderr.splitlines()
    assert outcome.exit_code == 2 and len(lines) == 1 and "Traceback" not in outcome.output, outcome.output
    return lines[0]


def test_the_issue_s_unknown_client_version_and_negative_seed_are_refused_before_any_run():
    assert _refused("simulate", BASELINE, "--set", "batch.client.version=9.9") == (
        "error: batch.client.version: 9.9.0 is not an Apache Kafka release quietload knows "
        "(release lines 2.0-2.8, 3.0-3.9, 4.0-4.3)")
    assert _refused("simulate", BASELINE, "--seed", "-3").endswith("simulate: Invalid value for '--seed': Input should be greater than or equal to 0")
    assert "librdkafka" in _refused("simulate", BASELINE, "--set", "tenants.1.client.version=3.0.0")


def test_a_broker_type_fills_the_broker_s_hardware_from_the_msk_table():
    broker = _scenario("cluster.broker.type=kafka.m5.xlarge").cluster.broker
    settings = broker_settings(broker_type("kafka.m5.xlarge"))
    assert (broker.type, broker.vcpus) == ("kafka.m5.xlarge", 4)
    assert (broker.nic_bandwidth, broker.disk_bandwidth) == (1.25e9, 250 * 1024**2) == (
        float(settings["nic_bandwidth"][:-3]), float(settings["disk_bandwidth"][:-3]))
    assert broker.num_network_threads == 5          # server.properties stay the scenario's


def test_an_express_broker_type_meters_the_load_at_msk_s_ingress_quota():
    scenario = _scenario("cluster.broker.type=express.m7g.large")
    assert scenario.batch.quota.producer_byte_rate == broker_type("express.m7g.large").express_ingress_quota == 23.4e6
    lower = _scenario("cluster.broker.type=express.m7g.large", "batch.quota.producer_byte_rate=10MB/s")
    assert lower.batch.quota.producer_byte_rate == 10 * 1024**2


def test_an_unknown_broker_type_is_one_line_listing_the_known():
    line = _refused("simulate", BASELINE, "--set", "cluster.broker.type=kafka.m5.huge")
    assert line.startswith("error: cluster.broker.type: unknown broker type 'kafka.m5.huge' (known: kafka.m5.large, ")


@pytest.mark.parametrize("raw, spark, clients", [({"glue": 4.0}, "3.3.0", "2.8.1"), ({"glue": 5.0}, "3.5.4", "3.4.1"),
                                                 ({"glue": "5.1"}, "3.5.6", "3.4.1"), ({"emr": "7.x"}, "3.5", "3.4.1"),
                                                 ({"emr": "7.10.0"}, "3.5", "3.4.1"), ({"spark": 3.5}, "3.5", "3.4.1"),
                                                 ({"spark": "3.3"}, "3.3", "2.8.1"), ({"spark": "4.0.0"}, "4.0.0", "3.9.0")])
def test_a_platform_gives_its_spark_and_the_kafka_clients_its_connector_brings(raw, spark, clients):
    runs_on = platform(raw, "batch.platform")
    assert (runs_on.spark, runs_on.kafka_clients) == (spark, clients)


def test_the_platform_decides_the_producer_s_defaults():
    glue4 = _scenario("batch.platform.glue=4.0").batch      # the catalog's own kafka-clients 2.8.1
    assert (glue4.client.version, glue4.producer.acks, glue4.producer.enable_idempotence) == ((2, 8, 1), "1", False)
    glue5 = _scenario("batch.platform.glue=5.0", "batch.client.version=").batch
    assert (glue5.client.version, glue5.producer.acks, glue5.producer.enable_idempotence) == ((3, 4, 1), "all", True)
    assert glue5.producer.linger_ms == 0.0
    spark41 = _scenario("batch.platform.spark=4.1", "batch.client.version=").batch
    assert spark41.client.version == (3, 9, 1)


def test_a_client_version_the_platform_does_not_bring_and_unknown_platforms_are_refused():
    assert _refused("simulate", BASELINE, "--set", "batch.platform.glue=5.0") == (
        "error: batch.client.version: 2.8.1 is not the kafka-clients AWS Glue 5.0 brings (Spark 3.5.4: 3.4.1); "
        "give one of them (batch.client.version= leaves it to the platform)")
    assert _refused("simulate", BASELINE, "--set", "batch.platform.glue=6.0") == (
        "error: batch.platform.glue: AWS Glue 6.0 is not one quietload knows (known: 5.1, 5.0, 4.0, 3.0, 2.0)")
    assert "Amazon EMR 6.15.0 is not one quietload knows" in _refused("simulate", BASELINE, "--set", "batch.platform.emr=6.15.0")


def test_the_kafka_version_is_a_known_release_and_4_x_refuses_clients_before_2_1():
    assert _scenario("cluster.kafka_version=3.6").cluster.kafka_version == "3.6.0"
    assert _refused("simulate", BASELINE, "--set", "cluster.kafka_version=5.0").startswith(
        "error: cluster.kafka_version: 5.0.0 is not an Apache Kafka release quietload knows")
    with pytest.raises(ScenarioError, match=r"batch.client.version: kafka-clients 2.0.0 cannot talk to Kafka 4.1.0 brokers"):
        _scenario("cluster.kafka_version=4.1.0", "batch.client.version=2.0.0")


def test_tls_off_takes_the_encryption_off_the_wire_bytes_and_sends_fetches_zero_copy():
    on, off = _scenario().profile, _scenario("cluster.tls=false").profile
    assert _scenario("cluster.tls=true").profile == on                       # the default profile was measured with TLS
    assert on.tls.byte_ns == 1.1 and on.tls.source == "assumed"
    assert off.broker.network_byte_ns == pytest.approx(0.1) and off.broker.follower_byte_ns == pytest.approx(0.6)
    assert off.client.sender_byte_ns == pytest.approx(0.1)
    assert (on.broker.fetch_send_byte_ns, off.broker.fetch_send_byte_ns) == (None, 0.0)
    loopback = Scenario.from_yaml(BASELINE, ["profile=loopback", "cluster.tls=true"]).profile
    assert loopback.broker.network_byte_ns == pytest.approx(1.2) and loopback.broker.fetch_send_byte_ns is None


def test_settings_left_unsaid_leave_the_scenario_s_mapping_as_it_was():
    mapping = _scenario().as_mapping()
    assert "platform" not in mapping["batch"] and {"tls", "kafka_version"}.isdisjoint(mapping["cluster"])
    assert "type" not in mapping["cluster"]["broker"]
    assert _scenario("batch.platform.emr=7.x", "batch.client.version=").as_mapping()["batch"]["platform"] == {"emr": "7.x"}


def test_the_issue_s_broker_type_runs_from_the_command_line_and_from_a_scenario_file(tmp_path):
    """Issue 25, problem 7: `--set cluster.broker.type=kafka.m5.xlarge` was an unknown key."""
    out = tmp_path / "run.json"
    outcome = CliRunner().invoke(app, ["simulate", BASELINE, "--set", "cluster.broker.type=kafka.m5.xlarge", "--json", str(out)])
    assert outcome.exit_code == 0, outcome.output
    assert '"type": "kafka.m5.xlarge"' in out.read_text() and '"vcpus": 4,' in out.read_text()
    own = tmp_path / "own.yaml"
    own.write_text(f"extends: {BASELINE}\ncluster:\n  broker: {{type: kafka.m7g.2xlarge}}\n  kafka_version: 3.9.1\n"
                   "  tls: false\nbatch:\n  platform: {emr: 7.x}\n  client: {version: null}\n")
    scenario = Scenario.from_yaml(own)
    assert (scenario.cluster.broker.vcpus, scenario.cluster.kafka_version, scenario.cluster.tls) == (8, "3.9.1", False)
    assert (scenario.batch.runs_on.label, scenario.batch.client.version) == ("Amazon EMR 7.x", (3, 4, 1))
