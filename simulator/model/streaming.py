"""Streaming pipelines on the model: each framework's cadence between its consumers
(``consumer.Consumer``) and its sink producers (``producer.Producer``).

- Record at a time (Kafka Streams, Spark continuous and real-time mode, Flink): a thread per
  worker polls its consumer, does ``record_cost`` of work per record and hands each result to
  its producer; the consumer fetches again as soon as the thread has taken its records. Kafka
  Streams commits every ``commit.interval.ms`` on the thread (flush, then the offset commit; for
  exactly-once the transaction's EndTxn, which makes the output visible). Real-time mode stops
  at each ``realTime`` boundary to plan its next long batch. A Flink job reading Kafka, mapping
  and writing Kafka chains its operators into one task per parallel subtask, so no record waits
  in a network buffer (``execution.buffer-timeout`` applies to jobs with a shuffle, which this
  one is not); its exactly-once sink commits a transaction at each checkpoint.
- Micro-batch (Spark ``processingTime``): a trigger asks the leaders for their latest offsets
  (ListOffsets through their handlers), writes the offset log, plans, runs a task per partition
  with new records on its slots (each fetches its range, processes it, flushes the producer),
  writes the state and the commit log, and waits for the next trigger. With
  ``asyncProgressTrackingEnabled`` the two log writes go to one background writer, durably at
  most every ``asyncProgressTrackingCheckpointIntervalMs``; with two writes already queued the
  query waits (Spark's AsyncProgressTrackingMicroBatchExecution).

Workers run on their own cores (an assumption: the pipelines' hosts are not the brokers').
End to end latency: the input record's intended send time to its output record's
acknowledgement (exactly-once: the commit that makes it visible).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from simulator._core import Random
from simulator.model.broker import ApiKeys, Broker, Request
from simulator.model.client import ClientSpec
from simulator.model.compression import record_overhead
from simulator.model.consumer import Consumer, InputLog
from simulator.model.producer import Producer
from workloads.streaming import SINK_CLIENT, StreamingTenant

if TYPE_CHECKING:   # annotations only: model.py builds the pipelines, so a run-time import would be a cycle
    from simulator.model.model import ModelRun, TenantRun

POLLING_DELAY = 0.010             # spark.sql.streaming.pollingDelay: an idle trigger looks again after it


class Call:
    """A request to a broker whose handler cost its caller states (ListOffsets, OffsetCommit, EndTxn)."""

    def __init__(self, api: int, broker: Broker, cost: float, rtt: float, on_done: Callable[[float], None]):
        self.api, self.broker, self.cost, self.half_rtt, self.on_done = api, broker, cost, rtt / 2, on_done
        self.connection = broker.connect("coordinator-call")
        self.response_at: Callable[[Request], None] = self._response

    def send(self, now: float) -> None:
        self.broker.receive(Request(self.api, self.connection, 200.0, self, self), now + self.half_rtt)

    def handler_cpu(self, request: Request, broker: Broker) -> float:
        return self.cost

    def handled(self, request: Request, now: float) -> None:
        self.broker.respond(request, now)

    def _response(self, request: Request) -> None:
        self.on_done(self.broker.engine.now)


class PipelineRun:
    """A streaming tenant on the model: its upstream producer (``producer``), the end to end
    latencies (``latencies``: (intended, seconds)) and each record's parts."""

    def __init__(self, spec: StreamingTenant, upstream: TenantRun):
        self.spec, self.producer = spec, upstream.producer
        self.upstream = upstream.latencies
        self.latencies: list[tuple[float, float]] = []
        self.parts: list[tuple[float, float, float, float]] = []   # intended, to pipeline, in it, to output
        self.stages: dict[float, tuple[float, float]] = {}         # intended -> (fetched, emitted)
        self.committing: list[float] = []       # exactly-once: emitted, not yet committed
        self.batches: list[dict] = []           # micro-batches: what each took
        self.consumers: list[Consumer] = []
        self.sinks: list[Producer] = []

    def emitted(self, intended: float, fetched: float, now: float) -> None:
        self.stages[intended] = (fetched, now)
        if self.spec.exactly_once:
            self.committing.append(intended)

    def done(self, intended: float, now: float) -> None:
        fetched, emitted = self.stages.pop(intended)
        self.latencies.append((intended, now - intended))
        self.parts.append((intended, fetched - intended, emitted - fetched, now - emitted))

    def acked(self, intended: list[float], now: float) -> None:
        if not self.spec.exactly_once:
            for t in intended:
                self.done(t, now)

    def committed(self, records: list[float], now: float) -> None:
        for t in records:
            self.done(t, now)


