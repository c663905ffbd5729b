"""The pre-deploy gate: its rules (``judging.rules``) over one RunResult, each a verdict with numbers.

A rule reads only the result and the thresholds, so the gate works on any evaluator's file
(model or live). A figure the result lacks is unusable input (ResultError); a figure the run
could not measure (a load shorter than the 1-second metrics) makes its rule ``skipped``.
Over several seeds' runs of one scenario a rule fails when it fails on any of them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from judging.advice import Trial, tried_advice
from judging.margin import Margin
from judging.rules import (FAIL, NO_NEIGHBOURS, NO_RECORDS, PASS, RULES, SKIPPED, _NEXT, Verdict, broker_cpu,  # noqa: F401
                           handler_idle, load_deadline, neighbour_sla, produce_request_rate, without_neighbours)
from workloads.snippets import changed_producer_properties, paste_lines, producer_properties_block
from workloads.tuning import DEFAULT_LEVERS
from simulator.contract import ResultError, RunResult
from simulator.contract import explain as words
from simulator.contract.files import GATE, gate_thresholds
from workloads import Gate
from workloads.units import format_seeds

NOTHING_TO_JUDGE = "nothing to judge"   # the gate's outcome when no neighbour was measured during the load
# check's exit code for each outcome (2 is unusable input)
EXIT_CODES = {PASS: 0, FAIL: 1, NOTHING_TO_JUDGE: 3}

# The defaults live with the scenario's `check:` section (workloads.Gate):
# - CPU: MSK's guidance, under 60 % (user + system) so a broker can take over a failed peer's partitions.
# - RequestHandlerAvgIdlePercent: 30 %, a common alerting line; below it requests wait in the
#   request queue for a free handler often enough to show in everyone's latency.
# - 5,000 produce requests/s per broker: the default cost profile charges a produce request
#   ~105 us of broker CPU before a byte is handled (25 us network thread + 60 us handler + 20 us
#   for its batch), so 5,000/s is a quarter of a 2-vCPU broker (kafka.m5.large), leaving room
#   under the 60 % CPU line for the bytes, TLS and replication. Raise it for bigger brokers.


def thresholds_of(scenario: dict) -> Gate:
    """The ``check:`` section a RunResult's scenario carries (keys as in the file), its defaults where absent."""
    check = scenario.get("check") or {}
    return Gate(**{key: check[key] for key in Gate.__dataclass_fields__ if check.get(key) is not None})


POLICY_RULE = "policy."   # the prefix of a policy's rules among the gate's (judging.policy_gate)


def outcome_of(verdicts: Iterable[tuple[str, str]]) -> str:
    """The gate's outcome from its verdicts' (rule, status): NOTHING_TO_JUDGE when the neighbours' rule was
    skipped or is not there, whatever the brokers' rules said (their limits stand for the neighbours'
    latency: with none to keep quiet, a broker's CPU fails nobody), unless a policy's rule failed; else
    FAIL when a rule failed, else PASS. A gate result file is judged by this from its rules, never by
    the verdict it stores."""
    statuses = dict(verdicts)
    judged = statuses.get("neighbour_sla") not in (None, SKIPPED)
    if any(status == FAIL and (judged or rule.startswith(POLICY_RULE)) for rule, status in statuses.items()):
        return FAIL
    return PASS if judged else NOTHING_TO_JUDGE


