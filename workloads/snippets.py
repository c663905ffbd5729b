"""Ready-to-paste text for a recommendation: the PySpark write, the AWS Glue ``DynamicFrame``
write, the producer's settings as a ``producer.properties`` file with the ``kafka-producer-perf-test.sh``
line that checks them, and the ``kafka-configs.sh`` quota line; and the knob values rounded to what a person
types (``131072``, not ``125416``).

Producer properties are not Spark confs: Spark's Kafka sink hands every ``kafka.``-prefixed
DataFrame writer option to the producer, so they go in the job's code, not on
``spark-submit --conf`` or in Glue's ``--conf`` job parameter. ``repartition`` is a call in
the job's code. A client quota is set on the brokers (``kafka-configs.sh``) for the job's
``client.id``.

AWS Glue's Kafka sink (``write_dynamic_frame.from_options(connection_type="kafka")``) takes
``connectionName``, ``topic``, ``partition``, ``key`` and ``classification``, and passes every
other connection option to Spark's Kafka sink as it is, "no allow listing" (AWS Glue developer
guide, Kafka connections, "Kafka connection option reference":
https://docs.aws.amazon.com/glue/latest/dg/aws-glue-programming-etl-connect-kafka-home.html).
So the producer's settings keep their ``kafka.`` prefix there too; the brokers' addresses and
the security settings come from the Glue connection.
"""
from __future__ import annotations

import json
import math
import shlex
from typing import Any

from workloads.quota import QUOTA_CLIENT_ID
from workloads.text import one_line
from workloads.tuning import KNOBS

GLUE_KAFKA_DOC = "https://docs.aws.amazon.com/glue/latest/dg/aws-glue-programming-etl-connect-kafka-home.html"
BOOTSTRAP_PLACEHOLDER = "<bootstrap-servers>"
TOPIC_PLACEHOLDER = "<topic>"
GLUE_CONNECTION_PLACEHOLDER = "<glue-kafka-connection>"
MB = 1024**2


def _nice_sizes(low: float, high: float) -> list[int]:
    """Sizes people type: 2^k and 1.5 x 2^k bytes (16KB, 24KB, 32KB, 48KB, ...) within [low, high]."""
    sizes = []
    for k in range(10, 41):
        sizes += [2**k, 3 * 2 ** (k - 1)]
    return sorted(size for size in sizes if low <= size <= high)


def _two_digits(value: float) -> float:
    """Two significant figures: 20.4 -> 20, 137 -> 140."""
    if value <= 0:
        return value
    scale = 10 ** (math.floor(math.log10(value)) - 1)
    return round(value / scale) * scale


def round_value(name: str, value: Any, low: float = 0, high: float = math.inf) -> Any:
    """A knob's value as a person would type it, kept within the knob's range [low, high]:
    sizes to the nearest 2^k or 1.5 x 2^k bytes (on a log scale), a byte rate to two
    significant figures of MB/s (KB/s below 1 MB/s), a percentage to two significant figures.
    Choices and whole milliseconds are what they are."""
    if value is None or isinstance(value, (str, bool)):
        return value
    unit = KNOBS[name].unit
    if unit == "bytes":
        sizes = _nice_sizes(low, high)
        return min(sizes, key=lambda size: abs(math.log(size / value))) if sizes and value > 0 else value
    if unit == "byte_rate":
        scale = MB if value >= MB else 1024
        rounded = _two_digits(value / scale) * scale
        return float(rounded) if low <= rounded <= high else value
    if unit == "percent":
        rounded = _two_digits(value)
        return float(rounded) if low <= rounded <= high else value
    return value


def rounded_params(params: dict[str, Any], bounds: dict[str, tuple[float, float]] | None = None) -> dict[str, Any]:
    """Every knob's value rounded by ``round_value`` within its search range from ``bounds``."""
    bounds = bounds or {}
    return {name: round_value(name, value, *bounds.get(name, (0, math.inf))) for name, value in params.items()}


def property_value(name: str, value: Any) -> str:
    return KNOBS[name].property_value(value)


def _settings(name: str, value: Any) -> list[tuple[str, str]]:
    """The (``--set`` key, value) pairs a knob's value stands for (acks=all brings enable.idempotence=true)."""
    return [tuple(override.split("=", 1)) for override in KNOBS[name].overrides(value)]  # type: ignore[misc]


def _literal(value: Any) -> str:
    """A value as a Python string literal in double quotes (JSON's quoting is Python's for a string)."""
    return json.dumps(str(value))


def _producer_options(params: dict[str, Any]) -> list[tuple[str, str]]:
    options = [(f"kafka.{key.rpartition('.producer.')[2]}", value) for name, v in sorted(params.items())
               if KNOBS[name].path[1] == "producer" for key, value in _settings(name, v)]
    if any(KNOBS[name].quota and value is not None for name, value in params.items()):
        options.append(("kafka.client.id", QUOTA_CLIENT_ID))
    return options


