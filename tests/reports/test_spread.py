import copy
import dataclasses


from reports.spread import render_spread, spread
from simulator.contract import RunResult

BASE = {"schema_version": 1, "evaluator": "model", "seed": 1, "scenario": {"name": "s"},
        "summary": {"produce_requests": 100, "mean_batch_bytes": 1024.0, "load_seconds": 10.0,
                    "handler_idle_pct_during": 80.0,
                    "tenants": [{"name": "api", "p99_ms_before": 5.0, "p99_ms_during": 50.0}]}}


def _result(seed: int, requests: int, during: float) -> RunResult:
    data = copy.deepcopy(BASE)
    data["seed"] = seed
    data["summary"]["produce_requests"] = requests
    data["summary"]["tenants"][0]["p99_ms_during"] = during
    return RunResult.from_dict(data)


def test_min_median_max_per_figure():
    table = spread([_result(1, 100, 50.0), _result(2, 300, 10.0), _result(3, 200, 30.0)])
    assert table["produce_requests"] == {"min": 100, "median": 200, "max": 300}
    assert table["api p99_ms_during"] == {"min": 10.0, "median": 30.0, "max": 50.0}
    assert table["mean_batch_kb"] == {"min": 1.0, "median": 1.0, "max": 1.0}


def test_a_figure_missing_in_one_run_is_not_summarised():
    runs = [_result(1, 100, 50.0), _result(2, 100, 50.0)]
    runs[1] = dataclasses.replace(runs[1], summary=dataclasses.replace(runs[1].summary, load_seconds=None))
    assert spread(runs)["load_seconds"] == {"min": None, "median": None, "max": None}


def test_rendered_spread_names_seeds_and_relative_width():
    text = render_spread([_result(1, 100, 50.0), _result(2, 300, 10.0), _result(3, 200, 30.0)])
    assert text.splitlines()[0] == "s (model, seeds 1-3: 3 runs)"
    row = next(line for line in text.splitlines() if line.strip().startswith("produce_requests"))
    assert row.split()[1:] == ["100.0", "200.0", "300.0", "100", "%"]


def test_figures_that_vary_by_more_than_half_their_median_are_called_noise():
    text = render_spread([_result(1, 100, 50.0), _result(2, 300, 10.0), _result(3, 200, 30.0)])
    # requests 100-300 around 200 (100 %), p99 during 10-50 around 30 (133 %); the rest repeat exactly
    assert text.splitlines()[-1] == ("  mostly noise: produce_requests, api p99_ms_during differ between runs by more "
                                     "than 50% of their median; compare medians of more runs before trusting them")


def test_steady_figures_are_not_called_noise():
    text = render_spread([_result(1, 100, 50.0), _result(2, 110, 55.0)])
    assert "mostly noise" not in text
