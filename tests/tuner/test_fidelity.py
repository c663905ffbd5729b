"""Validation: held-out configurations run on both sides, paired, summarised, judged and written.

The model stands in for the live stack here (its runs relabelled ``live``): a test cannot hold
the machine for the live runs. With the same seeds on both sides every error is zero and every
target must hold; with other seeds the live figures fall inside or outside the model's interval
as the files say.
"""
import dataclasses
import json

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from reports.fidelity import render_validation, table_rows, write_validation
from simulator.evaluator import model_evaluator
from tuner.calibration import HELD_OUT, pick
from tuner.fidelity import as_placed, judge, validate
from tuner.pairing import Spread, Versus, fidelity_summary, pair_results

CONFIGURATIONS = pick(HELD_OUT, ["linger-0", "linger-25", "keyed-6-partitions"], "--configuration")


class ModelAsLive:
    """The model's run of a seed, labelled as a live run of it (a stand-in: see the module's docstring)."""

    def __init__(self, seed_offset: int = 0) -> None:
        self.model, self.offset = model_evaluator(), seed_offset

    def evaluate(self, scenario, seed):
        return dataclasses.replace(self.model.evaluate(scenario, seed + self.offset), evaluator="live", seed=seed)


@pytest.fixture(scope="module")
def itself(tmp_path_factory):
    out = tmp_path_factory.mktemp("fidelity")
    validation = validate(ModelAsLive(), model_evaluator(), CONFIGURATIONS, "loopback", 2, 2, lambda line: None, out)
    return validation, write_validation(validation, out), out


def test_the_model_against_itself_has_no_error_and_meets_every_target(itself):
    validation, _, _ = itself
    assert [p.scenario for p in validation.pairs] == ["linger-0", "linger-25", "keyed-6-partitions"]
    errors = [row["median_error"] for row in validation.summary if row["count"]]
    assert errors and all(e == 0.0 for e in errors)
    assert {row["figure"]: row["spearman"] for row in validation.summary}["produce requests"] == 1.0
    assert [(t.name, t.passed) for t in validation.targets] == [
        ("live repeats: requests, records/request and neighbour p99 during within 15% of their median", True),
        ("produce requests: median factor off within x1.25", True), ("records per request within x1.5", True),
        ("neighbour p50 during within x1.5", True), ("neighbour p99 during within x2", True),
        ("Spearman of produce requests >= 0.8", True), ("Spearman of neighbour p99 >= 0.8", True)]


def test_validate_writes_its_table_as_json_markdown_and_csv(itself):
    validation, paths, out = itself
    assert sorted(p.name for p in paths) == ["fidelity.csv", "fidelity.json", "fidelity.md"]
    document = json.loads((out / "fidelity.json").read_text())
    assert [c["name"] for c in document["configurations"]] == ["linger-0", "linger-25", "keyed-6-partitions"]
    first = document["configurations"][0]["figures"][0]
    assert first["figure"] == "produce requests" and first["model"] == first["live"] and first["live_in_model_interval"]
    assert (out / "fidelity.md").read_text().strip() == render_validation(validation)
    csv_lines = (out / "fidelity.csv").read_text().splitlines()
    assert csv_lines[0] == "configuration,figure,model (min-max over seeds),live median (min-max),live / model"
    assert csv_lines[1].startswith("linger-0,requests,")
    # each side's runs are RunResult files that `quietload report` pairs into the same figures
    assert len(list(out.glob("*-model-seed*.json"))) == 6 and len(list(out.glob("*-live-seed*.json"))) == 6