def _frame_expression(params: dict[str, Any], key: str | None) -> str:
    """The rows as Spark's Kafka sink wants them: the row as JSON in ``value`` (and the key column in ``key``)."""
    repartition = params.get("repartition")
    frame = f"df.repartition({repartition})" if repartition else "df"
    columns = (f'col({_literal(key)}).cast("string").alias("key"), ' if key else "") + 'to_json(struct("*")).alias("value")'
    return f"{frame}.select({columns})"


def pyspark_code(params: dict[str, Any], key: str | None = None) -> str:
    """The DataFrame write, one parenthesized chain so that it pastes at any indentation."""
    imports = "from pyspark.sql.functions import " + ("col, struct, to_json" if key else "struct, to_json")
    repartition = params.get("repartition", "unset")
    note = (f"  # {repartition} write tasks" if repartition not in ("unset", None)
            else "  # no repartition: the tasks of the read write" if repartition is None else "")
    lines = [imports, "", f"({_frame_expression(params, key)}{note}",
             '    .write.format("kafka")',
             f'    .option("kafka.bootstrap.servers", "{BOOTSTRAP_PLACEHOLDER}")',
             "    # MSK with IAM, SCRAM or TLS: also the kafka.security.protocol and kafka.sasl.* / kafka.ssl.* options of your clients"]
    lines += [f'    .option({_literal(name)}, {_literal(value)})' for name, value in _producer_options(params)]
    lines += [f'    .option("topic", "{TOPIC_PLACEHOLDER}")', '    .mode("append")', "    .save())"]
    return "\n".join(lines) + "\n"


def glue_code(params: dict[str, Any], key: str | None = None) -> str:
    """The same write as an AWS Glue job writes a DynamicFrame (see the module's note): Glue
    serializes each row as JSON itself (``classification``)."""
    repartition = params.get("repartition")
    frame = f"df.repartition({repartition})" if repartition else "df"
    lines = (["# keyed records: write them with the PySpark form above; Glue's reference does not say",
              f"# that its \"key\" option can name a column ({one_line(key)})"] if key else [])
    lines += ["from awsglue.dynamicframe import DynamicFrame", "",
              "glueContext.write_dynamic_frame.from_options(",
              f'    frame=DynamicFrame.fromDF({frame}, glueContext, "rows"),',
              '    connection_type="kafka",',
              "    connection_options={",
              f'        "connectionName": "{GLUE_CONNECTION_PLACEHOLDER}",  # brokers and security',
              f'        "topic": "{TOPIC_PLACEHOLDER}",',
              '        "classification": "json",']
    lines += [f'        {_literal(name)}: {_literal(value)},' for name, value in _producer_options(params)]
    lines += ["    },", ")"]
    return "\n".join(lines) + "\n"


RECORD_BYTES_PLACEHOLDER = "<record-bytes>"


def producer_properties(params: dict[str, Any]) -> list[str]:
    """The producer's settings as Kafka's own producer reads them (``--producer.config``): the writer
    options without Spark's ``kafka.`` prefix, so a pick can be checked with ``kafka-producer-perf-test.sh``
    before the job ships."""
    options = _producer_options(params)
    if not options:
        return []
    return [f"bootstrap.servers={BOOTSTRAP_PLACEHOLDER}", *(f"{name.removeprefix('kafka.')}={value}" for name, value in options)]


def perf_test_command() -> str:
    """Kafka's producer benchmark on ``producer.properties``: ``--throughput -1`` appends as fast as it can,
    as a Spark task does (a rate limit would send each burst in its own request)."""
    return (f"kafka-producer-perf-test.sh --producer.config producer.properties --topic {TOPIC_PLACEHOLDER} "
            f"--num-records 1000000 --record-size {RECORD_BYTES_PLACEHOLDER} --throughput -1")


def producer_properties_block(properties: list[str]) -> list[str]:
    """``producer.properties`` written by a shell here-document, then Kafka's producer benchmark on it:
    what checks a pick with Kafka's own producer before the job ships; nothing without properties."""
    return ["cat > producer.properties <<'EOF'", *properties, "EOF", perf_test_command()] if properties else []


def job_producer_params(scenario: Any) -> dict[str, Any]:
    """The job's producer settings in force as knob values (a Scenario, or a result's scenario mapping)."""
    params = {}
    for name, knob in KNOBS.items():
        if knob.path[1] == "producer" and (value := _in_force(scenario, name)) is not None:
            params[name] = knob.parse(value, knob.override_key) if isinstance(scenario, dict) else value
    return params


