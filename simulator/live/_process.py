"""Plumbing every service of the live stack needs: loopback ports, its own processes, their logs."""
from __future__ import annotations

import os
import socket
import urllib.request
from pathlib import Path

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback never goes through a proxy


class StackError(OSError):
    """The live stack could not be resolved, started, reached or stopped; ``str()`` is the one line shown."""


def pin_self(cpus: list[int] | None) -> None:
    """This process (and what it starts later) onto ``cpus``; left as it is where they are outside
    the cpuset it runs in (a laid-out run holds the rest of the machine to the job's cores until
    the run places the process into its component's group, which gives it its cores)."""
    if not cpus:
        return
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:
        pass


def reserve_ports(wanted: dict[str, int | None]) -> dict[str, int]:
    """A loopback port for each named use: the given one (an error naming the use if it is taken)
    or, for None, a free one. All are held at once, so no two uses get the same port."""
    held: dict[str, socket.socket] = {}
    try:
        for use, port in wanted.items():
            held[use] = probe = socket.socket()
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as a JVM's server socket: TIME_WAIT is no conflict
            try:
                probe.bind(("127.0.0.1", port or 0))
            except OSError as error:
                raise StackError(f"127.0.0.1:{port} ({use}) is taken: {error.strerror}") from None
        return {use: probe.getsockname()[1] for use, probe in held.items()}
    finally:
        for probe in held.values():
            probe.close()


def process_runs(pid: int, marker: str) -> bool:
    """Whether ``pid`` still runs a command line containing ``marker`` (so not exited, not a
    zombie, not a reused pid). Works for processes another quietload process started."""
    try:
        os.waitpid(pid, os.WNOHANG)   # reaps it if it is an exited child of this process
    except ChildProcessError:
        pass
    try:
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        if Path("/proc/self").exists():
            return False
    try:   # no /proc (not Linux): the pid alone has to do
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def last_error(log: Path) -> str:
    """Why a JVM stopped, from its log: the root cause ("Caused by: ...") of the last ERROR,
    else that ERROR line, else the log's last line."""
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no log"
    errors = [i for i, line in enumerate(lines) if " ERROR " in line or line.startswith(("Error", "Exception"))]
    if not errors:
        return (lines or ["empty log"])[-1][:300]
    block = lines[errors[-1]:]
    causes = [line.removeprefix("Caused by: ") for line in block if line.startswith("Caused by: ")]
    return (causes[-1] if causes else block[0])[:300]


def http_get(url: str, timeout: float = 5.0) -> str:
    with _NO_PROXY.open(url, timeout=timeout) as response:
        return response.read().decode()
