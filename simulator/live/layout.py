"""The live stack laid out like a cluster on this machine's cores: what ``simulator.live.budget``'s
groups alone do not give.

- **The rest of the machine off the brokers' cores**: every process outside the run's groups (the
  command itself, its samplers, whatever else the machine runs) is held to the job's cores in a
  ``rest`` cpuset for the run, swept again twice a second for processes started meanwhile, and
  handed back to the root cpuset when the group is removed (the kernel keeps an affinity a
  process asked for itself). Kernel threads stay where they are.
- **The rest of the machine behind the job on the job's cores**: the same processes (but init and
  the command itself and the processes it starts, which it places in the run's groups) also go into
  a ``rest`` cpu group of the least weight
  (``cpu.shares`` 2), so the job runs at its pace whatever else the machine runs. A nice value or
  ``SCHED_IDLE`` does not give that: with ``kernel.sched_autogroup_enabled`` every session (a
  terminal, a CI step) is a group of its own and takes an equal share of the core beside the job's
  group, whatever its tasks' nice values (measured: a busy machine stretched a 9.7 s load to 43 s).
- **The neighbours first on wake-up**: a production client has a host of its own, so a record
  it sends never waits for a core. Here the neighbour producers share the brokers' core; their
  threads run in the real-time class (``SCHED_RR``, priority 1) under a bounded real-time budget
  (``cpu.rt_runtime_us`` of ``cpu.rt_period_us``: at most ``RT_SHARE`` of a core), so a woken
  neighbour thread runs at once, ahead of the brokers' threads, and can never starve them.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Iterable

from simulator.live.threads import process_tree, tasks_of

REST = "rest"
REST_SHARES = 2          # cpu.shares' least: the rest of the machine runs when the job's core has time left
RT_PERIOD_US = 10_000    # a neighbour over its real-time budget waits at most the rest of 10 ms
RT_SHARE = 0.3           # the neighbours' producers used 2-6 % of a core at 800 records/s (docs/live.md)
SWEEP_S = 0.5
_PF_KTHREAD = 0x00200000   # include/linux/sched.h: a kernel thread


def user_processes(proc: Path = Path("/proc")) -> list[int]:
    """Every process of the machine but kernel threads."""
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:      # ended meanwhile
            continue
        if not int(fields[6]) & _PF_KTHREAD:    # the stat's 9th field: flags
            found.append(int(entry.name))
    return found


def in_root_cpuset(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/cpuset").read_text().strip() == "/"
    except OSError:
        return False


def in_root_cpu_group(pid: int) -> bool:
    """Whether ``pid`` is in the cpu controller's root group (/proc/PID/cgroup's ``N:cpu:/`` line)."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return False
    return any(line.split(":", 2)[1:] in (["cpu", "/"], ["cpu,cpuacct", "/"]) for line in lines)


class RestOfMachine:
    """Every user process in the root cpuset held to ``cores`` in ``group`` (a cpuset the run made),
    and, with ``behind`` (a cpu group the run made), every one in the root cpu group but init and this
    process put behind the run's groups in it, from ``start()`` to ``stop()``; ``moved`` counts the
    processes held to ``cores``, ``behind_moved`` those put behind."""

    def __init__(self, group: Path, cores: Iterable[int], behind: Path | None = None) -> None:
        self.group, self.cores, self.behind = group, tuple(sorted(cores)), behind
        self.moved = self.behind_moved = 0
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._sweep_until_stopped, name="quietload-rest", daemon=True)

    def start(self) -> None:
        self.group.mkdir(exist_ok=True)
        (self.group / "cpuset.mems").write_text((self.group.parent / "cpuset.mems").read_text())
        (self.group / "cpuset.cpus").write_text(",".join(map(str, self.cores)))
        if self.behind is not None:
            self.behind.mkdir(exist_ok=True)
            (self.behind / "cpu.shares").write_text(str(REST_SHARES))
        self.sweep()
        self._thread.start()

    def sweep(self) -> None:
        # init, this process and the run's parts (placed in their own groups) are never put behind
        keep = {1, *process_tree(os.getpid())} if self.behind is not None else set()
        for pid in user_processes():
            if in_root_cpuset(pid):
                try:
                    (self.group / "cgroup.procs").write_text(str(pid))
                    self.moved += 1
                except OSError:     # ended meanwhile, or a process the kernel keeps where it is
                    pass
            if self.behind is not None and pid not in keep and in_root_cpu_group(pid):
                try:
                    (self.behind / "cgroup.procs").write_text(str(pid))
                    self.behind_moved += 1
                except OSError:
                    pass

    def _sweep_until_stopped(self) -> None:
        while not self._halt.wait(SWEEP_S):
            self.sweep()

    def stop(self) -> None:
        """The sweep stopped (removing the group hands its processes back to the root cpuset)."""
        if self._thread.is_alive():
            self._halt.set()
            self._thread.join()


def real_time_budget(cpu_groups: list[Path], share: float = RT_SHARE, period_us: int = RT_PERIOD_US) -> None:
    """A real-time budget of ``share`` of a core down the cpu controller's groups (parent first:
    a group may give its children no more than it has)."""
    runtime = round(share * period_us)
    for group in cpu_groups:
        (group / "cpu.rt_period_us").write_text(str(period_us))
        (group / "cpu.rt_runtime_us").write_text(str(runtime))


def release_real_time(cpu_groups: list[Path]) -> None:
    """Budgets back to 0, children first (a group must give its real-time time back before it is removed)."""
    for group in reversed(cpu_groups):
        try:
            (group / "cpu.rt_runtime_us").write_text("0")
        except OSError:
            pass


def first_on_wake_up(pid: int) -> int:
    """Every thread of ``pid`` and its descendants in SCHED_RR at priority 1 (threads they start
    later inherit it); the threads set."""
    param = os.sched_param(1)
    count = 0
    for process in process_tree(pid):
        for tid in tasks_of(process):
            try:
                os.sched_setscheduler(tid, os.SCHED_RR, param)
                count += 1
            except OSError:     # ended meanwhile
                pass
    return count
