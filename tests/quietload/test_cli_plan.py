import csv
import json

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG
from workloads.broker_types import BROKER_TYPES

FIXED = str(CATALOG / "paypay-glue-2gb-fixed.yaml")
# the fraud-scoring service's SLA at 10.5 ms: 6 brokers hold it at 10.04 ms under the lightest load
SMALL = ["--set", "windows.before=2s", "--set", "windows.after=2s", "--set", "dataset.files.0.size=512MB",
         "--set", "tenants.1.sla_p99=10.5ms"]


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    """The published fix (512 MB) on its cluster, with 6 brokers and with one broker down: 3 x 3 runs (~3 s)."""
    out = tmp_path_factory.mktemp("plan")
    result = _invoke("plan", FIXED, *SMALL, "--load-gb", "0.25", "--loads", "1,2", "--brokers", "6", "--broker-down",
                     "--extend", "0", "--workers", "2", "--json", str(out / "plan.json"))
    return result, out


def test_plan_on_several_seeds_says_so_and_counts_every_run(tmp_path):
    result = _invoke("plan", FIXED, *SMALL, "--load-gb", "0.25", "--loads", "1", "--repeat", "2", "--workers", "2",
                     "--extend", "0", "--json", str(tmp_path / "plan.json"))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "paypay-glue-2gb-fixed plan (model, seeds 1-2, each point at its worst): 1 cluster option(s), 4 runs"
    assert json.loads((tmp_path / "plan.json").read_text())["seeds"] == [1, 2]
    rows = list(csv.DictReader((tmp_path / "plan.csv").open()))
    assert [row["seed"] for row in rows] == ["1-2", "1-2"]


def test_plan_prints_each_cluster_options_capacity_and_writes_the_plan(planned):
    result, out = planned
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "paypay-glue-2gb-fixed plan (model, seed 1; --repeat N judges each point on N seeds): 3 cluster option(s), 9 runs"
    assert lines[1].startswith("current plan: 1 load x 16 cores, 0.5 GB each: ") and lines[1].endswith(" OVER SLA")
    assert [line.split()[0] for line in lines[3:7]] == ["cluster", "current", "brokers=6", "broker_down"]
    assert lines[-1] == f"wrote {out / 'plan.json'}, {out / 'plan.csv'}"
    plan = json.loads((out / "plan.json").read_text())
    assert (plan["kind"], plan["schema_version"], plan["grid"]) == (
        "quietload-plan", 1, {"load_gb": [0.25], "loads": [1, 2], "spacing_s": [0.0], "executors": [2], "cores": 8})
    options = {o["name"]: o for o in plan["options"]}
    six = options["brokers=6"]
    assert six["max_ingest_gb_per_hour"] is not None and six["headroom"] > 0
    assert f"{six['max_ingest_gb_per_hour']:,.0f} GB/h" in lines[5]
    assert options["broker_down"]["changes"] == {"cluster.brokers": 2, "down_broker": 2}
    rows = list(csv.DictReader((out / "plan.csv").open()))
    assert len(rows) == 9 and {r["option"] for r in rows} == {"current", "brokers=6", "broker_down"}
    # stderr is not a terminal here: a line every 5 s of the grid, then the closing line
    *every_5_s, closing = result.stderr.splitlines()
    assert closing.startswith("planned paypay-glue-2gb-fixed: 9 points in ")
    assert all(" points, " in line and " elapsed, ETA " in line for line in every_5_s)


