"""What the live run's Java clients need beside the Python ones: the cluster's security settings
in kafka-clients' names, and the batch job's client quota set on the brokers as an operator
sets it (Kafka's own ``kafka-configs``, i.e. ``kafka.admin.ConfigCommand``).

Security settings arrive in librdkafka's names (``QUIETLOAD_KAFKA_*`` variables, used as they
are by the neighbours and the read-back consumer); the Spark job's producer and the quota
command are Java clients, so the same settings are rewritten for them. Secrets go only into
the clients' configuration and a command-config file readable by this user alone, deleted
after use; they are never printed or written to a result.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable

from simulator.live.jars import java_command, resolve_jars
from simulator.live._process import StackError
from workloads import ScenarioError
from workloads.quota import QUOTA_CLIENT_ID, Quota

SECURITY_PREFIX = "QUIETLOAD_KAFKA_"     # QUIETLOAD_KAFKA_SASL_USERNAME=... -> sasl.username
# librdkafka property -> kafka-clients property, where both clients spell it differently or alike
_SAME = ("security.protocol", "sasl.mechanism", "ssl.endpoint.identification.algorithm")
_LOGIN_MODULES = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
                  "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
                  "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule"}


# librdkafka logs every failed connection attempt (a FAIL line each retry, ~20 a second to a
# broker that is down); the caller of a short-lived client judges its outcome and says it once.
QUIET_LOG = {"log_level": 0}


def security_from_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """Client security settings (librdkafka names) from ``QUIETLOAD_KAFKA_*`` variables: read
    at run time, handed to the clients only, never printed or written to a result."""
    environ = dict(os.environ if environ is None else environ)
    return {key[len(SECURITY_PREFIX):].lower().replace("_", "."): value
            for key, value in sorted(environ.items()) if key.startswith(SECURITY_PREFIX)}


def java_security(security: dict[str, str]) -> dict[str, str]:
    """librdkafka security settings as kafka-clients properties: SASL PLAIN/SCRAM credentials
    become ``sasl.jaas.config``, a CA file a PEM trust store. A setting without a mapping is
    one error line naming its variable, never silently dropped."""
    settings = dict(security)
    if "sasl.mechanisms" in settings:      # librdkafka's older spelling
        settings.setdefault("sasl.mechanism", settings.pop("sasl.mechanisms"))
    java = {key: settings.pop(key) for key in _SAME if key in settings}
    username, password = settings.pop("sasl.username", None), settings.pop("sasl.password", None)
    if username is not None or password is not None:
        mechanism = java.get("sasl.mechanism", "GSSAPI").upper()
        if mechanism not in _LOGIN_MODULES or username is None or password is None:
            raise ScenarioError(f"{SECURITY_PREFIX}SASL_USERNAME", "SASL credentials need QUIETLOAD_KAFKA_SASL_USERNAME, "
                                "QUIETLOAD_KAFKA_SASL_PASSWORD and QUIETLOAD_KAFKA_SASL_MECHANISM (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
        java["sasl.jaas.config"] = jaas_config(mechanism, username, password)
    if "ssl.ca.location" in settings:
        java |= {"ssl.truststore.type": "PEM", "ssl.truststore.location": settings.pop("ssl.ca.location")}
    if settings:
        names = ", ".join(SECURITY_PREFIX + key.upper().replace(".", "_") for key in sorted(settings))
        raise ScenarioError(names, "no kafka-clients equivalent is known for this setting, so the Spark job could not use it")
    return java


def property_text(value: Any) -> str:
    """A property's value as the Java clients read it from text: booleans in lower case, whole
    numbers without a decimal point (``linger.ms`` is a long in kafka-clients)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def jaas_config(mechanism: str, username: str, password: str, **options: str) -> str:
    """A ``sasl.jaas.config`` value: the mechanism's login module with the username, the password
    and further ``options``, each quoted."""
    fields = {"username": username, "password": password, **options}
    quoted = " ".join(f'{key}="{_jaas_quoted(value)}"' for key, value in fields.items())
    return f"{_LOGIN_MODULES[mechanism]} required {quoted};"


def _jaas_quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def render_configs(configs: dict[str, str], separator: str = ", ") -> str:
    """Quota configs as ``kafka-configs`` takes them (separator ",") or for reading."""
    return separator.join(f"{key}={value}" for key, value in configs.items())


def quota_configs(quota: Quota) -> dict[str, str]:
    """The quota as ``kafka-configs --add-config`` entries (per broker, as Kafka meters it)."""
    configs = {}
    if quota.producer_byte_rate:
        configs["producer_byte_rate"] = str(int(round(quota.producer_byte_rate)))
    if quota.request_percentage:
        configs["request_percentage"] = f"{quota.request_percentage:g}"
    return configs


def set_client_quota(bootstrap: str, quota: Quota, security: dict[str, str],
                     progress: Callable[[str], None] = lambda line: None, client_id: str = QUOTA_CLIENT_ID) -> dict[str, str]:
    """Set a batch job's quota on the cluster for its ``client_id``; returns what was set."""
    configs = quota_configs(quota)
    if configs:
        progress(f"client quota for {client_id}: {render_configs(configs)}")
        _config_command(bootstrap, security, ["--alter", "--add-config", render_configs(configs, ",")], client_id)
    return configs


def clear_client_quota(bootstrap: str, configs: dict[str, str], security: dict[str, str],
                       client_id: str = QUOTA_CLIENT_ID) -> None:
    """Remove what ``set_client_quota`` set, so a user's cluster keeps no trace of the run."""
    if configs:
        _config_command(bootstrap, security, ["--alter", "--delete-config", ",".join(configs)], client_id)


def describe_client_quota(bootstrap: str, security: dict[str, str]) -> dict[str, float]:
    """The quota the cluster holds for ``QUOTA_CLIENT_ID`` (``kafka-configs --describe``)."""
    output = _config_command(bootstrap, security, ["--describe"])
    # "Quota configs for client-id 'batch-load' are producer_byte_rate=1048576.0, request_percentage=50.0"
    _, _, listed = output.strip().rpartition(" are ")
    return {key: float(value) for key, _, value in (item.strip().partition("=") for item in listed.split(",")) if value}


def _config_command(bootstrap: str, security: dict[str, str], action: list[str], client_id: str = QUOTA_CLIENT_ID) -> str:
    java, jars = java_command(), resolve_jars()
    with tempfile.TemporaryDirectory(prefix="quietload-configs-") as work:
        command_config = Path(work) / "client.properties"
        command_config.touch(mode=0o600)
        command_config.write_text("".join(f"{key}={value}\n" for key, value in java_security(security).items()))
        command = [java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", jars.classpath, "kafka.admin.ConfigCommand",
                   "--bootstrap-server", bootstrap, "--command-config", str(command_config),
                   "--entity-type", "clients", "--entity-name", client_id, *action]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise StackError(f"kafka-configs on {bootstrap} gave no answer within 90 s") from None
    if done.returncode != 0:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip() and not line.startswith(("\t", " "))]
        raise StackError(f"kafka-configs on {bootstrap} failed: {lines[-1] if lines else f'exit {done.returncode}'}")
    return done.stdout
