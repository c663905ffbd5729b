"""A plain producer job (``kind: producer``) at run time, as ``kafka-producer-perf-test`` runs:
``producers`` instances, each a JVM on a host of its own with one ``KafkaProducer`` and one thread
calling ``send()`` in a loop, ``records`` records each, then ``close()`` (a flush).

The loop appends as a flow (``Producer.set_rate``) at the rate its thread calls ``send()``
(``send_rate``: the profile's cost of one call). With ``--throughput`` it follows perf-test's
``ThroughputThrottler``: it sends back to back while it is behind the rate; once ahead, each record
adds ``1 / throughput`` to a sleep deficit and at ``MIN_SLEEP_NS`` (2 ms; a whole record's share
when that is longer) the thread sleeps the deficit, which takes the profile's wake time more. So it
wakes, sends what the rate allows plus the deficit's records, and sleeps again: bursts.
"""
from __future__ import annotations

import math
import random
from typing import Callable

from simulator._core import Cores, Random
from simulator.model.broker import Partition
from simulator.model.client import ClientSpec
from simulator.model.engine import Engine
from simulator.model.producer import Producer
from simulator.model.rows import RowFigures
from simulator.model.accumulator import BatchAcked
from workloads import BatchJob

MIN_SLEEP_S = 0.002        # ThroughputThrottler.MIN_SLEEP_NS
PAYLOAD_SAMPLE_BYTES = 1024 * 1024 + 1   # enough values for the largest batch a curve measures


def payload_values(job: BatchJob, rows: Callable[[], RowFigures]) -> list[bytes]:
    """A sample of the job's record values: perf-test's (``random``: each record's own A-Z bytes,
    drawn per byte as ``ProducerPerformance.generateRandomPayload`` does; ``repeated``: one such
    value in every record, as perf-test before 3.0 made it once), or the dataset's rows as JSON."""
    if job.values == "rows":
        return rows().values
    size = job.record_size or 1
    count = math.ceil(PAYLOAD_SAMPLE_BYTES / size)
    draw = random.Random(0)
    letters = bytes(draw.choices(range(65, 91), k=size * (count if job.values == "random" else 1)))
    if job.values == "repeated":
        return [letters] * count
    return [letters[i * size:(i + 1) * size] for i in range(count)]


class PerfTask:
    """An instance's send loop, from its first send() to the end of its close()."""

    __slots__ = ("started", "finished")

    def __init__(self) -> None:
        self.started = self.finished = math.nan


class PerfProducer:
    """One perf-test instance: its producer and its sending thread, on ``host``."""

    def __init__(self, load: "PerfLoad", index: int, spec: ClientSpec, partitions: list[Partition],
                 rng: Random, host: Cores, on_batch_acked: BatchAcked | None):
        self.load, self.host, self.task = load, host, PerfTask()
        self.tasks_run = 1
        self.token = 0
        self.total = load.records * spec.record_bytes
        self.producer = Producer(load.engine, f"{load.name}-producer{index}", spec, partitions, rng, host=host,
                                 on_block_change=self._block_changed, on_batch_acked=on_batch_acked)
        # the sending thread is on a core while it sends (not asleep, not blocked on buffer.memory)
        host.join(self.producer.sender, cpu_bound=True)

    @property
    def sending(self) -> bool:
        return self.producer.accumulator.application_threads > 0.0

    @sending.setter
    def sending(self, awake: bool) -> None:
        self.producer.accumulator.application_threads = 1.0 if awake else 0.0

    def start(self) -> None:
        self.task.started = self.load.engine.now
        self._wake()

    def _goal(self, now: float) -> float:
        """The bytes sent once the thread is ahead of the rate by the deficit it sleeps on."""
        load = self.load
        if load.rate_bytes is None:
            return self.total
        return min(self.total, load.rate_bytes * (now - self.task.started + load.deficit_s))

    def _wake(self, _=None) -> None:
        """The thread wakes (or starts): it sends until it reaches its goal."""
        self.producer.set_rate(self.load.send_rate)
        self.sending = True
        self._reschedule()

    def _block_changed(self) -> None:
        if self.sending:
            self._reschedule()

    def _reschedule(self) -> None:
        self.token += 1
        if self.producer.blocked:
            return       # send() waits for buffer.memory: the producer says when it goes on
        engine, load = self.load.engine, self.load
        self.producer.advance(engine.now)
        appended = self.producer.appended
        # the whole job's bytes at the send rate; with a throttle, while it sends the goal moves on at
        # the rate: it is caught at (goal - appended) / (send rate - rate)
        wait = (self.total - appended) / load.send_rate
        if load.rate_bytes is not None and load.send_rate > load.rate_bytes:
            wait = min(wait, (self._goal(engine.now) - appended) / (load.send_rate - load.rate_bytes))
        engine.at(engine.now + max(0.0, wait), self._reached, self.token)

    def _reached(self, token: int) -> None:
        if token != self.token:
            return
        engine, load = self.load.engine, self.load
        self.producer.advance(engine.now)
        if self.producer.blocked:
            return
        if self.total - self.producer.appended <= 1e-3 * load.record_bytes:
            self.producer.set_rate(0.0)
            self.sending = False
            self.producer.flush(self._closed)
            return
        if self._goal(engine.now) - self.producer.appended > 1e-3 * load.record_bytes:
            self._reschedule()
            return
        self.producer.set_rate(0.0)      # ahead by the deficit: Object.wait until it is slept off
        self.sending = False
        engine.at(engine.now + load.deficit_s + load.wake_s, self._wake)

    def _closed(self) -> None:
        self.task.finished = self.load.engine.now
        self.load.instance_done()


class PerfLoad:
    """One load of a producer job (``name``: load0, ...): its instances, each on its own host."""

    def __init__(self, engine: Engine, name: str, spec: ClientSpec, partitions: list[Partition],
                 rngs: list[Random], hosts: list[Cores], records: int, send_rate: float,
                 throughput: float | None, wake_s: float, on_done: Callable[["PerfLoad"], None],
                 on_batch_acked: BatchAcked | None = None):
        self.engine, self.name, self.on_done = engine, name, on_done
        self.records, self.record_bytes, self.send_rate = records, spec.record_bytes, send_rate
        # perf-test's --throughput in bytes a second, the deficit it sleeps on and the wake it takes more
        self.rate_bytes = None if throughput is None else throughput * spec.record_bytes
        self.deficit_s = 0.0 if throughput is None else max(MIN_SLEEP_S, 1.0 / throughput)
        self.wake_s = wake_s
        self.executors = [PerfProducer(self, i, spec, partitions, rng, host, on_batch_acked)
                          for i, (rng, host) in enumerate(zip(rngs, hosts))]
        self.tasks = [instance.task for instance in self.executors]
        self.started = self.write_started = self.ended = math.nan
        self.finished = 0

    def start(self, _=None) -> None:
        self.started = self.write_started = self.engine.now
        for instance in self.executors:
            instance.start()

    def instance_done(self) -> None:
        self.finished += 1
        if self.finished == len(self.executors):
            self.ended = self.engine.now
            self.on_done(self)
