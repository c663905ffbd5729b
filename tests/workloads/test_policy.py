"""A policy file: read as strictly as a scenario, its classes matched by client.id and topic, each
rule of a job's class kept or broken by the job's resolved settings."""
import pytest

from workloads import ScenarioError
from workloads.policy import Policy, judge, judge_scenario
from workloads.reader import dump_yaml

POLICY = {"name": "card-payments-night",
          "classes": [{"name": "card-loads", "match": {"client.id": ["daily-*"], "topic": "card-transactions"},
                       "producer": {"linger.ms": 10, "batch.size": "128KB", "compression.type": ["zstd", "lz4"],
                                    "acks": "all", "enable.idempotence": True,
                                    "max.in.flight.requests.per.connection": 5},
                       "quota": {"producer_byte_rate": "20MB/s", "request_percentage": 50},
                       "proven": {"jobs_at_once": 3, "scenario": "night.yaml", "seeds": "4-23"}},
                      {"name": "anything-else", "match": {"client.id": "*"}, "producer": {"linger.ms": 20}}]}
# a job as a RunResult's scenario holds it: Kafka's names, defaults filled in
PUBLISHED = {"topic": "card-transactions",
             "producer": {"batch.size": 131072, "linger.ms": 0.0, "compression.type": "none", "acks": "1",
                          "enable.idempotence": False, "max.in.flight.requests.per.connection": 5},
             "quota": {"producer_byte_rate": None, "request_percentage": None}}


def _policy(tmp_path, document=POLICY, text=None):
    path = tmp_path / "policy.yaml"
    path.write_text(text if text is not None else dump_yaml(document))
    return Policy.from_yaml(path)


def _named(job, name):
    return {**job, "name": name, "client.id": name}


def test_a_job_is_held_to_the_first_class_it_fits(tmp_path):
    policy = _policy(tmp_path)
    breaches = judge(_named(PUBLISHED, "daily-card-load"), policy)
    assert {b.job_class for b in breaches} == {"card-loads"}
    assert [(b.rule, b.kept) for b in breaches] == [
        ("linger.ms", False), ("batch.size", True), ("compression.type", False), ("acks", False),
        ("enable.idempotence", False), ("max.in.flight.requests.per.connection", True),
        ("producer_byte_rate", False), ("request_percentage", False)]
    assert breaches[0].sentence == "daily-card-load: linger.ms=0 ms; class card-loads allows at least 10 ms"
    assert breaches[6].sentence == "daily-card-load: producer_byte_rate=none; class card-loads allows at most 20.0 MB/s per broker"
    # another topic, or another client.id: the next class
    assert {b.job_class for b in judge({**_named(PUBLISHED, "daily-card-load"), "topic": "other"}, policy)} == {"anything-else"}
    assert [b.job_class for b in judge(PUBLISHED, policy)] == ["anything-else"]   # one job alone: client.id batch-load


def test_a_conforming_job_keeps_every_rule_and_a_quota_above_the_bound_breaks_it(tmp_path):
    policy = _policy(tmp_path)
    conforming = _named({**PUBLISHED, "producer": {**PUBLISHED["producer"], "linger.ms": 25.0, "batch.size": 262144,
                                                   "compression.type": "lz4", "acks": "all", "enable.idempotence": True},
                         "quota": {"producer_byte_rate": 10 * 1024**2, "request_percentage": 50.0}}, "daily-card-load")
    assert all(b.kept for b in judge(conforming, policy))
    louder = {**conforming, "quota": {"producer_byte_rate": 30 * 1024**2, "request_percentage": 50.0}}
    assert [b.rule for b in judge(louder, policy) if not b.kept] == ["producer_byte_rate"]


def test_a_night_is_judged_job_by_job_and_a_job_of_no_class_breaks_the_class_rule(tmp_path):
    policy = _policy(tmp_path, {**POLICY, "classes": POLICY["classes"][:1]})
    night = {"batch": [_named(PUBLISHED, "daily-card-load"), _named(PUBLISHED, "hourly-export")]}
    breaches = judge_scenario(night, policy)
    assert [b.job for b in breaches].count("daily-card-load") == 8
    assert [(b.job, b.rule, b.kept) for b in breaches if b.job == "hourly-export"] == [("hourly-export", "class", False)]


def test_the_policy_reads_back_as_it_is_written(tmp_path):
    policy = _policy(tmp_path)
    text = dump_yaml(policy.as_mapping())
    assert "batch.size: 128KB" in text and "producer_byte_rate: 20MB/s" in text and "seeds: 4-23" in text
    assert _policy(tmp_path, text=text) == policy


@pytest.mark.parametrize("change, message", [
    (lambda p: p["classes"][0]["producer"].update({"linger": 10}),
     "classes[0].producer.linger: unknown key (known keys: acks, batch.size, compression.type, delivery.timeout.ms, enable.idempotence, "
     "linger.ms, max.in.flight.requests.per.connection)"),
    (lambda p: p["classes"][0].update({"schedule": "nightly"}), "classes[0].schedule: unknown key"),
    (lambda p: p["classes"][0]["producer"].update({"linger.ms": [10]}),
     "classes[0].producer.linger.ms: expected a duration like 10 or 10ms, got [10]"),
    (lambda p: p["classes"][0]["producer"].update({"enable.idempotence": "yes please"}),
     "classes[0].producer.enable.idempotence: expected true or false, got 'yes please'"),
    (lambda p: p["classes"][0]["producer"].update({"compression.type": ["zstd", "brotli"]}),
     "classes[0].producer.compression.type[1]: expected one of none, gzip, snappy, lz4, zstd, got unknown codec 'brotli'"),
    (lambda p: p["classes"][0]["quota"].update({"producer_byte_rate": True}), "classes[0].quota.producer_byte_rate"),
    (lambda p: p["classes"][0]["proven"].update({"seeds": "23-4"}), "classes[0].proven.seeds: expected model seeds like 4-23"),
    (lambda p: p["classes"].append(dict(p["classes"][0])), "classes[2].name: 'card-loads' names two classes"),
    (lambda p: p.pop("classes"), "classes: required but missing"),
])
def test_a_bad_policy_is_one_line_naming_the_field(tmp_path, change, message):
    import copy
    document = copy.deepcopy(POLICY)
    change(document)
    with pytest.raises(ScenarioError) as refused:
        _policy(tmp_path, document)
    assert str(refused.value).startswith(f"--policy {tmp_path / 'policy.yaml'}: ") and message in str(refused.value)
    assert "\n" not in str(refused.value)
