"""``quietload tune`` on a real PostgreSQL server: tuners on several machines (here, several
processes) share one study, resume it, and never show the storage URL's password."""
from __future__ import annotations

import importlib.util
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import optuna
import psycopg
import pytest

from simulator.live.service import Recorded, Service
from tuner import open_storage
from workloads import CATALOG, ScenarioError

pytestmark = pytest.mark.live

QUIETLOAD = Path(sys.executable).parent / "quietload"
SCENARIO = str(CATALOG / "paypay-glue-2gb.yaml")
# a 64 MB file and SLAs every trial can meet: a trial takes about half a second
QUICK_TRIALS = ["--set", "dataset.files.0.size=64MB", "--set", "windows.before=1s", "--set", "windows.after=1s",
                "--set", "tenants.0.sla_p99=100ms", "--set", "tenants.1.sla_p99=100ms",
                "--no-prune"]    # every trial runs to its end: the storage, not pruning, is under test
TUNER_PASSWORD = "quiet7Tuner9pw"
OUTPUTS = ["study.json", "recommendation.yaml", "tuned.yaml", "snippets.txt"]
READY_WITHIN_S = 60


class PostgresServer(Service[bool]):
    """A PostgreSQL server on 127.0.0.1 whose role ``tuner`` logs in with a password: initdb and
    postgres from the pgserver wheel, a service of the live stack's kind (start cleans first;
    stop; clean), its data, log and socket in ``run_dir``."""

    name = "PostgreSQL"
    state_file = "postgres.json"
    files = re.compile(r"postgres\.json(\.tmp)?|postgres\.log|data|superuser-password|\.s\.PGSQL\.\d+(\.lock)?")
    stop_signal = signal.SIGINT      # fast shutdown: disconnects clients, then exits

    def __init__(self, run_dir: Path) -> None:
        super().__init__(run_dir, start_timeout=READY_WITHIN_S, stop_timeout=30.0)

    @property
    def port(self) -> int:
        return self.state()["port"]

    def processes(self) -> list[Recorded]:
        state = self.state()
        return [Recorded("postgres", state["pid"], str(self.run_dir / "data"))] if state else []

    def status(self) -> bool:
        return any(self.running(process) for process in self.processes())

    def url(self, database: str, password: str = TUNER_PASSWORD, port: int | None = None) -> str:
        return f"postgresql+psycopg://tuner:{password}@127.0.0.1:{port or self.port}/{database}"

    def create_database(self, name: str) -> str:
        with self._admin() as admin:
            admin.execute(f'CREATE DATABASE "{name}" OWNER tuner')
        return self.url(name)

    def _admin(self, port: int | None = None) -> psycopg.Connection:
        return psycopg.connect(host=str(self.run_dir), port=port or self.port, user="postgres", dbname="postgres",
                               autocommit=True)

    def _start(self) -> None:
        programs, as_user = _postgres_programs(), _server_user()
        self.run_dir.mkdir(parents=True, exist_ok=True)   # clean removed it if it was empty
        if as_user:
            os.chown(self.run_dir, as_user["user"], as_user["group"])
        (self.run_dir / "superuser-password").write_text(secrets.token_hex(16))
        initdb = subprocess.run([programs / "initdb", "-D", self.run_dir / "data", "-U", "postgres", "--no-locale",
                                 "-E", "UTF8", "--auth-local=trust", "--auth-host=scram-sha-256",
                                 "--pwfile", self.run_dir / "superuser-password"], capture_output=True, text=True, **as_user)
        assert initdb.returncode == 0, initdb.stderr
        port, log = _free_port(), self.run_dir / "postgres.log"
        server = self._spawn([str(programs / "postgres"), "-D", str(self.run_dir / "data"), "-h", "127.0.0.1",
                              "-p", str(port), "-k", str(self.run_dir), "-c", "fsync=off"], log, **as_user)
        self._write_state({"pid": server.pid, "port": port})
        self._wait_until_ready(server, port, log)
        with self._admin(port) as admin:
            admin.execute(f"CREATE ROLE tuner LOGIN PASSWORD '{TUNER_PASSWORD}'")

    def _wait_until_ready(self, server: subprocess.Popen, port: int, log: Path) -> None:
        deadline = time.monotonic() + self.start_timeout
        while True:
            try:
                self._admin(port).close()
                return
            except psycopg.OperationalError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not start (exit {server.poll()}): {log.read_text()}") from None
                time.sleep(0.1)


