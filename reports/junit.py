"""A gate report as JUnit XML, the format CI systems (GitLab, Jenkins, GitHub checks) display.

The XML follows the schema those systems read (Jenkins' junit-10.xsd, after Maven Surefire;
tests validate against it): one testsuite ``quietload.check`` with its ``timestamp`` and ``time``
(``testsuites`` carries no ``skipped``, which that schema has no place for); one testcase per
rule, named after the rule, with the scenario as its class; a failed rule carries its reason as
the failure message and body; a skipped rule its reason as the skip message. The recommended
change (one for the whole gate, not for each failed rule) and its lines to paste are said once, in
the suite's ``system-out``, and each failure's body points there. A gate with nothing to judge
(no neighbour measured during the load) says so in its skipped neighbour_sla case and in the
suite's ``outcome`` property; check's exit code 3 is what stops the pipeline.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path

from judging.gate import FAIL, NOTHING_TO_JUDGE, SKIPPED, GateReport

SUITE = "quietload.check"


def _failure_body(reason: str, report: GateReport) -> str:
    return reason + ("\n\nthe recommended change, for every failed rule: the suite's system-out" if report.recommendations else "")


def _suite_output(report: GateReport) -> str:
    """The recommended change and its lines to paste, as the gate renders them."""
    paste = ([f"to paste{', if ' + report.paste_needs + ' agrees' if report.paste_needs else ''}",
              *(f"  {line}" for line in report.paste)] if report.paste else [])
    return "\n".join(["recommended change", *(f"- {line}" for line in report.recommendations), *paste,
                      *report.properties_lines()])


def junit_xml(report: GateReport, started: datetime | None = None, seconds: float = 0.0) -> str:
    """``started``: when the gate began (default: now), ``seconds``: how long it took, runs included."""
    stamp = (started or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(tzinfo=None)
    took = f"{max(seconds, 0.0):.3f}"
    counts = {"tests": str(len(report.verdicts)), "failures": str(report.count(FAIL)), "errors": "0"}
    root = ET.Element("testsuites", {"name": "quietload", **counts, "time": took})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, **counts, "skipped": str(report.count(SKIPPED)),
                                              "time": took, "timestamp": stamp.isoformat(timespec="seconds")})
    properties = ET.SubElement(suite, "properties")
    several = [("seeds", ",".join(str(seed) for seed in report.seeds))] if report.seeds else []
    for name, value in (("scenario", report.scenario), ("evaluator", report.evaluator), ("seed", str(report.seed)), *several,
                        ("outcome", report.outcome)):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    for verdict in report.verdicts:
        name = f"{verdict.rule} ({verdict.job})" if verdict.job else verdict.rule   # a policy rule of one of several jobs
        case = ET.SubElement(suite, "testcase", {"classname": report.scenario, "name": name})
        if verdict.status == FAIL:
            ET.SubElement(case, "failure", {"message": verdict.reason, "type": "GateRuleFailed"}).text = \
                _failure_body(verdict.reason, report)
        elif verdict.status == SKIPPED:
            unjudged = report.outcome == NOTHING_TO_JUDGE and verdict.reason == report.unjudged_reason
            ET.SubElement(case, "skipped", {"message": f"{NOTHING_TO_JUDGE}: {verdict.reason}" if unjudged else verdict.reason})
        else:
            ET.SubElement(case, "system-out").text = verdict.reason
    if report.recommendations:
        ET.SubElement(suite, "system-out").text = _suite_output(report)
    ET.indent(root, space=" ")
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(report: GateReport, path: str | Path, started: datetime | None = None, seconds: float = 0.0) -> Path:
    path = Path(path)
    path.write_text(junit_xml(report, started, seconds), encoding="utf-8")
    return path
