"""Bad options of every command, bad ``--storage`` URLs (whose secrets never show), and the cases
bounded in memory in a child process: each is refused with one line, exit code 2, no traceback,
before anything runs or starts (no stack: option errors stop at parsing)."""
import resource
import subprocess
import sys

import pytest
from _bad_input import HANG_BOUND_S, assert_refused, changed, write_yaml

from workloads import CATALOG

S = str(CATALOG / "paypay-glue-2gb.yaml")
NIGHT = str(CATALOG / "night-three-jobs.yaml")

# (arguments, a text the error line contains)
OPTIONS = {
    "no command": (["nosuch"], "quietload: No such command 'nosuch'"),
    "version with an argument": (["version", "--bogus"], "No such option: --bogus"),
    "simulate without a scenario": (["simulate"], "quietload simulate: Missing argument 'SCENARIO'"),
    "simulate --repeat 0": (["simulate", S, "--repeat", "0"], "'--repeat'"),
    "simulate --seed a word": (["simulate", S, "--seed", "one"], "'--seed'"),
    "simulate --json with --repeat": (["simulate", S, "--repeat", "2", "--json", "x.json"], "--json: names one result file"),
    "simulate unknown option": (["simulate", S, "--lingr", "5"], "No such option: --lingr"),
    "simulate --repeat 1e9": (["simulate", S, "--repeat", "1000000000"], "--repeat: 1,000,000,000 runs of at least"),
    "check --repeat 1e5": (["check", S, "--repeat", "100000"], "--repeat: 100,000 runs of at least"),
    "tune --repeat 1e9": (["tune", S, "--repeat", "1000000000"], "--repeat: 1,000,000,000 runs"),
    "tune --validate 1e9": (["tune", S, "--validate", "1000000000"], "--validate: 1,000,000,000 runs"),
    "tune.repeat 2e9": (["tune", S, "--set", "tune.repeat=2000000000"], "tune.repeat: 2,000,000,000 runs"),
    "plan --repeat 1e9": (["plan", S, "--repeat", "1000000000"], "--repeat: 1,000,000,000 runs"),
    "tune --trials 1e9": (["tune", S, "--trials", "1000000000"], "--trials: 1,000,000,000 trials of 1 model run each and 20 held-out runs"),
    "tune --trials 2**63": (["tune", S, "--trials", "9223372036854775808"], "--max-minutes 60; --trials of at most "),
    "tune --max-minutes 1": (["tune", S, "--trials", "100", "--repeat", "3", "--max-minutes", "1"], "--trials of at most 28 fits"),
    "tune --prune-factor -1": (["tune", S, "--prune-factor", "-1"], "'--prune-factor'"),
    "policy --max-minutes -5": (["policy", NIGHT, "--max-minutes", "-5"], "'--max-minutes'"),
    "policy --trials 1e6": (["policy", NIGHT, "--trials", "1000000"], "--trials: 1,000,000 trials"),
    "policy --jobs-at-once 1e6": (["policy", NIGHT, "--jobs-at-once", "1000000"], "--jobs-at-once: 1,000,000 copies of every job at once would need"),
    "policy --jobs-at-once 1e6 fits": (["policy", NIGHT, "--jobs-at-once", "1000000", "--workers", "1"],
                                       "; --jobs-at-once of at most 85 fits"),
    "policy --trials 1e9": (["policy", NIGHT, "--trials", "1000000000"], "--trials: 1,000,000,000 trials of 1 model run each and 20 held-out runs"),
    "plan --jobs-at-once 1e6": (["plan", NIGHT, "--jobs-at-once", "1000000"], "--jobs-at-once: the model run would need at least"),
    "plan --schedule --trials 1e9": (["plan", "--schedule", NIGHT, "--trials", "1000000000"],
                                     "--trials: 1,000,000,000 trials of 3 model runs each and 9 solo runs"),
    "plan --schedule --max-minutes 1": (["plan", "--schedule", NIGHT, "--max-minutes", "1"], "more than --max-minutes 1; --trials of at most"),
    "policy --jobs-at-once 1e3": (["policy", NIGHT, "--jobs-at-once", "1000", "--workers", "1"],
                                  "more than --max-minutes 60; --jobs-at-once of at most 85 fits"),
    "check without scenario or result": (["check"], "SCENARIO: give either a scenario file or --result"),
    "check --cpu-max 101": (["check", S, "--cpu-max", "101"], "'--cpu-max'"),
    "check --cpu-max nan": (["check", S, "--cpu-max", "nan"], "'--cpu-max'"),
    "check --requests-per-broker-max inf": (["check", S, "--requests-per-broker-max", "inf"], "expected a finite number, got inf"),
    "check --handler-idle-min -1": (["check", S, "--handler-idle-min", "-1"], "'--handler-idle-min'"),
    "check --deadline without a unit": (["check", S, "--deadline", "10"], "--deadline: expected a duration like 10ms"),
    "check --deadline a word": (["check", S, "--deadline", "soon"], "--deadline: expected a duration"),
    "check --repeat 0": (["check", S, "--repeat", "0"], "'--repeat'"),
    "check --result missing": (["check", "--result", "gone.json"], "gone.json: no such file"),
    "report without files": (["report"], "Missing argument"),
    "report of a missing file": (["report", "gone.json"], "gone.json: no such file"),
    "tune --trials 0": (["tune", S, "--trials", "0"], "'--trials'"),
    "tune --workers 0": (["tune", S, "--workers", "0"], "'--workers'"),
    "tune --workers -1": (["tune", S, "--workers", "-1"], "'--workers'"),
    "tune --repeat 0": (["tune", S, "--repeat", "0"], "'--repeat'"),
    "tune --validate -1": (["tune", S, "--validate", "-1"], "'--validate'"),
    "tune --storage in memory": (["tune", S, "--storage", "sqlite:///:memory:"],
                                 "--storage: sqlite:///:memory:: a study is kept in a database file or server"),
    "tune --storage memory": (["tune", S, "--storage", "memory"], "--storage: memory: a study is kept in a database file"),
    "tune --sampler": (["tune", S, "--sampler", "grid"], "--sampler: expected tpe or random, got 'grid'"),
    "tune past the limits": (["tune", S, "--set", "cluster.brokers=100000000"], "cluster.brokers: the model run would need"),
    "plan --workers 0": (["plan", S, "--workers", "0"], "'--workers'"),
    "plan --workers -1": (["plan", S, "--workers", "-1"], "'--workers'"),
    "plan --repeat 0": (["plan", S, "--repeat", "0"], "'--repeat'"),
    "plan --engine": (["plan", S, "--engine", "dask"], "--engine: expected one of"),
    "plan --load-gb nan": (["plan", S, "--load-gb", ".nan"], "--load-gb[0]: expected a finite number"),
    "plan --load-gb unclosed": (["plan", S, "--load-gb", "[1"], "--load-gb: the list '[1' is not valid YAML"),
    "plan --load-gb an alias": (["plan", S, "--load-gb", "&a 1, *a"], "aliases (*name) are not allowed"),
    "plan --brokers 0": (["plan", S, "--brokers", "0"], "--brokers[0]: expected a whole number of at least 1"),
    "plan --brokers a word": (["plan", S, "--brokers", "four"], "--brokers[0]"),
    "plan --quota": (["plan", S, "--quota", "fast"], "--quota[0]: expected a byte rate"),
    "plan past the limits": (["plan", S, "--load-gb", "1000000"], "at the plan's point current, 1e+06 GB x 1"),
    "plan --window without --schedule": (["plan", S, "--window", "2h"], "--window: only a schedule takes it: add --schedule"),
    "plan --schedule of one job": (["plan", "--schedule", S], "batch: a schedule is for a night's jobs: give `batch:` as a list"),
    "plan --schedule with --loads": (["plan", "--schedule", S, "--loads", "2"], "--schedule: schedules the night's jobs as the file states them; --loads is the capacity plan's"),
    "plan --schedule --window a number": (["plan", "--schedule", S, "--window", "7200"], "--window: expected a duration like 10ms, 2s or 5min, got '7200'"),
    "plan --schedule --trials 0": (["plan", "--schedule", S, "--trials", "0"], "'--trials'"),
    "plan --jobs-at-once with --loads": (["plan", S, "--jobs-at-once", "2", "--loads", "2"], "--jobs-at-once: counts jobs of their own where --loads counts one job's loads"),
    "plan --jobs-at-once 0": (["plan", S, "--jobs-at-once", "1,0"], "--jobs-at-once[1]: expected a whole number of at least 1"),
    "plan --job of one job": (["plan", S, "--jobs-at-once", "2", "--job", "daily"], "--job: the scenario has one job (batch); got 'daily'"),
    "stack up --brokers 0": (["stack", "up", "--brokers", "0"], "quietload stack up: Invalid value for '--brokers'"),
    "stack up --brokers 4": (["stack", "up", "--brokers", "4"], "'--brokers'"),
    "stack up --port a word": (["stack", "up", "--port", "high"], "'--port'"),
    "stack status unknown option": (["stack", "status", "--all"], "No such option: --all"),
    "stack no such command": (["stack", "restart"], "No such command 'restart'"),
    "live without a scenario": (["live"], "quietload live: Missing argument 'SCENARIO'"),
    "live --repeat 0": (["live", S, "--repeat", "0"], "'--repeat'"),
    "live --repeat 1e9": (["live", S, "--repeat", "1000000000"], "'--repeat': Input should be less than or equal to 100"),
}


