"""Every catalog scenario gives, for seed 1, the very bytes of its file under tests/golden/.

The files were written by ``quietload simulate SCENARIO --json`` before the code under them was
reorganised; a change that moves a figure on purpose rewrites the file in the same commit (with
``QUIETLOAD_WRITE_GOLDEN=1``) and says which figure moved and why.
"""
import difflib
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG

ROOT = Path(__file__).parent.parent
GOLDEN = ROOT / "tests" / "golden"
SCENARIOS = sorted(CATALOG.glob("*.yaml"))


def test_every_catalog_scenario_has_its_golden_file():
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(p.stem for p in SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_same_seed_same_bytes_as_the_golden_file(scenario, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)   # the result names its scenario file as given, relative to the project
    out = tmp_path / f"{scenario.stem}.json"
    result = CliRunner().invoke(app, ["simulate", str(scenario.relative_to(ROOT)), "--seed", "1", "--json", str(out)])
    assert result.exit_code == 0, result.output
    golden = GOLDEN / f"{scenario.stem}.json"
    if os.environ.get("QUIETLOAD_WRITE_GOLDEN") == "1":
        golden.write_bytes(out.read_bytes())
    expected, got = golden.read_text(), out.read_text()
    if got != expected:
        diff = "".join(list(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                                 str(golden), str(out), n=1))[:60])
        pytest.fail(f"{scenario.stem}: the result differs from its golden file\n{diff}")


SMALL_PLAN = ["plan", "workloads/catalog/paypay-glue-2gb-fixed.yaml", "--set", "windows.before=2s", "--set", "windows.after=2s",
              "--set", "dataset.files.0.size=512MB", "--set", "tenants.1.sla_p99=10.5ms", "--load-gb", "0.25",
              "--loads", "1,2", "--brokers", "6", "--workers", "1"]
SMALL_TUNE = ["tune", "workloads/catalog/paypay-glue-2gb.yaml", "--set", "dataset.files.0.size=64MB", "--set", "windows.before=1s",
              "--set", "windows.after=1s", "--set", "tenants.0.sla_p99=100ms", "--set", "tenants.1.sla_p99=100ms",
              "--trials", "4", "--validate", "2"]


@pytest.mark.parametrize("name, args", [("plan", SMALL_PLAN), ("tune", SMALL_TUNE)])
def test_a_small_plan_and_study_write_the_bytes_of_their_golden_files(name, args, tmp_path, monkeypatch):
    """Plans, studies, recommendations and snippets too: the temporary directory they name is <tmp>."""
    monkeypatch.chdir(ROOT)
    where = (["--json", str(tmp_path / "plan.json")] if name == "plan"
             else ["--storage", f"sqlite:///{tmp_path}/study.db", "--out", str(tmp_path)])
    result = CliRunner().invoke(app, [*args, *where])
    assert result.exit_code == 0, result.output
    written = sorted(p for p in tmp_path.iterdir() if p.suffix != ".db")
    golden = GOLDEN / name
    if os.environ.get("QUIETLOAD_WRITE_GOLDEN") == "1":
        golden.mkdir(parents=True, exist_ok=True)
        for path in written:
            (golden / path.name).write_text(path.read_text().replace(str(tmp_path), "<tmp>"))
    assert [p.name for p in written] == sorted(p.name for p in golden.iterdir())
    for path in written:
        expected, got = (golden / path.name).read_text(), path.read_text().replace(str(tmp_path), "<tmp>")
        if got != expected:
            diff = "".join(list(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), n=1))[:60])
            pytest.fail(f"{name}: {path.name} differs from its golden file\n{diff}")