def changed_producer_properties(params: dict[str, Any], scenario: Any) -> list[str]:
    """A change's producer as Kafka's own producer reads it: the job's producer settings in ``scenario``
    with the change's knob values laid over them; nothing when the change sets no producer setting or quota."""
    if not any(KNOBS[name].path[1] == "producer" or KNOBS[name].quota for name in params):
        return []
    return producer_properties({**job_producer_params(scenario), **params})


def kafka_configs_lines(params: dict[str, Any], client_id: str = QUOTA_CLIENT_ID) -> list[str]:
    """The client quota for the job's client.id, set on the brokers."""
    quota = {name: value for name, value in params.items() if KNOBS[name].quota and value is not None}
    if not quota:
        return []
    configs = ",".join(f"{name}={property_value(name, value)}" for name, value in sorted(quota.items()))
    return [f'kafka-configs.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --command-config client.properties '
            f"--alter --entity-type clients --entity-name {shlex.quote(client_id)} --add-config {shlex.quote(configs)}"]


def _broker_setting(name: str) -> bool:
    """Whether knob ``name`` is a setting of the brokers' configuration (not one MSK changes by a command)."""
    knob = KNOBS[name]
    return knob.lever == "cluster" and knob.path[1] == "broker" and not knob.command


def broker_config_lines(params: dict[str, Any]) -> list[str]:
    """The brokers' settings as lines of an Amazon MSK configuration (or server.properties)."""
    return [f"{name}={KNOBS[name].property_value(value)}" for name, value in sorted(params.items())
            if _broker_setting(name)]


