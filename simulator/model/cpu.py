"""Threads on cores: a host's CPU shared by the threads that run on it.

A host (an executor's worker, a broker, a neighbour's client machine) has ``count`` cores, a
fraction being a CPU budget (a share of one core, as a cgroup quota gives). Two effects follow
Linux's EEVDF scheduler (kernel/sched/fair.c) without simulating every time slice, so a run's
cost grows with requests, not with scheduler ticks:

- A thread that wakes (a sender woken by ``send()`` or a response, a handler by the request
  queue) while every core is busy runs at once when EEVDF's wakeup preemption lets it: a
  sleeper is placed with its lag and usually has the earliest eligible deadline. It waits
  when the running thread is inside the slice RUN_TO_PARITY protects; that thread is then
  preempted at the first scheduler tick after its slice ends (no high-resolution tick), so the
  wait is up to one tick: uniform over (tick - slice, tick]. The share of wakes that find
  the running thread protected grows with the runnable threads per core beyond one
  (``protected_wake_share`` per extra thread, fitted to bench/wake_latency.c).
- CPU work done while more threads are runnable than there are cores takes longer: over a
  busy period EEVDF gives every runnable thread an equal share of the cores.

A host's components (a broker, an executor JVM, a neighbour's client) ``join`` its cores; each
says how many of its threads are runnable at a time, and whether they are CPU-bound (an
executor's task threads) or run short bursts and sleep (a broker's threads, a sender). By
default every component has a host of its own (as in production); a scenario's ``placement``
puts several on one host (the live rig's two cores, a Kubernetes node), and each then counts
the others' runnable threads as it counts its own.
"""
from __future__ import annotations

import math
import random
from typing import Callable

from workloads.profile import CostProfile


class Scheduler:
    """The scheduler's figures (the profile's ``scheduler`` section), in seconds."""

    __slots__ = ("base_slice", "tick", "protected_wake_share")

    def __init__(self, base_slice_us: float, tick_hz: float, protected_wake_share: float):
        self.base_slice = base_slice_us * 1e-6
        self.tick = 1.0 / tick_hz
        self.protected_wake_share = protected_wake_share

    @classmethod
    def of(cls, profile: CostProfile) -> "Scheduler":
        s = profile.scheduler
        return cls(s.base_slice_us, s.tick_hz, s.protected_wake_share)


class Cores:
    """A host's cores and the threads on them. ``background`` is the mean number of threads
    runnable besides the ones the model follows (a JVM's JIT compiler and GC, a broker's log
    flusher and cleaner): a profile figure."""

    __slots__ = ("count", "scheduler", "slice", "random", "background", "wakes", "waited", "slow_wakes",
                 "members", "bound", "shared")

    def __init__(self, count: float, scheduler: Scheduler, rng: random.Random, background: float = 0.0):
        self.count = float(count)
        self.scheduler = scheduler
        # SCHED_TUNABLESCALING_LOG: the slice grows with the machine's CPUs, 1 + log2(min(cpus, 8))
        cpus = min(8, max(1, math.ceil(count)))
        self.slice = min(scheduler.base_slice * (1 + cpus.bit_length() - 1), scheduler.tick)
        self.random: Callable[[], float] = rng.random   # bound once: a draw per wake
        self.background = background
        self.wakes = 0          # wakes that found every core busy
        self.waited = 0.0       # seconds those wakes waited for a core
        self.slow_wakes = 0     # of them, the ones that waited for a tick
        self.members: list[Callable[[float], float]] = []   # each component's runnable threads at a time
        self.bound: list[bool] = []        # ... and whether they are CPU-bound
        self.shared = False                # more than one component on these cores

    def add_background(self, threads: float) -> None:
        """A component placed here brings its JVM's background work (JIT, GC: the profile's figure)."""
        self.background += threads

    def join(self, runnable: Callable[[float], float], cpu_bound: bool = False) -> int:
        """A component's threads on these cores: ``runnable(now)`` counts them. Returns its place,
        by which it asks for the others' (``others``)."""
        self.members.append(runnable)
        self.bound.append(cpu_bound)
        self.shared = len(self.members) > 1
        return len(self.members) - 1

    def others(self, member: int, now: float) -> float:
        """The runnable threads of the host's other components at ``now``."""
        total = 0.0
        for i in range(len(self.members)):
            if i != member:
                total += self.members[i](now)
        return total

    def others_bound(self, member: int, now: float) -> float:
        """Of them, the CPU-bound ones (a woken thread waits behind these)."""
        total = 0.0
        for i in range(len(self.members)):
            if i != member and self.bound[i]:
                total += self.members[i](now)
        return total

    def wake_delay(self, others: float) -> float:
        """Seconds a thread waking now waits for a core, with ``others`` CPU-bound threads
        runnable on this host besides it (sampled: one draw per wake). Threads that run short
        bursts and sleep leave the core within their slice: ``stretch`` counts them."""
        excess = (others + self.background) / self.count - 1.0
        if excess <= 0.0:
            return 0.0                          # an idle core takes it
        self.wakes += 1
        scheduler = self.scheduler
        share = scheduler.protected_wake_share * excess
        if self.random() >= share:
            return 0.0                          # it preempts the running thread at once
        wait = scheduler.tick - self.random() * self.slice
        self.slow_wakes += 1
        self.waited += wait
        return wait

    def stretch(self, runnable: float) -> float:
        """How much longer CPU work takes with ``runnable`` threads (this one included):
        each gets an equal share of the cores, and at most one core."""
        total = runnable + self.background
        if total <= self.count:
            return 1.0
        return (total if total > 1.0 else 1.0) / self.count
