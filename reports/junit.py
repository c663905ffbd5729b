"""A gate report as JUnit XML, the format CI systems (GitLab, Jenkins, GitHub checks) display.

One testsuite ``quietload.check``; one testcase per rule, named after the rule, with the
scenario as its class; a failed rule carries its reason as the failure message, a skipped
rule its reason as the skip message; the recommended change goes to the suite's system-out.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from reports.gate import FAIL, SKIPPED, GateReport

SUITE = "quietload.check"


def junit_xml(report: GateReport) -> str:
    counts = {"tests": str(len(report.verdicts)), "failures": str(report.count(FAIL)),
              "errors": "0", "skipped": str(report.count(SKIPPED))}
    root = ET.Element("testsuites", {"name": "quietload", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, **counts})
    properties = ET.SubElement(suite, "properties")
    several = [("seeds", ",".join(str(seed) for seed in report.seeds))] if report.seeds else []
    for name, value in (("scenario", report.scenario), ("evaluator", report.evaluator), ("seed", str(report.seed)), *several):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    for verdict in report.verdicts:
        case = ET.SubElement(suite, "testcase", {"classname": report.scenario, "name": verdict.rule})
        if verdict.status == FAIL:
            ET.SubElement(case, "failure", {"message": verdict.reason, "type": "GateRuleFailed"}).text = verdict.reason
        elif verdict.status == SKIPPED:
            ET.SubElement(case, "skipped", {"message": verdict.reason})
        else:
            ET.SubElement(case, "system-out").text = verdict.reason
    if report.recommendations:
        lines = ["recommended change", *(f"- {advice}" for advice in report.recommendations)]
        ET.SubElement(suite, "system-out").text = "\n".join(lines)
    ET.indent(root, space=" ")
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(report: GateReport, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(junit_xml(report), encoding="utf-8")
    return path
