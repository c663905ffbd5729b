"""Spark Structured Streaming's micro-batch cadence (MicroBatchExecution, and
AsyncProgressTrackingMicroBatchExecution when ``asyncProgressTrackingEnabled``).

A trigger fires every ``processingTime`` (at once when a batch overran it, or after the last
one when it is 0). The driver asks each leader for its latest offsets (a ListOffsets request
through its handlers), takes at most ``maxOffsetsPerTrigger`` records, writes the offset log,
plans, and runs one task per partition with new records on its slots; a task fetches its range
with the partition's cached consumer, does ``record_cost`` per record, hands each result to the
executor's producer and flushes it at its end. Then the state store's commit (stateful queries)
and the commit log. With no new records nothing is written; the driver looks again at the next
trigger (``spark.sql.streaming.pollingDelay`` when the trigger is 0).
"""
from __future__ import annotations

import math
from functools import partial
from typing import Any, cast

from simulator.model.broker import ApiKeys
from simulator.model.consumer import InputLog
from simulator.model.streaming import POLLING_DELAY, Call, Pipeline
from workloads.streaming import SparkMicroBatch


class AsyncLogWriter:
    """The one background thread of asynchronous progress tracking: writes run in order, two may
    wait; a third blocks the query until one starts (RejectedExecutionHandler puts it)."""

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.last_end = 0.0

    def submit(self, now: float, seconds: float) -> float:
        """Queue a write at ``now``; returns when the query may go on."""
        waiting = sorted(start for start in self.starts if start > now)
        go_on = waiting[-2] if len(waiting) >= 2 else now
        start = max(go_on, self.last_end)
        self.starts = [s for s in self.starts if s > now] + [start]
        self.last_end = start + seconds
        return go_on


