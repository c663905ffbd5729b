"""Predicted against measured: model and live runs of one scenario paired, medians and ratios."""
import csv
import io

from reports.report import write_report
from reports.sections.runs import run_figures
from reports.sections.versus import pair_runs, render_versus_csv, versus_header, versus_rows
from simulator.contract import RunResult

SCENARIO = {"name": "small", "batch": {"producer": {"batch.size": 16384}}}


def _run(evaluator: str, seed: int, requests: int, idle: float | None, p99_during: float, scenario=SCENARIO) -> RunResult:
    return RunResult.from_dict({
        "schema_version": 1, "evaluator": evaluator, "seed": seed, "scenario": scenario,
        "summary": {"produce_requests": requests, "batches_per_request": 1.0, "mean_batch_bytes": 16384.0,
                    "records_per_request": 20.0, "load_seconds": 4.0, "handler_idle_pct_during": idle,
                    "cpu_pct_during": 50.0,
                    "tenants": [{"name": "payment-api", "sla_p99_ms": 10.0, "p99_ms_before": 2.0,
                                 "p99_ms_during": p99_during, "p99_ms_after": 2.0}]},
        "windows": {"before": [0, 1], "during": [1, 5], "after": [5, 6]}, "timelines": {"second": []},
    }, "hand-made")


RUNS = [_run("model", 1, 1000, 90.0, 3.0), _run("live", 1, 1100, 80.0, 6.0), _run("live", 2, 1300, None, 9.0),
        _run("live", 3, 1200, 70.0, 7.0), _run("model", 1, 50, 99.0, 2.0, scenario={"name": "other"})]


def test_runs_of_one_scenario_pair_up_with_each_sides_median():
    [pair] = pair_runs(run_figures(RUNS))   # "other" has no live run: no pair
    assert (pair.scenario, pair.model_seeds, pair.live_seeds) == ("small", [1], [1, 2, 3])
    rows = {row["figure"]: row for row in pair.rows}
    assert rows["produce requests"] == {"figure": "produce requests", "model": 1000, "live": 1200, "live_over_model": 1.2,
                                        "model_min": 1000, "model_max": 1000, "live_min": 1100, "live_max": 1300,
                                        "live_in_model_interval": False}
    # a run without the figure does not count towards the median
    assert (rows["handler idle during (%)"]["live"], rows["handler idle during (%)"]["live_over_model"]) == (75.0, 75.0 / 90.0)
    assert rows["payment-api p99 during (ms)"]["live_over_model"] == 7.0 / 3.0


def test_the_table_and_csv_show_the_figures_and_ratios():
    [pair] = pair_runs(run_figures(RUNS))
    assert versus_header(pair) == ["figure", "model (seeds 1)", "live (seeds 1, 2, 3)", "live / model",
                                   "model min-max", "live min-max", "live in model's interval"]
    table = {row[0]: row[1:] for row in versus_rows(pair)}
    assert table["produce requests"] == ["1,000", "1,200", "1.20x", "1,000-1,000", "1,100-1,300", "no"]
    assert table["mean batch (KB of records)"] == ["16.0", "16.0", "1.00x", "16.0-16.0", "16.0-16.0", "yes"]
    assert table["payment-api p99 during (ms)"] == ["3.0", "7.0", "2.33x", "3.0-3.0", "6.0-9.0", "no"]
    rows = list(csv.DictReader(io.StringIO(render_versus_csv([pair]))))
    assert rows[0] == {"scenario": "small", "figure": "produce requests", "model": "1000", "live": "1200",
                       "live_over_model": "1.2", "model_min": "1000", "model_max": "1000", "live_min": "1100",
                       "live_max": "1300", "live_in_model_interval": "false"}


def test_runs_of_one_evaluator_only_make_no_pair():
    assert pair_runs(run_figures([r for r in RUNS if r.evaluator == "live"])) == []


def test_a_report_of_model_and_live_runs_has_the_comparison(tmp_path):
    paths = write_report(RUNS, tmp_path)
    assert tmp_path / "versus.csv" in paths
    markdown = (tmp_path / "report.md").read_text()
    assert "## Predicted against measured: small" in markdown and "| produce requests | 1,000 | 1,200 | 1.20x |" in markdown
    assert "<h2>Predicted against measured: small</h2>" in (tmp_path / "report.html").read_text()
    assert "versus.csv" not in [p.name for p in write_report(RUNS[:1], tmp_path / "model-only")]


def _configuration(name: str, model_requests: list[int], live_requests: list[int], model_p99: float, live_p99: float) -> list:
    scenario = {"name": name, "batch": {"producer": {"batch.size": 16384}}}
    return ([_run("model", seed, requests, 90.0, model_p99, scenario) for seed, requests in enumerate(model_requests, 1)]
            + [_run("live", seed, requests, 80.0, live_p99, scenario) for seed, requests in enumerate(live_requests, 1)])


def test_across_scenarios_the_errors_and_rank_correlations_are_summarised(tmp_path):
    from tuner.pairing import fidelity_summary
    runs = (_configuration("a", [90, 110], [100, 104, 96], 2.0, 3.0) + _configuration("b", [200, 220], [300, 280], 4.0, 5.0)
            + _configuration("c", [400, 400], [380, 420], 8.0, 6.0))
    pairs = pair_runs(run_figures(runs))
    assert [p.scenario for p in pairs] == ["a", "b", "c"]
    # a's live median 100 lies inside the model's 90-110 over its seeds; b's 290 is outside 200-220
    assert pairs[0].rows[0]["live_in_model_interval"] is True and pairs[1].rows[0]["live_in_model_interval"] is False
    summary = {row["figure"]: row for row in fidelity_summary(pairs)}
    requests = summary["produce requests"]
    # errors |live/model - 1|: a 0, b 290/210 - 1, c 0; the live ranks follow the model's: Spearman 1
    assert requests["count"] == 3 and requests["median_error"] == 0.0
    assert abs(requests["worst_error"] - (290 / 210 - 1)) < 1e-12 and requests["spearman"] == 1.0
    p99 = summary["neighbour p99 during"]
    assert p99["spearman"] == 1.0 and abs(p99["worst_error"] - 0.5) < 1e-12
    assert "## The model's error across scenarios" in (write_report(runs, tmp_path) and (tmp_path / "report.md").read_text())


def test_a_model_that_predicts_too_much_is_as_many_times_off_as_one_that_predicts_too_little():
    from tuner.pairing import error, factor_off, fidelity_summary
    # |live/model - 1| reads 97.5 % for 40x too many and 3,900 % for 40x too few; the factor is 40 both ways
    assert error(4000, 100) == 0.975 and abs(error(100, 4000) - 39.0) < 1e-12
    assert factor_off(4000, 100) == 40.0 and factor_off(100, 4000) == 40.0 and factor_off(100, 100) == 1.0
    assert factor_off(None, 100) is None and factor_off(0, 100) is None
    runs = (_configuration("a", [4000], [100], 2.0, 4.0) + _configuration("b", [100], [200], 4.0, 4.0)
            + _configuration("c", [300], [300], 8.0, 2.0))
    summary = {row["figure"]: row for row in fidelity_summary(pair_runs(run_figures(runs)))}
    assert summary["produce requests"]["median_factor"] == 2.0         # 40, 2 and 1: the median 2
    assert summary["neighbour p99 during"]["median_factor"] == 2.0     # 2, 1 and 4
