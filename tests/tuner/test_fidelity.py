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
from simulator.evaluator import model_evaluator
from tuner.calibration import HELD_OUT, pick
from tuner.fidelity import render_validation, validate, write_validation

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
        ("requests within 15 % (linger.ms >= 5)", True), ("requests inside the model's interval (linger.ms = 0)", True),
        ("mean batch within 20 %", True), ("neighbour p50 within x1.3", True), ("neighbour p99 within x1.5", True),
        ("Spearman of produce requests >= 0.9", True), ("Spearman of neighbour p99 >= 0.9", True)]


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