def test_report_reads_a_plan_file_next_to_nothing_else(planned, tmp_path):
    _, out = planned
    outcome = _invoke("report", str(out / "plan.json"), "--out", str(tmp_path / "report"))
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.splitlines()[-1] == f"wrote {tmp_path / 'report' / 'plans.csv'}"
    assert "## Capacity plan: paypay-glue-2gb-fixed" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.parametrize("args, message", [
    (["--broker-type", "m5.huge"], "error: --broker-type[0]: unknown broker type 'm5.huge' (known: " + ", ".join(BROKER_TYPES) + ")"),
    (["--profile", "m5.xlarge"], "error: --profile: plan's broker types are --broker-type (e.g. kafka.m5.xlarge); "
                                 "the cost profile is the scenario's `profile` (--set profile=NAME)"),
    (["--set", "plan.cpus=[4]"], "error: plan.cpus: unknown key (known keys: broker_down, broker_type, brokers, executors, load_gb, loads, quota, replication.factor, spacing, window)"),
    (["--load-gb", ""], "error: --load-gb: expected at least one value"),
    (["--engine", "flink"], "error: --engine: expected one of local, spark, got 'flink'"),
    (["--brokers", "2"], "error: what-if brokers=2: cluster.topics[0].replication.factor: 3 is more than the 2 brokers"),
    (["--spacing", "60"], "error: --spacing[0]: expected a duration with a unit like 10ms or 5min, got 60"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    result = _invoke("plan", FIXED, *SMALL, "--json", str(tmp_path / "plan.json"), *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1] == message and "Traceback" not in result.output
    assert not (tmp_path / "plan.json").exists()


def test_a_json_file_that_is_neither_a_result_nor_a_plan_is_refused(tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"kind": "something-else"}')
    result = _invoke("report", str(other), "--out", str(tmp_path / "report"))
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {other}: not a quietload RunResult of schema_version 1 (found None)"


def test_refine_bisects_concurrent_loads_between_the_bracket_and_says_so(tmp_path):
    """With 8 replica fetchers the fix holds one load and not eight: two bisections in whole loads."""
    result = _invoke("plan", FIXED, *SMALL, "--set", "cluster.broker.num.replica.fetchers=8", "--loads", "1,8",
                     "--extend", "0", "--refine", "2", "--json", str(tmp_path / "plan.json"))
    assert result.exit_code == 0, result.output
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert plan["refine_steps"] == 2
    refined = [(p["loads"], p["feasible"]) for p in plan["points"] if p.get("refined")]
    assert [loads for loads, _ in refined][0] == 4 and len(refined) == 2
    assert all(1 < loads < 8 for loads, _ in refined)      # between the bracket's points, never beyond them
    assert ", 2 of them bisecting capacities between grid points" in result.stdout


def test_the_issue_s_plan_brackets_its_first_breach_in_cores_and_says_what_to_try(tmp_path):
    """Issue 25, problem 6: on the published case --load-gb 1,2 changed nothing but the file size (every row
    'below the smallest point tried', the plot spanning 763-768 GB/h, a 1.04x headroom, no next step)."""
    result = _invoke("plan", str(CATALOG / "paypay-glue-2gb.yaml"), "--load-gb", "1,2", "--json", str(tmp_path / "plan.json"))
    assert result.exit_code == 0, result.output
    plan = json.loads((tmp_path / "plan.json").read_text())
    points = {(p["load_gb"], p["loads"], p["executors"] * p["cores"]): p for p in plan["points"]}
    # a bigger file takes longer, not faster: the same job's ingest within 5 %; half the cores, about half the ingest
    assert abs(points[(2.0, 1, 16)]["ingest_gb_per_hour"] / points[(1.0, 1, 16)]["ingest_gb_per_hour"] - 1) < 0.05
    assert 0.4 < points[(1.0, 1, 8)]["ingest_gb_per_hour"] / points[(1.0, 1, 16)]["ingest_gb_per_hour"] < 0.6
    (current,) = plan["options"]
    # the grid went down in cores until a load held: the capacity is bracketed, not 'below the smallest point tried'
    assert current["max_point"] is not None and current["first_breach"] is not None and current["bound"] is None
    assert current["max_point"]["executors"] * current["max_point"]["cores"] < 16
    lines = result.stdout.splitlines()
    row = next(line for line in lines if line.startswith("current  "))
    assert "below the smallest point tried" not in row and f"none ({current['headroom']:.2f}x)" in row
    assert lines[-3].startswith("next: the current cluster holds 1 load x ")


def test_a_plan_is_named_after_its_scenario_file_and_its_set_values_and_never_replaces_another_files(tmp_path, monkeypatch):
    from _bad_input import BASE, write_yaml
    monkeypatch.chdir(tmp_path)
    (tmp_path / "copy").mkdir()
    write_yaml(tmp_path, "s.yaml", BASE)
    write_yaml(tmp_path / "copy", "s.yaml", BASE)
    grid = ["--loads", "1", "--extend", "0", "--workers", "1"]
    for extra in ([], ["--set", "windows.after=2s"], []):     # the third: a rerun replaces its own plan
        assert _invoke("plan", "s.yaml", *extra, *grid).exit_code == 0
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == [
        "s-plan.csv", "s-plan.json", "s-windows.after=2s-plan.csv", "s-windows.after=2s-plan.json"]
    plan = json.loads((tmp_path / "results" / "s-windows.after=2s-plan.json").read_text())
    assert (plan["source"], plan["overrides"]) == ("s.yaml", ["windows.after=2s"])
    refused = _invoke("plan", "copy/s.yaml", *grid)
    assert (refused.exit_code, refused.stderr.strip()) == (2, "error: --json: results/s-plan.json holds a plan of s.yaml, not of "
                                                              "copy/s.yaml; name another file with --json or remove it")
