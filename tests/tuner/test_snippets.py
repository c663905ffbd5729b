"""The recommendation's snippets paste and run as they are: every Python block compiles at any
indentation, the shell line parses, and sizes are what a person types."""
import ast
import subprocess
import textwrap

import pytest

from workloads.snippets import render_snippets, round_value, rounded_params, snippets

KB, MB = 1024, 1024**2
# one of each kind of knob, with the false precision a sampler gives
PICKS = [
    {"repartition": 60, "compression.type": "zstd", "linger.ms": 10, "batch.size": 125416, "buffer.memory": 268_000_000,
     "max.in.flight.requests.per.connection": 5},
    {"repartition": None, "compression.type": "none", "linger.ms": 0, "batch.size": 16384, "acks": "all"},
    {"linger.ms": 5, "producer_byte_rate": 21_400_000.3, "request_percentage": 37.25},
    {"acks": "all", "linger.ms": 10, "num.replica.fetchers": 4, "num.io.threads": 16, "brokers": 6},
]


@pytest.mark.parametrize("params", PICKS)
@pytest.mark.parametrize("key", [None, "card_id"])
def test_every_python_snippet_compiles_at_the_top_level_and_indented(params, key):
    parts = snippets(params, key)
    for block in (parts["pyspark"], parts["glue_dynamic_frame"]):
        compile(block, "<snippet>", "exec")
        compile("def job(df, glueContext):\n" + textwrap.indent(block, "    "), "<snippet>", "exec")
        # every producer option of the pick is in the block, with the kafka. prefix
        literals = {node.value for node in ast.walk(ast.parse(block)) if isinstance(node, ast.Constant)}
        assert {f"kafka.{name}" for name in params if name not in ("repartition", "producer_byte_rate",
                                                                    "request_percentage", "num.replica.fetchers",
                                                                    "num.io.threads", "brokers")} <= literals
        if params.get("acks") == "all":   # the idempotent producer goes with acks=all, as the published fix set it
            assert literals >= {"kafka.enable.idempotence", "true"}


def test_the_pyspark_chain_names_the_bootstrap_servers_and_the_topic():
    literals = [node.value for node in ast.walk(ast.parse(snippets(PICKS[0])["pyspark"])) if isinstance(node, ast.Constant)]
    assert literals[literals.index("kafka.bootstrap.servers") + 1] == "<bootstrap-servers>"
    assert literals[literals.index("topic") + 1] == "<topic>"


def test_the_quota_line_parses_as_shell_and_names_a_command_config():
    line, = snippets(rounded_params(PICKS[2]))["kafka_configs"]
    assert subprocess.run(["bash", "-n", "-c", line]).returncode == 0
    assert "--command-config client.properties" in line
    assert line.endswith("--add-config producer_byte_rate=20971520,request_percentage=37")


def test_the_cluster_levers_paste_as_msk_configuration_lines_and_commands_that_parse_as_shell():
    parts = snippets(PICKS[3])
    assert parts["msk_configuration"] == ["num.io.threads=16", "num.replica.fetchers=4"]
    alter, count = parts["cluster_commands"]
    assert alter.endswith("--alter --entity-type brokers --entity-default --add-config num.io.threads=16,num.replica.fetchers=4")
    assert count.endswith("--target-number-of-broker-nodes 6")
    for line in parts["cluster_commands"]:
        assert subprocess.run(["bash", "-n", "-c", line]).returncode == 0
    rendered = render_snippets(parts)
    assert "num.replica.fetchers=4\n" in rendered and alter in rendered


def test_sizes_round_to_what_a_person_types():
    assert round_value("batch.size", 125416) == 128 * KB == 131072
    assert round_value("batch.size", 100_000) == 96 * KB               # 1.5 x 64 KB is nearer than 128 KB
    assert round_value("buffer.memory", 268_000_000) == 256 * MB
    assert round_value("batch.size", 1_040_000, 16 * KB, 1048576) == 1048576
    assert round_value("batch.size", 1_040_000, 16 * KB, 1_000_000) == 768 * KB   # within the knob's range
    assert round_value("producer_byte_rate", 21_400_000.3) == 20 * MB
    assert round_value("producer_byte_rate", 700_000.0) == 680 * KB
    assert round_value("request_percentage", 37.25) == 37
    assert rounded_params({"linger.ms": 37, "compression.type": "zstd", "repartition": None}) == \
        {"linger.ms": 37, "compression.type": "zstd", "repartition": None}


def test_the_snippets_file_shows_every_form():
    text = render_snippets(snippets({**PICKS[0], "batch.size": 131072, "buffer.memory": 256 * MB}))
    assert '.option("kafka.batch.size", "131072")' in text and '"kafka.buffer.memory": "268435456",' in text
    assert "glueContext.write_dynamic_frame.from_options(" in text
    assert "https://docs.aws.amazon.com/glue/latest/dg/aws-glue-programming-etl-connect-kafka-home.html" in text


def test_a_broker_type_pastes_as_msks_update_broker_type_command():
    parts = snippets({"cluster.broker.type": "kafka.m5.xlarge", "brokers": 6})
    assert parts["msk_configuration"] == []
    assert parts["cluster_commands"] == [
        'aws kafka update-broker-count --cluster-arn "$CLUSTER_ARN" --current-version "$CLUSTER_VERSION" '
        "--target-number-of-broker-nodes 6",
        'aws kafka update-broker-type --cluster-arn "$CLUSTER_ARN" --current-version "$CLUSTER_VERSION" '
        "--target-instance-type kafka.m5.xlarge"]


def test_the_producer_properties_are_the_writer_options_for_kafkas_own_perf_test_and_the_block_runs_in_a_shell(tmp_path):
    parts = snippets(rounded_params(PICKS[2]))   # a quota brings the client.id it is set on
    assert parts["producer_properties"] == ["bootstrap.servers=<bootstrap-servers>", "linger.ms=5", "client.id=batch-load"]
    assert snippets({"acks": "all"})["producer_properties"][1:] == ["acks=all", "enable.idempotence=true"]
    assert snippets({"num.io.threads": 16})["producer_properties"] == []   # no producer setting: no file
    text = render_snippets(parts)
    start = text.index("cat > producer.properties <<'EOF'")
    block = text[start:text.index("\n", text.index("kafka-producer-perf-test.sh", start))]
    assert block.splitlines()[-1] == ("kafka-producer-perf-test.sh --producer.config producer.properties --topic <topic> "
                                      "--num-records 1000000 --record-size <record-bytes> --throughput -1")
    heredoc = block.rsplit("\n", 1)[0]   # the file as a shell writes it, without running Kafka's tool
    assert subprocess.run(["bash", "-c", heredoc], cwd=tmp_path).returncode == 0
    assert (tmp_path / "producer.properties").read_text().splitlines() == parts["producer_properties"]
