"""Every setting's record (workloads.settings) reaches each reader of the records: the value objects,
the clients' defaults, the live clients' configurations, the tuner's knobs and their typed edits, the
policy's template, judge and narrowed search, the snippets and the import's script reader. A new
setting that misses one of them fails here."""
from __future__ import annotations

import dataclasses

import pytest

from simulator.live.neighbours import librdkafka_config
from workloads.snippets import kafka_configs_lines, producer_properties, pyspark_code
from tuner.space import search_space
from tuner.within_policy import bounded
from workloads import CATALOG, Client, ProducerConfig, Quota, Scenario, Tenant, client_defaults
from workloads._fields import keys_of
from workloads.imports.script import read_script
from workloads.policy import JobClass, Match, Policy, Template, judge
from workloads.scenario import apply_overrides, load_mapping
from workloads.settings import CEILING, FLOOR, ONE_OF, PRODUCER, QUOTA, SETTINGS, Setting
from workloads.tuning import KNOBS, knobs_of

PUBLISHED = CATALOG / "paypay-glue-2gb.yaml"
TUNED = [s for s in SETTINGS.values() if s.tune]
RULED = [s for s in SETTINGS.values() if s.rule]
CLIENTS = (Client("java", (2, 8, 0)), Client("java", (3, 9, 0)), Client("java", (4, 1, 0)),
           Client("librdkafka", (1, 4, 0)), Client("librdkafka", (2, 3, 0)))


def _ids(settings: list[Setting]) -> list[str]:
    return [s.name for s in settings]


@pytest.mark.parametrize("setting", list(SETTINGS.values()), ids=list(SETTINGS))
def test_each_setting_is_a_field_of_its_value_object_under_kafkas_name(setting):
    holder = ProducerConfig if setting.section == "producer" else Quota
    assert keys_of(holder)[setting.name].name == setting.attribute


def test_the_value_objects_hold_no_setting_without_a_record():
    assert set(keys_of(ProducerConfig)) == {s.name for s in PRODUCER}
    assert set(keys_of(Quota)) == {s.name for s in QUOTA}


@pytest.mark.parametrize("client", CLIENTS, ids=lambda c: c.label)
def test_a_job_that_sets_nothing_runs_with_its_clients_defaults(client):
    producer = ProducerConfig.build({}, client, "producer")
    defaults = client_defaults(client)
    assert {s.name for s in PRODUCER if s.default is not None} == set(defaults)
    in_force = {s.name: s.in_force(getattr(producer, s.attribute), client) for s in PRODUCER if s.default is not None}
    assert {name: value for name, value in defaults.items() if value is not None} == \
        {name: value for name, value in in_force.items() if value is not None}
    # a setting added after result files were written stays unset in the job's producer (and its file)
    assert {s.name for s in PRODUCER if s.late and getattr(producer, s.attribute) is None} == {"delivery.timeout.ms"}


def test_the_clients_defaults_are_the_clients_own():
    assert client_defaults(Client("java", (3, 9, 0)))["linger.ms"] == 0.0
    assert client_defaults(Client("java", (4, 1, 0)))["linger.ms"] == 5.0
    assert client_defaults(Client("java", (2, 8, 0)))["acks"] == "1"
    assert client_defaults(Client("librdkafka", (2, 3, 0)))["batch.num.messages"] == 10_000


@pytest.mark.parametrize("kind", ("java", "librdkafka"))
def test_the_live_clients_are_configured_with_every_setting_they_have(kind):
    """A late setting (``Setting.late``) only where the job sets it: the client's own default otherwise."""
    tenant = Tenant.build({"name": "payments", "topic": "payments-events", "rate": "100/s", "record_size": "1KB",
                           "sla_p99": "10ms", "client": {"kind": kind, "version": "2.3.0" if kind == "librdkafka" else "4.1.0"},
                           "producer": {"delivery.timeout.ms": "200s"}}, "tenants[0]")
    librdkafka = librdkafka_config(tenant, "127.0.0.1:9092")
    java = tenant.producer.as_properties()
    for setting in PRODUCER:
        if kind in setting.clients:
            assert setting.name in java
            if setting.librdkafka:
                assert librdkafka[setting.librdkafka] == setting.to_librdkafka(getattr(tenant.producer, setting.attribute))


@pytest.mark.parametrize("setting", TUNED, ids=_ids(TUNED))
def test_a_tuned_setting_is_a_knob_whose_typed_edit_is_the_files_own(setting):
    knob = KNOBS[setting.name]
    assert knob.path == ("batch", setting.section, setting.name)
    assert (knob.unit, knob.per, knob.quota) == (setting.unit, setting.per, setting.section == "quota")
    base = load_mapping(PUBLISHED, [])
    scenario = Scenario.from_mapping(base)
    bounds = knob.bounds(scenario)
    values = bounds if knob.kind == "choice" else (bounds[0] or 1, bounds[1], (bounds[0] + bounds[1]) / 3)
    for value in values:
        edited = knob.apply(scenario, value)
        assert edited == Scenario.from_mapping(apply_overrides(base, knob.overrides(value)))
        assert getattr(getattr(edited.batch, setting.section), setting.attribute) == knob.typed(value)


