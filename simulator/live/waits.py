"""Each live component's wait for a core over the load's window, by thread group: the brokers, each
neighbour, the job's executor (its task threads and its producer's sender), the job's driver (the
driver's Python process and the rest of its JVM: JIT compilers, garbage collector, Spark's own
threads), LocalStack and the KRaft controller.

The Linux scheduler counts, for every thread, the nanoseconds it ran and the nanoseconds it was
runnable but waited for a core (``/proc/PID/task/TID/schedstat``); the differences between a read
at the load's start and one at its end, summed over a group's threads, are that group's run and
wait over the load. A group's ``wait_pct`` is its wait over the window's length: the share of the
window one of its threads (on the sum) stood runnable without a core.

A cluster gives its brokers and its latency-sensitive clients hosts of their own: a live run whose
broker or neighbours waited for a core more than ``WAIT_PCT_MAX`` of the window measured this
machine's sharing of cores, not the cluster, and is marked as placed badly and never judged.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from simulator.live.threads import kind_of, read_threads

WAIT_PCT_MAX = 2.0    # % of the window a broker's or a neighbour's threads may wait for a core together
BROKER_CORES = "brokers' cores"     # the entry of ForeignTime's figures among the waits
EXECUTOR_KINDS = ("task", "sender")   # the job's threads that are its executor's; the rest is its driver's

Threads = dict[int, tuple[str, int, int, int]]     # tid -> (comm, ns on a core, ns waiting, timeslices)


@dataclass(frozen=True)
class Group:
    """A component's threads: those of the processes ``pids()`` names (each with its descendants),
    kept where ``keep(tid, comm)`` holds; ``pids`` is asked at each read (processes start meanwhile)."""

    name: str
    pids: Callable[[], list[int]]
    keep: Callable[[int, str], bool] = lambda tid, comm: True
    judged: bool = False          # a broker's or a neighbour's: its wait marks the run placed badly


def read_group(group: Group, tree: Callable[[int], list[int]], read: Callable[[int], Threads] = read_threads) -> Threads:
    threads: Threads = {}
    for root in group.pids():
        for pid in tree(root):
            threads.update({tid: t for tid, t in read(pid).items() if group.keep(tid, t[0])})
    return threads


def executor_thread(tid: int, comm: str) -> bool:
    return kind_of(comm) in EXECUTOR_KINDS


def driver_thread(tid: int, comm: str) -> bool:
    return not executor_thread(tid, comm)


class CoreWaits:
    """``start()`` at the load's start, ``mark()`` at its end (again at each job's end in a night:
    the last counts), then ``figures(split)``: each group's threads, run and wait (seconds) and
    wait as a % of the window. A group whose parts are known only later (each neighbour's
    threads, told by their process when it stops) is reported by part with ``split``."""

    def __init__(self, groups: list[Group], tree: Callable[[int], list[int]],
                 clock: Callable[[], float] = time.monotonic, read: Callable[[int], Threads] = read_threads) -> None:
        self.groups, self.tree, self.clock, self.read = groups, tree, clock, read
        self._reads: list[tuple[float, dict[str, Threads]]] = []

    def _read(self) -> tuple[float, dict[str, Threads]]:
        return self.clock(), {g.name: read_group(g, self.tree, self.read) for g in self.groups}

    def start(self) -> None:
        self._reads = [self._read()]

    def mark(self) -> None:
        if self._reads:
            self._reads[1:] = [self._read()]

    def figures(self, split: Mapping[str, Mapping[str, set[int]]] | None = None) -> dict[str, dict[str, float]]:
        """{group or part: {"threads", "run_s", "wait_s", "wait_pct", "judged"}} (empty before a start and a mark);
        ``split`` names, for a group, the threads of each of its parts ({"neighbours": {"api": {tids}}})."""
        if len(self._reads) < 2:
            return {}
        (began, before), (ended, after) = self._reads
        waits: dict[str, dict[str, float]] = {}
        for group in self.groups:
            parts = (split or {}).get(group.name)
            if parts:
                for part, tids in parts.items():
                    waits[part] = figures({t: v for t, v in before[group.name].items() if t in tids},
                                          {t: v for t, v in after[group.name].items() if t in tids}, ended - began)
                    waits[part]["judged"] = group.judged
            else:
                waits[group.name] = figures(before[group.name], after[group.name], ended - began)
                waits[group.name]["judged"] = group.judged
        return waits


def figures(before: Threads, after: Threads, window_s: float) -> dict[str, float]:
    """A group's threads, seconds on a core and seconds waiting for one between the two reads (a
    thread born between them counts from zero; one that ended is in neither), and the wait as a
    % of ``window_s``."""
    run = wait = 0
    for tid, (comm, run1, wait1, _) in after.items():
        _, run0, wait0, _ = before.get(tid, (comm, 0, 0, 0))
        run, wait = run + run1 - run0, wait + wait1 - wait0
    return {"threads": len(after), "run_s": round(run / 1e9, 4), "wait_s": round(wait / 1e9, 4),
            "wait_pct": round(100.0 * wait / 1e9 / window_s, 3) if window_s > 0 else 0.0}


def busy_by_core(stat: Path = Path("/proc/stat")) -> dict[int, float]:
    """Seconds each core has been busy (user, nice, system, irq, softirq, steal) since boot."""
    tick = os.sysconf("SC_CLK_TCK")
    busy = {}
    for line in stat.read_text().splitlines():
        name, *values = line.split()
        if name.startswith("cpu") and name != "cpu":
            user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in values[:8])
            busy[int(name[3:])] = (user + nice + system + irq + softirq + steal) / tick
    return busy


class ForeignTime:
    """How long the brokers' cores ran anything but the brokers over the load: each core's busy
    time less the brokers' groups' time there (cpuacct's per-core usage), from ``start()`` to
    ``mark()``, as seconds and as a % of the window. Whatever ran there the brokers' threads may
    have waited behind; a broker on a host of its own waits only behind its own threads."""

    def __init__(self, cores: tuple[int, ...], ours: Callable[[], dict[int, float]],
                 busy: Callable[[], dict[int, float]] = busy_by_core, clock: Callable[[], float] = time.monotonic) -> None:
        self.cores, self.ours, self.busy, self.clock = cores, ours, busy, clock
        self._reads: list[tuple[float, dict[int, float], dict[int, float]]] = []

    def _read(self) -> tuple[float, dict[int, float], dict[int, float]]:
        return self.clock(), self.busy(), self.ours()

    def start(self) -> None:
        self._reads = [self._read()]

    def mark(self) -> None:
        if self._reads:
            self._reads[1:] = [self._read()]

    def figures(self) -> dict[str, float]:
        """{"cores", "foreign_s", "foreign_pct"} (empty before a start and a mark, or without cores)."""
        if len(self._reads) < 2 or not self.cores:
            return {}
        (began, busy0, ours0), (ended, busy1, ours1) = self._reads
        foreign = sum(max(0.0, (busy1.get(c, 0.0) - busy0.get(c, 0.0)) - (ours1.get(c, 0.0) - ours0.get(c, 0.0)))
                      for c in self.cores)
        window = (ended - began) * len(self.cores)
        return {"cores": len(self.cores), "foreign_s": round(foreign, 3),
                "foreign_pct": round(100.0 * foreign / window, 3) if window > 0 else 0.0}


def placed_badly(waits: Mapping[str, Mapping[str, float]], limit_pct: float = WAIT_PCT_MAX) -> list[str]:
    """Why the run is placed badly: each judged group (a broker, a neighbour) that waited for a
    core more than ``limit_pct`` of the load's window (empty: placed as a cluster would be)."""
    reasons = [f"placed badly: {name}'s threads waited for a core {w['wait_pct']:.1f} % of the load's window "
               f"({w['wait_s']:.2f} s; at most {limit_pct:g} % is a host of its own)"
               for name, w in waits.items() if w.get("judged") and w.get("wait_pct", 0.0) > limit_pct]
    foreign = waits.get(BROKER_CORES, {})
    if foreign.get("foreign_pct", 0.0) > limit_pct:
        reasons.append(f"placed badly: the brokers' cores ran other work {foreign['foreign_pct']:.1f} % of the load's window "
                       f"({foreign['foreign_s']:.2f} s; at most {limit_pct:g} % leaves them a host of their own)")
    return reasons
