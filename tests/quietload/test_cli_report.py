import csv
import json

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from simulator.contract import RunResult
from workloads import CATALOG

SHRINK = ["--set", "dataset.files.0.size=64MB", "--set", "windows.before=2s", "--set", "windows.after=2s"]


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def catalog_results(tmp_path_factory):
    """The published baseline and its fix, each simulated once (shrunk to 64 MB) for this module."""
    out = tmp_path_factory.mktemp("results")
    paths = []
    for name in ("paypay-glue-2gb", "paypay-glue-2gb-fixed"):
        path = out / f"{name}.json"
        outcome = _invoke("simulate", str(CATALOG / f"{name}.yaml"), "--json", str(path), *SHRINK)
        assert outcome.exit_code == 0, outcome.output
        paths.append(path)
    return paths


def test_report_of_two_catalog_results(catalog_results, tmp_path):
    out = tmp_path / "report"
    outcome = _invoke("report", *map(str, catalog_results), "--out", str(out))
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.splitlines() == [f"wrote {out / name}" for name in
                                           ("report.md", "runs.csv", "report.json", "report.html", "batch_sizes.csv")]
    assert sorted(p.name for p in out.iterdir()) == ["batch_sizes.csv", "report.html", "report.json", "report.md", "runs.csv"]
    baseline, fixed = (RunResult.read(path) for path in catalog_results)
    rows = list(csv.DictReader((out / "runs.csv").open()))
    assert [row["scenario"] for row in rows] == ["paypay-glue-2gb", "paypay-glue-2gb-fixed"]
    assert [int(row["produce_requests"]) for row in rows] == [baseline.summary.produce_requests,
                                                              fixed.summary.produce_requests]
    runs = json.loads((out / "report.json").read_text())["runs"]
    assert [run["summary"]["mean_batch_bytes"] for run in runs] == [baseline.summary.mean_batch_bytes,
                                                                   fixed.summary.mean_batch_bytes]
    markdown = (out / "report.md").read_text()
    assert markdown.count("## Comparison") == 1
    html = (out / "report.html").read_text()
    assert 'src="http' not in html
    # both runs on each plot: the two neighbours' p99 (each with its zoom near its SLA: the baseline goes far over
    # it), requests, CPU, handler idle, bytes in, the latency parts, replica lag; then the mean batch bars and the
    # batch-size distribution
    assert html.count("<img") == html.count("<figcaption>") == 2 + 2 + 6 + 2


def test_a_report_into_an_earlier_ones_directory_replaces_it_whole_and_says_so(catalog_results, tmp_path):
    """Issue 36: no output replaced silently; and no file of the earlier report left to read as this one's."""
    out = tmp_path / "report"
    assert _invoke("report", *map(str, catalog_results), "--out", str(out)).exit_code == 0
    (out / "plans.csv").write_text("an earlier report's plans\n")
    outcome = _invoke("report", str(catalog_results[0]), "--out", str(out))
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.splitlines()[-1] == (f"replaced the earlier report in {out} (its report.md, runs.csv, report.json, "
                                               "report.html, batch_sizes.csv, plans.csv); --out DIR keeps reports apart")
    assert sorted(p.name for p in out.iterdir()) == ["batch_sizes.csv", "report.html", "report.json", "report.md", "runs.csv"]
    assert [row["scenario"] for row in csv.DictReader((out / "runs.csv").open())] == ["paypay-glue-2gb"]


def test_default_out_dir(catalog_results, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outcome = _invoke("report", str(catalog_results[0]))
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.splitlines()[0] == "wrote reports-out/report.md"
    assert (tmp_path / "reports-out" / "report.html").is_file()


def test_missing_file_is_one_error_line_and_writes_nothing(catalog_results, tmp_path):
    out = tmp_path / "report"
    outcome = _invoke("report", str(catalog_results[0]), str(tmp_path / "absent.json"), "--out", str(out))
    assert outcome.exit_code == 2
    assert outcome.stderr.splitlines() == [f"error: {tmp_path / 'absent.json'}: no such file"]
    assert not out.exists()


def test_wrong_schema_version_is_one_error_line_and_writes_nothing(catalog_results, tmp_path):
    wrong = tmp_path / "old.json"
    wrong.write_text(json.dumps({**json.loads(catalog_results[0].read_text()), "schema_version": 0}))
    out = tmp_path / "report"
    outcome = _invoke("report", str(wrong), "--out", str(out))
    assert outcome.exit_code == 2
    assert outcome.stderr.splitlines() == [
        f"error: {wrong}: not a quietload RunResult of schema_version 1 (found 0)"]
    assert not out.exists()


def test_out_dir_that_is_a_file_is_one_error_line(catalog_results, tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("")
    outcome = _invoke("report", str(catalog_results[0]), "--out", str(blocker))
    assert outcome.exit_code == 2
    assert len(outcome.stderr.splitlines()) == 1 and outcome.stderr.startswith("error: ")


def test_report_of_a_study_with_a_run_adds_the_pareto_table_and_two_plots(catalog_results, tmp_path):
    tuned = tmp_path / "tuned"
    relaxed = ["--set", "tenants.0.sla_p99=100ms", "--set", "tenants.1.sla_p99=100ms"]   # so trials are feasible
    outcome = _invoke("tune", str(CATALOG / "paypay-glue-2gb.yaml"), *SHRINK, *relaxed, "--trials", "10",
                      "--no-prune", "--out", str(tuned))   # 10 completed trials: enough for importances
    assert outcome.exit_code == 0, outcome.output
    study_file = tuned / "paypay-glue-2gb-study.json"
    study = json.loads(study_file.read_text())
    out = tmp_path / "report"
    outcome = _invoke("report", str(study_file), str(catalog_results[0]), "--out", str(out))
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.splitlines()[-1] == f"wrote {out / 'trials.csv'}"
    markdown = (out / "report.md").read_text().splitlines()
    front = markdown.index("### Pareto front")
    assert markdown[front + 2].startswith("| trial | produce requests | load (s) | repartition | compression.type |")
    picked = next(t for t in study["trials"] if t["number"] == study["pick"])
    assert markdown[front + 4].startswith(f"| {study['pick']} (pick) | {picked['values']['produce_requests']:,} | ")
    rows = markdown[front + 4:front + 4 + len(study["pareto_front"]) + 1]
    assert [row.split(" | ")[0] for row in rows[1:-1]] == [f"| {n}" for n in study["pareto_front"][1:]] and rows[-1] == ""
    html = (out / "report.html").read_text()
    assert html.count("<img") == html.count("<figcaption>") == 2 + 6 + 1 + 2   # the run's nine plots, the study's two
    assert [row["trial"] for row in csv.DictReader((out / "trials.csv").open())] == [str(t["number"]) for t in study["trials"]]


def test_a_broken_gate_result_is_one_error_line_and_writes_nothing(catalog_results, tmp_path):
    gate = tmp_path / "check.json"
    gate.write_text(json.dumps({"gate": "quietload.check", "passed": True}))
    out = tmp_path / "report"
    outcome = _invoke("report", str(catalog_results[0]), str(gate), "--out", str(out))
    assert outcome.exit_code == 2
    assert outcome.stderr.splitlines() == [f"error: {gate}: gate result lacks scenario, evaluator, verdicts"]
    assert not out.exists()
