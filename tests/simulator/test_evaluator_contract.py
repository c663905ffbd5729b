"""What every Evaluator promises, checked alike on the model and on the live stack: one RunResult
schema, every figure of the contract's types present and of its type, and a file that reads back
to the same bytes. The live evaluator runs a small load (20 MB, one broker) on real parts."""
import dataclasses
import json
import math
import types
import typing
from collections.abc import Mapping

import pytest

from simulator.contract import SCHEMA_VERSION, BrokerFigures, RunResult, Summary, TenantFigures
from simulator.model.model import ModelEvaluator
from workloads import CATALOG, Scenario

SUMMARY_KEYS = {"produce_requests", "batches", "mean_batch_bytes", "records_per_request", "compression_ratio",
                "load_seconds", "simulated_seconds", "handler_idle_pct_during", "cpu_pct_during", "tenants"}
TENANT_KEYS = {"name", "sla_p99_ms", "p99_ms_before", "p99_ms_during", "p99_ms_after"}
SMALL = {
    "model": ["dataset.files.0.size=256MB", "windows.before=3s", "windows.after=3s"],
    # as the live tests' small load (tests/simulator/live/test_live_run.py): one broker, 20 MB, one executor core
    "live": ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
             "dataset.files.0.size=20MB", "windows.before=2s", "windows.after=2s",
             "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1",
             "batch.producer.batch.size=16KB", "batch.producer.max.request.size=32KB"],
}


def _live_evaluator(tmp_path_factory):
    from simulator.live.evaluator import LiveEvaluator
    return LiveEvaluator(tmp_path_factory.mktemp("live") / "stack")


EVALUATORS = {"model": lambda _: ModelEvaluator(), "live": _live_evaluator}


@pytest.fixture(scope="module", params=["model", pytest.param("live", marks=pytest.mark.live)])
def run(request, tmp_path_factory):
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb-fixed.yaml", SMALL[request.param])
    evaluator = EVALUATORS[request.param](tmp_path_factory)
    progress: list[float] = []
    return evaluator, evaluator.evaluate(scenario, 7, progress=progress.append), progress, scenario


def test_the_result_is_of_the_one_schema(run):
    evaluator, result, _, scenario = run
    assert result.schema_version == SCHEMA_VERSION and result.evaluator == evaluator.name and result.seed == 7
    assert SUMMARY_KEYS <= set(result.summary.to_dict())
    assert [t.name for t in result.summary.tenants] == [t.name for t in scenario.tenants]
    assert all(TENANT_KEYS <= set(t.to_dict()) for t in result.summary.tenants)
    assert result.scenario["name"] == scenario.name


def _of_type(value, hint) -> bool:
    """Whether ``value`` is of the annotated type, as the file holds it: a number is finite and no bool."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_of_type(value, arg) for arg in args)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint in (bool, str):
        return isinstance(value, hint)
    if hint is typing.Any:
        return True
    if origin is tuple:
        return isinstance(value, tuple) and all(_of_type(item, args[0]) for item in value)
    if origin is Mapping:
        return isinstance(value, Mapping) and all(_of_type(k, args[0]) and _of_type(v, args[1]) for k, v in value.items())
    if dataclasses.is_dataclass(hint):
        return isinstance(value, hint) and _all_typed(value) == []
    raise AssertionError(f"no check for {hint!r}")


def _all_typed(figures) -> list[str]:
    """The fields of ``figures`` whose value is not of their type (empty: all are)."""
    hints = typing.get_type_hints(type(figures))
    return [f"{type(figures).__name__}.{f.name} = {getattr(figures, f.name)!r}"
            for f in dataclasses.fields(figures) if not _of_type(getattr(figures, f.name), hints[f.name])]


def test_every_figure_of_the_contract_is_present_and_of_its_type(run):
    evaluator, result, _, scenario = run
    written = json.loads(result.to_json())
    live_only = {f.name for f in dataclasses.fields(Summary) if f.metadata.get("live")}
    expected = {f.name for f in dataclasses.fields(Summary)} - (set() if evaluator.name == "live" else live_only)
    assert list(written["summary"]) == [f.name for f in dataclasses.fields(Summary) if f.name in expected]
    for tenant in written["summary"]["tenants"]:
        assert list(tenant) == [f.name for f in dataclasses.fields(TenantFigures)]
    assert written["brokers"] and all(list(b) == [f.name for f in dataclasses.fields(BrokerFigures)]
                                      for b in written["brokers"])
    assert len(result.brokers) == scenario.cluster.brokers
    for figures in (result.summary, *result.summary.tenants, *result.brokers):
        assert _all_typed(figures) == []
    # the figures every run of a load has (a live run measures neither replication lag nor quota throttling)
    s = result.summary
    assert s.produce_requests > 0 and s.batches > 0 and s.record_bytes > 0 and s.load_seconds > 0
    assert all(t.p99_ms_during is not None and t.p99_ms_during > 0 for t in s.tenants)
    assert all(b.RequestHandlerAvgIdlePercent.keys() == {"before", "during", "after"} for b in result.brokers)


def test_the_codec_gives_back_the_same_figures_and_the_same_bytes(run, tmp_path):
    _, result, _, _ = run
    assert Summary.from_dict(result.summary.to_dict()) == result.summary
    assert [BrokerFigures.from_dict(b.to_dict(), "brokers[]") for b in result.brokers] == list(result.brokers)
    again = RunResult.from_dict(json.loads(result.to_json()))
    assert again.to_json() == result.to_json()
    path = result.write(tmp_path / "run.json")
    assert RunResult.read(path).to_json() == path.read_text()
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION


def test_windows_follow_each_other_and_the_load_sits_in_the_middle(run):
    _, result, _, scenario = run
    windows = result.windows
    assert windows["before"][0] == 0.0
    if result.evaluator == "model":   # a live run's load starts when its Spark job starts writing, measured
        assert windows["before"][1] == pytest.approx(scenario.load_start)
    assert windows["before"][1] == windows["during"][0]
    assert windows["during"][1] == windows["after"][0]
    assert windows["during"][1] - windows["during"][0] == pytest.approx(result.summary.load_seconds)
    assert windows["after"][1] == pytest.approx(result.summary.simulated_seconds)


def test_timelines_have_one_value_per_second(run):
    _, result, _, _ = run
    seconds = len(result.timelines["second"])
    assert seconds >= int(result.summary.simulated_seconds)
    assert all(len(values) == seconds for values in result.timelines.values())


def test_progress_reports_increasing_simulated_time(run):
    _, result, progress, _ = run
    assert progress and progress == sorted(progress)
    assert progress[-1] <= result.summary.simulated_seconds
