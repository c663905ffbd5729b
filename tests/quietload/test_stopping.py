"""A command stopped mid-run (SIGTERM to it, as `kill` sends; SIGTERM to its process group, as
`timeout` sends; Ctrl-C's SIGINT to the group) ends with every worker process it started within
the 5 s bound, says so in one line, and a study it ran resumes where it stopped."""
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import psutil
from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG

QUIETLOAD = Path(sys.executable).with_name("quietload")
PAYPAY = str(CATALOG / "paypay-glue-2gb.yaml")
NIGHT = str(CATALOG / "night-three-jobs.yaml")
BOUND_S = 5.0        # the bound: the command and every process it started gone within it
STARTING_S = 120.0   # the most a run may take to get going on a busy machine


def _every_core() -> None:
    """The run may use every core of the machine: a command starts no more workers than it has cores."""
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except OSError:   # a cpuset narrower than the machine: the cores it allows
        pass


@contextmanager
def started(args: list[str], cwd: Path) -> Iterator[subprocess.Popen]:
    """The command, its stderr in ``cwd/stderr``; killed with its group if the test fails first."""
    with open(cwd / "stderr", "w") as err:
        run = subprocess.Popen([str(QUIETLOAD), *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=err, start_new_session=True, preexec_fn=_every_core)
    try:
        yield run
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()


def stderr_lines(run_dir: Path) -> list[str]:
    return (run_dir / "stderr").read_text().splitlines()


def worker_count(run: subprocess.Popen) -> int:
    """The worker processes of a run with ``--workers 2``: on one core it runs everything itself."""
    return 2 if len(os.sched_getaffinity(run.pid)) >= 2 else 0


def workers(run: subprocess.Popen) -> list[psutil.Process]:
    try:
        return psutil.Process(run.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def running(process: psutil.Process) -> bool:
    """Whether ``process`` still runs (not exited, not a zombie waiting to be reaped)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:   # reaped meanwhile
        return False


def wait_until(run: subprocess.Popen, ready, what: str) -> None:
    deadline = time.monotonic() + STARTING_S
    while not ready():
        assert run.poll() is None, f"ended before {what}"
        assert time.monotonic() < deadline, f"no {what} within {STARTING_S:.0f} s"
        time.sleep(0.1)


def completed_trials(database: Path) -> int:
    try:
        with closing(sqlite3.connect(database, timeout=30)) as connection:
            return connection.execute("SELECT count(*) FROM trials WHERE state = 'COMPLETE'").fetchone()[0]
    except sqlite3.Error:   # not created yet
        return 0


def trial_states(database: Path) -> dict[str, int]:
    with closing(sqlite3.connect(database, timeout=30)) as connection:
        return dict(connection.execute("SELECT state, count(*) FROM trials GROUP BY state").fetchall())


def stopped(run: subprocess.Popen, stop: signal.Signals, group: bool) -> None:
    """Sends ``stop`` (to the run's process group with ``group``); returns once the run and every
    process it had started are gone, which must be within ``BOUND_S``."""
    started_workers = workers(run)
    (os.killpg if group else os.kill)(run.pid, stop)
    run.wait(timeout=BOUND_S)
    deadline = time.monotonic() + BOUND_S
    while left := [p for p in started_workers if running(p)]:
        assert time.monotonic() < deadline, f"left behind: {[p.pid for p in left]}"
        time.sleep(0.05)
    assert run.returncode == 128 + stop


def kept(study: str, done: int, database: Path) -> str:
    return (f"study {study!r} keeps its {done} completed trial{'s' if done > 1 else ''} in sqlite:///{database}: "
            "the same command resumes it")


def test_sigterm_ends_tune_and_its_workers_and_the_same_command_resumes_the_study(tmp_path):
    database = tmp_path / "study.db"
    args = ["tune", PAYPAY, "--trials", "500", "--workers", "2", "--validate", "0",   # trials run to their end: none pruned
            "--storage", f"sqlite:///{database}", "--out", str(tmp_path), "--no-prune"]
    with started(args, tmp_path) as run:
        count = worker_count(run)
        wait_until(run, lambda: completed_trials(database) >= 1 and len(workers(run)) == count, "completed trial")
        stopped(run, signal.SIGTERM, group=False)   # to the command alone: it ends its workers itself
    done, lines = completed_trials(database), stderr_lines(tmp_path)
    assert lines[-1].startswith("stopping: SIGTERM received; ")   # then where the progress was, once it showed
    assert lines[-1].endswith(("; 2 worker processes ended; " if count else "; ") + kept("paypay-glue-2gb-1f7fcfd0", done, database))
    assert [line for line in lines if not line.startswith("tuning paypay-glue-2gb: ")] == lines[-1:]
    assert set(trial_states(database)) <= {"COMPLETE", "FAIL"}    # the trials running when it stopped failed
    resumed = CliRunner().invoke(app, [*args[:3], str(done + 1), "--workers", "1", *args[6:]])
    assert resumed.exit_code in (0, 1), resumed.output
    assert trial_states(database)["COMPLETE"] == done + 1


def test_timeout_s_sigterm_to_the_group_ends_plan_schedule_and_its_workers(tmp_path):
    with started(["plan", "--schedule", NIGHT, "--workers", "2", "--json", str(tmp_path / "night.json"),
                  "--out", str(tmp_path / "night.yaml")], tmp_path) as run:
        count = worker_count(run)
        wait_until(run, lambda: len(workers(run)) == count and any(" runs at most" in line for line in stderr_lines(tmp_path)),
                   "progress line")
        stopped(run, signal.SIGTERM, group=True)
    lines = stderr_lines(tmp_path)
    assert lines[-1].startswith("stopping: SIGTERM received; scheduling night-three-jobs at ")
    assert [line for line in lines if not line.startswith("scheduling night-three-jobs: ")] == lines[-1:]
    assert not (tmp_path / "night.json").exists() and not (tmp_path / "night.yaml").exists()


def test_ctrl_c_ends_policy_within_a_trial(tmp_path):
    out = tmp_path / "policy"
    database = out / "paypay-glue-2gb-policy-study.db"
    with started(["policy", PAYPAY, "--trials", "500", "--out", str(out)], tmp_path) as run:
        wait_until(run, lambda: completed_trials(database) >= 1, "completed trial")
        stopped(run, signal.SIGINT, group=True)
    lines = stderr_lines(tmp_path)
    assert lines[-1].startswith("stopping: SIGINT received; ")
    assert lines[-1].endswith(kept("paypay-glue-2gb-policy-1-1f7fcfd0", completed_trials(database), database))
    assert [line for line in lines if not line.startswith("policy for paypay-glue-2gb: ")] == lines[-1:]
    assert [path.name for path in out.iterdir()] == [database.name]   # no policy written


def test_every_bench_that_starts_a_live_stack_unwinds_on_sigterm():
    """A bench killed by SIGTERM's default action would leave its CPU budgets behind, the rest of the
    machine held to the job's cores until the next run removes them: each unwinds as Ctrl-C does."""
    import ast
    from pathlib import Path
    live = []
    for path in sorted(Path("bench").glob("*.py")):
        tree = ast.parse(path.read_text())
        names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
        if names & {"LiveEvaluator", "live_evaluator"}:
            live.append(path.name)
            [entry] = [node for node in tree.body if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)]
            assert "with stop_signals_interrupt()" in ast.unparse(entry), path
    assert len(live) >= 6
