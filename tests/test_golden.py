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
