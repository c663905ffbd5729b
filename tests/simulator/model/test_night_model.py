"""A night's jobs on the model: one job in a list runs as the same job as a mapping."""
import json

from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG
from workloads.reader import dump_yaml, read_yaml

SMALL = ["--set", "dataset.files.0.size=64MB", "--set", "windows.before=1s", "--set", "windows.after=1s", "--seed", "3"]


def _simulate(path, out) -> str:
    result = CliRunner().invoke(app, ["simulate", str(path), *SMALL, "--json", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_text()


def _as_list(tmp_path, **names) -> "Path":
    raw = read_yaml(CATALOG / "paypay-glue-2gb.yaml", "scenario")
    raw["batch"] = [{**names, **raw["batch"]}]
    path = tmp_path / "listed.yaml"
    path.write_text(dump_yaml(raw))
    return path


def test_one_job_in_a_list_named_batch_gives_the_bytes_of_the_mapping(tmp_path):
    mapping = _simulate(CATALOG / "paypay-glue-2gb.yaml", tmp_path / "mapping.json")
    listed = _simulate(_as_list(tmp_path, name="batch", **{"client.id": "batch-load"}), tmp_path / "listed.json")
    assert json.loads(listed)["scenario"]["source"] != json.loads(mapping)["scenario"]["source"]
    assert listed.replace(str(tmp_path / "listed.yaml"), "SOURCE") == \
        mapping.replace(str(CATALOG / "paypay-glue-2gb.yaml"), "SOURCE")


def test_one_named_job_in_a_list_gives_the_figures_of_the_mapping(tmp_path):
    mapping = json.loads(_simulate(CATALOG / "paypay-glue-2gb.yaml", tmp_path / "mapping.json"))
    named = json.loads(_simulate(_as_list(tmp_path, name="daily-card-load"), tmp_path / "named.json"))
    for section in ("summary", "producers", "brokers", "tenants", "timelines", "spark", "batch_sizes"):
        assert named[section] == mapping[section], section
    assert named["scenario"]["batch"][0]["client.id"] == "daily-card-load"