def test_a_knobs_typed_edit_is_checked_as_a_files_value():
    scenario = Scenario.from_yaml(PUBLISHED)
    with pytest.raises(Exception, match="batch.producer.batch.size: .* larger than max.request.size"):
        KNOBS["batch.size"].apply(scenario, 4 * 1024**2)


@pytest.mark.parametrize("setting", TUNED, ids=_ids(TUNED))
def test_a_tuned_setting_is_in_the_snippets(setting):
    scenario = Scenario.from_yaml(PUBLISHED)
    value = KNOBS[setting.name].bounds(scenario)[-1]
    params = {setting.name: value}
    if setting.section == "producer":
        shown = KNOBS[setting.name].property_value(value)
        assert f"{setting.name}={shown}" in producer_properties(params)
        assert f'.option("kafka.{setting.name}", "{shown}")' in pyspark_code(params)
    else:
        assert f"{setting.name}=" in kafka_configs_lines(params)[0]


def _policy(template: Template, quota: Quota) -> Policy:
    return Policy(name="p", classes=(JobClass(name="loads", match=Match(client_id=("*",)), producer=template, quota=quota),))


def _rule_bound(setting: Setting, scenario: Scenario) -> object:
    """A bound the published job's own setting breaks."""
    have = setting.in_force(getattr(getattr(scenario.batch, setting.section), setting.attribute), scenario.batch.client)
    if setting.name in ("acks", "enable.idempotence"):   # floors of durability: the job's own is 1, false
        return {"acks": "all", "enable.idempotence": True}[setting.name]
    if setting.rule == FLOOR:
        return have * 2 + 1
    if setting.rule == CEILING:
        return 1
    if setting.rule == ONE_OF:
        return ("zstd",)
    raise AssertionError(f"{setting.name}: a rule of no direction")


@pytest.mark.parametrize("setting", RULED, ids=_ids(RULED))
def test_a_ruled_setting_is_in_the_policys_template_its_judge_and_its_search(setting):
    scenario = Scenario.from_mapping(load_mapping(PUBLISHED, ["batch.quota.producer_byte_rate=100MB/s",
                                                             "batch.quota.request_percentage=300"]))
    bound = _rule_bound(setting, scenario)
    rule = {setting.attribute: bound}
    template = Template(**rule) if setting.section == "producer" else Template()
    quota = Quota(**rule) if setting.section == "quota" else Quota()
    policy = _policy(template, quota)
    breaches = judge(scenario.as_mapping()["batch"], policy)
    assert [(b.rule, b.kept) for b in breaches] == [(setting.name, False)]
    space, lines = bounded(search_space(scenario), scenario, policy)
    knob = setting.name if setting.name in KNOBS else "acks"     # the acks knob sets enable.idempotence with it
    assert lines == [f"searched inside policy p, class loads: {knob} {next(r for r in space.ranges if r.name == knob).describe()}"]
    searched = next(r for r in space.ranges if r.name == knob)
    if KNOBS[knob].kind == "choice" and setting.rule != ONE_OF:   # the choices that keep it (acks sets idempotence)
        assert all(setting.keeps(dict(((knob, c), *KNOBS[knob].also(c)))[setting.name], bound) for c in searched.choices)
    elif setting.rule == FLOOR:
        assert searched.low == bound
    elif setting.rule == CEILING:
        assert searched.high == bound
    else:
        assert searched.choices == bound


def test_both_quotas_are_per_broker_as_kafka_meters_them():
    assert [KNOBS[s.name].render(50.0).endswith(" per broker") for s in QUOTA] == [True, True]


@pytest.mark.parametrize("setting", [s for s in PRODUCER if "java" in s.clients], ids=lambda s: s.name)
def test_the_import_reads_each_java_producer_setting_from_a_script(setting):
    value = {"bytes": "131072", "ms": "20", "": "7"}.get(setting.unit, "7")
    value = {"compression.type": "zstd", "acks": "all", "enable.idempotence": "true"}.get(setting.name, value)
    script = ('df.write.format("kafka").option("kafka.bootstrap.servers", "b:9092")'
              f'.option("kafka.{setting.name}", "{value}").option("topic", "t").save()\n')
    facts = read_script(script)
    assert setting.name in facts.producer
    assert setting.parse(facts.producer[setting.name], setting.name) == setting.parse(
        {"true": True}.get(value, int(value) if value.isdigit() else value), setting.name)


def test_a_policy_template_at_a_picks_values_keeps_acks_with_idempotence():
    template = Template.at({"linger.ms": 10, "batch.size": 131072, "compression.type": "zstd", "acks": "all",
                            "producer_byte_rate": 1.0})
    assert dataclasses.asdict(template) == {"linger_ms": 10.0, "batch_size": 131072, "compression_type": ("zstd",),
                                            "acks": "all", "enable_idempotence": True, "max_in_flight": None,
                                            "delivery_timeout_ms": None}
    assert Template.at({"acks": "1"}).enable_idempotence is None


def test_a_study_suggests_the_records_knobs_in_the_order_stored_studies_were_made_in():
    assert knobs_of(("job", "quota")) == ["repartition", "compression.type", "acks", "linger.ms", "batch.size", "buffer.memory",
                                          "max.in.flight.requests.per.connection", "producer_byte_rate", "request_percentage"]
