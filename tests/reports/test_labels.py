"""Runs are labelled by what differs between them, never by a number."""
from simulator.contract import RunResult
from reports.sections.labels import render_setting, run_labels, settings_legend

PRODUCER = {"batch.size": 131072, "linger.ms": 0.0, "compression.type": "none", "buffer.memory": 33554432, "acks": "1"}
TENANTS = [{"name": "payment-api", "sla_p99": 10.0}, {"name": "fraud", "sla_p99": 10.0}]


def _run(name="glue", seed=1, evaluator="model", overrides=None, tenants=TENANTS, **producer) -> RunResult:
    scenario = {"name": name, "source": f"{name}.yaml", "description": "the job",
                "batch": {"producer": {**PRODUCER, **producer}, "spark": {"repartition": None}},
                "tenants": tenants, "check": {"cpu_max": 60.0}}
    if overrides is not None:
        scenario["overrides"] = overrides
    return RunResult.from_dict({"schema_version": 1, "evaluator": evaluator, "seed": seed, "scenario": scenario,
                                "summary": {"tenants": []}}, "hand-made")


def test_runs_of_one_scenario_are_named_by_the_settings_that_differ():
    labels = run_labels([_run(), _run(**{"linger.ms": 10.0, "compression.type": "zstd"})])
    assert labels == ["linger.ms=0, no compression", "linger.ms=10, zstd"]


def test_the_overridden_keys_come_first_in_the_users_order_and_the_scenario_as_written_is_the_base():
    changed = _run(overrides=["batch.producer.compression.type=zstd", "batch.producer.linger.ms=10"],
                   **{"linger.ms": 10.0, "compression.type": "zstd"})
    assert run_labels([_run(), changed]) == ["glue", "zstd, linger.ms=10"]
    both = _run(overrides=["batch.producer.compression.type=zstd", "batch.producer.linger.ms=10"],
                **{"linger.ms": 10.0, "compression.type": "zstd"})
    assert run_labels([both, _run(overrides=["batch.producer.linger.ms=10"], **{"linger.ms": 10.0})]) == [
        "zstd", "no compression"]


def test_sizes_read_as_typed_and_a_neighbour_by_its_name():
    slower = [{**TENANTS[0], "sla_p99": 20.0}, TENANTS[1]]
    assert run_labels([_run(), _run(tenants=slower, **{"buffer.memory": 268435456})]) == [
        "buffer.memory=32MB, payment-api.sla_p99=10", "buffer.memory=256MB, payment-api.sla_p99=20"]


def test_different_scenarios_are_named_with_the_few_settings_that_differ():
    assert run_labels([_run(), _run("glue-fixed", acks="all")]) == ["glue (acks=1)", "glue-fixed (acks=all)"]
    many = {"acks": "all", "linger.ms": 10.0, "compression.type": "zstd", "buffer.memory": 268435456}
    assert run_labels([_run(), _run("glue-fixed", **many)]) == ["glue", "glue-fixed"]


def test_runs_of_a_scenario_among_others_are_told_apart_within_it():
    labels = run_labels([_run(), _run("glue-fixed", acks="all", **{"linger.ms": 10.0, "buffer.memory": 1, "batch.size": 2}),
                         _run(**{"linger.ms": 10.0})])
    assert labels == ["glue (linger.ms=0)", "glue-fixed", "glue (linger.ms=10)"]


def test_seeds_and_evaluators_when_they_differ():
    assert run_labels([_run(seed=1), _run(seed=2)]) == ["seed 1", "seed 2"]
    assert run_labels([_run(), _run(evaluator="live")]) == ["model", "live"]
    assert run_labels([_run()]) == ["glue"]


def test_runs_alike_in_everything_get_their_file_names_never_a_number():
    assert run_labels([_run(), _run()], ["results/a.json", "results/b.json"]) == ["glue [a.json]", "glue [b.json]"]
    assert run_labels([_run(), _run()], ["x/a.json", "y/a.json"]) == ["glue [x/a.json]", "glue [y/a.json]"]


def test_a_setting_renders_as_a_person_types_it():
    assert [render_setting(name, value) for name, value in (
        ("linger.ms", 10.0), ("enable.idempotence", True), ("batch.size", 94310), ("repartition", None),
        ("compression.type", "lz4"), ("version", [2, 8, 1]))] == [
        "linger.ms=10", "enable.idempotence=true", "batch.size=94310", "repartition=none", "lz4", "version=2.8.1"]


def test_past_two_settings_a_label_counts_the_rest_and_the_legend_lists_them_once():
    five = {"linger.ms": 10.0, "compression.type": "zstd", "acks": "all", "buffer.memory": 268435456, "batch.size": 262144}
    changed = _run(overrides=["batch.producer.linger.ms=10", "batch.producer.compression.type=zstd"], **five)
    linger = _run(overrides=["batch.producer.linger.ms=10"], **{"linger.ms": 10.0})
    results = [_run(), changed, linger]
    labels = run_labels(results)
    assert labels == ["glue", "linger.ms=10, zstd, +3 more", "linger.ms=10"]
    assert settings_legend(results, labels) == [
        ["linger.ms=10, zstd, +3 more", "linger.ms=10, zstd, batch.size=256KB, buffer.memory=256MB, acks=all"]]
    # counted settings that would leave two runs alike are named in full
    other = _run(overrides=["batch.producer.linger.ms=10", "batch.producer.compression.type=zstd"], **{**five, "acks": "0"})
    assert run_labels([_run(), changed, other])[1:] == [
        "linger.ms=10, zstd, batch.size=256KB, buffer.memory=256MB, acks=all",
        "linger.ms=10, zstd, batch.size=256KB, buffer.memory=256MB, acks=0"]
