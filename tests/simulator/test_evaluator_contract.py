"""What every Evaluator promises (the model now, the live stack later): one RunResult schema."""
import json

import pytest

from simulator.model.model import ModelEvaluator
from simulator.contract import SCHEMA_VERSION, RunResult
from workloads import CATALOG, Scenario

EVALUATORS = {"model": ModelEvaluator}
SUMMARY_KEYS = {"produce_requests", "batches", "mean_batch_bytes", "records_per_request", "compression_ratio",
                "load_seconds", "simulated_seconds", "handler_idle_pct_during", "cpu_pct_during", "tenants"}
TENANT_KEYS = {"name", "sla_p99_ms", "p99_ms_before", "p99_ms_during", "p99_ms_after"}


@pytest.fixture(scope="module")
def scenario():
    return Scenario.from_yaml(CATALOG / "paypay-glue-2gb-fixed.yaml",
                              ["dataset.files.0.size=256MB", "windows.before=3s", "windows.after=3s"])


@pytest.fixture(scope="module", params=sorted(EVALUATORS))
def run(request, scenario):
    evaluator = EVALUATORS[request.param]()
    progress: list[float] = []
    return evaluator, evaluator.evaluate(scenario, 7, progress=progress.append), progress


def test_the_result_is_of_the_one_schema(run, scenario):
    evaluator, result, _ = run
    assert result.schema_version == SCHEMA_VERSION and result.evaluator == evaluator.name and result.seed == 7
    assert SUMMARY_KEYS <= set(result.summary.to_dict())
    assert [t.name for t in result.summary.tenants] == [t.name for t in scenario.tenants]
    assert all(TENANT_KEYS <= set(t.to_dict()) for t in result.summary.tenants)
    assert result.scenario["name"] == scenario.name


def test_windows_follow_each_other_and_the_load_sits_in_the_middle(run, scenario):
    _, result, _ = run
    windows = result.windows
    assert windows["before"][0] == 0.0
    assert windows["before"][1] == windows["during"][0] == pytest.approx(scenario.load_start)
    assert windows["during"][1] == windows["after"][0]
    assert windows["during"][1] - windows["during"][0] == pytest.approx(result.summary.load_seconds)
    assert windows["after"][1] == pytest.approx(result.summary.simulated_seconds)


def test_timelines_have_one_value_per_second(run):
    _, result, _ = run
    seconds = len(result.timelines["second"])
    assert seconds >= int(result.summary.simulated_seconds)
    assert all(len(values) == seconds for values in result.timelines.values())


def test_the_file_reads_back_as_the_same_result(run, tmp_path):
    _, result, _ = run
    path = result.write(tmp_path / "run.json")
    again = RunResult.read(path)
    assert again.to_json() == result.to_json()
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION


def test_progress_reports_increasing_simulated_time(run):
    _, result, progress = run
    assert progress and progress == sorted(progress)
    assert progress[-1] <= result.summary.simulated_seconds
