"""A relative SLA on the live stack is resolved once, from the first run's p99 before the load, and every
repeat is held to it; the results say which figure and where it came from (issue 36)."""
from pathlib import Path

from reports.summary import render_summary
from simulator.contract import RunResult
from simulator.contract import explain as words
from simulator.live.alone import held_to_first_run
from workloads import CATALOG, Scenario

FIRST = RunResult.read(Path(__file__).resolve().parents[2] / "golden" / "paypay-glue-2gb.json")   # any run's figures
SCENARIO = CATALOG / "paypay-glue-2gb.yaml"


def test_the_first_runs_p99_before_the_load_resolves_a_relative_sla_for_every_run_after_it():
    scenario = Scenario.from_yaml(SCENARIO, ["tenants.0.sla_p99=1.5x"])   # fraud-scoring keeps its 10 ms
    before = FIRST.summary.tenants[0].p99_ms_before
    held, first = held_to_first_run(scenario, FIRST)
    alone = round(before, 2)
    assert str(held.tenants[0].sla) == f"1.5x of {alone:g}ms (live seed 1 before the load)"
    assert held.tenants[0].sla.ms == round(1.5 * alone, 2) and held.tenants[1].sla.ms == 10.0
    # the first run holds the same figure as the runs after it, and its scenario says where it came from
    assert [t.sla_p99_ms for t in first.summary.tenants] == [held.tenants[0].sla.ms, 10.0]
    assert first.scenario["tenants"][0]["sla_p99"] == str(held.tenants[0].sla)
    assert words.sla_sources(first.scenario) == [
        f"payment-api: SLA {held.tenants[0].sla.ms:,.2f} ms = 1.5x its p99 alone, {alone:g} ms "
        "(the neighbours without the load, live seed 1 before the load)"]
    assert words.sla_sources(first.scenario)[0] in render_summary(first)


def test_an_sla_in_ms_or_resolved_before_is_kept_as_it_is():
    scenario = Scenario.from_yaml(SCENARIO, ["tenants.0.sla_p99=1.5x of 8.21ms (model seeds 1-5)"])
    held, first = held_to_first_run(scenario, FIRST)
    assert held is scenario and first is FIRST
