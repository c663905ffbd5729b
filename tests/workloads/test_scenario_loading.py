import pytest

from workloads import CATALOG, Client, ProducerConfig, Scenario, ScenarioError

BASE = CATALOG / "paypay-glue-2gb.yaml"


def _minimal() -> dict:
    """The smallest scenario the loader accepts; each test changes one thing."""
    return {
        "name": "minimal",
        "cluster": {"brokers": 1, "topics": [{"name": "bulk", "partitions": 3}]},
        "dataset": {"files": [{"size": "1GB"}]},
        "batch": {"topic": "bulk", "client": {"kind": "java", "version": "3.6.1"},
                  "spark": {"spark.executor.instances": 2}, "producer": {}},
    }


def _with(path: list, value) -> dict:
    raw = _minimal()
    node = raw
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return raw


def _rejection(load) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load()
    assert "\n" not in str(caught.value)
    return caught.value


# (override as on the command line, the same change to a mapping, the field named)
REJECTED = {
    "unknown key": ("batch.producer.lingr.ms=5", (["batch", "producer", "lingr.ms"], 5),
                    "batch.producer.lingr.ms"),
    "wrong unit": ("batch.producer.batch.size=128XB", (["batch", "producer", "batch.size"], "128XB"),
                   "batch.producer.batch.size"),
    "batch.size above max.request.size": ("batch.producer.batch.size=2MB",
                                          (["batch", "producer", "batch.size"], "2MB"), "batch.producer.batch.size"),
    "zero partitions": ("cluster.topics.0.partitions=0", (["cluster", "topics"], [{"name": "bulk", "partitions": 0}]),
                        "cluster.topics[0].partitions"),
    "negative size": ("dataset.files.0.size=-1GB", (["dataset", "files"], [{"size": "-1GB"}]), "dataset.files[0].size"),
    "unknown codec": ("batch.producer.compression.type=brotli",
                      (["batch", "producer", "compression.type"], "brotli"), "batch.producer.compression.type"),
}


@pytest.mark.parametrize("override, change, field", REJECTED.values(), ids=REJECTED.keys())
def test_override_rejected_naming_the_field(override, change, field):
    error = _rejection(lambda: Scenario.from_yaml(BASE, [override]))
    assert error.field == field
    assert str(error).startswith(f"{field}: ")


@pytest.mark.parametrize("override, change, field", REJECTED.values(), ids=REJECTED.keys())
def test_mapping_rejected_naming_the_field(override, change, field):
    error = _rejection(lambda: Scenario.from_mapping(_with(*change)))
    assert error.field == field


def test_rejection_messages_say_what_is_wrong():
    assert "unknown key" in str(_rejection(lambda: Scenario.from_yaml(BASE, ["batch.producer.lingr.ms=5"])))
    assert "'XB'" in str(_rejection(lambda: Scenario.from_yaml(BASE, ["batch.producer.batch.size=128XB"])))
    assert "max.request.size" in str(_rejection(lambda: Scenario.from_yaml(BASE, ["batch.producer.batch.size=2MB"])))
    assert "'brotli'" in str(_rejection(lambda: Scenario.from_yaml(BASE, ["batch.producer.compression.type=brotli"])))


def test_missing_file_not_a_mapping_and_malformed_override(tmp_path):
    assert _rejection(lambda: Scenario.from_yaml(tmp_path / "nowhere.yaml")).field == "scenario"
    listing = tmp_path / "list.yaml"
    listing.write_text("- brokers\n- topics\n")
    assert "mapping" in str(_rejection(lambda: Scenario.from_yaml(listing)))
    assert _rejection(lambda: Scenario.from_yaml(BASE, ["batch.producer.linger.ms"])).field == "--set"


def test_unknown_key_in_the_file_itself(tmp_path):
    scenario = tmp_path / "typo.yaml"
    scenario.write_text(f"extends: {BASE}\ncluster:\n  partitons: 30\n")
    assert _rejection(lambda: Scenario.from_yaml(scenario)).field == "cluster.partitons"
    assert _rejection(lambda: Scenario.from_mapping(_with(["cluster", "partitons"], 30))).field == "cluster.partitons"


