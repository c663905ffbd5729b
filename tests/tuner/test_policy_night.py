"""The worst night a policy is proven on: every job N times with client.ids of their own, all at once,
the policy's values laid over each as --set lays them; and the gate's policy verdicts job by job."""
import copy
import xml.etree.ElementTree as ET

from judging.gate import GateReport
from reports.junit import junit_xml
from judging.policy_gate import with_policy
from tuner.night import classes_of, worst_night
from workloads import CATALOG, Gate, Scenario
from workloads.policy import JobClass, Match, Policy, Template
from workloads.quota import Quota
from workloads.scenario import load_mapping

BASE = load_mapping(CATALOG / "paypay-glue-2gb.yaml", [])
POLICY = {"linger.ms": 20, "batch.size": 262144, "compression.type": "zstd", "acks": "all",
          "producer_byte_rate": 10 * 1024**2, "request_percentage": 40.0}


def _night():
    """The published job and a second one starting later, as a night's list."""
    base = copy.deepcopy(BASE)
    first = {**base["batch"], "name": "daily-card-load"}
    second = {**base["batch"], "name": "hourly-export", "client.id": "export-client", "start": "9s"}
    return {**base, "batch": [first, second]}


def test_one_job_at_once_is_the_scenario_itself_with_the_policy_laid_over_it():
    night = worst_night(Scenario.from_mapping(BASE), 1, POLICY)
    assert [(j.name, j.client_id) for j in night.jobs] == [("batch", "batch-load")] and not night.listed
    producer = night.batch.producer
    assert (producer.linger_ms, producer.batch_size, producer.compression_type, producer.acks, producer.enable_idempotence) == \
        (20.0, 262144, "zstd", "all", True)
    assert (night.batch.quota.producer_byte_rate, night.batch.quota.request_percentage) == (10 * 1024**2, 40.0)
    assert worst_night(Scenario.from_mapping(BASE), 1, {}) == Scenario.from_mapping(BASE)


def test_the_worst_night_is_every_job_n_times_at_its_start_each_with_its_own_client_id():
    base = _night()
    assert classes_of(base) == [("daily-card-load", "daily-card-load", "card-transactions"),
                                ("hourly-export", "export-client", "card-transactions")]
    night = worst_night(Scenario.from_mapping(base), 3, POLICY)
    assert [(j.name, j.client_id) for j in night.jobs] == [
        ("daily-card-load-1", "daily-card-load-1"), ("daily-card-load-2", "daily-card-load-2"),
        ("daily-card-load-3", "daily-card-load-3"), ("hourly-export-1", "export-client-1"),
        ("hourly-export-2", "export-client-2"), ("hourly-export-3", "export-client-3")]
    assert [night.job_start(j) for j in night.jobs] == [5.0] * 3 + [9.0] * 3   # each job's own (windows.before; 9s)
    assert {(j.producer.linger_ms, j.quota.producer_byte_rate) for j in night.jobs} == {(20.0, 10 * 1024**2)}
    without = worst_night(Scenario.from_mapping(base), 1, {})
    assert [(j.name, j.client_id, without.job_start(j), j.producer.linger_ms) for j in without.jobs] == [
        ("daily-card-load", "daily-card-load", 5.0, 0.0), ("hourly-export", "export-client", 9.0, 0.0)]


def test_a_night_is_judged_job_by_job_in_the_gates_forms():
    scenario = worst_night(Scenario.from_mapping(_night()), 1, {"linger.ms": 20}).as_mapping()
    policy = Policy(name="p", classes=(JobClass(name="card-loads", match=Match(client_id=("daily-*",)),
                                                producer=Template(linger_ms=10.0), quota=Quota(producer_byte_rate=1e7)),))
    report = with_policy(GateReport("night", "model", 1, Gate(), (), ()), scenario, policy)
    assert [(v.rule, v.job, v.status) for v in report.verdicts] == [
        ("policy.linger.ms", "daily-card-load", "pass"), ("policy.producer_byte_rate", "daily-card-load", "fail"),
        ("policy.class", "hourly-export", "fail")]
    assert report.verdicts[2].reason == "hourly-export: client.id export-client (topic card-transactions) fits no class's match (card-loads)"
    cases = [case.get("name") for case in ET.fromstring(junit_xml(report)).iter("testcase")]
    assert cases == ["policy.linger.ms (daily-card-load)", "policy.producer_byte_rate (daily-card-load)",
                     "policy.class (hourly-export)"]
    assert [v["job"] for v in report.to_dict()["verdicts"]] == ["daily-card-load"] * 2 + ["hourly-export"]