@dataclass(frozen=True)
class GateReport:
    scenario: str
    evaluator: str
    seed: int
    thresholds: Gate
    verdicts: tuple[Verdict, ...]
    recommendations: tuple[str, ...]
    seeds: tuple[int, ...] = ()   # the runs judged, when more than one
    paste: tuple[str, ...] = ()   # the recommended change as its owners paste it (workloads.snippets)
    paste_needs: str = ""         # a wider lever class's change: who else must agree to it
    change: tuple[str, ...] = ()  # the recommended change's --set values: the model predicts every rule passes with it
    slas: tuple[tuple[str, str, tuple[float, ...]], ...] = ()   # each neighbour's SLA as stated, in ms on each seed
    sla_sources: tuple[str, ...] = ()   # where each relative SLA's figure came from (explain.sla_sources)
    marginal: str = ""            # a pass within the model's error of an SLA: which, and the factor (judging.margin)
    producer_properties: tuple[str, ...] = ()   # the change's producer as Kafka's own producer reads it, to check it first

    @property
    def runs(self) -> str:
        return format_seeds(self.seeds or (self.seed,))

    @property
    def failed(self) -> bool:
        return any(v.failed for v in self.verdicts)

    @property
    def unjudged_reason(self) -> str | None:
        """Why the gate judged nothing: the neighbours' SLA rule, its reason to be, was skipped (a load
        held to no neighbour's latency has passed nothing, whatever the brokers' rules said); else None."""
        sla = next((v for v in self.verdicts if v.rule == "neighbour_sla"), None)
        if sla is None:
            return "no rule judged the neighbours"
        return sla.reason if sla.status == SKIPPED else None

    @property
    def outcome(self) -> str:
        """FAIL when a rule failed, else NOTHING_TO_JUDGE when no neighbour was judged, else PASS."""
        return outcome_of((v.rule, v.status) for v in self.verdicts)

    @property
    def passed(self) -> bool:
        return self.outcome == PASS

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.outcome]

    def count(self, status: str) -> int:
        return sum(v.status == status for v in self.verdicts)

    def to_dict(self) -> dict:
        return {**GATE.document(), "passed": self.passed, "outcome": self.outcome, "scenario": self.scenario,
                "evaluator": self.evaluator, "seed": self.seed, "seeds": list(self.seeds or (self.seed,)),
                "thresholds": gate_thresholds(self.thresholds),
                "verdicts": [_verdict_dict(v) for v in self.verdicts], "recommendations": list(self.recommendations), "paste": list(self.paste),
                "change": list(self.change), "paste_needs": self.paste_needs,
                "slas": [{"name": name, "sla_p99": stated, "sla_p99_ms": list(ms)} for name, stated, ms in self.slas],
                "sla_sources": list(self.sla_sources), "marginal": self.marginal or None,
                "producer_properties": list(self.producer_properties)}

    def write_json(self, path: str | Path) -> Path:
        return GATE.write(self.to_dict(), path)

    def render(self) -> str:
        """A headline, one line per violated rule, where the SLAs came from, then the recommended change."""
        skipped = self.count(SKIPPED)
        tail = f", {skipped} skipped" if skipped else ""
        title = f"{self.scenario} ({self.evaluator}, {self.runs})"
        margins = "; ".join(v.margin for v in self.verdicts if v.status == PASS and v.margin)
        sources = [f"  {line}" for line in self.sla_sources]
        if self.passed:
            return "\n".join([f"PASS {title}: {self.count(PASS)} of {len(self.verdicts)} rules passed{tail}"
                              + (f": {margins}" if margins else ""), *sources,
                              *([f"  {self.marginal}"] if self.marginal else [])])
        if self.outcome == NOTHING_TO_JUDGE:   # said first, and nothing recommended: no SLA says what a change must keep
            why, failed = str(self.unjudged_reason), self.count(FAIL)
            return "\n".join([f"NOTHING TO JUDGE {title}: {why}, so no neighbour's SLA holds the load; "
                               f"{self.count(PASS)} of {len(self.verdicts)} rules passed" + (f", {failed} failed" if failed else "")
                               + tail + (f": {margins}" if margins else ""),
                               *(f"  {v.rule}: {v.reason}" for v in self.verdicts if v.failed),
                               f"  next: {_NEXT.get(why, _NEXT[NO_NEIGHBOURS])}"])
        lines = [f"FAIL {title}: {self.count(FAIL)} of {len(self.verdicts)} rules failed{tail}",
                 *(f"  {v.rule}: {v.reason}" for v in self.verdicts if v.failed),
                 *sources,
                 "recommended change",
                 *(f"  - {advice}" for advice in self.recommendations),
                 *([f"to paste{', if ' + self.paste_needs + ' agrees' if self.paste_needs else ''}",
                    *(f"  {line}" for line in self.paste)] if self.paste else []),
                 *self.properties_lines()]
        return "\n".join(lines)

    def properties_lines(self) -> list[str]:
        """The change's producer.properties and Kafka's producer benchmark on it, as the gate prints them."""
        if not self.producer_properties:
            return []
        return ["to check it with Kafka's own producer first (kafka-producer-perf-test.sh; replace the <...> values)",
                *(f"  {line}" for line in producer_properties_block(list(self.producer_properties)))]


def _verdict_dict(verdict: Verdict) -> dict[str, Any]:
    """A verdict as a gate result holds it; ``job`` only where a policy rule judged one of several jobs."""
    return {key: value for key, value in asdict(verdict).items() if key != "job" or value}


def _apply(rule: Callable[[RunResult, Gate], Verdict], result: RunResult, thresholds: Gate) -> Verdict:
    try:
        return rule(result, thresholds)
    except (TypeError, ValueError) as error:
        if isinstance(error, ResultError):
            raise
        # A figure of the wrong type (text, a list where a number belongs): another schema's file.
        raise ResultError(f"RunResult figures for {rule.__name__} are not of this schema ({error})") from None


def slas_of(results: list[RunResult]) -> tuple[tuple[str, str, tuple[float, ...]], ...]:
    """Each neighbour's SLA as its scenario states it (``10ms``, ``1.5x``) and the p99 in ms it held the
    neighbour to on each run: a relative SLA is resolved on each run from the neighbour's p99 alone."""
    stated = {t.get("name"): str(t.get("sla_p99", "")) for t in results[0].scenario.get("tenants") or []}
    names = [t.name for t in results[0].summary.tenants]
    limits = {name: tuple(t.sla_p99_ms for r in results for t in r.summary.tenants
                          if t.name == name and t.sla_p99_ms is not None) for name in names}
    return tuple((name, stated.get(name, ""), limits[name]) for name in names)


