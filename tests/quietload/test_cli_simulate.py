import json
import re

import pytest
from typer.testing import CliRunner

from _bad_input import BASE as SMALL_SCENARIO, changed, write_yaml
from quietload.cli import app
from workloads import CATALOG

BASE = str(CATALOG / "paypay-glue-2gb.yaml")
SMALL = ["--set", "dataset.files.0.size=64MB", "--set", "windows.before=2s", "--set", "windows.after=2s"]
SMALL_NAME = "paypay-glue-2gb-dataset.files.0.size=64MB-windows.before=2s-windows.after=2s"   # its runs' files


def _simulate(*args: str):
    return CliRunner().invoke(app, ["simulate", *args])


def test_simulate_prints_summary_and_writes_result_under_results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _simulate(BASE, *SMALL)
    assert result.exit_code == 0, result.output
    written = tmp_path / "results" / f"{SMALL_NAME}-seed1.json"
    assert result.stdout.rstrip().endswith(f"wrote results/{SMALL_NAME}-seed1.json")
    run = json.loads(written.read_text())
    assert run["schema_version"] == 1 and run["overrides"] == SMALL[1::2]
    printed = re.search(r"^  produce requests +([\d,]+)$", result.stdout, re.MULTILINE)
    assert printed, result.stdout
    assert int(printed.group(1).replace(",", "")) == run["summary"]["produce_requests"] > 0
    assert "OVER SLA" in result.stdout or "within SLA" in result.stdout
    assert result.stdout.rstrip().splitlines()[-3].startswith("  - ")  # the mechanism sentences
    # stderr is not a terminal here: a line every 5 s of the run, then the closing line
    *every_5_s, closing = result.stderr.splitlines()
    assert closing.startswith("simulated paypay-glue-2gb: ")
    assert all(" s simulated, " in line and " elapsed, ETA " in line for line in every_5_s)


def test_same_seed_gives_the_same_bytes(tmp_path):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    for path in (first, second):
        result = _simulate(BASE, *SMALL, "--seed", "3", "--json", str(path))
        assert result.exit_code == 0, result.output
        assert f"wrote {path}" in result.stdout
    assert first.read_bytes() == second.read_bytes()


def _yaml_file(tmp_path, text: str) -> str:
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return str(path)


BAD_SETS = {
    "unknown key": (["batch.producer.lingr.ms=5"], "batch.producer.lingr.ms"),
    "wrong unit": (["batch.producer.batch.size=128XB"], "batch.producer.batch.size"),
    "batch.size above max.request.size": (["batch.producer.batch.size=2MB"], "batch.producer.batch.size"),
    "zero partitions": (["cluster.topics.0.partitions=0"], "cluster.topics[0].partitions"),
    "negative size": (["dataset.files.0.size=-1GB"], "dataset.files[0].size"),
    "unknown codec": (["batch.producer.compression.type=brotli"], "batch.producer.compression.type"),
    "--set without =": (["batch.producer.linger.ms"], "--set"),
}


def _assert_one_line_error(result, field: str) -> None:
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # not an escaped domain exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {field}"), lines[0]
    assert "Traceback" not in result.output


@pytest.mark.parametrize("overrides, field", BAD_SETS.values(), ids=BAD_SETS.keys())
def test_bad_override_is_one_line_and_exit_2(overrides, field, tmp_path):
    sets = [arg for item in overrides for arg in ("--set", item)]
    result = _simulate(BASE, *sets, "--json", str(tmp_path / "never.json"))
    _assert_one_line_error(result, field)
    assert not (tmp_path / "never.json").exists()


def test_missing_scenario_file(tmp_path):
    missing = tmp_path / "nowhere.yaml"
    result = _simulate(str(missing))
    _assert_one_line_error(result, "scenario")
    assert str(missing) in result.stderr


def test_yaml_that_is_not_a_mapping(tmp_path):
    result = _simulate(_yaml_file(tmp_path, "- brokers\n- topics\n"))
    _assert_one_line_error(result, "scenario")
    assert "mapping" in result.stderr