class Pipeline:
    """What every framework shares: the logs, the sink producers, the coordinator calls."""

    def __init__(self, run: ModelRun, spec: StreamingTenant, upstream: TenantRun):
        self.run, self.spec, self.engine = run, spec, run.engine
        profile = run.scenario.profile
        self.costs, self.broker_costs = profile.streaming, profile.broker
        self.rtt = run.scenario.cluster.network_rtt
        self.logs = [InputLog(p) for p in run.partitions[spec.topic]]
        self.out = PipelineRun(spec, upstream)
        self.record_bytes = spec.record_size + record_overhead(spec.record_size, None)
        self.rng = Random.seeded(run.rng.random())
        workers = spec.workers or len(self.logs)
        self.assigned = [[log for i, log in enumerate(self.logs) if i % workers == w] for w in range(workers)]
        self.assigned = [logs for logs in self.assigned if logs]
        self.coordinator = run.brokers[sum(spec.name.encode()) % len(run.brokers)]

    def sink(self, index: int) -> Producer:
        run, spec = self.run, self.spec
        name = f"{spec.name}-sink{index}"
        sink = ClientSpec(name, SINK_CLIENT, spec.sink, run.scenario.profile.client,
                          run.rows.curve(spec.sink.compression_type).ratio_at, self.record_bytes, False, self.rtt)
        producer = Producer(self.engine, name, sink, run.partitions[spec.output_topic], Random.seeded(self.rng.random()),
                            on_records_acked=self.out.acked)
        self.out.sinks.append(producer)
        return producer

    def consumer(self, logs: list[InputLog], on_data: Callable[[float], None]) -> Consumer:
        consumer = Consumer(self.engine, self.spec.name, logs, self.spec.consumer, self.broker_costs, self.rtt, on_data)
        self.out.consumers.append(consumer)
        return consumer

    def emit(self, producer: Producer, record: tuple[float, float]) -> None:
        now = self.engine.now
        self.out.emitted(record[0], record[1], now)
        producer.send(self.record_bytes, None, record[0])

    def commit(self, producer: Producer, on_done: Callable[[float], None]) -> None:
        """Flush, then the offset commit (at least once) or EndTxn with its markers (exactly once)."""
        records, self.out.committing = self.out.committing, []
        if self.spec.exactly_once:
            markers = len(self.run.partitions[self.spec.output_topic]) + len(self.logs)
            cost = self.costs.end_txn_request_us * 1e-6 + markers * self.costs.txn_marker_us * 1e-6
        else:
            cost = self.broker_costs.produce_request_us * 1e-6     # an append to __consumer_offsets

        def committed(now: float) -> None:
            self.out.committed(records, now)
            on_done(now)

        def flushed() -> None:
            api = ApiKeys.END_TXN if self.spec.exactly_once else ApiKeys.OFFSET_COMMIT
            Call(api, self.coordinator, cost, self.rtt, committed).send(self.engine.now)
        producer.flush(flushed)


