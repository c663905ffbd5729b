"""One batch load at run time: Spark tasks on executor cores, appending into one shared
producer per executor, each task calling ``flush()`` at its end (``KafkaWriteTask.close``).
An executor's task threads, its producer's sender thread and the JVM's own threads (JIT
compiler, GC) share the vCPUs of its worker.
"""
from __future__ import annotations

import functools
import math
from typing import Callable

from simulator._core import Cores, Random
from simulator.model.broker import Partition
from simulator.model.client import ClientSpec
from simulator.model.engine import Engine
from simulator.model.producer import Producer
from simulator.model.accumulator import BatchAcked
from simulator.model.spark import WritePlan, first_wave_order


class Task:
    __slots__ = ("index", "remaining", "rate", "executor", "started", "finished")

    def __init__(self, index: int, size: float, rate: float):
        self.index, self.remaining, self.rate = index, size, rate
        self.executor: Executor | None = None
        self.started = self.finished = 0.0


class Executor:
    """An executor JVM: its cores run tasks; its tasks share one cached producer, whose sender
    thread runs on the executor's cores beside them."""

    def __init__(self, load: "Load", index: int, spec: ClientSpec, partitions: list[Partition],
                 rng: Random, host: Cores):
        self.load, self.index, self.host = load, index, host
        self.appending: list[Task] = []
        self.tasks_run = 0
        self.last_appended = 0.0
        self.token = 0
        self.producer = Producer(load.engine, f"{load.name}-executor{index}", spec, partitions, rng, host=host,
                                 on_block_change=self.reschedule, on_batch_acked=load.on_batch_acked)
        # its task threads (the appending ones, on a core unless send() blocks them on buffer.memory)
        # are CPU-bound; its sender counts them and a shared host's other components, which count
        # them and the sender
        host.join(self.producer.sender, cpu_bound=True)

    def _appending_changed(self) -> None:
        self.producer.accumulator.application_threads = float(len(self.appending))

    def start(self, task: Task) -> None:
        self.tasks_run += 1
        task.executor, task.started = self, self.load.engine.now
        self._settle()
        self.appending.append(task)
        self._appending_changed()
        self.producer.set_rate(self._rate())
        self.reschedule()

    def _rate(self) -> float:
        total = 0.0
        for task in self.appending:
            total += task.rate
        return total

    def _settle(self) -> None:
        """Credit what the producer appended since the last look to the appending tasks."""
        self.producer.advance(self.load.engine.now)
        appended = self.producer.appended - self.last_appended
        self.last_appended = self.producer.appended
        total = self._rate()
        for task in self.appending:
            task.remaining -= appended * task.rate / total

    def reschedule(self) -> None:
        self.token += 1
        if not self.appending or self.producer.blocked:
            return
        self._settle()
        total = self._rate()
        # the flow is shared by rate, so each task ends at remaining / rate
        end = min(max(0.0, t.remaining) / (total * t.rate / total) for t in self.appending)
        self.load.engine.at(self.load.engine.now + end, self._check, self.token)

    def _check(self, token: int) -> None:
        if token != self.token:
            return
        self._settle()
        if self.producer.blocked:   # send() is blocked: the task cannot have finished
            return
        done = [t for t in self.appending if t.remaining <= 1.0]
        for task in done:
            self.appending.remove(task)
        self._appending_changed()
        self.producer.set_rate(self._rate())
        for task in done:
            self.producer.flush(functools.partial(self._finished, task))
        self.reschedule()

    def _finished(self, task: Task) -> None:
        task.finished = self.load.engine.now
        self.load.task_finished(self)


class Load:
    """One copy of the batch job (``name``: load0, load1, ...): its executors, one per host, each
    with its producer's random stream (``rngs``), and its write tasks; ``on_batch_acked`` hears of
    each of their acknowledged batches."""

    def __init__(self, engine: Engine, name: str, plan: WritePlan, spec: ClientSpec, partitions: list[Partition],
                 rngs: list[Random], cores: int, hosts: list[Cores], task_rates: list[float],
                 scan_seconds: list[float], executor_order: list[int], on_done: Callable[["Load"], None],
                 on_batch_acked: BatchAcked | None = None):
        self.engine, self.name, self.plan, self.cores, self.on_done = engine, name, plan, cores, on_done
        self.on_batch_acked = on_batch_acked     # its records' latency, batch by batch
        self.executors = [Executor(self, i, spec, partitions, rng, host)
                          for i, (rng, host) in enumerate(zip(rngs, hosts))]
        self.tasks = [Task(i, size, rate) for i, (size, rate) in enumerate(zip(plan.write_tasks, task_rates))]
        self.started_tasks = 0       # the tasks run in order: the first this many have started
        self.scan_seconds = scan_seconds
        self.executor_order = executor_order
        self.started = self.write_started = self.ended = math.nan
        self.finished = 0

    def start(self, _=None) -> None:
        self.started = self.engine.now
        if not self.scan_seconds:
            self._write_stage()
            return
        # The shuffle-map stage reads the CSV on every core; the write stage waits for it.
        free = [self.started] * (len(self.executors) * self.cores)
        for seconds in self.scan_seconds:
            slot = min(range(len(free)), key=free.__getitem__)
            free[slot] += seconds
        self.engine.at(max(free), self._write_stage)

    def _write_stage(self, _=None) -> None:
        self.write_started = self.engine.now
        first = first_wave_order(len(self.executors), self.cores, len(self.tasks), self.executor_order)
        for executor_index in first:
            self.executors[executor_index].start(self._next_task())

    def _next_task(self) -> Task:
        self.started_tasks += 1
        return self.tasks[self.started_tasks - 1]

    def task_finished(self, executor: Executor) -> None:
        self.finished += 1
        if self.started_tasks < len(self.tasks):
            executor.start(self._next_task())
        elif self.finished == len(self.tasks):
            self.ended = self.engine.now
            self.on_done(self)
