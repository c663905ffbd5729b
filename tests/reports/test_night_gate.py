"""check on a night of several jobs: the neighbours' SLA over the whole night (naming the job that
sent most requests while one was over), and each job's load held to its own deadline."""
from typer.testing import CliRunner

from quietload.cli import app
from tests.simulator.model.test_night_model import NIGHT


def _check(tmp_path, *args):
    path = tmp_path / "night.yaml"
    path.write_text(NIGHT)
    return CliRunner().invoke(app, ["check", str(path), *args])


def test_each_job_s_load_is_held_to_the_deadline_from_its_own_start(tmp_path):
    # seed 1: card-load loads 1.0-1.41 s, hourly-export 2.0-2.32 s: 0.41 s and 0.32 s each, 1.32 s for the night
    late = _check(tmp_path, "--deadline", "350ms")
    assert late.exit_code == 1
    assert "  load_deadline: card-load's load took 0.41 s (past its 0.35 s)" in late.output
    held = _check(tmp_path, "--deadline", "500ms")
    assert held.exit_code == 0 and "card-load's load 0.41 s of a 0.50 s deadline" in held.output


def test_a_job_s_own_deadline_holds_it_alone(tmp_path):
    result = _check(tmp_path, "--set", "batch.hourly-export.deadline=100ms")
    assert result.exit_code == 1
    assert "  load_deadline: hourly-export's load took 0.32 s (past its 0.10 s); no deadline for card-load" in result.output


def test_a_neighbour_over_its_sla_names_the_job_that_sent_most_requests_then(tmp_path):
    result = _check(tmp_path, "--set", "tenants.0.sla_p99=0.5ms")
    assert result.exit_code == 1
    line = next(line for line in result.output.splitlines() if line.startswith("  neighbour_sla:"))
    assert "hourly-export sent" in line and "of the jobs' produce requests in api's" in line


def test_the_recommended_changes_of_a_night_are_the_loudest_job_s_addressed_to_it(tmp_path):
    """The candidates come from the job that sent most requests while a neighbour was over its SLA
    (hourly-export, the second job), read from its own figures and set on it alone."""
    import yaml

    from judging.advice import candidates
    from simulator.evaluator import model_evaluator
    from workloads import Scenario
    from workloads.scenario import apply_overrides

    raw = apply_overrides(yaml.safe_load(NIGHT), ["tenants.0.sla_p99=0.5ms"])
    result = model_evaluator().evaluate(Scenario.from_mapping(raw), 1)
    changes = candidates(result, {"neighbour_sla"})
    assert changes, "no candidate"
    for change in changes:
        assert change.label.startswith("hourly-export: ") or not any(v.startswith("batch") for v in change.overrides)
        assert all(v.startswith(("batch[1].", "cluster.")) for v in change.overrides), change.overrides
