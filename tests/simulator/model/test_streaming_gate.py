"""A pipeline's end to end SLA is read where every producer tenant's is: check's neighbour_sla
rule, a study's constraints, plan's feasibility, the report's neighbour table."""
from __future__ import annotations

import pytest

from judging.gate import FAIL, neighbour_sla
from simulator.contract import RunResult
from tuner.planning import within_sla
from tuner.objective import constraints_of
from workloads import Gate


@pytest.fixture(scope="module")
def result(make_scenario, evaluator) -> RunResult:
    # a trigger every second: records wait up to a second for it, so a 300 ms SLA cannot hold
    return evaluator.evaluate(make_scenario({
        "cluster": {"topics": [{"name": "bulk", "partitions": 4}, {"name": "in", "partitions": 2},
                               {"name": "out", "partitions": 2}]},
        "tenants": [{"name": "fraud", "kind": "spark-microbatch", "topic": "in", "output_topic": "out",
                     "rate": "100/s", "record_size": "512B", "record_cost": "50us", "sla_p99": "300ms",
                     "processingTime": "1s"}],
        "windows": {"before": "2s", "after": "2s"}}), 1)


def test_the_summary_holds_the_end_to_end_p99_as_a_producer_s(result):
    (summary,) = result.summary.tenants
    (tenant,) = result.tenants
    assert summary.p99_ms_during == tenant["latency_ms"]["during"]["p99"] > 1000
    assert tenant["kind"] == "spark-microbatch" and tenant["upstream_latency_ms"]["during"]["p99"] < 300
    again = RunResult.from_dict(result.to_dict())    # the schema takes it
    assert again.tenants[0]["streaming"]["parts_ms"].keys() == {"before", "during", "after"}


def test_check_tune_and_plan_hold_the_pipeline_to_its_sla(result):
    verdict = neighbour_sla(result, Gate())
    assert verdict.status == FAIL and "fraud" in verdict.reason
    assert constraints_of(result, None)["sla:fraud"] > 2.0      # p99 over 1 s against 300 ms
    assert not within_sla(result.summary.tenants[0].to_dict())


def test_the_explanation_names_what_dominates_and_what_the_load_added(result):
    line = next(line for line in result.mechanism if line.startswith("Pipeline fraud (spark-microbatch)"))
    assert "most of it reaching the pipeline" in line and "offset log 110, planning 80" in line
    assert "during the load" in line
