"""An append process given in place of the Spark job's: what a bench drove a real producer with,
or a recorded trace of an application's ``send()`` calls, replayed into the model's producer.

Two kinds, as ``bench/ProducerProbe.java`` drives the real client:

- a steady flow: ``threads`` appending threads busy on the producer's core between records (a
  Spark task parsing and serialising, a spinning bench thread, or an unthrottled loop of
  ``send()``), ``rate`` value bytes per second in all. The model runs it as its Spark job runs
  tasks (``job.Load``): one task per thread on one executor, ``flush()`` at the end.
- bursts: ``bursts`` pairs of (seconds from the start, records sent back to back then), the
  threads asleep in between. A recorded trace is the same pairs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from simulator._core import Cores, Random
from simulator.model.broker import Partition
from simulator.model.client import ClientSpec
from simulator.model.engine import Engine
from simulator.model.producer import Producer
from simulator.model.accumulator import RecordsAcked
from simulator.model.spark import WritePlan


@dataclass(frozen=True)
class AppendProcess:
    """``records`` of ``value_bytes`` (and ``key_bytes`` of key when keyed: keys spread over every
    partition) appended by ``threads`` threads: a steady flow of ``rate`` value bytes per second,
    or the ``bursts`` given."""

    value_bytes: int
    records: int
    key_bytes: int = 0
    threads: int = 1
    rate: float = 0.0
    bursts: tuple[tuple[float, int], ...] = ()

    def __post_init__(self) -> None:
        if (self.rate > 0.0) == bool(self.bursts):
            raise ValueError("an append process is a steady rate or bursts, one of the two")

    @classmethod
    def every(cls, value_bytes: int, burst: int, interval: float, seconds: float, threads: int = 1,
              key_bytes: int = 0) -> "AppendProcess":
        """Each of ``threads`` threads sends ``burst`` records every ``interval`` seconds for ``seconds``."""
        times = [i * interval for i in range(math.ceil(seconds / interval))]
        return cls(value_bytes, len(times) * burst * threads, key_bytes, threads,
                   bursts=tuple((t, burst * threads) for t in times))

    def write_plan(self, record_bytes: float) -> WritePlan:
        """The steady flow as the Spark job's write tasks: one per thread, equal shares."""
        return WritePlan(0, [], [self.records * record_bytes / self.threads] * self.threads, False)


class BurstTask:
    __slots__ = ("started", "finished")

    def __init__(self) -> None:
        self.started = self.finished = 0.0


class BurstExecutor:
    """The application's JVM: its one producer, its threads asleep between bursts."""

    def __init__(self, engine: Engine, name: str, spec: ClientSpec, partitions: list[Partition],
                 rng: Random, host: Cores, on_records_acked: RecordsAcked | None = None):
        self.producer = Producer(engine, name, spec, partitions, rng, host=host,
                                 on_records_acked=on_records_acked)
        self.tasks_run = 1


class BurstLoad:
    """The bursts of an ``AppendProcess`` sent into one producer, then ``flush()``: the figures a
    ``job.Load`` gives (one executor, one task from the first burst to the flush's end)."""

    def __init__(self, engine: Engine, name: str, process: AppendProcess, spec: ClientSpec,
                 partitions: list[Partition], rng: Random, host: Cores, on_done: Callable[["BurstLoad"], None],
                 on_records_acked: RecordsAcked | None = None):
        self.engine, self.name, self.process, self.on_done = engine, name, process, on_done
        self.executors = [BurstExecutor(engine, f"{name}-executor0", spec, partitions, rng, host, on_records_acked)]
        self.tasks = [BurstTask()]
        self.record_bytes = spec.record_bytes
        self.keyed = spec.keyed
        self.partitions = partitions
        self.pick = rng.randrange
        self.started = self.write_started = self.ended = math.nan
        self.next = 0

    def start(self, _=None) -> None:
        self.started = self.write_started = self.tasks[0].started = self.engine.now
        self._burst()

    def _burst(self, _=None) -> None:
        producer, now = self.executors[0].producer, self.engine.now
        _, records = self.process.bursts[self.next]
        for _ in range(records):
            partition = self.partitions[self.pick(len(self.partitions))] if self.keyed else None
            producer.send(self.record_bytes, partition, now)
        self.next += 1
        if self.next < len(self.process.bursts):
            self.engine.at(self.started + self.process.bursts[self.next][0], self._burst)
        else:
            producer.flush(self._flushed)

    def _flushed(self) -> None:
        self.ended = self.tasks[0].finished = self.engine.now
        self.on_done(self)