class Worker:
    """A record-at-a-time thread: poll, process each record, hand it to the producer, repeat."""

    def __init__(self, pipeline: Pipeline, logs: list[InputLog], producer: Producer):
        self.pipeline, self.engine, self.producer = pipeline, pipeline.engine, producer
        self.costs, self.spec = pipeline.costs, pipeline.spec
        self.consumer = pipeline.consumer(logs, self.wake)
        self.busy = False
        # Kafka Streams commits every commit.interval.ms; real-time mode plans a batch every realTime
        self.commit_every = self.spec.commit_every
        self.batch_every = self.spec.plan_every
        self.next_commit = self.commit_every
        self.next_boundary = self.batch_every

    def start(self, _: Any = None) -> None:
        self.consumer.send_fetches(self.engine.now)

    def wake(self, now: float) -> None:
        if not self.busy:
            self._loop()

    def _loop(self, _: Any = None) -> None:
        now = self.engine.now
        self.busy = False
        if now >= self.next_boundary:        # real-time mode: the next long batch is planned
            self.next_boundary += self.batch_every
            self._pause(now + self.costs.microbatch_planning_ms / 1e3)
            return
        if now >= self.next_commit:
            self.next_commit = now + self.commit_every
            self.busy = True
            self.pipeline.commit(self.producer, lambda done: self._pause(done))
            return
        records = self.consumer.poll(now)
        if not records:
            if self.next_commit < math.inf:
                self.engine.at(self.next_commit, self._idle_commit)
            return
        self.busy = True
        self.engine.at(self.process(records, now + self.costs.poll_us * 1e-6), self._loop)

    def _idle_commit(self, _: Any = None) -> None:
        if not self.busy and self.engine.now >= self.next_commit:
            self._loop()

    def _pause(self, until: float) -> None:
        self.busy = True
        self.engine.at(until, self._loop)

    def process(self, records: list[tuple[float, float]], start: float) -> float:
        """Each record's work, then its send(); returns when the last is done."""
        t = start
        for record in records:
            t += self.spec.record_cost
            self.engine.at(t, self._emit, record)
        return t

    def _emit(self, record: tuple[float, float]) -> None:
        self.pipeline.emit(self.producer, record)


def _checkpoints(pipeline: Pipeline, producers: list[Producer], interval: float) -> None:
    """Flink's exactly-once sink: each checkpoint commits the transaction of every sink."""
    def checkpoint(_: Any = None) -> None:
        for producer in producers:
            pipeline.commit(producer, lambda now: None)
        pipeline.engine.at(pipeline.engine.now + interval, checkpoint)
    pipeline.engine.at(interval, checkpoint)


def record_at_a_time(pipeline: Pipeline) -> None:
    spec = pipeline.spec
    shared = None if spec.producer_per_worker else pipeline.sink(0)
    sinks = []
    for i, logs in enumerate(pipeline.assigned):
        producer = shared or pipeline.sink(i)
        sinks.append(producer)
        pipeline.engine.at(0.0, Worker(pipeline, logs, producer).start)
    checkpoint_every = spec.checkpoint_commit_every
    if checkpoint_every is not None:
        _checkpoints(pipeline, sinks, checkpoint_every)


def _mean_ms(values: list[float]) -> float | None:
    return sum(values) / len(values) * 1e3 if values else None


def figures(out: PipelineRun, windows: dict) -> dict:
    """A streaming tenant's own figures beside the producer tenants' ones (workloads.streaming
    names the shape): the upstream producer's latency, each part of the end to end latency
    (mean ms: to the pipeline, in it, to the output) and, for micro-batches, what a batch took."""
    upstream = out.upstream.histograms(windows)
    parts: dict[str, list[list[float]]] = {name: [[], [], []] for name in windows}
    for name, (start, end) in windows.items():
        for intended, *values in out.parts:
            if start <= intended < end:
                for i, value in enumerate(values):
                    parts[name][i].append(value)
    streaming: dict[str, Any] = {
        "parts_ms": {name: dict(zip(("to_pipeline", "in_pipeline", "to_output"), (_mean_ms(v) for v in lists)))
                     for name, lists in parts.items()},
        "fetch_requests": sum(c.fetches for c in out.consumers),
        "empty_fetches": sum(c.empty_fetches for c in out.consumers),
        "sink_produce_requests": sum(p.requests for p in out.sinks),
        "records_not_out": len(out.stages),
        "sink_linger_ms": out.spec.sink.linger_ms,
        "exactly_once": out.spec.exactly_once,
    }
    if out.batches:
        keys = ("offsets_s", "offset_log_s", "planning_s", "tasks_s", "state_s", "commit_log_s")
        streaming["batches"] = {name: {"count": len(chosen), "records": sum(b.get("records", 0) for b in chosen),
                                       "batch_ms": _mean_ms([b["end"] - b["start"] for b in chosen]),
                                       **{k[:-2] + "_ms": _mean_ms([b.get(k, 0.0) for b in chosen]) for k in keys}}
                                for name, (start, end) in windows.items()
                                for chosen in [[b for b in out.batches if start <= b["start"] < end]]}
    return {"kind": out.spec.kind, "output_topic": out.spec.output_topic,
            "upstream_latency_ms": {name: h.summary() for name, h in upstream.items()}, "streaming": streaming}