def _postgres_programs() -> Path:
    """initdb and postgres as the pgserver wheel ships them (found without importing pgserver,
    which sets up a lock file of its own on import)."""
    spec = importlib.util.find_spec("pgserver")
    assert spec is not None and spec.submodule_search_locations, "pgserver (a dev dependency) is not installed"
    return Path(spec.submodule_search_locations[0]) / "pginstall" / "bin"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _server_user() -> dict:
    """PostgreSQL refuses to run as root: as root, its programs run as ``nobody``."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


@pytest.fixture(scope="module")
def postgres():
    """A PostgreSQL server in a temporary directory; stopped, and the directory removed, after."""
    run_dir = Path(tempfile.mkdtemp(prefix="quietload-postgres-"))
    try:
        with PostgresServer(run_dir) as server:
            yield server
        assert not server.status() and not run_dir.exists()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def _tune(cwd: Path, url: str, *args: str) -> subprocess.Popen:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([QUIETLOAD, "tune", SCENARIO, *QUICK_TRIALS, "--storage", url, *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finished(run: subprocess.Popen) -> tuple[int, str, str]:
    stdout, stderr = run.communicate(timeout=300)
    return run.returncode, stdout, stderr


def _stored_trials(url: str) -> list:
    return optuna.load_study(study_name="glue-load", storage=url).get_trials(deepcopy=False)


def _trials_done(stderr: str) -> int:
    """The study's completed trials when this tuner's last trial completed (its progress line,
    before the lines of the front's points on held-out seeds)."""
    # less the lines every 5 s of a long study or validation and the validation's closing line
    line, *validated = [line for line in stderr.splitlines()
                        if " elapsed, ETA " not in line and " held-out runs in " not in line]
    assert line.startswith("tuning paypay-glue-2gb: trial "), line
    # the feasible trials judged again at their worst over the model seeds, then the front on held-out seeds
    validated = [v for v in validated if " at their worst on model seeds " not in v]
    assert validated and all(" held-out seeds: " in v for v in validated), validated
    return int(line.split("trial ")[1].split("/")[0])


def _assert_password_hidden(texts: list[str], machines: list[Path]) -> None:
    written = [path.read_text() for machine in machines for path in (machine / "results").iterdir()]
    assert written and texts
    assert not [text for text in texts + written if TUNER_PASSWORD in text]


def test_tuners_on_two_machines_share_one_study_and_a_third_run_resumes_it(postgres, tmp_path):
    url = postgres.create_database("shared")
    machines = [tmp_path / "machine-a", tmp_path / "machine-b"]
    runs = [_tune(machine, url, "--study-name", "glue-load", "--trials", "6") for machine in machines]
    finished = [_finished(run) for run in runs]
    assert [code for code, _, _ in finished] == [0, 0], finished
    stored = _stored_trials(url)
    assert [t.number for t in stored] == list(range(len(stored)))
    assert {t.state.name for t in stored} == {"COMPLETE"}
    # each asks no more once the study as it last saw it (on telling a trial) and the trials it has
    # asked make 6: the other's asked trials, at most StudySettings.ahead (2), are still run and told
    assert 6 <= len(stored) <= 6 + 2
    # both ran trials, and the one whose trial completed last saw every trial in the study
    done = [_trials_done(stderr) for _, _, stderr in finished]
    assert min(done) >= 1 and max(done) == len(stored), done
    values = {t.number: t.values for t in stored}
    for machine, (_, stdout, _) in zip(machines, finished):
        assert stdout.rstrip().splitlines()[-4:] == [f"wrote results/paypay-glue-2gb-{name}" for name in OUTPUTS]
        study = json.loads((machine / "results" / "paypay-glue-2gb-study.json").read_text())
        assert study["storage"] == url.replace(TUNER_PASSWORD, "***")
        assert [values[t["number"]] for t in study["trials"]] == [
            [t["values"]["produce_requests"], t["values"]["load_seconds"]] for t in study["trials"]]
    texts = [text for _, stdout, stderr in finished for text in (stdout, stderr)]
    # a third run, later, adds its trials to the same study
    wanted = len(stored) + 3
    code, stdout, stderr = _finished(_tune(machines[0], url, "--study-name", "glue-load", "--trials", str(wanted)))
    assert code == 0, stderr
    assert _trials_done(stderr) == wanted and len(_stored_trials(url)) == wanted
    study = json.loads((machines[0] / "results" / "paypay-glue-2gb-study.json").read_text())
    assert [t["number"] for t in study["trials"]] == list(range(wanted))
    _assert_password_hidden(texts + [stdout, stderr], machines)


def test_a_run_with_other_settings_is_refused(postgres, tmp_path):
    url = postgres.create_database("guarded")
    code, _, stderr = _finished(_tune(tmp_path / "machine-a", url, "--study-name", "glue-load", "--trials", "1"))
    assert code == 0, stderr
    shown = url.replace(TUNER_PASSWORD, "***")
    refused = {"--seed": ("2", "model_seed (1)"), "--sampler": ("random", "sampler ('tpe')"),
               "--repeat": ("2", "model_repeat (1)")}
    for option, (value, stored_setting) in refused.items():
        code, stdout, stderr = _finished(_tune(tmp_path / "machine-b", url, "--study-name", "glue-load",
                                               "--trials", "3", option, value))
        assert (code, stdout) == (2, ""), stderr
        assert stderr.splitlines() == [f"error: --study-name: study 'glue-load' in {shown} was run with another "
                                       f"{stored_setting}; resume it with the same settings or name a new study"]
    assert len(_stored_trials(url)) == 1
    assert not (tmp_path / "machine-b" / "results").exists()


def test_a_server_nobody_listens_on_is_one_line_and_exit_2(tmp_path):
    port = _free_port()
    url = f"postgresql+psycopg://tuner:{TUNER_PASSWORD}@127.0.0.1:{port}/quietload"
    started = time.monotonic()
    code, stdout, stderr = _finished(_tune(tmp_path, url, "--trials", "2"))
    assert (code, stdout) == (2, "")
    assert stderr.splitlines() == [f"error: --storage: cannot open postgresql+psycopg://tuner:***@127.0.0.1:{port}/quietload: "
                                   f'connection failed: connection to server at "127.0.0.1", port {port} failed: Connection refused']
    assert time.monotonic() - started < 30


def test_a_wrong_password_is_one_line_without_the_password(postgres, tmp_path):
    url = postgres.create_database("locked").replace(TUNER_PASSWORD, "not-the-password")
    code, stdout, stderr = _finished(_tune(tmp_path, url, "--trials", "2"))
    assert (code, stdout) == (2, "")
    [line] = stderr.splitlines()
    assert line.startswith(f"error: --storage: cannot open postgresql+psycopg://tuner:***@127.0.0.1:{postgres.port}/locked: ")
    assert line.endswith('password authentication failed for user "tuner"')
    assert "not-the-password" not in line


def test_a_server_that_never_answers_times_out(monkeypatch):
    monkeypatch.setattr("tuner.storage.CONNECT_TIMEOUT_S", 2)
    with socket.socket() as silent:            # accepts the connection, never speaks
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"postgresql+psycopg://tuner:{TUNER_PASSWORD}@127.0.0.1:{silent.getsockname()[1]}/quietload"
        started = time.monotonic()
        with pytest.raises(ScenarioError, match=r"^--storage: cannot open postgresql\+psycopg://tuner:\*\*\*@127\.0\.0\.1:\d+/quietload: connection timeout expired$"):
            open_storage(url)
    assert time.monotonic() - started < 15
