"""The one writer and the one reader of RunResult files: JSON without NaN, figures of the schema's types."""
import dataclasses
import json
import math
from pathlib import Path

import pytest

from simulator.contract import BatchSizeFigures, ResultError, RunResult, Summary, result_path


def _result(**summary) -> RunResult:
    return RunResult(evaluator="model", scenario={"name": "s"}, seed=1,
                     summary=Summary.from_dict({"produce_requests": 10, "load_seconds": 2.0, **summary}), timelines={"p99": [1.0, math.inf]})


def test_a_figure_a_run_cannot_give_is_written_as_null(tmp_path):
    path = _result(handler_idle_pct_during=math.nan).write(tmp_path / "r.json")
    data = json.loads(path.read_text(), parse_constant=lambda name: pytest.fail(f"{name} written"))
    assert data["summary"]["handler_idle_pct_during"] is None and data["timelines"]["p99"] == [1.0, None]
    assert RunResult.read(path).summary.produce_requests == 10


@pytest.mark.parametrize("summary, message", [
    ({"produce_requests": "10"}, "r.json: summary.produce_requests must be a finite number or null, got '10'"),
    ({"tenants": [{"name": "api", "p99_ms_during": [1]}]}, "r.json: summary.tenants[0].p99_ms_during must be a finite number or null, got [1]"),
])
def test_the_reader_names_a_figure_of_the_wrong_type(tmp_path, summary, message):
    data = _result().to_dict()
    data["summary"].update(summary)
    (tmp_path / "r.json").write_text(json.dumps(data))
    with pytest.raises(ResultError) as refused:
        RunResult.read(tmp_path / "r.json")
    assert str(refused.value) == f"{tmp_path / 'r.json'}: {message.split(': ', 1)[1]}"


def test_a_runs_file_is_named_after_its_scenario_overrides_and_seed():
    assert result_path("paypay-glue-2gb", [], 1) == Path("results/paypay-glue-2gb-seed1.json")
    assert result_path("paypay glue", ["batch.producer.linger.ms=10", "batch.spark.repartition=60"], 2) == \
        Path("results/paypay-glue-linger.ms=10-repartition=60-seed2.json")
    assert result_path("s", ["tenants.0.sla_p99=12ms", "dataset.files=[{size: 16MB}]"], 3, "live") == \
        Path("results/s-live-tenants.0.sla_p99=12ms-dataset.files=-size-16MB-seed3.json")
    many = [f"batch.producer.linger.ms={i}" for i in range(40)]
    long_name = result_path("s", many, 1).name
    assert len(long_name) < 150 and long_name != result_path("s", many[:-1], 1).name


def test_the_overrides_go_into_the_file_and_back(tmp_path):
    run = RunResult("model", {"name": "s"}, 1, Summary(), overrides=["batch.producer.linger.ms=10"])
    assert RunResult.read(run.write(tmp_path / "r.json")).overrides == ["batch.producer.linger.ms=10"]
    data = json.loads((tmp_path / "r.json").read_text())
    with pytest.raises(ResultError, match="overrides\\[0\\] must be a text"):
        RunResult.from_dict({**data, "overrides": [3]}, "r.json")


def test_a_file_written_before_later_figures_existed_still_reads(tmp_path):
    """The first files: ``value_bytes`` (since named ``record_bytes``), no replication lag, quota, broker
    times of the neighbours' requests, throttle per broker, batch sizes or overrides."""
    first = {"schema_version": 1, "evaluator": "model", "seed": 1, "scenario": {"name": "s"},
             "summary": {"produce_requests": 32104, "batches": 40250, "value_bytes": 2.0e9, "load_seconds": 41.3,
                         "handler_idle_pct_during": 3.3, "tenants": [
                             {"name": "api", "sla_p99_ms": 10.0, "p99_ms_before": 4.0, "p99_ms_during": 812.0,
                              "p99_ms_after": 5.0}]},
             "brokers": [{"id": 0, "produce_requests": 32104, "RequestHandlerAvgIdlePercent": {"during": 3.3}}]}
    (tmp_path / "old.json").write_text(json.dumps(first))
    run = RunResult.read(tmp_path / "old.json")
    assert (run.summary.produce_requests, run.summary.load_seconds, run.summary.tenants[0].p99_ms_during) == (32104, 41.3, 812.0)
    assert run.summary.record_bytes is None and run.summary.replica_lag_bytes_max_during is None
    assert run.summary.tenants[0].broker_time_ms_p99_during is None
    assert run.brokers[0].produce_throttle_s is None and run.brokers[0].RequestHandlerAvgIdlePercent == {"during": 3.3}
    assert run.batch_sizes is None and run.overrides == []
    # written again, the figures it has keep their values; those it lacks are null, the live stack's own absent
    again = json.loads(run.to_json())["summary"]
    assert again["produce_requests"] == 32104 and again["record_bytes"] is None and "integrity_ok" not in again


def test_the_batch_size_section_is_typed_and_reads_back_as_it_was_written():
    sizes = BatchSizeFigures(source="model", bucket_upper_bytes=(1024, 2048), wire_bytes=(3, 1), record_bytes=(2, 2),
                             batches=4, records=40.0)
    assert sizes.to_dict() == {"source": "model", "bucket_upper_bytes": [1024, 2048], "wire_bytes": [3, 1],
                               "record_bytes": [2, 2], "batches": 4, "records": 40.0}
    assert BatchSizeFigures.from_dict(sizes.to_dict()) == sizes
    assert list(sizes.buckets()) == [(1024, 3, 2), (2048, 1, 2)]
    assert list(dataclasses.replace(sizes, record_bytes=None).buckets()) == [(1024, 3, None), (2048, 1, None)]
    with pytest.raises(ResultError, match="^result: RunResult lacks batch_sizes.wire_bytes$"):
        BatchSizeFigures.from_dict({"source": "model", "bucket_upper_bytes": [1024], "batches": 1}, "batch_sizes")


def test_a_neighbours_row_keeps_the_figures_each_file_names_in_their_order():
    from simulator.contract import TenantFigures
    tenant = TenantFigures(name="payment-api", sla_p99_ms=10.0, p99_ms_before=4.2, p99_ms_during=12.5, p99_ms_after=4.4)
    assert tenant.as_row() == {"name": "payment-api", "p99_ms_during": 12.5, "sla_p99_ms": 10.0}
    assert list(tenant.as_row(("p99_ms_before", "p99_ms_during", "sla_p99_ms"))) == ["p99_ms_before", "p99_ms_during", "sla_p99_ms"]
    unheld = TenantFigures(name="clicks", p99_ms_during=3.0)
    assert unheld.as_row(("p99_ms_during", "sla_p99_ms"), unset=False) == {"p99_ms_during": 3.0}
    assert unheld.as_row(("p99_ms_during", "sla_p99_ms")) == {"p99_ms_during": 3.0, "sla_p99_ms": None}
