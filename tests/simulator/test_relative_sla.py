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


def test_resolved_once_the_sla_is_the_factor_times_the_neighbours_alone_over_the_stated_seeds():
    from simulator.model.alone import p99_alone, with_slas_resolved
    base = load_mapping("workloads/catalog/paypay-glue-2gb-fixed.yaml", SMALL + ["tenants.0.sla_p99=1.5x"])
    alone = p99_alone(Scenario.from_mapping(base), seeds=(1, 2))
    resolved = with_slas_resolved(base, seeds=(1, 2))
    assert resolved["tenants"][0]["sla_p99"] == f"1.5x of {round(alone['payment-api'], 2):g}ms (model seeds 1-2)"
    assert resolved["tenants"][1]["sla_p99"] == base["tenants"][1]["sla_p99"]   # an absolute SLA stays
    sla = Scenario.from_mapping(resolved).tenants[0].sla
    assert sla.ms == round(1.5 * round(alone["payment-api"], 2), 2) and not sla.relative


def test_every_seed_and_every_change_of_the_job_is_held_to_the_one_resolved_sla():
    from simulator.model.alone import with_slas_resolved
    from workloads.scenario import apply_overrides
    resolved = with_slas_resolved(load_mapping("workloads/catalog/paypay-glue-2gb-fixed.yaml",
                                               SMALL + ["tenants.0.sla_p99=1.5x"]), seeds=(1, 2))
    limit = Scenario.from_mapping(resolved).tenants[0].sla.ms
    evaluator = model_evaluator()
    runs = [evaluator.evaluate(Scenario.from_mapping(resolved), seed) for seed in (1, 2)]
    runs.append(evaluator.evaluate(Scenario.from_mapping(apply_overrides(resolved, ["batch.producer.linger.ms=50"])), 1))
    assert [run.summary.tenants[0].sla_p99_ms for run in runs] == [limit] * 3
    assert len({run.summary.tenants[0].p99_ms_before for run in runs}) > 1   # each run's own window before differs
    from reports.summary import render_summary
    alone = Scenario.from_mapping(resolved).tenants[0].sla.alone_ms
    assert (f"  payment-api: SLA {limit:,.2f} ms = 1.5x its p99 alone, {alone:g} ms (the neighbours without the load, "
            "model seeds 1-2 pooled)") in render_summary(runs[0]).splitlines()
    from reports.sections.runs import run_figures, run_markdown
    assert (f"- payment-api: SLA {limit:,.2f} ms = 1.5x its p99 alone, {alone:g} ms (the neighbours without the load, "
            "model seeds 1-2 pooled)") in run_markdown(run_figures([runs[0]])[0], [])   # the report's run section


def test_the_p99_alone_is_the_same_whatever_the_job_is_set_to():
    from simulator.model.alone import p99_alone
    base = load_mapping("workloads/catalog/paypay-glue-2gb-fixed.yaml", SMALL)
    from workloads.scenario import apply_overrides
    changed = apply_overrides(base, ["batch.spark.repartition=120", "batch.spark.spark.executor.instances=3"])
    assert p99_alone(Scenario.from_mapping(changed), seeds=(1,)) == p99_alone(Scenario.from_mapping(base), seeds=(1,))
