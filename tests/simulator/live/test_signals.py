"""A run stopped by SIGTERM or SIGHUP (CI timeouts, `timeout`, orchestrators, a closed terminal)
cleans up as Ctrl-C does: no process, no port, no file in the temp directory, no secret on disk.

The live test's cluster wants SASL/PLAIN credentials (from QUIETLOAD_KAFKA_* variables, as a
user's would), so a secret written anywhere would be found. Every process the run starts
inherits a marker in its environment, which is how the test finds what is left of it.
"""
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from stack_probes import PASSWORD, SECURITY
from workloads import CATALOG

SMALL = ["--set", "cluster.replication.factor=1", "--set", "cluster.min.insync.replicas=1",
         "--set", "dataset.files.0.size=8MB", "--set", "windows.before=1s", "--set", "windows.after=1s",
         "--set", "batch.spark.spark.executor.instances=1", "--set", "batch.spark.spark.executor.cores=1"]
QUIETLOAD = Path(sys.executable).with_name("quietload")


def marked(marker: str) -> list[tuple[int, str]]:
    """(pid, command line) of every process whose environment holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "environ").read_bytes():
                found.append((int(entry.name), (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()))
        except OSError:
            pass
    return found


def listening_ports() -> set[int]:
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":       # TCP_LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def holding_secret(*roots: Path) -> list[Path]:
    files = [path for root in roots for path in ([root] if root.is_file() else root.rglob("*"))]
    return [path for path in files if path.is_file() and not path.is_symlink() and PASSWORD.encode() in path.read_bytes()]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_stopping_signal_unwinds_a_command_as_ctrl_c_does(stop):
    script = ("import time\nfrom quietload.cli_live import stop_signals_interrupt\n"
              "with stop_signals_interrupt():\n"
              "    try:\n        print('ready', flush=True)\n        time.sleep(30)\n"
              "    except KeyboardInterrupt as interrupt:\n        print('cleaned up after', interrupt, flush=True)\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "ready\n"
    child.send_signal(stop)
    assert child.communicate(timeout=10)[0] == f"cleaned up after {stop.name}\n"
    assert child.returncode == 0


def test_a_child_started_with_die_with_parent_ends_with_its_parent():
    script = ("import subprocess\nfrom simulator.live._process import die_with_parent\n"
              "print(subprocess.Popen(['sleep', '30'], preexec_fn=die_with_parent).pid)\n")
    child = int(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and b"sleep" in Path(f"/proc/{child}/cmdline").read_bytes():
        assert time.monotonic() < deadline, "the child outlived its parent"
        time.sleep(0.05)


@pytest.mark.live
def test_sigterm_during_the_spark_job_leaves_no_process_port_file_or_secret(secured, tmp_path):
    marker = f"QUIETLOAD_TEST_RUN={uuid.uuid4().hex}"
    temp, run_dir = tmp_path / "tmp", tmp_path / "run"
    temp.mkdir()
    ports_before, started = listening_ports(), time.time()
    env = {**os.environ, **SECURITY, "TMPDIR": str(temp), marker.split("=")[0]: marker.split("=")[1]}
    run = subprocess.Popen([str(QUIETLOAD), "live", str(CATALOG / "paypay-glue-2gb.yaml"), *SMALL,
                            "--bootstrap-servers", secured.bootstrap_servers, "--run-dir", str(run_dir),
                            "--json", str(tmp_path / "result.json")],
                           cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # the Spark driver's JVM (SparkSubmit ... pyspark-shell) is up: the job runs
        deadline = time.monotonic() + 240
        while not any("pyspark-shell" in command for _, command in marked(marker)):
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read()
            time.sleep(0.2)
        during = marked(marker)
        run.send_signal(signal.SIGTERM)
        run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode != 0
    assert any("simulator.live.neighbours" in c or "multiprocessing" in c for _, c in during)   # what must be gone
    assert any("localstack" in command for _, command in during)
    time.sleep(1.0)     # SIGKILLed descendants are reaped by init
    assert marked(marker) == []
    assert listening_ports() - ports_before == set()
    assert list(temp.iterdir()) == []
    assert not (tmp_path / "result.json").exists()
    written = [entry for entry in Path("/tmp").iterdir()       # what appeared in /tmp meanwhile, pytest's own aside
               if entry.lstat().st_mtime >= started and not tmp_path.is_relative_to(entry)]
    assert holding_secret(tmp_path, *written) == []
