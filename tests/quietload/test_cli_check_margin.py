"""check's pass within the model's error of an SLA is marginal, and a relative SLA says where it came from."""
import json

import yaml
from typer.testing import CliRunner

from quietload.cli import app
from tests.tuner.conftest import TINY

RELATIVE = dict(TINY, tenants=[dict(TINY["tenants"][0], sla_p99="1.5x")])   # its p99 during the load x 1.68 is over it


def _check(tmp_path, scenario, *args: str):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(scenario))
    return CliRunner().invoke(app, ["check", str(path), "--json", str(tmp_path / "check.json"), *args])


def test_a_pass_within_the_profiles_error_of_the_sla_is_marginal_and_margin_1_judges_without_it(tmp_path):
    result = _check(tmp_path, RELATIVE)
    assert result.exit_code == 0, result.output     # marginal is still a pass
    gate = json.loads((tmp_path / "check.json").read_text())
    [line] = gate["sla_sources"]
    assert line.startswith("api: SLA ") and "= 1.5x its p99 alone, " in line and line.endswith("(the neighbours without the load, model seeds 1-5 pooled)")
    assert gate["marginal"].startswith("marginal: within the model's error of the SLA (api ")
    assert "the factor: the model's neighbour p99 during the load was a median 1.68x off at its latest validation " \
           "(2026-11-28, 8f8eb14)" in gate["marginal"]
    assert f"\n  {line}\n  {gate['marginal']}" in result.stdout
    assert _check(tmp_path, RELATIVE, "--margin", "1").exit_code == 0
    assert json.loads((tmp_path / "check.json").read_text())["marginal"] is None


def test_an_absolute_sla_says_no_source_and_a_margin_under_1_is_refused(tmp_path):
    result = _check(tmp_path, TINY, "--margin", "1")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "check.json").read_text())["sla_sources"] == []
    assert _check(tmp_path, TINY, "--margin", "0.5").exit_code == 2
