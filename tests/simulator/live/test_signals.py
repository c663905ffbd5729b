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
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

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


def listening_sockets(pids: Iterable[int] | None = None) -> dict[str, int]:
    """inode -> port of every TCP socket listening; with ``pids``, only those these processes hold.
    A socket's inode names that socket alone, so a test looks for its own processes' sockets and is
    blind to whatever else the machine listens on (another test run, a neighbour's server)."""
    held = None if pids is None else {target[len("socket:["):-1] for pid in pids for target in _descriptors(pid)
                                      if target.startswith("socket:[")}
    sockets = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and (held is None or fields[9] in held):       # TCP_LISTEN
                sockets[fields[9]] = int(fields[1].rsplit(":", 1)[1], 16)
    return sockets


def _descriptors(pid: int) -> list[str]:
    try:
        return [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
    except OSError:    # gone, or not ours to read
        return []


@contextmanager
def listeners_of(marker: str) -> Iterator[dict[str, int]]:
    """Every listening socket a process holding ``marker`` in its environment held while the block
    ran, sampled every 0.2 s (a socket opened and closed between two samples is not seen)."""
    seen: dict[str, int] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.2):
            seen.update(listening_sockets(pid for pid, _ in marked(marker)))
    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    try:
        yield seen
    finally:
        stop.set()
        watcher.join()
        seen.update(listening_sockets(pid for pid, _ in marked(marker)))


def still_listening(sockets: dict[str, int]) -> dict[str, int]:
    """Those of ``sockets`` still listening, whoever holds them now."""
    return {inode: port for inode, port in listening_sockets().items() if inode in sockets}


def holding_secret(*roots: Path) -> list[Path]:
    """The files under ``roots`` holding the password; what another process on the machine (a
    second test suite) removes or keeps unreadable meanwhile is not this run's."""
    def holds(path: Path) -> bool:
        try:
            return path.is_file() and not path.is_symlink() and PASSWORD.encode() in path.read_bytes()
        except OSError:
            return False

    def files(root: Path) -> list[Path]:
        try:
            return [root] if root.is_file() else list(root.rglob("*"))
        except OSError:
            return []
    return [path for root in roots for path in files(root) if holds(path)]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_stopping_signal_unwinds_a_command_as_ctrl_c_does(stop):
    script = ("import time\nfrom quietload.stopping import stop_signals_interrupt\n"
              "with stop_signals_interrupt():\n"
              "    try:\n        print('ready', flush=True)\n        time.sleep(30)\n"
              "    except KeyboardInterrupt as interrupt:\n        print('cleaned up after', interrupt, flush=True)\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "ready\n"
    child.send_signal(stop)
    assert child.communicate(timeout=10)[0] == f"cleaned up after {stop.name}\n"
    assert child.returncode == 0


def test_a_run_s_listening_sockets_are_told_from_the_machine_s_others():
    marker = f"QUIETLOAD_TEST_RUN={uuid.uuid4().hex}"
    script = "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\nprint(s.getsockname()[1], flush=True)\ntime.sleep(30)\n"
    elsewhere = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)   # not the run's
    try:
        other = int(elsewhere.stdout.readline())
        with listeners_of(marker) as ours:
            child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, marker.split("=")[0]: marker.split("=")[1]})
            port = int(child.stdout.readline())
            time.sleep(0.5)
            child.kill()
            child.wait()
        assert list(ours.values()) == [port] and still_listening(ours) == {}
        assert other in listening_sockets().values()
    finally:
        elsewhere.kill()
        elsewhere.wait()


def test_a_child_started_with_die_with_parent_ends_with_its_parent():
    script = ("import subprocess\nfrom simulator.processes import die_with_parent\n"
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
    started = time.time()
    env = {**os.environ, **SECURITY, "TMPDIR": str(temp), marker.split("=")[0]: marker.split("=")[1]}
    with listeners_of(marker) as ours:
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
    assert ours, "the run's brokers and LocalStack listened on no port while it ran"
    assert any("simulator.live.neighbours" in c or "multiprocessing" in c for _, c in during)   # what must be gone
    assert any("localstack" in command for _, command in during)
    time.sleep(1.0)     # SIGKILLed descendants are reaped by init
    assert marked(marker) == []
    assert still_listening(ours) == {}
    assert list(temp.iterdir()) == []
    assert not (tmp_path / "result.json").exists()
    written = [entry for entry in Path("/tmp").iterdir()       # what appeared in /tmp meanwhile, pytest's own aside
               if entry.lstat().st_mtime >= started and not tmp_path.is_relative_to(entry)]
    assert holding_secret(tmp_path, *written) == []
