import dataclasses
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path

import xmlschema

from judging.gate import FAIL, PASS, SKIPPED, GateReport, Verdict
from workloads import Gate
from reports.junit import junit_xml, write_junit

VERDICTS = (
    Verdict("neighbour_sla", FAIL, "neighbour p99 during the load over SLA: payment-api 581.7 ms > SLA 10.0 ms"),
    Verdict("handler_idle", PASS, "lowest RequestHandlerAvgIdlePercent during the load 83.8 % (broker 1), at least 30 % required"),
    Verdict("broker_cpu", FAIL, "broker CPU during the load above 60 %: broker 2 79.0 %"),
    Verdict("produce_request_rate", PASS, "produce requests 2,722/s per broker during the load (8,167/s over 3 brokers), at most 5,000/s allowed"),
    Verdict("load_deadline", SKIPPED, "the load took 9.4 s; no deadline stated (--deadline)"),
)


# Jenkins' junit-10.xsd, as pytest's repository carries it (tests/data/junit-10.xsd says where from)
SCHEMA = xmlschema.XMLSchema(Path(__file__).parents[1] / "data" / "junit-10.xsd")
STARTED = datetime(2026, 11, 24, 5, 40, 1, tzinfo=timezone.utc)


def _report(verdicts=VERDICTS, recommendations=("set compression.type=zstd: <3.3 GB> & more",)) -> GateReport:
    return GateReport(scenario="paypay-glue-2gb", evaluator="model", seed=1, thresholds=Gate(),
                      verdicts=verdicts, recommendations=recommendations)


def test_one_suite_one_case_per_rule_with_failures_and_skips(tmp_path):
    path = write_junit(_report(), tmp_path / "check.xml", STARTED, 12.3456)
    SCHEMA.validate(str(path))
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites" and "skipped" not in root.attrib    # the schema has no skipped there
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "quietload.check"
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped", "time", "timestamp")} == {
        "tests": "5", "failures": "2", "errors": "0", "skipped": "1", "time": "12.346", "timestamp": "2026-11-24T05:40:01"}
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("paypay-glue-2gb", v.rule) for v in VERDICTS]
    failures = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    assert {name: f.get("message") for name, f in failures.items()} == {
        "neighbour_sla": VERDICTS[0].reason, "broker_cpu": VERDICTS[2].reason}
    # the failure's body: its reason, and where the one recommended change is, said once in the suite
    assert failures["broker_cpu"].text == (VERDICTS[2].reason + "\n\nthe recommended change, for every failed rule: "
                                           "the suite's system-out")
    assert cases[4].find("skipped").get("message") == VERDICTS[4].reason
    assert cases[1].find("system-out").text == VERDICTS[1].reason
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties == {"scenario": "paypay-glue-2gb", "evaluator": "model", "seed": "1", "outcome": "fail"}
    assert suite.find("system-out").text == "recommended change\n- set compression.type=zstd: <3.3 GB> & more"
    assert ET.tostring(root, encoding="unicode").count("<3.3 GB>") == 0   # escaped, and
    assert ET.tostring(root, encoding="unicode").count("&lt;3.3 GB&gt;") == 1   # said once, not once per failed rule


def test_a_passing_report_has_no_failures_and_no_advice():
    passing = tuple(Verdict(v.rule, PASS, v.reason) for v in VERDICTS)
    xml = junit_xml(_report(passing, ()))
    SCHEMA.validate(xml)
    suite = ET.fromstring(xml).find("testsuite")
    assert (suite.get("failures"), suite.get("skipped")) == ("0", "0")
    assert suite.findall("testcase/failure") == [] and suite.find("system-out") is None


def test_the_schema_refuses_what_ci_systems_refuse():
    """The validator is no formality: the file as it used to be written (skipped on testsuites) fails."""
    old = junit_xml(_report()).replace('<testsuites name="quietload" ', '<testsuites name="quietload" skipped="1" ')
    assert not SCHEMA.is_valid(old)
    assert not SCHEMA.is_valid(junit_xml(_report()).replace('time="0.000"', 'time="0.0001"'))


def test_the_lines_to_paste_follow_the_change_once_with_who_must_agree():
    report = dataclasses.replace(_report(), paste=('.option("kafka.linger.ms", "10")', "kafka-configs.sh --alter"),
                                 paste_needs="the cluster's operator")
    suite = ET.fromstring(junit_xml(report)).find("testsuite")
    assert suite.find("system-out").text.splitlines()[2:] == [
        "to paste, if the cluster's operator agrees", '  .option("kafka.linger.ms", "10")', "  kafka-configs.sh --alter"]