class MicroBatch:
    def __init__(self, pipeline: Pipeline):
        self.pipeline, self.engine, self.out = pipeline, pipeline.engine, pipeline.out
        self.spec = cast(SparkMicroBatch, pipeline.spec)      # the registry runs micro-batches for this kind alone
        self.costs = pipeline.costs
        self.interval = self.spec.processing_time_ms / 1e3
        self.producer = pipeline.sink(0)          # the executor's producer, shared by its tasks
        self.consumers = {log: pipeline.consumer([log], self._data) for log in pipeline.logs}
        self.owner = {consumer: log for log, consumer in self.consumers.items()}
        self.slots = self.spec.slots or len(pipeline.logs)
        self.writer = AsyncLogWriter() if self.spec.async_progress else None
        self.last_durable = -math.inf
        self.batch: dict = {}
        self.tasks: list[InputLog] = []
        self.running: dict[InputLog, float] = {}     # task -> when its thread is next free
        self.ending: set[InputLog] = set()
        self.flushing = 0                            # tasks waiting for their producer.flush()
        self.offsets_pending = 0
        self.ends: dict[InputLog, int] = {}

    def start(self) -> None:
        self.engine.at(0.0, self._trigger)

    # ---- the driver -------------------------------------------------------------------------
    def _trigger(self, _: Any = None) -> None:
        now = self.engine.now
        self.batch = {"start": now}
        leaders: dict[Any, list[InputLog]] = {}
        for log in self.pipeline.logs:
            leaders.setdefault(log.partition.leader, []).append(log)
        self.offsets_pending = len(leaders)
        self.ends = {}
        b = self.pipeline.broker_costs
        for leader, logs in leaders.items():
            cost = b.fetch_request_us * 1e-6 + len(logs) * b.fetch_partition_us * 1e-6
            Call(ApiKeys.LIST_OFFSETS, leader, cost, self.pipeline.rtt, partial(self._latest, logs)).send(now)

    def _latest(self, logs: list[InputLog], now: float) -> None:
        for log in logs:          # the offsets as the leader answered (its high watermark)
            self.ends[log] = log.end()
        self.offsets_pending -= 1
        if self.offsets_pending:
            return
        self.batch["offsets_s"] = now - self.batch["start"]
        self._cap()
        new = [log for log in self.pipeline.logs if self.ends[log] > self.consumers[log].position[log]]
        if not new:
            self._next_trigger(now, ran=False)
            return
        self.tasks = new
        self.batch["records"] = sum(sum(len(b.intended or ()) for b in log.batches[self.consumers[log].position[log]:self.ends[log]])
                                    for log in new)
        self._write("offset_log", self.costs.offset_log_write_ms / 1e3, now, self._plan)

    def _cap(self) -> None:
        """maxOffsetsPerTrigger: the records split over the partitions by their backlog."""
        limit = self.spec.max_offsets_per_trigger
        if limit is None:
            return
        backlog = {log: self.ends[log] - self.consumers[log].position[log] for log in self.pipeline.logs}
        total = sum(backlog.values())
        if total <= 0:
            return
        for log, count in backlog.items():
            # batches of the upstream producer: records per batch, taken as whole batches
            position = self.consumers[log].position[log]
            allowed = limit * count / total
            taken = records = 0
            while taken < count and records + len(log.batches[position + taken].intended or ()) <= max(allowed, 1):
                records += len(log.batches[position + taken].intended or ())
                taken += 1
            self.ends[log] = position + max(taken, 1 if count else 0)

    def _write(self, name: str, seconds: float, now: float, then: Any) -> None:
        """A log write: on the query's path, or handed to the async writer (durably at most every
        asyncProgressTrackingCheckpointIntervalMs; the others stay in memory)."""
        if self.writer is None:
            self.batch[f"{name}_s"] = seconds
            self.engine.at(now + seconds, then)
            return
        durable = name == "commit_log" and self.batch.get("durable") or (
            name == "offset_log" and now - self.last_durable >= self.spec.async_checkpoint_interval_ms / 1e3)
        go_on = now
        if durable:
            self.batch["durable"] = True
            if name == "offset_log":
                self.last_durable = now
            go_on = self.writer.submit(now, seconds)
        self.batch[f"{name}_s"] = go_on - now
        self.engine.at(go_on, then)

    def _plan(self, _: Any = None) -> None:
        now = self.engine.now
        planning = self.costs.microbatch_planning_ms / 1e3
        self.batch["planning_s"] = planning
        self.engine.at(now + planning, self._run_tasks)

    def _run_tasks(self, _: Any = None) -> None:
        self.batch["tasks_start"] = self.engine.now
        self.queue = list(self.tasks)
        self.running = {}
        for _ in range(min(self.slots, len(self.queue))):
            self._launch()

    def _launch(self) -> None:
        log = self.queue.pop(0)
        consumer = self.consumers[log]
        consumer.limit[log] = self.ends[log]
        self.running[log] = self.engine.now
        consumer.send_fetches(self.engine.now)

    # ---- a task -------------------------------------------------------------------------------
    def _data(self, now: float) -> None:
        for log, free in list(self.running.items()):
            consumer = self.consumers[log]
            records = consumer.poll(max(now, free), most=len(consumer.records))
            t = max(now, free)
            for record in records:
                t += self.spec.record_cost
                self.engine.at(t, self._emit, record)
            self.running[log] = t
            if consumer.position[log] >= self.ends[log] and not consumer.records and log not in self.ending:
                self.ending.add(log)       # its range is read: it ends once its records are processed
                self.engine.at(t, self._task_end, log)

    def _emit(self, record: tuple[float, float]) -> None:
        self.pipeline.emit(self.producer, record)

    def _task_end(self, log: InputLog) -> None:
        self.ending.discard(log)
        del self.running[log]
        self.flushing += 1
        self.producer.flush(partial(self._task_flushed, log))

    def _task_flushed(self, log: InputLog) -> None:
        self.flushing -= 1
        if self.queue:
            self._launch()
        elif not self.running and not self.flushing:
            now = self.engine.now
            self.batch["tasks_end"] = now
            self.batch["tasks_s"] = now - self.batch["tasks_start"]
            if self.spec.stateful:
                self.batch["state_s"] = self.costs.state_commit_ms / 1e3
                now += self.batch["state_s"]
            self.engine.at(now, self._commit_log)

    def _commit_log(self, _: Any = None) -> None:
        if self.running or self.queue:
            return
        self._write("commit_log", self.costs.commit_log_write_ms / 1e3, self.engine.now, self._batch_end)

    def _batch_end(self, _: Any = None) -> None:
        now = self.engine.now
        self.batch["end"] = now
        self.out.batches.append(self.batch)
        self._next_trigger(now, ran=True)

    def _next_trigger(self, now: float, ran: bool) -> None:
        """ProcessingTimeExecutor: the next multiple of the interval after the batch's start, or
        at once when the batch overran it; with no interval, at once (after pollingDelay if idle)."""
        start = self.batch["start"]
        if self.interval > 0:
            due = (math.floor(start / self.interval + 1e-9) + 1) * self.interval
            when = max(now, due)
        else:
            when = now if ran else now + POLLING_DELAY
        self.engine.at(when, self._trigger)