def _in_force(scenario: Any, name: str) -> Any:
    """Knob ``name``'s value in ``scenario`` (a Scenario, or a result's scenario mapping; None: not said)."""
    if not isinstance(scenario, dict):
        return KNOBS[name].current(scenario)
    value: Any = scenario
    for key in KNOBS[name].path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _thread_steps(params: dict[str, Any], scenario: Any) -> list[dict[str, Any]]:
    """The brokers' settings in the steps a dynamic change may take: Kafka refuses a thread pool's new
    size above double, or below half, the size in force (DynamicThreadPool, "value should not be greater
    than double the current value"), so 1 -> 4 fetchers is 1 -> 2 -> 4. Without the sizes in force, one step."""
    targets = {name: value for name, value in sorted(params.items()) if _broker_setting(name)}
    given = {name: _in_force(scenario, name) if scenario is not None else None for name in targets}
    if not all(isinstance(value, int) and value > 0 for value in given.values()):
        return [targets] if targets else []
    now: dict[str, int] = {name: value for name, value in given.items() if isinstance(value, int)}
    steps: list[dict[str, Any]] = []
    while now != targets:
        now = {name: (min(target, 2 * now[name]) if target > now[name] else max(target, now[name] // 2))
               for name, target in targets.items()}
        steps.append(dict(now))
    return steps


def cluster_commands(params: dict[str, Any], scenario: Any = None) -> list[str]:
    """The commands that make the cluster's levers: the thread pools as cluster-wide dynamic broker
    configs (Kafka applies num.io.threads, num.network.threads and num.replica.fetchers without a
    restart; in steps of at most double or half, from the sizes in ``scenario`` when given), then the
    knobs MSK changes by a command of its own (UpdateBrokerCount, UpdateBrokerType)."""
    lines = [f'kafka-configs.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --command-config client.properties '
             f"--alter --entity-type brokers --entity-default --add-config "
             + shlex.quote(",".join(f"{name}={KNOBS[name].property_value(value)}" for name, value in step.items()))
             for step in _thread_steps(params, scenario)]
    lines += [knob.command.format(value=shlex.quote(knob.property_value(params[name]))) for name, knob in KNOBS.items()
              if knob.command and params.get(name) is not None]
    return lines


def snippets(params: dict[str, Any], key: str | None = None, scenario: Any = None) -> dict[str, Any]:
    """Ready-to-paste text per place the settings go (see the module's note on options vs confs);
    ``scenario``: the job as it is, whose broker settings a dynamic change starts from."""
    return {
        "msk_configuration": broker_config_lines(params),
        "cluster_commands": cluster_commands(params, scenario),
        "pyspark": pyspark_code(params, key),
        "glue_dynamic_frame": glue_code(params, key),
        "spark_writer_options": [f'.option({_literal(name)}, {_literal(value)})' for name, value in _producer_options(params)],
        "spark_submit_conf": [],
        "kafka_configs": kafka_configs_lines(params),
        "producer_properties": producer_properties(params),
    }


def render_snippets(parts: dict[str, Any]) -> str:
    lines = ["# PySpark: Spark's Kafka sink passes every kafka.* writer option to the producer.",
             f"# Replace {BOOTSTRAP_PLACEHOLDER} and {TOPIC_PLACEHOLDER}; df holds the rows read.",
             parts["pyspark"].rstrip("\n"), "",
             "# AWS Glue DynamicFrame: Glue passes the connection options to Spark's Kafka sink as they",
             f"# are ({GLUE_KAFKA_DOC},", '# "Kafka connection option reference"), so kafka.* options reach the producer.',
             parts["glue_dynamic_frame"].rstrip("\n"), "",
             "# spark-submit --conf / AWS Glue --conf job parameter: Spark confs only; none of these knobs is one"]
    lines += [f"--conf {conf}" for conf in parts["spark_submit_conf"]]
    if parts.get("producer_properties"):
        lines += ["", "# producer.properties: the same settings as Kafka's own producer reads them, to check the pick",
                  f"# with kafka-producer-perf-test.sh before the job ships. Replace {BOOTSTRAP_PLACEHOLDER}, {TOPIC_PLACEHOLDER} and",
                  f"# {RECORD_BYTES_PLACEHOLDER} (a record's value, as the job writes it); add your clients' security settings.",
                  *producer_properties_block(parts["producer_properties"])]
    if parts["kafka_configs"]:
        lines += ["", f"# client quota on the brokers, for the job's client.id {QUOTA_CLIENT_ID}; BOOTSTRAP_SERVERS",
                  "# holds the brokers' host:port list;",
                  "# client.properties holds your admin client's security settings (MSK with IAM:",
                  "# security.protocol=SASL_SSL, sasl.mechanism=AWS_MSK_IAM, sasl.jaas.config=",
                  "# software.amazon.msk.auth.iam.IAMLoginModule required;, sasl.client.callback.handler.class=",
                  "# software.amazon.msk.auth.iam.IAMClientCallbackHandler; SCRAM: SASL_SSL, SCRAM-SHA-512 and",
                  "# its ScramLoginModule; TLS: security.protocol=SSL); leave it out on a PLAINTEXT cluster"]
        lines += parts["kafka_configs"]
    if parts.get("msk_configuration") or parts.get("cluster_commands"):
        lines += ["", "# the cluster's operator: these lines in the cluster's Amazon MSK configuration (a new",
                  "# revision, applied with aws kafka update-cluster-configuration) or server.properties,"]
        lines += parts.get("msk_configuration", [])
        lines += ["# or, at once and on every broker (MSK: broker count in multiples of the availability zones):"]
        lines += parts.get("cluster_commands", [])
    return "\n".join(lines) + "\n"


MSK_CONFIGURATION_NOTE = "  # MSK configuration"
# where each line of ``paste_lines`` goes, in its order: the job's write, the client quota, the brokers'
# configuration, the cluster's commands, and --set values with no snippet
PASTE_KINDS = ("pyspark", "client_quota", "msk_configuration", "cluster_commands", "no_snippet")


def paste_kind(line: str) -> str:
    """Where a line of ``paste_lines`` goes (one of PASTE_KINDS), told by the shape it is written in here."""
    if line.startswith(("df.repartition(", ".option(")):
        return "pyspark"
    if line.startswith("kafka-configs.sh") and "--entity-type clients" in line:
        return "client_quota"
    if line.endswith(MSK_CONFIGURATION_NOTE):
        return "msk_configuration"
    return "no_snippet" if line.startswith("--set ") else "cluster_commands"


def paste_blocks(lines: tuple[str, ...] | list[str]) -> list[tuple[str, list[str]]]:
    """``paste_lines``' lines (as a gate result holds them too) grouped by where they go, in PASTE_KINDS'
    order; an MSK configuration's lines without their note, as the configuration holds them."""
    blocks: dict[str, list[str]] = {}
    for line in lines:
        kind = paste_kind(line)
        blocks.setdefault(kind, []).append(line.removesuffix(MSK_CONFIGURATION_NOTE))
    return [(kind, blocks[kind]) for kind in PASTE_KINDS if kind in blocks]


def paste_lines(params: dict[str, Any], scenario: Any = None, unlisted: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A change (its knob values) as each owner pastes it, in a few lines: the job's write (repartition and
    kafka.* writer options, the same in a Glue job's connection options), the quota's and the cluster's
    commands (``scenario``, the job as it is: where a dynamic broker change starts from), and ``unlisted``
    ``--set`` values no snippet writes (a night's job's) as they are."""
    lines = []
    if params.get("repartition"):
        lines.append(f"df.repartition({params['repartition']})  # the job's code, before the write")
    lines += [f'.option({_literal(name)}, {_literal(value)})' for name, value in _producer_options(params)]
    lines += kafka_configs_lines(params)
    lines += [line + MSK_CONFIGURATION_NOTE for line in broker_config_lines(params)] + cluster_commands(params, scenario)
    lines += [f"--set {shlex.quote(override)}  # no snippet for this setting" for override in unlisted]
    return tuple(lines)
