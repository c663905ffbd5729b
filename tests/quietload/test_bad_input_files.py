"""Every option that reads or writes a file, given what is not one (a named pipe, a device), and
every command given one of its own inputs as an output: one line, exit 2, no traceback, within
HANG_BOUND_S, nothing left in the working directory or the temporary directory.

A named pipe hangs a reader that opens it before it looks, so those cases run in a child process
with a timeout, each under its own alarm (one process: its start is most of a case's time)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _bad_input import BASE, assert_refused, write_yaml

HANG_BOUND_S = 30
DATA = Path(__file__).parents[1] / "workloads" / "imports" / "data"
RUN = "one-record-requests-model-seed1.json"   # a calibration design point's run, as calibrate --from reads them
IS_A_PIPE = "{pipe} is a named pipe (FIFO), not a file"
WRITES_A_PIPE = "{pipe} is a named pipe (FIFO); name a file"

# (arguments, the line's text): {pipe} is a named pipe, {scenario} a small scenario, {dir} the case's directory
PIPES = {
    "simulate SCENARIO": (["simulate", "{pipe}"], "scenario: " + IS_A_PIPE),
    "check SCENARIO": (["check", "{pipe}"], "scenario: " + IS_A_PIPE),
    "tune SCENARIO": (["tune", "{pipe}"], "scenario: " + IS_A_PIPE),
    "plan SCENARIO": (["plan", "{pipe}"], "scenario: " + IS_A_PIPE),
    "a scenario's extends": (["simulate", "{dir}/child.yaml"], "scenario: " + IS_A_PIPE),
    "--set profile": (["simulate", "{scenario}", "--set", "profile={pipe}"], "profile: " + IS_A_PIPE),
    "--set dataset.rows": (["simulate", "{scenario}", "--set", "dataset.rows={pipe}"], "CSV sample " + IS_A_PIPE),
    "check --result": (["check", "--result", "{pipe}"], "error: " + IS_A_PIPE),
    "report RESULT": (["report", "{pipe}", "--out", "{dir}/report"], "error: " + IS_A_PIPE),
    "import --glue-job": (["import", "--glue-job", "{pipe}", "--out", "{dir}/o.yaml"], "--glue-job: " + IS_A_PIPE),
    "import --msk-cluster": (["import", "--msk-cluster", "{pipe}", "--out", "{dir}/o.yaml"], "--msk-cluster: " + IS_A_PIPE),
    "import --configuration": (["import", "--msk-cluster", f"{DATA}/describe-cluster-v2.json", "--configuration", "{pipe}",
                                "--out", "{dir}/o.yaml"], "--configuration: " + IS_A_PIPE),
    "import --script": (["import", "--script", "{pipe}", "--out", "{dir}/o.yaml"], "--script: " + IS_A_PIPE),
    "validate --history": (["validate", "--history", "{pipe}", "--scenario", "{scenario}"], "--history: " + IS_A_PIPE),
    "calibrate --from": (["calibrate", "--from", "{dir}/runs", "--name", "{dir}/p.yaml"],
                         f"{{dir}}/runs/{RUN} is a named pipe (FIFO), not a file"),
    "simulate --json": (["simulate", "{scenario}", "--json", "{pipe}"], "--json: " + WRITES_A_PIPE),
    "check --junit": (["check", "{scenario}", "--junit", "{pipe}"], "--junit: " + WRITES_A_PIPE),
    "check --json": (["check", "{scenario}", "--json", "{pipe}"], "--json: " + WRITES_A_PIPE),
    "plan --json": (["plan", "{scenario}", "--json", "{pipe}"], "--json: " + WRITES_A_PIPE),
    "plan --keep-results": (["plan", "{scenario}", "--keep-results", "{pipe}"], "--keep-results: {pipe} is not a directory"),
    "tune --out": (["tune", "{scenario}", "--out", "{pipe}"], "--out: {pipe} is not a directory"),
    "report --out": (["report", "{scenario}", "--out", "{pipe}"], "--out: {pipe} is not a directory"),
    "import --out": (["import", "--glue-job", f"{DATA}/get-job.json", "--out", "{pipe}"], "--out: " + WRITES_A_PIPE),
    "import --history": (["import", "--glue-job", f"{DATA}/get-job.json", "--cloudwatch", "c", "--history", "{pipe}",
                          "--out", "{dir}/o.yaml"], "--history: " + WRITES_A_PIPE),
    "import --profile": (["import", "--glue-job", f"{DATA}/get-job.json", "--cloudwatch", "c", "--profile", "{pipe}", "--force",
                          "--out", "{dir}/o.yaml"], "--profile: " + WRITES_A_PIPE),
    "tune --storage": (["tune", "{scenario}", "--storage", "sqlite:///{pipe}", "--out", "{dir}/out"],
                       "--storage: {pipe} is a named pipe (FIFO); name a database file"),
    "calibrate --name": (["calibrate", "--from", "{dir}/runs", "--name", "{pipe}", "--force"], "--name: " + WRITES_A_PIPE),
    "calibrate --results": (["calibrate", "--results", "{pipe}", "--name", "{dir}/p.yaml"], "--results: {pipe} is not a directory"),
    "validate --out": (["validate", "--out", "{pipe}"], "--out: {pipe} is not a directory"),
}


def _case_directory(root: Path) -> dict[str, str]:
    """A directory with a named pipe, a small scenario, one that extends the pipe and a run that is a pipe."""
    root.mkdir()
    (root / "tmp").mkdir()
    os.mkfifo(root / "pipe.yaml")
    (root / "runs").mkdir()
    os.mkfifo(root / "runs" / RUN)
    write_yaml(root, "scenario.yaml", BASE)
    write_yaml(root, "child.yaml", {"extends": "pipe.yaml"})
    return {"pipe": str(root / "pipe.yaml"), "scenario": str(root / "scenario.yaml"), "dir": str(root)}


# The child: each case in its own directory (its working and temporary directory), under an alarm, so
# that a reader blocked on a pipe is interrupted and named while the other cases still run.
_CHILD = """
import json, os, signal, sys, tempfile
from typer.testing import CliRunner
from quietload.cli import app

