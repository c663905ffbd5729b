"""The gate's outcome: it judges the load by its neighbours' latency, or says it cannot (issue 25,
problem 2): PASS, FAIL or NOTHING TO JUDGE, each with its exit code, in the text, JSON, JUnit XML and
the report's verdict line."""
import pytest

from judging.gate import (EXIT_CODES, FAIL, NO_NEIGHBOURS, NO_RECORDS, NOTHING_TO_JUDGE, PASS, SKIPPED, GateReport,
                          Verdict, check_runs)
from reports.junit import junit_xml
from reports.sections.header import gate_markdown, run_verdict
from simulator.contract import RunResult
from workloads import Gate

BROKERS = (Verdict("handler_idle", PASS, "lowest idle 80.0 %", "handler idle 80.0 % (at least 30 %)", 0.4),
           Verdict("broker_cpu", PASS, "highest CPU 40.0 %", "CPU 40.0 % of 60 %", 0.7),
           Verdict("produce_request_rate", PASS, "300/s", "300 of 5,000 produce requests/s per broker", 0.06),
           Verdict("load_deadline", SKIPPED, "the load took 3.0 s; no deadline stated (--deadline)"))


def _report(sla: Verdict, *brokers: Verdict) -> GateReport:
    return GateReport("glue", "model", 1, Gate(), (sla, *(brokers or BROKERS)), ())


def test_no_neighbours_is_nothing_to_judge_with_its_own_exit_code():
    report = _report(Verdict("neighbour_sla", SKIPPED, NO_NEIGHBOURS))
    assert (report.outcome, report.passed, report.failed, report.exit_code) == (NOTHING_TO_JUDGE, False, False, 3)
    assert report.render().splitlines()[0] == (
        "NOTHING TO JUDGE glue (model, seed 1): no neighbours in this scenario, so no neighbour's SLA holds the load; "
        "3 of 5 rules passed, 2 skipped: handler idle 80.0 % (at least 30 %); CPU 40.0 % of 60 %; "
        "300 of 5,000 produce requests/s per broker")
    assert report.to_dict()["outcome"] == "nothing to judge" and report.to_dict()["passed"] is False


def test_neighbours_that_sent_nothing_during_the_load_are_nothing_to_judge_with_their_own_next_step():
    report = _report(Verdict("neighbour_sla", SKIPPED, NO_RECORDS))
    assert report.outcome == NOTHING_TO_JUDGE
    assert report.render().splitlines()[1] == "  next: give the neighbours a rate at which they send during the load, or a longer load"


def test_a_broken_broker_rule_without_neighbours_is_still_nothing_to_judge_said_first_and_nothing_recommended():
    """The brokers' limits stand for the neighbours' latency: with none, a busy broker fails nobody."""
    report = _report(Verdict("neighbour_sla", SKIPPED, NO_NEIGHBOURS),
                     Verdict("broker_cpu", FAIL, "broker CPU during the load above 60 %: broker 0 72.0 %"))
    assert (report.outcome, report.exit_code, report.recommendations) == (NOTHING_TO_JUDGE, 3, ())
    assert report.render().splitlines() == [
        "NOTHING TO JUDGE glue (model, seed 1): no neighbours in this scenario, so no neighbour's SLA holds the load; "
        "0 of 2 rules passed, 1 failed, 1 skipped",
        "  broker_cpu: broker CPU during the load above 60 %: broker 0 72.0 %",
        "  next: list the neighbours the load must keep quiet in the scenario's tenants: (quietload import finds them "
        "in the cluster's metrics with --cloudwatch or --prometheus)"]


def test_a_broken_policy_rule_fails_without_neighbours():
    report = _report(Verdict("neighbour_sla", SKIPPED, NO_NEIGHBOURS), *BROKERS,
                     Verdict("policy.linger.ms", FAIL, "linger.ms 0 under the class's floor of 10"))
    assert (report.outcome, report.exit_code) == (FAIL, 1)


def test_judged_neighbours_pass_and_exit_0():
    report = _report(Verdict("neighbour_sla", PASS, "within", "p99 9.0 ms of a 10.0 ms SLA (a)", 0.9))
    assert (report.outcome, report.exit_code) == (PASS, 0)
    assert EXIT_CODES == {PASS: 0, FAIL: 1, NOTHING_TO_JUDGE: 3}


def test_junit_skips_the_sla_case_saying_why_and_names_the_outcome():
    xml = junit_xml(_report(Verdict("neighbour_sla", SKIPPED, NO_NEIGHBOURS)))
    assert '<skipped message="nothing to judge: no neighbours in this scenario" />' in xml
    assert '<property name="outcome" value="nothing to judge" />' in xml
    assert '<skipped message="the load took 3.0 s; no deadline stated (--deadline)" />' in xml   # other skips as they were


def _run(seed: int, tenants: list) -> RunResult:
    broker = {"id": 0, "RequestHandlerAvgIdlePercent": {"during": 80.0}, "cpu_percent": {"during": 40.0}}
    return RunResult.from_dict({"schema_version": 1, "evaluator": "model", "seed": seed, "scenario": {"name": "glue"},
                                "summary": {"load_seconds": 3.0, "tenants": tenants}, "brokers": [broker],
                                "windows": {"during": [1.0, 4.0]}, "timelines": {"produce_requests_per_s": [0, 300, 300, 300, 0]}},
                               "hand-made")


SILENT = [{"name": "a", "sla_p99_ms": 10.0, "p99_ms_during": None}]
MEASURED = [{"name": "a", "sla_p99_ms": 10.0, "p99_ms_during": 9.0}]


@pytest.mark.parametrize("runs, outcome", [([[], []], NOTHING_TO_JUDGE), ([SILENT, SILENT], NOTHING_TO_JUDGE),
                                           ([SILENT, MEASURED], PASS)])
def test_over_several_seeds_the_gate_judges_when_any_seed_measured_a_neighbour(runs, outcome):
    assert check_runs([_run(seed, tenants) for seed, tenants in enumerate(runs, 1)]).outcome == outcome


def test_the_report_says_not_judged_rather_than_pass():
    verdict = run_verdict("glue", _run(1, []), [])
    assert verdict.passed is None
    assert verdict.line() == "glue: not judged (nothing to judge: no neighbours in this scenario); no neighbour measured during the load"
    gate = check_runs([_run(1, [])]).to_dict()
    assert gate_markdown(gate)[2] == "NOTHING TO JUDGE (model, seed 1)."
    assert run_verdict("glue", _run(1, []), [gate]).line() == (
        "glue: not judged (nothing to judge [check --json]); no neighbour measured during the load")
