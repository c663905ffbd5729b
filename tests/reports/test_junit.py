import xml.etree.ElementTree as ET

from reports.gate import FAIL, PASS, SKIPPED, GateReport, Thresholds, Verdict
from reports.junit import junit_xml, write_junit

VERDICTS = (
    Verdict("neighbour_sla", FAIL, "neighbour p99 during the load over SLA: payment-api 581.7 ms > SLA 10.0 ms"),
    Verdict("handler_idle", PASS, "lowest RequestHandlerAvgIdlePercent during the load 83.8 % (broker 1), at least 30 % required"),
    Verdict("broker_cpu", FAIL, "broker CPU during the load above 60 %: broker 2 79.0 %"),
    Verdict("produce_request_rate", PASS, "produce requests 2,722/s per broker during the load (8,167/s over 3 brokers), at most 5,000/s allowed"),
    Verdict("load_deadline", SKIPPED, "the load took 9.4 s; no deadline stated (--deadline)"),
)


def _report(verdicts=VERDICTS, recommendations=("set compression.type=zstd: <3.3 GB> & more",)) -> GateReport:
    return GateReport(scenario="paypay-glue-2gb", evaluator="model", seed=1, thresholds=Thresholds(),
                      verdicts=verdicts, recommendations=recommendations)


def test_one_suite_one_case_per_rule_with_failures_and_skips(tmp_path):
    root = ET.parse(write_junit(_report(), tmp_path / "check.xml")).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "quietload.check"
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "5", "failures": "2", "errors": "0", "skipped": "1"}
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("paypay-glue-2gb", v.rule) for v in VERDICTS]
    failures = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    assert {name: f.get("message") for name, f in failures.items()} == {
        "neighbour_sla": VERDICTS[0].reason, "broker_cpu": VERDICTS[2].reason}
    assert failures["broker_cpu"].text == VERDICTS[2].reason
    assert cases[4].find("skipped").get("message") == VERDICTS[4].reason
    assert cases[1].find("system-out").text == VERDICTS[1].reason
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties == {"scenario": "paypay-glue-2gb", "evaluator": "model", "seed": "1"}
    # Markup in a reason or a hint is escaped, not parsed.
    assert suite.find("system-out").text == "recommended change\n- set compression.type=zstd: <3.3 GB> & more"


def test_a_passing_report_has_no_failures_and_no_advice():
    passing = tuple(Verdict(v.rule, PASS, v.reason) for v in VERDICTS)
    suite = ET.fromstring(junit_xml(_report(passing, ()))).find("testsuite")
    assert (suite.get("failures"), suite.get("skipped")) == ("0", "0")
    assert suite.findall("testcase/failure") == [] and suite.find("system-out") is None