def hung(signum, frame):
    raise TimeoutError("no answer")

signal.signal(signal.SIGALRM, hung)
for case in json.load(sys.stdin):
    os.chdir(case["dir"])
    os.environ["TMPDIR"] = tempfile.tempdir = os.path.join(case["dir"], "tmp")
    signal.alarm(case["bound"])
    try:
        outcome = CliRunner().invoke(app, case["args"], prog_name="quietload")
        answer = {"exit": outcome.exit_code, "stderr": outcome.stderr, "stdout": outcome.stdout,
                  "exception": None if outcome.exception is None or isinstance(outcome.exception, SystemExit)
                  else repr(outcome.exception)}
    finally:
        signal.alarm(0)
    print(json.dumps(answer), flush=True)
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, tuple[dict[str, str], dict | None, list[str]]]:
    """Every case of PIPES run in one child process: its names, its outcome (None: it did not end in
    time) and what its directory held before."""
    base = tmp_path_factory.mktemp("pipes")
    cases = {case: _case_directory(base / f"case{i}") for i, case in enumerate(PIPES)}
    before = {case: sorted(str(p) for p in Path(names["dir"]).rglob("*")) for case, names in cases.items()}
    given = [{"dir": names["dir"], "args": [a.format(**names) for a in PIPES[case][0]], "bound": HANG_BOUND_S}
             for case, names in cases.items()]
    try:
        child = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(given), capture_output=True, text=True,
                               timeout=HANG_BOUND_S * len(given), env={**os.environ, "TMPDIR": str(base)})
        answers = [json.loads(line) for line in child.stdout.splitlines()]
    except subprocess.TimeoutExpired:
        answers = []
    return {case: (names, answers[i] if i < len(answers) else None, before[case])
            for i, (case, names) in enumerate(cases.items())}


@pytest.mark.parametrize("case", PIPES, ids=list(PIPES))
def test_a_named_pipe_is_refused_without_waiting_on_it(case, outcomes):
    names, outcome, before = outcomes[case]
    assert outcome is not None, f"no answer within {HANG_BOUND_S} s"
    lines = outcome["stderr"].splitlines()
    assert outcome["exception"] is None, outcome["exception"]
    assert outcome["exit"] == 2 and len(lines) == 1 and lines[0].startswith("error: "), outcome["stderr"][-2000:]
    assert "Traceback" not in outcome["stderr"] + outcome["stdout"]
    assert PIPES[case][1].format(**names) in lines[0], lines[0]
    assert sorted(str(p) for p in Path(names["dir"]).rglob("*")) == before   # nothing written, tmp/ left empty


