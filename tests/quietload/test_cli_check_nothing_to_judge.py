"""Issue 25, problem 2: a gate that checks nothing does not pass. A scenario imported without
metrics has no neighbours; check says there is nothing to judge, exit 3, in its JUnit XML and JSON
too, and import warns when it writes such a scenario."""
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from _bad_input import changed, write_yaml
from typer.testing import CliRunner

from quietload.cli import app

DATA = Path(__file__).parents[1] / "workloads" / "imports" / "data"
XSD = Path(__file__).parents[1] / "data" / "junit-10.xsd"


def _invoke(*words: str):
    return CliRunner().invoke(app, list(words))


def test_a_scenario_imported_without_metrics_has_nothing_to_judge(tmp_path):
    scenario = tmp_path / "payments.yaml"
    imported = _invoke("import", "--glue-job", str(DATA / "get-job.json"), "--msk-cluster", str(DATA / "describe-cluster-v2.json"),
                       "--configuration", str(DATA / "server.properties"), "--script", str(DATA / "card-transactions-to-msk.py"),
                       "--partitions", "card-transactions=30", "--out", str(scenario))
    assert imported.exit_code == 0, imported.output
    assert imported.stderr.splitlines() == [
        "warning: no neighbours: no metrics were given (--cloudwatch or --prometheus) to find them in; quietload check "
        "has nothing to judge (exit 3) until the scenario's tenants: list them"]

    checked = _invoke("check", str(scenario), "--junit", str(tmp_path / "check.xml"), "--json", str(tmp_path / "check.json"))
    assert checked.exit_code == 3, checked.output
    first, second = checked.stdout.splitlines()
    assert first.startswith("NOTHING TO JUDGE payments (model, seed 1): no neighbours in this scenario, so no neighbour's "
                            "SLA holds the load; 3 of 5 rules passed, 2 skipped: handler idle ")
    assert second.startswith("  next: list the neighbours the load must keep quiet in the scenario's tenants:")

    xmlschema.validate(str(tmp_path / "check.xml"), str(XSD))
    suite = ET.parse(tmp_path / "check.xml").getroot().find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["outcome"] == "nothing to judge"
    sla = next(case for case in suite.iter("testcase") if case.get("name") == "neighbour_sla")
    assert sla.find("skipped").get("message") == "nothing to judge: no neighbours in this scenario"
    assert (suite.get("failures"), suite.get("skipped")) == ("0", "2")

    gate = json.loads((tmp_path / "check.json").read_text())
    assert (gate["outcome"], gate["passed"]) == ("nothing to judge", False)


NO_NEIGHBOURS = {
    "policy": (["policy", "s.yaml", "--out", "out"], "a policy"),
    "plan": (["plan", "s.yaml"], "a capacity plan"),
    "plan --schedule": (["plan", "--schedule", "s.yaml"], "a schedule"),
}


@pytest.mark.parametrize("case", NO_NEIGHBOURS)
def test_a_command_that_proves_or_plans_for_no_neighbour_has_nothing_to_judge(case, tmp_path, monkeypatch):
    """As check says of such a scenario, before any run: exit 3, one line, nothing written, never proven."""
    monkeypatch.chdir(tmp_path)
    write_yaml(tmp_path, "s.yaml", changed("tenants", []))
    args, what = NO_NEIGHBOURS[case]
    outcome = _invoke(*args)
    assert (outcome.exit_code, outcome.stderr) == (3, ""), outcome.output
    assert outcome.stdout.splitlines() == [
        f"NOTHING TO JUDGE small: no neighbours in this scenario, so {what} has no SLA to hold; next: list the neighbours "
        "the load must keep quiet in the scenario's tenants: (quietload import finds them in the cluster's metrics with "
        "--cloudwatch or --prometheus)"]
    assert [p.name for p in tmp_path.iterdir()] == ["s.yaml"]


def test_check_without_neighbours_says_nothing_to_judge_first_and_tries_no_change_even_when_a_broker_rule_fails(tmp_path):
    """A broker busier than --cpu-max fails nobody when no neighbour is on the cluster: exit 3, no advice run."""
    write_yaml(tmp_path, "s.yaml", changed("dataset|files|0|size", "128MB", changed("tenants", [])))   # 3 s of load
    checked = _invoke("check", str(tmp_path / "s.yaml"), "--cpu-max", "0", "--json", str(tmp_path / "check.json"))
    assert checked.exit_code == 3, checked.output
    first, failed, following = checked.stdout.splitlines()
    assert first.startswith("NOTHING TO JUDGE small (model, seed 1): no neighbours in this scenario, so no neighbour's "
                            "SLA holds the load; 2 of 5 rules passed, 1 failed, 2 skipped: ")
    assert failed.startswith("  broker_cpu: broker CPU during the load above 0 %: broker 0 ")
    assert following.startswith("  next: list the neighbours")
    assert "check: trying" not in checked.stderr   # no change run on the model
    gate = json.loads((tmp_path / "check.json").read_text())
    assert (gate["outcome"], gate["recommendations"], gate["paste"]) == ("nothing to judge", [], [])
