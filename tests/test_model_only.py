"""The model alone: simulate, check, tune and report run with the live, AWS and PostgreSQL
libraries made unimportable and no Java or Maven on PATH (what `pip install quietload` without
extras gives); a live command then names the extra to install in one line. The blocking is a
meta-path finder in a child process, since this environment has every extra installed."""
import os
import subprocess
import sys
from pathlib import Path

from workloads import CATALOG

BLOCKED = ("pyspark", "py4j", "boto3", "botocore", "psycopg", "confluent_kafka")
CHILD = f"""
import importlib.abc, sys
BLOCKED = {BLOCKED!r}
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Blocked())
from quietload.cli import app
try:
    app(sys.argv[1:], prog_name="quietload")
finally:
    loaded = sorted({{m.split(".")[0] for m in sys.modules}} & set(BLOCKED))
    print("blocked modules loaded:", loaded, file=sys.stderr)
"""
SMALL = ["--set", "dataset.files.0.size=16MB", "--set", "windows.before=1s", "--set", "windows.after=1s"]


def _quietload(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PATH": str(tmp_path / "empty-path"), "PYTHONPATH": str(root), "JAVA_HOME": "/nonexistent"}
    (tmp_path / "empty-path").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-c", CHILD, *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_model_path_runs_without_the_extras_java_or_maven(tmp_path):
    scenario = str(CATALOG / "paypay-glue-2gb.yaml")
    for args in (["simulate", scenario, *SMALL, "--json", "run.json"],
                 ["check", scenario, *SMALL, "--json", "gate.json"],
                 ["tune", scenario, *SMALL, "--trials", "2", "--validate", "0", "--out", "tuned"],
                 ["report", "run.json", "--out", "report"]):
        done = _quietload(tmp_path, *args)
        assert done.returncode in (0, 1), done.stderr      # check and tune exit 1 on a failing job
        assert done.stderr.splitlines()[-1] == "blocked modules loaded: []", done.stderr
    assert (tmp_path / "report" / "report.html").is_file() and (tmp_path / "tuned").is_dir()


def test_a_live_command_names_the_extra_in_one_line(tmp_path):
    done = _quietload(tmp_path, "live", str(CATALOG / "paypay-glue-2gb.yaml"))
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == ("error: quietload live: needs confluent_kafka, py4j, pyspark, boto3, "
                                           "botocore, which the 'live' extra installs: pip install 'quietload[live]'")