# Devices and directories where a file is read or written: in-process (neither can block a stat)
DEVICES = {
    "/dev/zero as a scenario": (["simulate", "/dev/zero"], "scenario: /dev/zero is a character device, not a file"),
    "/dev/zero as a result": (["report", "/dev/zero", "--out", "{dir}/r"], "/dev/zero is a character device, not a file"),
    "a directory as a result": (["check", "--result", "{dir}"], "{dir} is a directory, not a file"),
    "a directory as a Glue job": (["import", "--glue-job", "{dir}", "--out", "{dir}/o.yaml"], "--glue-job: {dir} is a directory, not a file"),
    "/dev/zero as a history": (["validate", "--history", "/dev/zero", "--scenario", "{dir}/s.yaml"], "--history: /dev/zero is a character device"),
    "/dev/null as --json": (["simulate", "{dir}/s.yaml", "--json", "/dev/null"], "--json: /dev/null is a character device; name a file"),
    "/dev/null as --junit": (["check", "{dir}/s.yaml", "--junit", "/dev/null"], "--junit: /dev/null is a character device; name a file"),
    "/dev/null as import --out": (["import", "--glue-job", f"{DATA}/get-job.json", "--out", "/dev/null"], "--out: /dev/null is a character device"),
}


@pytest.mark.parametrize("case", DEVICES, ids=list(DEVICES))
def test_a_device_or_a_directory_is_named_as_such(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_yaml(tmp_path, "s.yaml", BASE)
    args, expected = DEVICES[case]
    assert_refused([a.format(dir=tmp_path) for a in args], expected.format(dir=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]


# A command's own input named as its output: refused before any work, the input as it was
def _tuned(tmp_path: Path) -> list[str]:
    write_yaml(tmp_path, "small-tuned.yaml", {**BASE, "name": "small"})   # what tune writes for scenario "small"
    return ["tune", str(tmp_path / "small-tuned.yaml"), "--out", str(tmp_path), "--trials", "1"]


def _kept_at(name: str, *args: str):
    """A command run on the small scenario kept at ``name``, a file the command names itself by default."""
    def arguments(t: Path) -> list[str]:
        (t / "results").mkdir()
        write_yaml(t / "results", Path(name).name, BASE)
        return [args[0], name, *args[1:]]
    return arguments


def _made(name: str, make, *args: str):
    """A command run on the small scenario with ``name`` (a file it writes by default) made by ``make`` first."""
    def arguments(t: Path) -> list[str]:
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        make(name)
        return [args[0], str(t / "s.yaml"), *args[1:]]
    return arguments


def _run_of(source: str, *overrides: str):
    """What writes, at a path, a result file's fields that name its run (its scenario file, its --set values)."""
    return lambda name: Path(name).write_text(json.dumps({"scenario": {"name": "small", "source": source},
                                                          "overrides": list(overrides)}))


INPUTS = {
    "import --out the Glue job": (lambda t: ["import", "--glue-job", str(t / "job.json"), "--out", str(t / "job.json")],
                                  "--out: {t}/job.json is the file --glue-job reads; name another"),
    "import --history the Glue job": (lambda t: ["import", "--glue-job", str(t / "job.json"), "--cloudwatch", "c",
                                                 "--history", str(t / "job.json"), "--out", str(t / "o.yaml")],
                                      "--history: {t}/job.json is the file --glue-job reads"),
    "import --history the --out": (lambda t: ["import", "--glue-job", str(t / "job.json"), "--cloudwatch", "c",
                                              "--history", str(t / "o.yaml"), "--out", str(t / "o.yaml")],
                                   "--history: {t}/o.yaml is the file --out writes"),
    "simulate --json the scenario": (lambda t: ["simulate", str(t / "s.yaml"), "--json", str(t / "s.yaml")],
                                     "--json: {t}/s.yaml is the file SCENARIO reads"),
    "check --junit the scenario, by a link": (lambda t: ["check", str(t / "s.yaml"), "--junit", str(t / "link.yaml")],
                                              "--junit: {t}/link.yaml is the file SCENARIO reads"),
    "check --json the --junit": (lambda t: ["check", str(t / "s.yaml"), "--junit", str(t / "c.xml"), "--json", str(t / "c.xml")],
                                 "--json: {t}/c.xml is the file --junit writes"),
    "check --json the result": (lambda t: ["check", "--result", str(t / "job.json"), "--json", str(t / "job.json")],
                                "--json: {t}/job.json is the file --result reads"),
    "plan --json the scenario": (lambda t: ["plan", str(t / "s.yaml"), "--json", str(t / "s.yaml")],
                                 "--json: {t}/s.yaml is the file SCENARIO reads"),
    "report --out over its input": (lambda t: ["report", str(t / "report.json"), "--out", str(t)],
                                    "--out: {t}/report.json is the file the report reads"),
    "tune --out over its scenario": (_tuned, "--out: {t}/small-tuned.yaml is the file SCENARIO reads"),
    # the files a command names itself (results/...) are held to the same rule as those named with an option
    # a result is named after its scenario's file: another file's run, or what is no run, is never replaced
    "simulate's default result another s.yaml's": (_made("results/s-seed1.json", _run_of("elsewhere/s.yaml"), "simulate"),
                                                   "--json: results/s-seed1.json holds a run of elsewhere/s.yaml, not of {t}/s.yaml; "
                                                   "name another file with --json or remove it"),
    "simulate's default result the same file's with other --set": (
        _made("results/s-seed1.json", _run_of("s.yaml", "windows.before=1s"), "simulate"),
        "--json: results/s-seed1.json holds a run of s.yaml with --set windows.before=1s, not of {t}/s.yaml;"),
    "simulate --repeat's second result no run": (_made("results/s-seed2.json", lambda n: Path(n).write_text("notes"),
                                                       "simulate", "--repeat", "2"),
                                                 "--json: results/s-seed2.json holds no run, not of {t}/s.yaml;"),
    "plan's default plan another s.yaml's": (
        _made("results/s-plan.json", lambda n: Path(n).write_text(json.dumps({"scenario": "small", "source": "elsewhere/s.yaml"})),
              "plan"),
        "--json: results/s-plan.json holds a plan of elsewhere/s.yaml, not of {t}/s.yaml; name another file with --json or remove it"),
    "plan's default CSV a directory": (_made("results/s-plan.csv", os.makedirs, "plan"),
                                       "--json: results/s-plan.csv is a directory; name a file"),
    "tune's default tuned scenario over its scenario": (_kept_at("results/small-tuned.yaml", "tune", "--trials", "1"),
                                                        "--out: results/small-tuned.yaml is the file SCENARIO reads"),
    "plan --schedule's default schedule over its scenario": (_kept_at("results/small-schedule.json", "plan", "--schedule"),
                                                             "--json: results/small-schedule.json is the file SCENARIO reads"),
    "plan --schedule's default scenario over its scenario": (_kept_at("results/small-schedule.yaml", "plan", "--schedule"),
                                                             "--out: results/small-schedule.yaml is the file SCENARIO reads"),
    "plan --schedule's default scenario a named pipe": (_made("results/small-schedule.yaml", os.mkfifo, "plan", "--schedule"),
                                                        "--out: results/small-schedule.yaml is a named pipe (FIFO); name a file"),
    "plan --schedule --json X --out X": (lambda t: ["plan", "--schedule", str(t / "s.yaml"), "--json", str(t / "x.json"),
                                                    "--out", str(t / "x.json")], "--json: {t}/x.json is the file --out writes"),
    "plan --schedule --json X.yaml, its scenario's name": (lambda t: ["plan", "--schedule", str(t / "s.yaml"), "--json", str(t / "x.yaml")],
                                                           "--json: {t}/x.yaml is the file --out writes"),
    "plan --json X.csv, its CSV's name": (lambda t: ["plan", str(t / "s.yaml"), "--json", str(t / "p.csv")],
                                          "--json: {t}/p.csv is the file --json's CSV writes"),
    "policy --out with its quota script a directory": (_made("out/small-quotas.sh", os.makedirs, "policy", "--out", "out"),
                                                       "--out: out/small-quotas.sh is a directory; name a file"),
    "policy --out with its proof a named pipe": (_made("out/small-policy.json", os.mkfifo, "policy", "--out", "out"),
                                                 "--out: out/small-policy.json is a named pipe (FIFO); name a file"),
    # a study, a policy's proof and a schedule are named after the scenario's name: another scenario file's,
    # or the same file's with other --set values, levers or a policy, is never replaced
    "tune's default study another s.yaml's": (_made("results/small-study.json", _run_of("elsewhere/s.yaml"), "tune", "--trials", "1"),
                                              "--out: results/small-study.json holds a study of elsewhere/s.yaml, not of {t}/s.yaml; "
                                              "name another directory with --out or remove it"),
    "tune's default study of other levers": (
        _made("results/small-study.json", lambda n: Path(n).write_text(json.dumps(
            {"scenario": {"name": "small", "source": "s.yaml", "overrides": [], "levers": "job,quota,cluster", "policy": "none"}})),
            "tune", "--trials", "1"),
        "--out: results/small-study.json holds a study of s.yaml with levers job,quota,cluster, not with levers job,quota; "
        "name another directory with --out or remove it"),
    "policy's default proof the same file's with other --set": (
        _made("results/small-policy.json", lambda n: Path(n).write_text(json.dumps(
            {"scenario": "small", "source": "s.yaml", "overrides": ["windows.before=1s"], "jobs_at_once": 1})), "policy"),
        "--out: results/small-policy.json holds a policy of s.yaml with --set windows.before=1s, not of {t}/s.yaml; "
        "name another directory with --out or remove it"),
    "policy's default proof of another worst night": (
        _made("results/small-policy.json", lambda n: Path(n).write_text(json.dumps(
            {"scenario": "small", "source": "s.yaml", "overrides": [], "jobs_at_once": 2})), "policy"),
        "--out: results/small-policy.json holds a policy of s.yaml with jobs_at_once 2, not with jobs_at_once 1; "
        "name another directory with --out or remove it"),
    "plan --schedule's default schedule another s.yaml's": (
        _made("results/small-schedule.json", lambda n: Path(n).write_text(json.dumps({"scenario": "small", "source": "elsewhere/s.yaml"})),
              "plan", "--schedule"),
        "--json: results/small-schedule.json holds a schedule of elsewhere/s.yaml, not of {t}/s.yaml; name another file with --json or remove it"),
    "plan --schedule --out a scenario kept there": (
        lambda t: [write_yaml(t, "night.yaml", {**BASE, "name": "mine"}), "plan", "--schedule", str(t / "s.yaml"), "--out", "night.yaml"][1:],
        "--out: night.yaml holds scenario 'mine', not 'small-schedule'; name another file with --out or remove it"),
    "import --profile over the Glue job": (lambda t: ["import", "--glue-job", str(t / "job.json"), "--cloudwatch", "c", "--profile",
                                                      str(t / "job.json"), "--force", "--out", str(t / "o.yaml")],
                                           "--profile: {t}/job.json is the file --glue-job reads"),
}


@pytest.mark.parametrize("case", INPUTS, ids=list(INPUTS))
def test_an_input_named_as_an_output_is_refused_and_kept(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "job.json").write_text((DATA / "get-job.json").read_text())
    (tmp_path / "report.json").write_text("{}")
    write_yaml(tmp_path, "s.yaml", BASE)
    (tmp_path / "link.yaml").symlink_to(tmp_path / "s.yaml")
    args, expected = INPUTS[case]
    arguments = args(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert_refused(arguments, expected.format(t=tmp_path))
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


# A key twice, in every kind of file a command reads
def _twice(name: str, text: str, anchor: str, repeat: str):
    """A file whose text has ``repeat`` again right after ``anchor``."""
    def write(t: Path) -> str:
        assert anchor in text
        (t / name).write_text(text.replace(anchor, anchor + repeat, 1))
        return str(t / name)
    return write


_SCENARIO = yaml.safe_dump(BASE, sort_keys=False)
_RESULT = (Path(__file__).parents[1] / "golden" / "paypay-glue-2gb.json").read_text()
_STUDY = (Path(__file__).parents[1] / "golden" / "tune" / "paypay-glue-2gb-study.json").read_text()
_PLAN = (Path(__file__).parents[1] / "golden" / "plan" / "plan.json").read_text()
_PROFILE = (Path(__file__).parents[2] / "workloads" / "profiles" / "default.yaml").read_text()
_JOB = (DATA / "get-job.json").read_text()

TWICE = {
    "a scenario's top key": (lambda t: ["simulate", _twice("s.yaml", _SCENARIO, "name: small\n", "name: other\n")(t)],
                             "s.yaml: name is given twice (lines 1 and 2); a key is said once"),
    "a scenario's producer key": (lambda t: ["check", _twice("s.yaml", _SCENARIO, "    linger.ms: 5\n", "    linger.ms: 90\n")(t)],
                                  "s.yaml: batch.producer.linger.ms is given twice"),
    "a profile's key": (lambda t: ["simulate", write_yaml(t, "s.yaml", BASE), "--set",
                                   "profile=" + _twice("p.yaml", _PROFILE, "name: default\n", "name: other\n")(t)],
                        "p.yaml: name is given twice"),
    "a result's figure": (lambda t: ["check", "--result", _twice("r.json", _RESULT, '"seed": 1,', '"seed": 2,')(t)],
                          "r.json: seed is given twice; a key is said once"),
    "a study's kind": (lambda t: ["report", _twice("st.json", _STUDY, '"kind": "quietload-study",', '"kind": "x",')(t),
                                  "--out", str(t / "r")], "st.json: kind is given twice"),
    "a plan's seed": (lambda t: ["report", _twice("pl.json", _PLAN, '"seed": 1,', '"seed": 2,')(t), "--out", str(t / "r")],
                      "pl.json: seed is given twice"),
    "a Glue job's worker count": (lambda t: ["import", "--glue-job", _twice("j.json", _JOB, '"NumberOfWorkers": 3,',
                                                                          '"NumberOfWorkers": 2,')(t), "--out", str(t / "o.yaml")],
                                  "--glue-job: {t}/j.json: Job.NumberOfWorkers is given twice"),
}


@pytest.mark.parametrize("case", TWICE, ids=list(TWICE))
def test_a_key_given_twice_is_refused_naming_it(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args, expected = TWICE[case]
    assert_refused(args(tmp_path), expected.format(t=tmp_path))
    assert not {"o.yaml", "r", "results"} & {p.name for p in tmp_path.iterdir()}


def test_a_gate_result_is_judged_by_its_rules_not_its_stored_verdict(tmp_path):
    """A gate result that says passed over its own failed rules is shown as FAIL; one whose verdict is
    no boolean is refused."""
    from typer.testing import CliRunner

    from quietload.cli import app
    gate = {"gate": "quietload.check", "passed": True, "outcome": "pass", "scenario": "s", "evaluator": "model", "seed": 1,
            "verdicts": [{"rule": "neighbour_sla", "status": "fail", "reason": "p99 over SLA"},
                         {"rule": "broker_cpu", "status": "fail", "reason": "CPU above 60 %"}]}
    (tmp_path / "g.json").write_text(json.dumps(gate))
    outcome = CliRunner().invoke(app, ["report", str(tmp_path / "g.json"), "--out", str(tmp_path / "r")])
    assert outcome.exit_code == 0, outcome.output
    report = (tmp_path / "r" / "report.md").read_text()
    assert "gate result of s (model, seed 1): FAIL" in report and "PASS" not in report
    (tmp_path / "g.json").write_text(json.dumps({**gate, "passed": "maybe"}))
    assert_refused(["report", str(tmp_path / "g.json"), "--out", str(tmp_path / "r2")], "g.json: passed must be true or false, got 'maybe'")


def test_tune_s_workers_stop_at_its_trials_and_the_cores(tmp_path):
    from tuner.runner import Execution, usable_cores
    from tuner.tune import TuneRequest, settings_for
    from workloads import Scenario
    scenario = Scenario.from_yaml(write_yaml(tmp_path, "s.yaml", BASE))
    request = TuneRequest(tmp_path / "s.yaml", trials=2, workers=64, out_dir=tmp_path)
    assert settings_for(request, scenario).workers == min(2, usable_cores())
    assert Execution(workers=64).checked().workers == usable_cores()
