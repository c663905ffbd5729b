"""``tune --policy``: the job's class bounds the study's knobs, so its pick keeps the policy."""
from pathlib import Path

import pytest
import yaml

from tuner import search_space
from tuner.tune import TuneRequest, tune
from tuner.within_policy import bounded
from workloads import Scenario, ScenarioError
from workloads.policy import Policy, judge_scenario

POLICY = {"name": "tiny-rules", "classes": [{
    "name": "loads", "match": {"client.id": ["batch-load"]},
    "producer": {"linger.ms": 20, "batch.size": "64KB", "compression.type": ["zstd", "lz4"], "acks": "all",
                 "enable.idempotence": True, "max.in.flight.requests.per.connection": 3},
    "quota": {"producer_byte_rate": "20MB/s", "request_percentage": 50}}]}


def _policy(tmp_path: Path, document: dict = POLICY) -> Policy:
    path = tmp_path / "policy.yaml"
    path.write_text(yaml.safe_dump(document))
    return Policy.from_yaml(path)


def test_each_rule_of_the_jobs_class_bounds_its_knob(tiny, tmp_path):
    scenario = Scenario.from_mapping(tiny)
    space, lines = bounded(search_space(scenario, ("job",)), scenario, _policy(tmp_path))
    described = {r.name: r.describe() for r in space.ranges}
    assert described == {
        "repartition": "{none, 4, 8, 12, 16}", "compression.type": "{lz4, zstd}", "acks": "{all}",
        "linger.ms": "20 ms .. 100 ms", "batch.size": "64.0 KB .. 1.0 MB (log)", "buffer.memory": "32.0 MB .. 512.0 MB (log)",
        "max.in.flight.requests.per.connection": "1 .. 3",
        # not a lever searched (job only), but a job without a quota breaks the class's: searched within it
        "producer_byte_rate": "1.0 MB/s .. 20.0 MB/s (log)", "request_percentage": "10 % .. 50 %"}
    assert lines == ["searched inside policy tiny-rules, class loads: compression.type {lz4, zstd}, acks {all}, "
                     "linger.ms 20 ms .. 100 ms, batch.size 64.0 KB .. 1.0 MB (log), "
                     "max.in.flight.requests.per.connection 1 .. 3, producer_byte_rate 1.0 MB/s .. 20.0 MB/s (log), "
                     "request_percentage 10 % .. 50 %"]


def test_a_job_of_no_class_is_refused_in_one_line(tiny, tmp_path):
    other = dict(POLICY, classes=[dict(POLICY["classes"][0], match={"client.id": ["nightly-*"]})])
    scenario = Scenario.from_mapping(tiny)
    with pytest.raises(ScenarioError, match="no class of policy 'tiny-rules' fits client.id 'batch-load'"):
        bounded(search_space(scenario), scenario, _policy(tmp_path, other))


def test_tunes_pick_inside_the_policy_keeps_every_rule_check_policy_holds_it_to(tiny, tmp_path):
    scenario_file = tmp_path / "tiny.yaml"
    scenario_file.write_text(yaml.safe_dump(dict(tiny, tenants=[dict(tiny["tenants"][0], sla_p99="100ms")])))
    policy = _policy(tmp_path)
    outcome = tune(TuneRequest(scenario_file, trials=3, validate=0, out_dir=tmp_path / "out", policy=policy))
    assert all(breach.kept for breach in judge_scenario(outcome.picked.scenario, policy))
    assert outcome.recommendation.explanation[-1] == "keeps every rule of policy tiny-rules (check --policy passes it)"
    assert outcome.summary.name.endswith("-in-tiny-rules")   # a narrower space: a study of its own


def test_a_policy_derived_and_a_tune_inside_it_agree_on_the_sla_and_the_pick_keeps_the_policy(tiny, tmp_path):
    from judging.gate import check_runs
    from judging.policy_gate import with_policy
    from tuner.policy import PolicyRequest, derive
    scenario_file = tmp_path / "tiny.yaml"
    scenario_file.write_text(yaml.safe_dump(dict(tiny, tenants=[dict(tiny["tenants"][0], sla_p99="3x")])))
    derived = derive(PolicyRequest(scenario_file, trials=2, repeat=1, validate=1, out_dir=tmp_path / "policy"))
    tuned = tune(TuneRequest(scenario_file, trials=2, validate=0, out_dir=tmp_path / "tune", policy=derived.policy))
    [proven] = derived.proof["with_policy"]["tenants"]
    [picked] = tuned.picked.summary.tenants
    assert picked.sla_p99_ms == proven["sla_p99_ms"] and derived.proof["slas"] == tuned.recommendation.sla_sources
    written = Scenario.from_yaml(tmp_path / "tune" / "tiny-tuned.yaml").tenants[0].sla   # stated, not resolved again
    assert (written.ms, written.alone_from) == (picked.sla_p99_ms, "model seeds 1-5")
    report = with_policy(check_runs([tuned.picked]), tuned.picked.scenario, derived.policy)
    assert [v.rule for v in report.verdicts if v.failed and v.rule.startswith("policy.")] == []
