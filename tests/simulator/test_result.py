"""The one writer and the one reader of RunResult files: JSON without NaN, figures of the schema's types."""
import json
import math

import pytest

from simulator.result import ResultError, RunResult


def _result(**summary) -> RunResult:
    return RunResult(evaluator="model", scenario={"name": "s"}, seed=1,
                     summary={"produce_requests": 10, "load_seconds": 2.0, **summary}, timelines={"p99": [1.0, math.inf]})


def test_a_figure_a_run_cannot_give_is_written_as_null(tmp_path):
    path = _result(handler_idle_pct_during=math.nan).write(tmp_path / "r.json")
    data = json.loads(path.read_text(), parse_constant=lambda name: pytest.fail(f"{name} written"))
    assert data["summary"]["handler_idle_pct_during"] is None and data["timelines"]["p99"] == [1.0, None]
    assert RunResult.read(path).summary["produce_requests"] == 10


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
