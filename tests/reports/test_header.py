"""The report's head: when, by which quietload, from which files, and each run's verdict."""
import json
from datetime import datetime, timezone

import pytest

from reports.sections.header import build_header, matching_gate, run_verdict
from simulator.contract.files import is_gate_file, read_gate
from judging.gate import check
from simulator.contract import ResultError, RunResult


def _run(p99_during: float, cpu: float, name: str = "glue", seed: int = 1) -> RunResult:
    broker = {"id": 0, "produce_requests": 900, "fetch_requests": 10, "bytes_in": 1.0, "bytes_out": 1.0,
              "RequestQueueSize_max": 1, "RequestHandlerAvgIdlePercent": {"during": 80.0},
              "NetworkProcessorAvgIdlePercent": {"during": 90.0}, "cpu_percent": {"during": cpu},
              "produce_time_ms": {"TotalTimeMs": {"mean": 2.0, "p99": 9.0}}}
    return RunResult.from_dict({
        "schema_version": 1, "evaluator": "model", "seed": seed,
        "scenario": {"name": name, "batch": {"producer": {"compression.type": "none"}}, "check": {"cpu_max": 50.0}},
        "summary": {"load_seconds": 3.0, "tenants": [
            {"name": "payment-api", "sla_p99_ms": 10.0, "p99_ms_before": 4.0, "p99_ms_during": p99_during, "p99_ms_after": 4.0},
            {"name": "fraud", "sla_p99_ms": 20.0, "p99_ms_before": 4.0, "p99_ms_during": 30.0, "p99_ms_after": 4.0}]},
        "brokers": [broker], "windows": {"during": [1.0, 4.0]},
        "timelines": {"produce_requests_per_s": [0.0, 300.0, 300.0, 300.0, 0.0]}}, "hand-made")


def test_a_runs_verdict_is_the_gate_rules_with_its_scenarios_thresholds():
    verdict = run_verdict("glue", _run(12.5, cpu=55.0), [])
    # cpu_max 50 from the scenario's check section; fraud is the worst by its share of its SLA (1.5x)
    assert verdict.line() == ("glue: FAIL (2 of 5 rules: neighbour_sla, broker_cpu); worst neighbour fraud p99 30.0 ms "
                              "> SLA 20.0 ms during the load [the gate's rules]")
    assert run_verdict("calm", _run(5.0, cpu=40.0), []).passed is False   # fraud is still over its SLA


def test_a_gate_result_gives_the_verdict_of_the_run_it_judged_only(tmp_path):
    judged, other = _run(12.5, cpu=55.0), _run(9.0, cpu=45.0)   # same scenario name and seed: a --set run
    path = tmp_path / "check.json"
    check(judged).write_json(path)
    gate = read_gate(path)
    assert is_gate_file(path) and not is_gate_file(tmp_path / "missing.json")
    assert matching_gate(judged, [gate]) is gate
    assert matching_gate(other, [gate]) is None
    assert run_verdict("glue", judged, [gate]).source == "check --json"
    assert run_verdict("glue", other, [gate]).source == "the gate's rules"


def test_a_broken_gate_result_is_one_error_naming_the_file(tmp_path):
    path = tmp_path / "check.json"
    path.write_text(json.dumps({"gate": "quietload.check", "passed": False, "scenario": "glue", "evaluator": "model",
                                "verdicts": [{"rule": "neighbour_sla"}]}))
    with pytest.raises(ResultError, match="check.json: verdicts\\[0\\] lacks status"):
        read_gate(path)


def test_a_result_the_rules_cannot_read_is_not_judged():
    bare = RunResult.from_dict({"schema_version": 1, "evaluator": "live", "seed": 1, "scenario": {"name": "x"},
                                "summary": {"tenants": []}}, "hand-made")
    verdict = run_verdict("x", bare, [])
    assert verdict.passed is None and verdict.line().startswith("x: not judged (")


def test_the_header_says_when_from_what_and_each_verdict():
    run = _run(12.5, cpu=55.0)
    header = build_header(["glue"], [run], [("results/glue-seed1.json", run)], [],
                          now=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    lines = header.markdown()
    assert lines[0].startswith("Generated 2026-01-02 03:04:05 UTC by quietload ")
    assert lines[2:5] == ["Inputs:", "", "- `results/glue-seed1.json`: run of glue (model, seed 1)"]
    assert lines[-2].startswith("- glue: FAIL (2 of 5 rules")
    assert header.to_dict()["verdicts"][0]["failed_rules"] == ["neighbour_sla", "broker_cpu"]