@pytest.mark.parametrize("case", OPTIONS, ids=list(OPTIONS))
def test_a_bad_option_is_refused_in_one_line(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # nothing may be written; if something were, not into the tree
    args, expected = OPTIONS[case]
    assert_refused(args, expected)
    assert list(tmp_path.iterdir()) == []


SECRET = "S3cr3t-Pw"

# --storage URLs of every shape that holds a password: refused, the password nowhere
STORAGE = {
    "port that is no number": f"postgresql+psycopg://tuner:{SECRET}@127.0.0.1:notaport/x",
    "password in the query": f"postgresql+psycopg://tuner@127.0.0.1:1/x?password={SECRET}",
    "pwd in the query": f"postgresql+psycopg://tuner@127.0.0.1:1/x?sslmode=disable&pwd={SECRET}",
    "sslpassword in the query": f"postgresql+psycopg://tuner@127.0.0.1:1/x?sslpassword={SECRET}",
    "userinfo without a user": f"postgresql+psycopg://:{SECRET}@127.0.0.1:1/x",
    "percent-encoded password": "postgresql+psycopg://tuner:S3cr3t%2DPw@127.0.0.1:1/x",
    "percent-encoded query key": f"postgresql+psycopg://tuner@127.0.0.1:1/x?pass%77ord={SECRET}",
    "an @ in the password": f"postgresql+psycopg://tuner:{SECRET}@x@127.0.0.1:notaport/x",
    "no driver": f"nodriver://tuner:{SECRET}@127.0.0.1/x",
}


@pytest.mark.parametrize("case", STORAGE, ids=list(STORAGE))
def test_a_storage_url_s_password_never_shows(case, tmp_path):
    line = assert_refused(["tune", S, "--trials", "1", "--storage", STORAGE[case], "--out", str(tmp_path)], "--storage: ")
    assert SECRET not in line and "S3cr3t" not in line
    assert "***" in line


def _in_child(args: list[str], memory_bytes: int = 2 * 1024**3) -> subprocess.CompletedProcess:
    """``quietload ARGS`` in a child process whose address space is capped: a case that would
    expand past the cap dies with MemoryError instead of being refused."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    return subprocess.run([sys.executable, "-c", "from quietload.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=HANG_BOUND_S, preexec_fn=cap)


LAUGHS = """\
name: bomb
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
description: [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]
"""

BOUNDED = {
    "billion laughs": (LAUGHS, "aliases (*name) are not allowed"),
    "a hundred million brokers": (changed("cluster|brokers", 100_000_000), "cluster.brokers: the model run would need"),
    "1e8 partitions": (changed("cluster|topics|0|partitions", 100_000_000), "the model run would need"),
    "a million files": (changed("dataset|files|0", {"size": "8MB", "count": 1_000_000}), "dataset.files: the model run"),
    "a window of a million hours": (changed("windows", {"before": "1000000h", "max_duration": "2000000h"}), "windows.before"),
}


@pytest.mark.parametrize("case", BOUNDED, ids=list(BOUNDED))
def test_a_scenario_past_the_limits_is_refused_within_bounded_memory(case, tmp_path):
    scenario, expected = BOUNDED[case]
    outcome = _in_child(["simulate", write_yaml(tmp_path, "scenario.yaml", scenario), "--json", str(tmp_path / "r.json")])
    lines = outcome.stderr.splitlines()
    assert outcome.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), outcome.stderr[-2000:]
    assert expected in lines[0], lines[0]
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("command", ["simulate", "check"])
def test_force_runs_a_scenario_past_the_limits(command, tmp_path, monkeypatch):
    """With the memory limit lowered below a small scenario's estimate, the run is refused;
    --force runs it."""
    from typer.testing import CliRunner

    from quietload.cli import app
    monkeypatch.setattr("workloads.limits.MEMORY_MAX", 1024)
    scenario = write_yaml(tmp_path, "small.yaml", changed("name", "small"))
    args = [command, scenario, "--set", "dataset.files.0.size=1MB"] + (["--json", str(tmp_path / "r.json")] if command == "simulate" else [])
    assert_refused(args, "more than its limit of 1.0 KB; --force runs it anyway")
    forced = CliRunner().invoke(app, [*args, "--force"])
    assert forced.exit_code in (0, 1) and forced.stdout.startswith(("small (model, seed 1)", "PASS small", "FAIL small")), forced.output