def test_report_shows_the_same_comparison_for_the_run_files(itself, tmp_path):
    _, _, out = itself
    result = CliRunner().invoke(app, ["report", *map(str, sorted(out.glob("*-seed*.json"))), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "report.md").read_text()
    assert "## Predicted against measured: linger-25" in markdown and "## The model's error across scenarios" in markdown


def test_an_unknown_configuration_is_one_line_and_exit_2():
    result = CliRunner().invoke(app, ["validate", "--configuration", "linger-7"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --configuration: unknown configuration 'linger-7' (known: " + ", ".join(p.name for p in HELD_OUT) + ")"]


# ---- the streaming neighbour ------------------------------------------------------------------

def test_a_held_out_configuration_runs_a_spark_micro_batch_pipeline_beside_the_load():
    point, = pick(HELD_OUT, ["microbatch-neighbour"], "--configuration")
    scenario = point.scenario("loopback-calibrated")
    assert [(t.name, getattr(t, "kind", "producer")) for t in scenario.tenants] == [
        ("payment-api", "producer"), ("fraud-microbatch", "spark-microbatch")]
    pipeline = scenario.tenants[1]
    # as the live stack runs it: a pass-through query, its progress logs on the path
    assert (pipeline.processing_time_ms, pipeline.async_progress, pipeline.record_cost, pipeline.rate) == (500.0, False, 0.0, 200.0)
    assert {t.name: t.partitions for t in scenario.cluster.topics}["fraud-microbatch-in"] == 1


def _pair(figures: dict[str, tuple[float, float]]) -> Versus:
    """A configuration's figures (title: (model, live)) as pair_runs makes them, one seed a side."""
    rows = [(title, model, live, "{:,.1f}") for title, (model, live) in figures.items()]
    spreads = [(Spread(model, model), Spread(live, live)) for model, live in figures.values()]
    return Versus("m", [1], [1], rows, spreads, {"batch": {"producer": {"linger.ms": 5}}})


STREAMING_PAIR = _pair({"produce requests": (100.0, 110.0), "mean batch (KB of records)": (15.0, 15.0), "payment-api p99 before (ms)": (5.0, 6.0),
                        "payment-api p50 during (ms)": (4.0, 4.0), "payment-api p99 during (ms)": (5.0, 7.0),
                        "fraud-microbatch end-to-end p50 before (ms)": (300.0, 360.0),      # x1.20
                        "fraud-microbatch end-to-end p99 before (ms)": (500.0, 600.0),      # x1.20
                        "fraud-microbatch end-to-end p50 during (ms)": (300.0, 500.0),      # x1.67
                        "fraud-microbatch end-to-end p99 during (ms)": (600.0, 1500.0)})    # x2.50


def test_the_streaming_neighbours_end_to_end_latency_is_judged_apart_from_the_producers():
    summary = fidelity_summary([STREAMING_PAIR])
    targets = {t.name: (t.passed, t.detail) for t in judge([STREAMING_PAIR], summary)}
    assert targets["neighbour p50 during within x1.5"] == (True, "1 of 1 hold")
    assert targets["neighbour p99 during within x2"] == (True, "1 of 1 hold")          # payment-api's x1.40 alone
    assert targets["streaming end-to-end p50 within x1.5 (before, during)"] == (
        False, "1 of 2 hold; misses: m fraud-microbatch during")
    assert targets["streaming end-to-end p99 within x2 (before, during)"] == (
        False, "1 of 2 hold; misses: m fraud-microbatch during")
    errors = {row["figure"]: (row["median_error"], row["count"]) for row in summary}
    assert errors["neighbour p99 during"] == (pytest.approx(0.4), 1)
    assert errors["streaming end-to-end p50 during"] == (pytest.approx(2 / 3), 1)
    assert errors["streaming end-to-end p99 during"] == (pytest.approx(1.5), 1)


def test_the_table_shows_the_streaming_neighbours_end_to_end_figures_before_and_during():
    rows = [row for row in table_rows([STREAMING_PAIR]) if "fraud-microbatch" in row[1]]
    assert rows == [["m", "fraud-microbatch end-to-end p50 before (ms)", "300.0-300.0", "360.0 (360.0-360.0)", "1.20x"],
                    ["m", "fraud-microbatch end-to-end p99 before (ms)", "500.0-500.0", "600.0 (600.0-600.0)", "1.20x"],
                    ["m", "fraud-microbatch end-to-end p50 during (ms)", "300.0-300.0", "500.0 (500.0-500.0)", "1.67x"],
                    ["m", "fraud-microbatch end-to-end p99 during (ms)", "600.0-600.0", "1,500.0 (1,500.0-1,500.0)", "2.50x"]]


def test_without_a_streaming_neighbour_there_is_no_streaming_verdict():
    plain = _pair({"produce requests": (100.0, 110.0), "mean batch (KB of records)": (15.0, 15.0), "payment-api p50 during (ms)": (4.0, 4.0),
                   "payment-api p99 during (ms)": (5.0, 7.0)})
    assert not any("streaming" in t.name for t in judge([plain], fidelity_summary([plain])))


def test_the_micro_batch_neighbour_against_itself_pairs_its_end_to_end_figures(tmp_path):
    configuration = pick(HELD_OUT, ["microbatch-neighbour"], "--configuration")
    validation = validate(ModelAsLive(), model_evaluator(), configuration, "loopback", 1, 1, lambda line: None, tmp_path)
    pair, = validation.pairs
    assert [row["figure"] for row in pair.rows if row["figure"].startswith("fraud-microbatch")] == [
        "fraud-microbatch end-to-end p50 before (ms)", "fraud-microbatch end-to-end p99 before (ms)",
        "fraud-microbatch end-to-end p50 during (ms)", "fraud-microbatch end-to-end p99 during (ms)"]
    assert all(row["model"] == row["live"] and row["model"] > 0 for row in pair.rows if row["figure"].startswith("fraud-"))
    assert [(t.name, t.passed, t.detail) for t in validation.targets if "streaming" in t.name] == [
        ("streaming end-to-end p50 within x1.5 (before, during)", True, "2 of 2 hold"),
        ("streaming end-to-end p99 within x2 (before, during)", True, "2 of 2 hold")]


def test_the_model_runs_a_configuration_placed_as_its_live_runs_were():
    scenario = CONFIGURATIONS[0].scenario("loopback")
    run = model_evaluator().evaluate(scenario, 1)
    where = {"hosts": [{"name": "cores-0", "cpuset.cpus": [0], "cpu.cfs_quota_us": 5000, "cpu.cfs_period_us": 5000},
                       {"name": "cores-1", "cpuset.cpus": [1]}],
             "placement": {"brokers": ["cores-0"] * scenario.cluster.brokers, "executors": "cores-1", "neighbours": "cores-0"}}
    # three live runs, each with the other runnable threads it measured on cores 0 and 1 (JSON's keys: text)
    lives = [dataclasses.replace(run, evaluator="live", seed=seed, scenario={**run.scenario, **where},
                                 summary=dataclasses.replace(run.summary, machine={"background_threads": {"0": b0, "1": b1}}))
             for seed, (b0, b1) in enumerate(((1.0, 2.0), (3.0, 2.5), (2.0, 0.5)), 1)]
    placed = as_placed(scenario, lives)
    assert [(h.name, h.vcpus, h.background) for h in placed.hosts] == [("cores-0", 1.0, 2.0), ("cores-1", 1.0, 2.0)]
    assert (placed.placement.broker(0), placed.placement.executor(0), placed.placement.neighbour("x")) == \
        ("cores-0", "cores-1", "cores-0")
    assert as_placed(scenario, [run]) is scenario       # a run that placed nothing: the scenario as it is
    # a live run and the model's run of the same configuration pair, wherever each ran
    assert [p.scenario for p in pair_results([run, *lives])] == [scenario.name]


def test_a_scaled_configuration_loads_that_many_times_its_csv_and_nothing_else_changes():
    from tuner.calibration.design import scaled
    from workloads import ScenarioError
    sizes = {p.name: scaled(p, 8).scenario("loopback-calibrated").dataset.files[0].size for p in HELD_OUT}
    assert sizes["linger-0"] == 96 * 1024**2                  # 12 MB held-out loads
    assert sizes["narrow-rows-zstd"] == 48 * 1024**2          # its own 6 MB
    assert sizes["microbatch-neighbour"] == 288 * 1024**2     # its own 36 MB
    point = pick(HELD_OUT, ["linger-25"], "--configuration")[0]
    assert scaled(point, 8).scenario("loopback-calibrated").batch.producer == point.scenario("loopback-calibrated").batch.producer
    with pytest.raises(ScenarioError, match="--scale"):
        scaled(point, 0)


class PlacedLive(ModelAsLive):
    """A stand-in live run that writes the hosts it placed its parts on into its scenario, as the rig does."""

    WHERE = {"hosts": [{"name": "cores-0", "cpuset.cpus": [0]}, {"name": "cores-1", "cpuset.cpus": [1]}],
             "placement": {"brokers": ["cores-0"], "executors": "cores-1", "neighbours": "cores-0"}}

    def evaluate(self, scenario, seed):
        run = super().evaluate(scenario, seed)
        return dataclasses.replace(run, scenario={**run.scenario, **self.WHERE})


def test_the_model_is_judged_as_production_runs_it_not_as_the_rig_placed_it(tmp_path):
    validate(PlacedLive(), model_evaluator(), CONFIGURATIONS[:1], "loopback", 1, 1, lambda line: None, tmp_path)
    runs = {p.name: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}
    [model] = [r for r in runs.values() if r["evaluator"] == "model"]
    [live] = [r for r in runs.values() if r["evaluator"] == "live"]
    assert "hosts" in live["scenario"] and "hosts" not in model["scenario"] and "placement" not in model["scenario"]


def test_a_run_placed_badly_is_left_out_and_several_brokers_are_shown_not_judged():
    from tuner.fidelity import judged
    scenario = CONFIGURATIONS[1].scenario("loopback")
    model = model_evaluator().evaluate(scenario, 1)
    live = dataclasses.replace(model, evaluator="live")
    badly = dataclasses.replace(live, seed=2, summary=dataclasses.replace(
        live.summary, produce_requests=live.summary.produce_requests * 9, noise=("placed badly: payment-api waited 4.1 %",)))
    validation = judged([model, live, badly])
    [pair] = validation.pairs                       # shown with every run
    assert pair.live_seeds == [1, 2]
    assert {t.name: t.detail for t in validation.targets}["produce requests: median factor off within x1.25"] == \
        "x1.00 over 1 configurations"               # judged on the run placed well alone
    assert judged([model, badly]).apart == {pair.scenario: "every live run placed badly or noisy: shown, not judged"}
    three = {**model.scenario, "cluster": {**model.scenario["cluster"], "brokers": 3}}
    apart = [dataclasses.replace(run, scenario=three) for run in (model, live)]
    validation = judged([model, live, *apart])
    assert [p.scenario for p in validation.pairs] == [scenario.name, scenario.name]    # both shown
    assert list(validation.apart.values()) == [
        "3 brokers: judged on their parts alone (this machine cannot give each broker a core)"]
    assert {t.name: t.detail for t in validation.targets}["records per request within x1.5"] == "1 of 1 hold"
