"""``check --result`` of a live run recommends as for the model's run of the same scenario: the live
result's placement (its hosts) and its SLA resolved on its own first run are the run's, not a change
of the job's or the cluster's settings, so the scenario file it names is still the one it ran."""
import json

from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG

SMALL = ["--set", "dataset.files.0.size=256MB", "--set", "windows.before=2s", "--set", "windows.after=2s",
         "--set", "tenants.0.sla_p99=1.5x", "--set", "tenants.1.sla_p99=1.5x"]


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _as_live(model: dict) -> dict:
    """The model's run as a live run writes it: placed on this machine, each relative SLA resolved on its
    first run (the same figure here, so that the advice must read alike)."""
    live = json.loads(json.dumps(model))
    live["evaluator"] = "live"
    live["scenario"]["hosts"] = [{"name": "this-machine", "cores": 2}]
    live["scenario"]["placement"] = {"brokers": ["this-machine"]}
    for tenant in live["scenario"]["tenants"]:
        tenant["sla_p99"] = tenant["sla_p99"].replace("(model seeds 1-5)", "(live seed 1 before the load)")
    return live


def _advice(output: str) -> list[str]:
    lines = output.splitlines()
    return lines[lines.index("recommended change"):]


def test_check_result_of_a_live_run_recommends_as_for_the_models_run(tmp_path):
    simulated = _run("simulate", CATALOG / "paypay-glue-2gb.yaml", *SMALL, "--json", tmp_path / "model.json")
    assert simulated.exit_code == 0, simulated.output
    model = json.loads((tmp_path / "model.json").read_text())
    assert [t["sla_p99"] for t in model["scenario"]["tenants"]] == ["1.5x of 8.06ms (model seeds 1-5)",
                                                                     "1.5x of 8.23ms (model seeds 1-5)"]
    (tmp_path / "live.json").write_text(json.dumps(_as_live(model)))
    of_model = _run("check", "--result", tmp_path / "model.json")
    of_live = _run("check", "--result", tmp_path / "live.json")
    assert (of_model.exit_code, of_live.exit_code) == (1, 1), of_live.output
    assert "FAIL paypay-glue-2gb (live, seed 1): 2 of 5 rules failed, 1 skipped" in of_live.output.splitlines()
    assert _advice(of_live.output) == _advice(of_model.output)
    assert _advice(of_live.output)[1].startswith("  - compression.type=zstd (the job's owner): ")


def test_a_live_run_of_other_settings_than_the_file_now_gives_tries_no_change(tmp_path):
    simulated = _run("simulate", CATALOG / "paypay-glue-2gb.yaml", *SMALL, "--json", tmp_path / "model.json")
    live = _as_live(json.loads((tmp_path / "model.json").read_text()))
    live["scenario"]["batch"]["producer"]["linger.ms"] = 7.0   # the file says 0 ms: not the run it names
    (tmp_path / "live.json").write_text(json.dumps(live))
    checked = _run("check", "--result", tmp_path / "live.json")
    assert (simulated.exit_code, checked.exit_code) == (0, 1), checked.output
    assert _advice(checked.output) == ["recommended change", "  - no change tried: no scenario file to run it on "
                                                             "(the result names none, or it is not here)"]
