"""A relative SLA (``1.5x``) is judged against the neighbour's own p99 alone in the same run."""
from simulator.evaluator import model_evaluator
from workloads import Scenario
from workloads.scenario import load_mapping

SMALL = ["dataset.files.0.size=128MB", "windows.before=2s", "windows.after=1s"]


def test_the_result_states_the_limit_as_the_factor_times_the_p99_before_the_load():
    scenario = Scenario.from_mapping(load_mapping("workloads/catalog/paypay-glue-2gb-fixed.yaml",
                                                  SMALL + ["tenants.0.sla_p99=1.5x"]))
    tenants = model_evaluator().evaluate(scenario, 1).summary.tenants
    assert tenants[0].sla_p99_ms == 1.5 * tenants[0].p99_ms_before
    assert tenants[1].sla_p99_ms == 10.0