def test_unknown_key_in_the_file_itself(tmp_path):
    scenario = _yaml_file(tmp_path, f"extends: {BASE}\ncluster:\n  partitons: 30\n")
    result = _simulate(scenario)
    _assert_one_line_error(result, "cluster.partitons")
    assert "unknown key" in result.stderr


def test_unwritable_result_path_is_one_line(tmp_path):
    result = _simulate(BASE, *SMALL, "--json", str(tmp_path))  # a directory
    assert result.exit_code == 2, result.output
    # refused before the run: the one line is all of stderr, no progress line before it
    assert result.stderr.splitlines() == [f"error: --json: {tmp_path} is a directory; name a file"]


def test_typer_usage_errors_still_exit_2():
    result = _simulate()
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr


def test_help_has_an_example():
    result = CliRunner().invoke(app, ["simulate", "--help"])
    assert result.exit_code == 0
    assert "Example: quietload simulate workloads/catalog/" in result.stdout


def test_repeat_runs_consecutive_seeds_and_shows_the_spread(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _simulate(BASE, *SMALL, "--seed", "5", "--repeat", "3")
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in (tmp_path / "results").iterdir())
    assert written == [f"{SMALL_NAME}-seed{s}.json" for s in (5, 6, 7)]
    assert "paypay-glue-2gb (model, seeds 5-7: 3 runs)" in result.stdout
    requests = [json.loads((tmp_path / "results" / name).read_text())["summary"]["produce_requests"] for name in written]
    row = next(line for line in result.stdout.splitlines() if line.strip().startswith("produce_requests"))
    assert [float(v.replace(",", "")) for v in row.split()[1:4]] == [min(requests), sorted(requests)[1], max(requests)]


def test_repeat_with_one_json_file_is_refused(tmp_path):
    result = _simulate(BASE, *SMALL, "--repeat", "2", "--json", str(tmp_path / "one.json"))
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("error: --json: ")
    assert not (tmp_path / "one.json").exists()


def test_a_set_run_writes_its_own_file_beside_the_baseline(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for extra in ([], ["--set", "batch.producer.linger.ms=10", "--set", "batch.producer.compression.type=zstd"]):
        assert _simulate(BASE, *SMALL, *extra).exit_code == 0
    written = sorted(p.name for p in (tmp_path / "results").iterdir())
    assert written == [f"{SMALL_NAME}-linger.ms=10-compression.type=zstd-seed1.json", f"{SMALL_NAME}-seed1.json"]
    runs = [json.loads((tmp_path / "results" / name).read_text()) for name in written]
    assert runs[0]["overrides"] == SMALL[1::2] + ["batch.producer.linger.ms=10", "batch.producer.compression.type=zstd"]
    assert runs[1]["overrides"] == SMALL[1::2]
    assert runs[0]["summary"]["produce_requests"] != runs[1]["summary"]["produce_requests"]


def test_results_are_named_after_the_scenario_file_and_never_replace_another_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "copy").mkdir()
    write_yaml(tmp_path, "small.yaml", SMALL_SCENARIO)
    write_yaml(tmp_path / "copy", "edited.yaml", changed("batch|producer|linger.ms", 50))   # its name: is still "small"
    write_yaml(tmp_path / "copy", "small.yaml", SMALL_SCENARIO)
    for scenario in ("small.yaml", "copy/edited.yaml", "small.yaml"):   # a rerun of one file replaces its own run
        assert _simulate(scenario).exit_code == 0
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["edited-seed1.json", "small-seed1.json"]
    kept = (tmp_path / "results" / "small-seed1.json").read_bytes()
    assert json.loads(kept)["scenario"]["source"] == "small.yaml"
    refused = _simulate("copy/small.yaml")   # another file of the same stem: refused before any run, the first kept
    assert refused.exit_code == 2
    assert refused.stderr.strip() == ("error: --json: results/small-seed1.json holds a run of small.yaml, not of copy/small.yaml; "
                                      "name another file with --json or remove it")
    assert (tmp_path / "results" / "small-seed1.json").read_bytes() == kept