def _defaults(kind: str, version: tuple[int, int, int], **raw) -> ProducerConfig:
    return ProducerConfig.build(raw, Client(kind=kind, version=version), "producer")


def test_java_2_8_defaults():
    config = _defaults("java", (2, 8, 1))
    assert (config.linger_ms, config.batch_size, config.acks, config.enable_idempotence) == (0.0, 16384, "1", False)


def test_java_3_6_defaults():
    config = _defaults("java", (3, 6, 1))
    assert (config.acks, config.enable_idempotence, config.linger_ms) == ("all", True, 0.0)


def test_java_4_0_lingers_5_ms():
    assert _defaults("java", (4, 0, 0)).linger_ms == 5.0


def test_librdkafka_2_3_defaults():
    config = _defaults("librdkafka", (2, 3, 0))
    assert (config.linger_ms, config.batch_size, config.batch_num_messages) == (5.0, 1_000_000, 10_000)


def test_explicit_acks_1_turns_implied_idempotence_off_on_3x():
    config = _defaults("java", (3, 6, 1), acks=1)
    assert (config.acks, config.enable_idempotence) == ("1", False)


def test_explicit_idempotence_with_acks_1_is_rejected():
    error = _rejection(lambda: _defaults("java", (3, 6, 1), acks=1, **{"enable.idempotence": True}))
    assert error.field == "producer.enable.idempotence"
    assert "acks" in error.problem


def test_extends_lays_the_variant_over_its_base():
    base = Scenario.from_yaml(BASE)
    variant = Scenario.from_yaml(CATALOG / "paypay-glue-2gb-repartition60.yaml")
    assert variant.name == "paypay-glue-2gb-repartition60"
    assert base.batch.spark.repartition is None
    assert variant.batch.spark.repartition == 60
    assert variant.batch.spark.executors == base.batch.spark.executors == 2
    assert [(t.name, t.partitions) for t in variant.cluster.topics] == \
        [("card-transactions", 30), ("payment-events", 6), ("fraud-scores", 6)]
    assert variant.cluster == base.cluster


def test_extends_chains_through_two_files():
    fixed = Scenario.from_yaml(CATALOG / "paypay-glue-2gb-fixed.yaml")
    producer = fixed.batch.producer
    assert fixed.batch.spark.repartition == 60
    assert (producer.compression_type, producer.linger_ms, producer.batch_size) == ("zstd", 10.0, 131072)
    assert (producer.buffer_memory, producer.acks, producer.enable_idempotence) == (256 * 1024**2, "all", True)


def test_units():
    raw = _minimal()
    raw["batch"]["producer"] = {"batch.size": "128KB", "linger.ms": "10ms"}
    raw["batch"]["spark"]["append_rate"] = "40MB/s"
    raw["windows"] = {"max_duration": "5min"}
    scenario = Scenario.from_mapping(raw)
    assert scenario.batch.producer.batch_size == 131072
    assert scenario.batch.producer.linger_ms == 10.0
    assert scenario.batch.spark.append_rate == 40 * 1024**2
    assert scenario.windows.max_duration == 300.0


def test_check_section_holds_the_gate_with_units():
    scenario = Scenario.from_yaml(BASE, ["check.cpu_max=75%", "check.handler_idle_min=25",
                                         "check.requests_per_broker_max=3000/s", "check.deadline=15min"])
    assert (scenario.check.cpu_max, scenario.check.handler_idle_min) == (75.0, 25.0)
    assert scenario.check.requests_per_broker_max == 3000.0
    assert scenario.check.deadline == 900.0
    assert Scenario.from_yaml(BASE).check.deadline is None


@pytest.mark.parametrize("override, field", [("check.cpu_max=120%", "check.cpu_max"),
                                             ("check.deadline=15", "check.deadline"),
                                             ("check.cpu_maximum=50", "check.cpu_maximum")])
def test_check_section_rejects_bad_values(override, field):
    with pytest.raises(ScenarioError) as error:
        Scenario.from_yaml(BASE, [override])
    assert str(error.value).startswith(f"{field}: ")