def check(result: RunResult, thresholds: Gate = Gate()) -> GateReport:
    """Apply every rule; when one fails, add the changes the result's own figures point to."""
    verdicts = tuple(_apply(rule, result, thresholds) for rule in RULES)
    advice = (UNTRIED,) if outcome_of((v.rule, v.status) for v in verdicts) == FAIL else ()
    return GateReport(scenario=str(result.scenario.get("name", "scenario")), evaluator=result.evaluator,
                      seed=result.seed, thresholds=thresholds, verdicts=verdicts, recommendations=advice,
                      slas=slas_of([result]), sla_sources=tuple(words.sla_sources(result.scenario)))


def _across(per_seed: list[tuple[int, Verdict]]) -> Verdict:
    """One rule's verdict over several runs: failed if it failed on any, with the first such run's numbers."""
    failing = [(seed, verdict) for seed, verdict in per_seed if verdict.failed]
    measured = [(seed, verdict) for seed, verdict in per_seed if verdict.status == PASS]
    if failing:
        seed, verdict = failing[0]
        listed = ", ".join(str(s) for s, _ in failing)
        return Verdict(verdict.rule, FAIL, f"on {len(failing)} of {len(per_seed)} seeds ({listed}); seed {seed}: {verdict.reason}")
    if not measured:
        return per_seed[0][1]
    seed, verdict = max(measured, key=lambda m: m[1].tightness)   # the closest to its limit
    return Verdict(verdict.rule, PASS, f"on every seed; seed {seed}: {verdict.reason}",
                   verdict.margin, verdict.tightness)


def failed_rules(results: list[RunResult], thresholds: Gate) -> tuple[str, ...]:
    """The rules that fail on any of ``results``, in the gate's order."""
    return tuple(rule.__name__ for rule in RULES if any(_apply(rule, r, thresholds).failed for r in results))


UNTRIED = "no change tried: no scenario file to run it on (the result names none, or it is not here)"


def check_runs(results: list[RunResult], thresholds: Gate = Gate(), trial: Trial | None = None,
               tried: Callable[[str], None] | None = None, levers: tuple[str, ...] = DEFAULT_LEVERS,
               margin: Margin = Margin()) -> GateReport:
    """The gate over several seeds' runs of one scenario: a rule fails if it fails on any seed.
    With ``trial`` (the scenario run with changes on these seeds) the recommended change is what
    the model predicts passes (``judging.advice``) with the lever classes allowed, and its snippet;
    without, no change is recommended (an untested hint is not advice). A pass within ``margin`` of
    a neighbour's SLA is marginal (``judging.margin``)."""
    report = _check_runs(results, thresholds, trial, tried, levers)
    if not report.passed:
        return report
    worst = {}
    for result in results:
        for t in result.summary.tenants:
            if t.p99_ms_during is not None and (t.name not in worst or t.p99_ms_during > worst[t.name][1]):
                worst[t.name] = (t.name, t.p99_ms_during, t.sla_p99_ms)
    return dataclasses.replace(report, marginal=margin.marginal(worst.values()))


def _check_runs(results: list[RunResult], thresholds: Gate, trial: Trial | None,
                tried: Callable[[str], None] | None, levers: tuple[str, ...]) -> GateReport:
    reports = [check(result, thresholds) for result in results]
    failing = next((report for report in reports if report.outcome == FAIL), None)   # none when nothing is judged
    advice, paste, needs, change, properties = (failing.recommendations if failing else ()), (), "", (), ()
    if failing and trial is not None:
        failed = {v.rule for v in failing.verdicts if v.failed}
        source = results[reports.index(failing)]
        found = tried_advice(results, source, failed, trial, lambda runs: failed_rules(runs, thresholds),
                             thresholds.deadline, tried, levers)
        advice, needs, change = found.lines, found.needs, found.passing
        paste = paste_lines(found.params(), source.scenario, found.unlisted())
        properties = tuple(changed_producer_properties(found.params(), source.scenario))
    if len(reports) == 1:
        return dataclasses.replace(reports[0], recommendations=advice, paste=paste, paste_needs=needs, change=change,
                                   producer_properties=properties)
    verdicts = tuple(_across([(report.seed, report.verdicts[i]) for report in reports]) for i in range(len(RULES)))
    first = reports[0]
    return GateReport(scenario=first.scenario, evaluator=first.evaluator, seed=first.seed, thresholds=thresholds,
                      verdicts=verdicts, recommendations=advice, seeds=tuple(report.seed for report in reports),
                      paste=paste, paste_needs=needs, change=change, slas=slas_of(results), sla_sources=first.sla_sources,
                      producer_properties=properties)
