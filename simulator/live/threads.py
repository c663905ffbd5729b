"""A JVM's threads on their cores, by kind: the Linux scheduler's own count for each thread
(``/proc/PID/task/TID/schedstat``: ns on a core, ns runnable but waiting for one, times put on
one) with its name (``/proc/PID/task/TID/comm``, 15 characters), read at two moments and the
differences summed by what the thread is: the producer's sender (``kafka-producer-network-thread``),
Spark's task threads (``Executor task launch worker``), the JIT compilers, the garbage
collector, the rest. A thread that ended between the two reads is missing from both sums; one
born between them counts from zero.
"""
from __future__ import annotations

from pathlib import Path

# comm is the thread's name cut to 15 characters; the first prefix that matches names the kind
KINDS = (("sender", ("kafka-producer-",)), ("task", ("Executor task l",)),
         ("jit", ("C2 CompilerThre", "C1 CompilerThre")),
         ("gc", ("GC Thread", "G1 ", "VM Periodic Tas", "GC ")), ("vm", ("VM Thread",)))


def kind_of(comm: str) -> str:
    for kind, prefixes in KINDS:
        if comm.startswith(prefixes):
            return kind
    return "other"


def read_threads(pid: int, proc: Path = Path("/proc")) -> dict[int, tuple[str, int, int, int]]:
    """Every thread of ``pid`` now: tid -> (comm, ns on a core, ns waiting for one, timeslices)."""
    out = {}
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
    except OSError:       # the process has ended
        return out
    for task in tasks:
        try:
            comm = (task / "comm").read_text().rstrip("\n")
            run, wait, slices = (int(v) for v in (task / "schedstat").read_text().split()[:3])
        except (OSError, ValueError):    # a thread that ended meanwhile
            continue
        out[int(task.name)] = (comm, run, wait, slices)
    return out


def by_kind(before: dict[int, tuple[str, int, int, int]], after: dict[int, tuple[str, int, int, int]]) -> dict[str, dict[str, float]]:
    """What each kind of thread did between the two reads: threads, seconds on a core, seconds
    waiting for one, timeslices, and the wait per timeslice in microseconds."""
    kinds: dict[str, dict[str, float]] = {}
    for tid, (comm, run, wait, slices) in after.items():
        _, run0, wait0, slices0 = before.get(tid, (comm, 0, 0, 0))
        figures = kinds.setdefault(kind_of(comm), {"threads": 0, "run_s": 0.0, "wait_s": 0.0, "timeslices": 0})
        figures["threads"] += 1
        figures["run_s"] += (run - run0) / 1e9
        figures["wait_s"] += (wait - wait0) / 1e9
        figures["timeslices"] += slices - slices0
    for figures in kinds.values():
        figures["wait_us_per_slice"] = figures["wait_s"] * 1e6 / figures["timeslices"] if figures["timeslices"] else 0.0
    return dict(sorted(kinds.items()))


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (from /proc's children lists)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in tasks_of(current):
            try:
                queue.extend(int(c) for c in (Path(f"/proc/{current}/task/{task}/children").read_text().split()))
            except OSError:
                pass
    return found


def tasks_of(pid: int) -> list[int]:
    try:
        return [int(task.name) for task in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:      # the process ended meanwhile
        return []
