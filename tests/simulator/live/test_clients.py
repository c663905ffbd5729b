"""The cluster's security settings for the Java clients, and the job's quota as kafka-configs entries."""
import pytest

from simulator.live.clients import java_security, property_text, quota_configs
from workloads import Quota, ScenarioError


def test_sasl_scram_credentials_become_a_jaas_config():
    java = java_security({"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512",
                          "sasl.username": "loader", "sasl.password": 'pa"ss\\word'})
    assert java == {
        "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                            'username="loader" password="pa\\"ss\\\\word";'}


def test_sasl_plain_and_a_ca_file_become_a_plain_login_and_a_pem_trust_store():
    java = java_security({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "sasl.username": "u",
                          "sasl.password": "p", "ssl.ca.location": "/etc/ssl/msk-ca.pem"})
    assert java["sasl.jaas.config"] == 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";'
    assert java["ssl.truststore.type"] == "PEM" and java["ssl.truststore.location"] == "/etc/ssl/msk-ca.pem"


def test_no_settings_give_no_properties():
    assert java_security({}) == {}


def test_a_setting_without_a_java_equivalent_names_its_variable():
    with pytest.raises(ScenarioError) as caught:
        java_security({"security.protocol": "SSL", "ssl.key.location": "/k.pem"})
    assert str(caught.value).startswith("QUIETLOAD_KAFKA_SSL_KEY_LOCATION: no kafka-clients equivalent")


def test_credentials_without_a_supported_mechanism_are_refused():
    with pytest.raises(ScenarioError, match="SASL credentials need"):
        java_security({"sasl.username": "u", "sasl.password": "p"})   # GSSAPI takes no password


def test_the_quota_as_kafka_configs_entries():
    assert quota_configs(Quota(producer_byte_rate=6 * 2**20)) == {"producer_byte_rate": "6291456"}
    assert quota_configs(Quota(request_percentage=12.5)) == {"request_percentage": "12.5"}
    assert quota_configs(Quota()) == {}



def test_a_property_reads_as_the_java_clients_parse_it():
    # linger.ms is a long in kafka-clients: 10.0 must not reach it as "10.0"
    assert [property_text(v) for v in (True, False, 10.0, 0.5, 131072, "zstd")] == ["true", "false", "10", "0.5", "131072", "zstd"]
