"""The lifecycle every service of the live stack shares, as Kafka's own system tests shape theirs
(ducktape's ``Service``, kafkatest's ``KafkaService``):

- ``start`` cleans whatever an earlier run left (``stop``, then ``clean``), starts the service
  and waits until it serves; on any failure it leaves nothing running (its logs stay, for the
  reader);
- ``stop`` ends its processes, each by its stop signal to its process group, SIGKILL after
  ``stop_timeout``, and waits until they are gone;
- ``clean`` removes what it wrote into its run directory, then the directory if that empties it;
- ``up`` starts it unless it already runs with the same settings; ``down`` is stop and clean.

A service records its processes in a state file in its run directory, so ``status`` and ``stop``
work from another process (``quietload stack status``, ``stack down``). As a context manager it
starts on entry and stops and cleans on exit; its processes then also die with the thread that
entered it, however that ends (``die_with_parent``), so no service outlives its run.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Generic, Self, TypeVar

from simulator.live._process import StackError, process_runs
from simulator.processes import die_with_parent

KILL_WAIT_S = 10.0     # after SIGKILL, for the kernel to take the process group down
Status = TypeVar("Status")


@dataclass(frozen=True)
class Recorded:
    """A process a service started: its ``name`` in lines, its ``pid``, and a ``marker`` on its
    command line that only this run directory's process has (so a reused pid is not taken for it)."""

    name: str
    pid: int
    marker: str


class Service(ABC, Generic[Status]):
    """One service of the live stack in ``run_dir``. A subclass names itself, its state file and
    the files it writes, and implements ``_start`` (start and wait until serving), ``processes``
    (what its state file records) and ``status`` (what ``stack status`` shows of it)."""

    name: ClassVar[str]                 # how lines name the service
    state_file: ClassVar[str]           # its record in the run directory
    files: ClassVar[re.Pattern[str]]    # the names it writes into the run directory; clean removes them
    stop_signal: ClassVar[signal.Signals] = signal.SIGTERM

    def __init__(self, run_dir: Path | str, start_timeout: float, stop_timeout: float,
                 progress: Callable[[str], None] = lambda line: None) -> None:
        self.run_dir = Path(run_dir).absolute()
        self.start_timeout, self.stop_timeout, self.progress = start_timeout, stop_timeout, progress
        self._children: dict[int, subprocess.Popen] = {}
        self._with_parent = False     # `stack up` leaves it running; a run's own ends with the run

    def __enter__(self) -> Self:
        self._with_parent = True
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.down()

    # What the run directory records.

    def state(self) -> dict:
        try:
            return json.loads((self.run_dir / self.state_file).read_text())
        except FileNotFoundError:
            return {}

    @abstractmethod
    def processes(self) -> list[Recorded]:
        """The processes the state file records, in the order ``stop`` ends them."""

    @abstractmethod
    def status(self) -> Status:
        """The recorded processes and whether each still runs (a crashed one shows as not running)."""

    def running(self, process: Recorded) -> bool:
        if process.pid in self._children:
            return self._children[process.pid].poll() is None
        return process_runs(process.pid, process.marker)

    # The lifecycle.

    def up(self) -> bool:
        """Start the service unless it already runs with these settings; True if this call started it."""
        processes = self.processes()
        exited = [process.name for process in processes if not self.running(process)]
        if processes and not exited:
            self._check_settings()
            return False
        if exited:
            self.progress(f"restarting {self.name}: {', '.join(exited)} had exited")
        self.start()
        return True

    def start(self) -> None:
        """Clean whatever an earlier run left, then start and wait until the service serves; on
        any failure nothing is left running (the logs stay)."""
        self.stop()
        self.clean()
        try:
            self._start()
        except BaseException:
            self.stop()
            self.clean(keep_logs=True)
            raise

    def stop(self) -> Status:
        """End the recorded processes that run, in their order (a group at a time, see
        ``_stop_groups``); what ran before."""
        before = self.status()
        for group in self._stop_groups([process for process in self.processes() if self.running(process)]):
            self._terminate(group)
        return before

    def down(self) -> Status:
        """Stop and clean; what ran before."""
        before = self.stop()
        self.clean()
        return before

    def clean(self, keep_logs: bool = False) -> None:
        """Remove what the service wrote into the run directory (but its ``*.log`` files with
        ``keep_logs``), then the directory if that empties it."""
        if not self.run_dir.is_dir():
            return
        for path in self.run_dir.iterdir():
            if self.files.fullmatch(path.name) and not (keep_logs and path.suffix == ".log"):
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        if not any(self.run_dir.iterdir()):
            self.run_dir.rmdir()

    # What a subclass provides or may change.

    @abstractmethod
    def _start(self) -> None:
        """Start the service's processes (``_spawn``), record them (``_write_state``) and wait until it serves."""

    def check_ports(self) -> None:
        """Fail now if a port the service wants is taken (before other services start)."""

    def _check_settings(self) -> None:
        """Raise a StackError if the running service was started with other settings than these."""

    def _stop_groups(self, processes: list[Recorded]) -> list[list[Recorded]]:
        """The running processes in groups ``stop`` ends one after another (all at once by default)."""
        return [processes]

    # Shared steps.

    def _spawn(self, command: list[str], log: Path, **popen: Any) -> subprocess.Popen:
        """One of the service's processes, in a session of its own (so ``stop`` reaches its whole
        process group), its output appended to ``log``."""
        with log.open("ab") as output:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                                       start_new_session=True,
                                       preexec_fn=die_with_parent if self._with_parent else None, **popen)
        self._children[process.pid] = process
        return process

    def _write_state(self, state: dict) -> None:
        temporary = self.run_dir / f"{self.state_file}.tmp"
        temporary.write_text(json.dumps(state, indent=2) + "\n")
        temporary.replace(self.run_dir / self.state_file)

    def _terminate(self, processes: list[Recorded]) -> None:
        for sig, grace in ((self.stop_signal, self.stop_timeout), (signal.SIGKILL, KILL_WAIT_S)):
            for process in processes:
                try:
                    os.killpg(process.pid, sig)   # started in a session of its own: pgid == pid
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + grace
            while (processes := [p for p in processes if self.running(p)]) and time.monotonic() < deadline:
                time.sleep(0.1)
        if processes:
            raise StackError(f"{processes[0].name} (pid {processes[0].pid}) survived SIGKILL")


def up_all(services: list[Service]) -> bool:
    """``up`` each service in order, after checking every one's ports; if one fails, the ones
    this call started are taken down again. True if this call started any."""
    for service in services:
        service.check_ports()
    started: list[Service] = []
    try:
        for service in services:
            if service.up():
                started.append(service)
    except BaseException:
        for service in reversed(started):
            service.down()
        raise
    return bool(started)
