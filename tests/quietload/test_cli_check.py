import copy
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG

BASELINE = str(CATALOG / "paypay-glue-2gb.yaml")
FIXED = str(CATALOG / "paypay-glue-2gb-fixed.yaml")


def _check(*args: str):
    return CliRunner().invoke(app, ["check", *args])


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The published baseline checked once on the model (~1.5 s), with both report files."""
    out = tmp_path_factory.mktemp("baseline")
    result = _check(BASELINE, "--levers", "job,quota,cluster", "--junit", str(out / "check.xml"),
                    "--json", str(out / "check.json"))
    return result, out


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    out = tmp_path_factory.mktemp("fixed")
    return _check(FIXED, "--levers", "job,quota,cluster", "--json", str(out / "check.json")), out


# settings that hold the neighbours at 9.9 ms against their 10 ms SLA on seed 1
EDGE_OF_SLA = ["--set", "batch.producer.compression.type=gzip", "--set", "batch.producer.linger.ms=53",
               "--set", "batch.producer.batch.size=145000", "--set", "batch.producer.buffer.memory=326584822",
               "--set", "batch.producer.acks=all"]


def test_repeat_fails_a_setting_that_passes_on_one_seed_but_not_on_every_one(tmp_path):
    one = _check(BASELINE, *EDGE_OF_SLA)
    assert one.exit_code == 0 and one.stdout.startswith("PASS paypay-glue-2gb (model, seed 1): "), one.output
    several = _check(BASELINE, *EDGE_OF_SLA, "--repeat", "4", "--junit", str(tmp_path / "check.xml"))
    assert several.exit_code == 1, several.output
    lines = several.stdout.splitlines()
    assert lines[0] == "FAIL paypay-glue-2gb (model, seeds 1-4): 1 of 5 rules failed, 1 skipped"
    assert lines[1] == ("  neighbour_sla: on 1 of 4 seeds (3); seed 3: neighbour p99 during the load over SLA: "
                        "payment-api 10.04 ms > SLA 10.00 ms")
    properties = {p.get("name"): p.get("value") for p in ET.parse(tmp_path / "check.xml").iter("property")}
    assert (properties["seed"], properties["seeds"]) == ("1", "1,2,3,4")


def test_published_baseline_fails_on_the_neighbours_sla(baseline):
    result, _ = baseline
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("FAIL paypay-glue-2gb (model, seed 1): ")
    sla = next(line for line in lines if line.startswith("  neighbour_sla: "))
    assert "payment-api" in sla and "fraud-scoring" in sla and "> SLA 10.0 ms" in sla
    advice = lines[lines.index("recommended change") + 1:lines.index("to paste")]
    # each change with the figures that point to it and what the model predicts with it, then the --set line
    assert all(" the model predicts " in line for line in advice[:-1]) and advice[-1].startswith("  - so: --set ")
    assert "every rule passes" in advice[-2]
    # issue 25, problem 5: a change's figures after the first come from the run with the changes before it, and say so
    assert all(" (the job's owner): in the run with " in line or " (the cluster's operator): in the run with " in line
               for line in advice[1:-1])
    # stderr is not a terminal here: the simulation's closing progress line, then each change tried
    lines = [line for line in result.stderr.splitlines() if " elapsed, ETA " not in line]   # a line every 5 s of a long run
    assert lines[0].startswith("simulated paypay-glue-2gb: ")
    assert all(line.startswith("check: trying ") and line.endswith(" on the model") for line in lines[1:])


def _followed(result) -> list[str]:
    """The recommended change as command-line arguments."""
    [line] = [line for line in result.stdout.splitlines() if line.startswith("  - so: ")]
    if "cluster." in line:
        return line[len("  - so: "):].split() + ["--levers", "job,quota,cluster"]
    return line[len("  - so: "):].split()


@pytest.mark.parametrize("scenario", ["baseline", "fixed"])
def test_the_recommended_change_passes_on_the_model_when_followed(scenario, request):
    """Never a change the model predicts will fail: what check recommends, checked again, passes."""
    result, _ = request.getfixturevalue(scenario)
    followed = _check(BASELINE if scenario == "baseline" else FIXED, *_followed(result))
    assert followed.exit_code == 0, followed.output
    assert followed.stdout.startswith("PASS ")


def test_a_change_the_model_predicts_no_better_is_never_recommended(baseline):
    """The quota check used to suggest for the baseline: tried on the model, it is not among the changes."""
    result, _ = baseline
    assert "check: trying producer_byte_rate=" in result.stderr
    assert "producer_byte_rate" not in " ".join(_followed(result))


def test_baseline_reports_agree_with_the_printed_verdicts(baseline):
    result, out = baseline
    verdicts = json.loads((out / "check.json").read_text())["verdicts"]
    failed = [v for v in verdicts if v["status"] == "fail"]
    assert [f"  {v['rule']}: {v['reason']}" for v in failed] == result.stdout.splitlines()[1:1 + len(failed)]
    xmlschema.XMLSchema(Path(__file__).parents[1] / "data" / "junit-10.xsd").validate(str(out / "check.xml"))
    suite = ET.parse(out / "check.xml").getroot().find("testsuite")
    assert suite.get("name") == "quietload.check" and float(suite.get("time")) > 0 and suite.get("timestamp")
    assert (suite.get("tests"), suite.get("failures")) == ("5", str(len(failed)))
    assert [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None] == [v["rule"] for v in failed]


def test_published_fix_clears_the_broker_rules(fixed):
    _, out = fixed
    statuses = {v["rule"]: v["status"] for v in json.loads((out / "check.json").read_text())["verdicts"]}
    assert statuses == {"neighbour_sla": statuses["neighbour_sla"], "handler_idle": "pass", "broker_cpu": "pass",
                        "produce_request_rate": "pass", "load_deadline": "skipped"}


def test_published_fix_is_told_to_add_fetchers(fixed):
    result, _ = fixed
    # the neighbours wait for followers whose fetches carry the load's partitions: more fetchers
    assert _followed(result)[:2] == ["--set", "cluster.broker.num.replica.fetchers=8"]


# A small passing run in the RunResult schema, as any evaluator could write it.
CALM_RUN = {
    "schema_version": 1, "evaluator": "live", "seed": 3,
    "scenario": {"name": "calm", "batch": {"producer": {"linger.ms": 10.0, "compression.type": "zstd", "acks": "all"}}},
    "summary": {"load_seconds": 42.0,
                "tenants": [{"name": "api", "sla_p99_ms": 10.0, "p99_ms_before": 3.0, "p99_ms_during": 6.5}]},
    "brokers": [{"id": 1, "RequestHandlerAvgIdlePercent": {"during": 91.0}, "cpu_percent": {"during": 35.0}}],
    "spark": {"write_tasks": 16, "slots": 16, "waves": 1},
    "windows": {"during": [1.0, 43.0]},
    "timelines": {"produce_requests_per_s": [100] + [1200] * 42 + [100]},
}


def _result_file(tmp_path, data) -> str:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_result_file_of_any_evaluator_is_checked_without_running(tmp_path):
    result = _check("--result", _result_file(tmp_path, CALM_RUN), "--deadline", "1min")
    assert result.exit_code == 0, result.output
    assert result.stdout == ("PASS calm (live, seed 3): 5 of 5 rules passed: p99 6.5 ms of a 10.0 ms SLA (api); "
                             "handler idle 91.0 % (at least 30 %); CPU 35.0 % of 60 %; 1,200 of 5,000 produce "
                             "requests/s per broker; load 42.0 s of a 60.0 s deadline\n")
    assert result.stderr == ""


def _run_file(tmp_path, name: str, data: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_several_result_files_of_one_scenario_are_judged_together(tmp_path):
    noisy = copy.deepcopy(CALM_RUN)
    noisy["seed"] = 7
    noisy["summary"]["tenants"][0]["p99_ms_during"] = 12.5
    files = ["--result", _run_file(tmp_path, "a.json", CALM_RUN), "--result", _run_file(tmp_path, "b.json", noisy)]
    result = _check(*files, "--deadline", "1min")
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[:2] == [
        "FAIL calm (live, seeds 3, 7): 1 of 5 rules failed",
        "  neighbour_sla: on 1 of 2 seeds (7); seed 7: neighbour p99 during the load over SLA: api 12.5 ms > SLA 10.0 ms"]


@pytest.mark.parametrize("change, text", [
    ({"scenario": {"name": "other"}}, "--result: the results are runs of different scenarios (calm, other); check one at a time"),
    ({"evaluator": "model"}, "--result: the results are runs of different evaluators (live, model); check one at a time"),
])
def test_result_files_of_different_runs_are_refused(tmp_path, change, text):
    other = {**CALM_RUN, **change}
    _assert_one_line_error(_check("--result", _run_file(tmp_path, "a.json", CALM_RUN),
                                  "--result", _run_file(tmp_path, "b.json", other)), text)


def test_thresholds_and_deadline_come_from_options(tmp_path):
    result = _check("--result", _result_file(tmp_path, CALM_RUN), "--deadline", "30s", "--cpu-max", "30",
                    "--handler-idle-min", "95", "--requests-per-broker-max", "1000")
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == [
        "FAIL calm (live, seed 3): 4 of 5 rules failed",
        "  handler_idle: RequestHandlerAvgIdlePercent during the load below 95 %: broker 1 91.0 %",
        "  broker_cpu: broker CPU during the load above 30 %: broker 1 35.0 %",
        "  produce_request_rate: produce requests 1,200/s per broker during the load (1,200/s over 1 broker), "
        "above the maximum of 1,000/s",
        "  load_deadline: the load took 42.0 s, past its deadline of 30.0 s",
        "recommended change",
        "  - no change tried: no scenario file to run it on (the result names none, or it is not here)",
    ]


def test_thresholds_and_deadline_come_from_the_scenario_check_section(tmp_path):
    strict = {**CALM_RUN, "scenario": {**CALM_RUN["scenario"], "check": {
        "handler_idle_min": 95.0, "cpu_max": 60.0, "requests_per_broker_max": 5000.0, "deadline": 30.0}}}
    result = _check("--result", _result_file(tmp_path, strict))
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[1:3] == [
        "  handler_idle: RequestHandlerAvgIdlePercent during the load below 95 %: broker 1 91.0 %",
        "  load_deadline: the load took 42.0 s, past its deadline of 30.0 s"]
    # an option given on the command line wins over the scenario's section
    relaxed = _check("--result", _result_file(tmp_path, strict), "--handler-idle-min", "90", "--deadline", "1min")
    assert relaxed.exit_code == 0, relaxed.output


def _assert_one_line_error(result, text: str) -> None:
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert result.stderr.splitlines() == [f"error: {text}"]
    assert result.stdout == ""


def test_missing_scenario_file(tmp_path):
    missing = tmp_path / "nowhere.yaml"
    _assert_one_line_error(_check(str(missing)), f"scenario: {missing}: no such file")


def test_result_file_of_another_schema(tmp_path):
    path = _result_file(tmp_path, {"schema_version": 2, "runs": []})
    _assert_one_line_error(_check("--result", path),
                           f"{path}: not a quietload RunResult of schema_version 1 (found 2)")


def test_result_file_without_the_gate_s_figures(tmp_path):
    path = _result_file(tmp_path, {**CALM_RUN, "brokers": []})
    _assert_one_line_error(_check("--result", path), "RunResult lacks brokers")


def test_bad_deadline_unit_stops_before_any_run(tmp_path):
    _assert_one_line_error(_check(BASELINE, "--deadline", "10parsecs"),
                           "--deadline: expected a duration like 10ms, 2s or 5min, got '10parsecs'")


@pytest.mark.parametrize("args, text", [
    ([], "SCENARIO: give either a scenario file or --result RUNRESULT.json"),
    ([BASELINE, "--result", "run.json"], "SCENARIO: give either a scenario file or --result RUNRESULT.json"),
    (["--result", "run.json", "--seed", "2"],
     "--result: --set, --seed and --repeat change a scenario run; a result file is checked as it is"),
    (["--result", "run.json", "--repeat", "3"],
     "--result: --set, --seed and --repeat change a scenario run; a result file is checked as it is"),
])
def test_scenario_or_result_not_both(args, text):
    _assert_one_line_error(_check(*args), text)


def test_unwritable_junit_path_is_one_line(tmp_path):
    result = _check("--result", _result_file(tmp_path, CALM_RUN), "--junit", str(tmp_path))
    _assert_one_line_error(result, f"--junit: {tmp_path} is a directory; name a file")


def test_help_has_an_example():
    result = CliRunner().invoke(app, ["check", "--help"])
    assert result.exit_code == 0
    assert "Example: quietload check workloads/catalog/paypay-glue-2gb.yaml" in result.stdout


def test_check_prints_the_snippet_of_its_passing_change_with_the_cluster_lever_as_msk_lines(baseline):
    result, _ = baseline
    lines = result.stdout.splitlines()
    paste = lines[lines.index("to paste") + 1:]
    assert '  .option("kafka.acks", "all")' in paste and '  .option("kafka.enable.idempotence", "true")' in paste
    assert "  num.replica.fetchers=4  # MSK configuration" in paste
    assert ('  kafka-configs.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --command-config client.properties --alter '
            "--entity-type brokers --entity-default --add-config num.replica.fetchers=4") in paste


def test_check_prints_its_change_as_the_jobs_producer_properties_for_kafkas_own_perf_test(baseline, tmp_path):
    """Issue 36: the job's producer settings with the change laid over them, in the file Kafka's producer
    benchmark reads; the here-document writes it in a shell, and the JSON and JUnit files hold it too."""
    result, out = baseline
    lines = result.stdout.splitlines()
    start = lines.index("to check it with Kafka's own producer first (kafka-producer-perf-test.sh; replace the <...> values)")
    block = [line.removeprefix("  ") for line in lines[start + 1:]]
    properties = ["bootstrap.servers=<bootstrap-servers>", "acks=all", "enable.idempotence=true", "batch.size=131072",
                  "buffer.memory=33554432", "compression.type=zstd", "linger.ms=10", "max.in.flight.requests.per.connection=5"]
    assert block == ["cat > producer.properties <<'EOF'", *properties, "EOF",
                     "kafka-producer-perf-test.sh --producer.config producer.properties --topic <topic> --num-records 1000000 "
                     "--record-size <record-bytes> --throughput -1"]
    assert subprocess.run(["bash", "-c", "\n".join(block[:-1])], cwd=tmp_path).returncode == 0
    assert (tmp_path / "producer.properties").read_text().splitlines() == properties
    assert json.loads((out / "check.json").read_text())["producer_properties"] == properties
    suite = ET.parse(out / "check.xml").getroot().find("testsuite")
    assert "\n  ".join(block) in suite.find("system-out").text


def test_with_the_default_levers_check_names_the_wider_lever_that_passes_and_who_makes_it():
    """Issue 25, problem 1: no loop back to tune; the cluster lever that passes is named, with its snippet headed so."""
    result = _check(BASELINE)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[lines.index("recommended change") + 1].startswith("  - no job or quota change tried passes on the model")
    wider = next(line for line in lines if line.startswith("  - with the cluster's operator too, the model predicts it passes"))
    assert "--set cluster.broker.num.replica.fetchers=4" in wider and "--levers job,quota,cluster tries it" in wider
    assert "tune" not in result.stdout
    assert "to paste, if the cluster's operator agrees" in lines


def test_check_of_a_result_file_tries_the_same_changes_as_check_of_its_scenario(tmp_path):
    """Issue 25, problem 3: the same tested recommendation, never untested hints."""
    run = tmp_path / "run.json"
    assert CliRunner().invoke(app, ["simulate", BASELINE, "--json", str(run)]).exit_code == 0
    from_file, from_scenario = _check("--result", str(run)), _check(BASELINE)
    assert from_file.exit_code == from_scenario.exit_code == 1
    assert from_file.stdout == from_scenario.stdout
