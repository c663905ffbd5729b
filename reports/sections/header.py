"""The head of a report an operator forwards: when and by which quietload it was made, from which
files, and each run's verdict in one line; and the gate results (``check --json``) it was given.

A run's verdict is the gate's: from a gate result of the same scenario, evaluator and seed when
one was given, else the gate's rules applied to the result with the thresholds of its scenario's
``check:`` section (the same rules ``quietload check`` applies; the report never runs the model).
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version

from judging.gate import FAIL, NOTHING_TO_JUDGE, PASS, RULES, SKIPPED, check, outcome_of, thresholds_of
from reports.kit.tables import html_table, markdown_table
from simulator.contract import ResultError, RunResult
from simulator.contract import explain as words
from simulator.contract.files import GATE, POLICY_PROOF, SCHEDULE, thresholds_of_gate
from workloads.units import format_seeds


def quietload_version() -> str:
    try:
        return version("quietload")
    except PackageNotFoundError:   # run from a source tree that was never installed
        return "unknown"


def gate_seeds(gate: dict) -> list[int]:
    return list(gate.get("seeds") or [gate.get("seed")])


def gate_outcome(gate: dict) -> str:
    """PASS, FAIL or NOTHING TO JUDGE: the gate result judged again from its rules' statuses, not by
    its stored ``passed`` or ``outcome``, which nothing in the file can check."""
    return outcome_of((v["rule"], v["status"]) for v in gate["verdicts"]).upper()


def _same_run(gate: dict, result: RunResult) -> bool:
    return (gate["scenario"] == result.scenario.get("name") and gate["evaluator"] == result.evaluator
            and result.seed in gate_seeds(gate))


def judged(gate: dict, result: RunResult) -> bool:
    """Whether the gate's verdicts are this run's: the gate's rules, with its thresholds, give this
    run the same reasons (they quote its figures). Runs of one scenario name and seed differ when
    ``--set`` changed them, so name and seed alone do not say which run a gate judged."""
    try:
        thresholds = thresholds_of_gate(gate)
    except (KeyError, TypeError):
        return False
    try:
        again = {v.rule: v.reason for v in check(result, thresholds).verdicts}
    except ResultError:
        return False
    # a policy's rules (check --policy) judge the job's settings, which the run's scenario holds, not its figures
    return all(again.get(v["rule"]) == v.get("reason") for v in gate["verdicts"]
               if v["status"] != SKIPPED and not v["rule"].startswith("policy."))


def matching_gate(result: RunResult, gates: list[dict]) -> dict | None:
    """The first gate result that judged this run (its scenario, evaluator and seed, and its figures
    in the verdicts' reasons when the gate judged one seed)."""
    return next((g for g in gates if _same_run(g, result) and (len(gate_seeds(g)) > 1 or judged(g, result))), None)


@dataclass(frozen=True)
class RunVerdict:
    label: str
    passed: bool | None       # None: the gate's rules cannot judge the result (why: ``source``)
    failed_rules: tuple[str, ...]
    rules: int
    source: str               # "check --json", "the gate's rules", or why it was not judged
    worst: str                # the worst neighbour's p99 during the load against its SLA

    def line(self) -> str:
        if self.passed is None:
            return f"{self.label}: not judged ({self.source}); {self.worst}"
        outcome = ("PASS" if self.passed else
                   f"FAIL ({len(self.failed_rules)} of {self.rules} rules: {', '.join(self.failed_rules)})")
        return f"{self.label}: {outcome}; {self.worst} [{self.source}]"


def worst_neighbour(result: RunResult) -> str:
    tenants = [t for t in result.summary.tenants if t.p99_ms_during is not None]
    if not tenants:
        return "no neighbour measured during the load"
    worst = max(tenants, key=lambda t: t.p99_ms_during / t.sla_p99_ms if t.sla_p99_ms else 0.0)
    return words.worst_neighbour(worst.name, worst.p99_ms_during, worst.sla_p99_ms)


def run_verdict(label: str, result: RunResult, gates: list[dict]) -> RunVerdict:
    if (gate := matching_gate(result, gates)) is not None:
        failed = tuple(v["rule"] for v in gate["verdicts"] if v["status"] == FAIL)
        if gate_outcome(gate) == NOTHING_TO_JUDGE.upper():
            return RunVerdict(label, None, (), len(gate["verdicts"]), f"{NOTHING_TO_JUDGE} [check --json]", worst_neighbour(result))
        return RunVerdict(label, gate_outcome(gate) == PASS.upper(), failed, len(gate["verdicts"]), "check --json",
                          worst_neighbour(result))
    thresholds = thresholds_of(result.scenario)
    try:
        gate_report = check(result, thresholds)
    except ResultError as error:   # e.g. a result without the brokers' figures
        return RunVerdict(label, None, (), len(RULES), str(error), worst_neighbour(result))
    if gate_report.outcome == NOTHING_TO_JUDGE:
        return RunVerdict(label, None, (), len(RULES), f"{NOTHING_TO_JUDGE}: {gate_report.unjudged_reason}", worst_neighbour(result))
    failed = tuple(v.rule for v in gate_report.verdicts if v.failed)
    return RunVerdict(label, not failed, failed, len(gate_report.verdicts), "the gate's rules", worst_neighbour(result))


@dataclass(frozen=True)
class Header:
    generated: str            # UTC, to the second
    version: str
    inputs: tuple[tuple[str, str], ...]   # (file, what it holds)
    verdicts: tuple[RunVerdict, ...]

    def markdown(self) -> list[str]:
        return [f"Generated {self.generated} by quietload {self.version}.", "", "Inputs:", "",
                *(f"- `{path}`: {what}" for path, what in self.inputs), "",
                "Each run as it ran, by the gate's rules (from `check --json` where given):", "",
                *(f"- {v.line()}" for v in self.verdicts), ""]

    def to_dict(self) -> dict:
        return {"generated": self.generated, "quietload_version": self.version,
                "inputs": [{"path": path, "holds": what} for path, what in self.inputs],
                "verdicts": [{"run": v.label, "passed": v.passed, "failed_rules": list(v.failed_rules),
                              "rules": v.rules, "source": v.source, "line": v.line()} for v in self.verdicts]}


def describe_input(item: RunResult | dict) -> str:
    if isinstance(item, RunResult):
        return f"run of {item.scenario.get('name')} ({item.evaluator}, seed {item.seed})"
    if item.get(GATE.tag) == GATE.kind:
        outcome = gate_outcome(item)
        return f"gate result of {item['scenario']} ({item['evaluator']}, {format_seeds(gate_seeds(item))}): {outcome}"
    if "pareto_front" in item:
        return f"tuning study of {item['scenario']['name']}"
    if POLICY_PROOF.tags(item):
        return f"policy proof of {item['scenario']} ({'held' if item['held'] else 'did not hold'})"
    if SCHEDULE.tags(item):
        return f"night schedule of {item['scenario']} ({item['evaluator']}, {format_seeds(item['seeds'])})"
    return f"capacity plan of {item.get('scenario')}"


def build_header(labels: list[str], results: list[RunResult], inputs: list[tuple[str, RunResult | dict]],
                 gates: list[dict], now: datetime | None = None) -> Header:
    when = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return Header(when, quietload_version(), tuple((str(path), describe_input(item)) for path, item in inputs),
                  tuple(run_verdict(label, result, gates) for label, result in zip(labels, results)))


def header_html(header: Header) -> list[str]:
    def verdict(line: str, passed: bool | None) -> str:
        return f'<li><span class="{ {True: "pass", False: "over", None: "meta"}[passed] }">{escape(line)}</span></li>'
    return [f'<p class="meta">Generated {escape(header.generated)} by quietload {escape(header.version)}.</p>',
            "<p>Inputs:</p><ul>", *(f"<li><code>{escape(path)}</code>: {escape(what)}</li>" for path, what in header.inputs),
            "</ul>", "<p>Each run as it ran, by the gate's rules (from <code>check --json</code> where given):</p><ul>",
            *(verdict(v.line(), v.passed) for v in header.verdicts), "</ul>"]


def _gate_rows(gate: dict) -> list[list[str]]:
    return [[v["rule"], v["status"], v.get("reason", "")] for v in gate["verdicts"]]


def gate_markdown(gate: dict) -> list[str]:
    """A gate result (``check --json``) as it was judged: its verdicts and the change it recommended."""
    outcome = gate_outcome(gate)
    lines = [f"## Gate result: {gate['scenario']}", "",
             f"{outcome} ({gate['evaluator']}, {format_seeds(gate_seeds(gate))}).", "",
             *markdown_table(["rule", "status", "reason"], _gate_rows(gate)), ""]
    if gate.get("recommendations"):
        lines += ["Recommended change:", "", *(f"- {advice}" for advice in gate["recommendations"]), ""]
    return lines


def gate_html(gate: dict) -> list[str]:
    outcome = gate_outcome(gate)
    parts = [f"<h2>Gate result: {escape(gate['scenario'])}</h2>",
             f'<p><span class="{ {"PASS": "pass", "FAIL": "over"}.get(outcome, "meta") }">{outcome}</span> ({escape(gate["evaluator"])}, '
             f"{escape(format_seeds(gate_seeds(gate)))}).</p>",
             html_table(["rule", "status", "reason"], _gate_rows(gate))]
    if gate.get("recommendations"):
        parts += ["<p>Recommended change:</p><ul>", *(f"<li>{escape(a)}</li>" for a in gate["recommendations"]), "</ul>"]
    return parts
