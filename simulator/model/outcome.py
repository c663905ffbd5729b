"""Turns a finished model run into a RunResult: counters, windows, timelines, mechanism."""
from __future__ import annotations

import dataclasses
import heapq
import math
from typing import Sequence

from simulator._core import BatchSizes, RecordLatencies
from simulator.contract import BatchSizeFigures, BrokerFigures, RunResult, Summary, TenantFigures
from simulator.model.broker import idle_percent
from simulator.model.explain import mechanism
from simulator.contract.histograms import batch_size_section
from simulator.contract.lines import tenant_line
from simulator.model.metrics import FloatSamples, Latencies
from simulator.model.night import job_figures, job_timelines
from simulator.model.streaming import figures as pipeline_figures
from workloads.kinds import kind_of


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _spread(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"min": ordered[0], "median": ordered[len(ordered) // 2], "max": ordered[-1]} if ordered else {}


def _window_mean(series: list[float], start: float, end: float) -> float | None:
    seconds = [v for s, v in enumerate(series) if start <= s and s + 1 <= end]
    return _mean(seconds) if seconds else None


def _p99_ms(seconds: FloatSamples) -> float | None:
    """The value at rank int(0.99 n) of the n in order, in ms (the event core selects it)."""
    if not seconds:
        return None
    return seconds.at_rank(min(len(seconds) - 1, int(0.99 * len(seconds)))) * 1e3


def _time_figures(seconds: FloatSamples) -> dict:
    return {"mean": seconds.total() / len(seconds) * 1e3 if seconds else None, "p99": _p99_ms(seconds)}


def _producer_figures(producer, load) -> dict:
    active = producer.append_seconds
    return {
        "name": producer.name,
        "tasks": next(e.tasks_run for e in load.executors if e.producer is producer),
        "produce_requests": producer.requests,
        "batches": producer.batches_sent,
        "bytes": producer.bytes_sent,
        "wire_bytes": producer.wire_sent,
        "records": producer.records_sent,
        "append_rate_bytes_per_s": producer.appended / active if active else 0.0,
        "drain_interval_ms": (producer.drain_interval.value or 0.0) * 1e3,
        "request_latency_ms": (producer.request_latency.value or 0.0) * 1e3,
        "mean_batch_bytes": producer.bytes_sent / producer.batches_sent if producer.batches_sent else 0.0,
        "batch_fill": (producer.wire_sent / producer.batches_sent / producer.batch_size) if producer.batches_sent else 0.0,
        "batches_per_request": producer.batches_sent / producer.requests if producer.requests else 0.0,
        "records_per_request": producer.records_sent / producer.requests if producer.requests else 0.0,
        "buffer_blocked_s": producer.blocked_seconds,
        "quota_throttled_s": producer.throttled_seconds,
        "compression_ratio_estimate": producer.ratio_estimate,
        # delivery.timeout.ms: batches that expired before their acknowledgement (a run without any: no figure)
        **({"expired_records": expired} if (expired := producer.accumulator.expired_records) else {}),
    }


def _record_latency(jobs: list) -> dict:
    """Every job's records' latency together, send() to acknowledgement (ms)."""
    together = RecordLatencies()
    for job in jobs:
        together.add(job.latencies)
    return together.summary()


def _batch_sizes(bulk_producers: list) -> BatchSizeFigures:
    sizes = BatchSizes()
    for producer in bulk_producers:
        sizes.add(producer.batch_sizes)
    return batch_size_section("model", sizes.wire, sizes.records, sum(p.records_sent for p in bulk_producers))


def _broker_times(run, name: str, start: float, end: float) -> dict:
    """The neighbour's produce requests as the brokers timed them during the load (p99, ms)."""
    parts = run.broker_times[name].between(start, end)
    return {part: _p99_ms(values) for part, values in zip(("LocalTimeMs", "RemoteTimeMs", "TotalTimeMs"), parts)}


def _tenant_figures(tenant, windows: dict, seconds: int) -> tuple[dict, list, Latencies]:
    latencies = tenant.latencies
    if not isinstance(latencies, Latencies):   # a streaming pipeline's (intended, latency) pairs
        latencies = Latencies(windows["during"][0])
        latencies.end = windows["during"][1]
        for intended, latency in tenant.latencies:
            latencies.record(intended, latency)
    latency_ms = {name: h.summary() for name, h in latencies.histograms(windows).items()}
    figures = {"name": tenant.spec.name, "client": tenant.spec.client.label, "topic": tenant.spec.topic,
               "sla_p99_ms": tenant.spec.sla.limit_ms(latency_ms["before"]["p99"]), "records": len(tenant.latencies),
               "produce_requests": tenant.producer.requests, "latency_ms": latency_ms}
    return figures, latencies.p99_line(seconds), latencies


def build(run) -> RunResult:
    scenario = run.scenario
    start, end = run.night_start, run.load_end   # a night's load: its first job's start to its last job's end
    simulated = run.engine.now
    seconds = int(math.ceil(simulated))
    windows = {"before": (0.0, start), "during": (start, end), "after": (end, simulated)}
    producers = [(p, load) for load in run.loads for p in (e.producer for e in load.executors)]
    figures = [_producer_figures(p, load) for p, load in producers]
    requests = sum(f["produce_requests"] for f in figures)
    batches = sum(f["batches"] for f in figures)
    record_bytes = sum(f["bytes"] for f in figures)
    wire = sum(f["wire_bytes"] for f in figures)
    records = sum(f["records"] for f in figures)
    active = [f for f in figures if f["produce_requests"]]

    brokers, handler_idle, network_idle, cpu = [], [], [], []
    for broker in run.brokers:
        h_idle = idle_percent(broker.handler_busy, broker.io_threads, seconds)
        n_idle = [sum(v) / len(broker.processors) for v in
                  zip(*(idle_percent(p.used, 1, seconds) for p in broker.processors))]
        cpu_pct = [min(100.0, 100.0 * v / broker.cores.count) for v in broker.metrics.cpu_busy.values(seconds)]
        handler_idle.append(h_idle)
        network_idle.append(n_idle)
        cpu.append(cpu_pct)
        brokers.append(BrokerFigures(
            id=broker.id,
            produce_requests=broker.metrics.produce.count,
            fetch_requests=broker.metrics.fetch.count,
            bytes_in=broker.nic_in.used.total(),
            bytes_out=broker.nic_out.used.total(),
            RequestQueueSize_max=broker.queue_max,
            produce_throttle_s=broker.produce_throttle_s,
            RequestHandlerAvgIdlePercent={w: _window_mean(h_idle, *span) for w, span in windows.items()},
            NetworkProcessorAvgIdlePercent={w: _window_mean(n_idle, *span) for w, span in windows.items()},
            cpu_percent={w: _window_mean(cpu_pct, *span) for w, span in windows.items()},
            produce_time_ms={name: _time_figures(times) for name, times in broker.metrics.produce.times.items()},
        ))

    tenants, tenant_lines, tenant_latencies = [], {}, {}
    for tenant in run.tenants:
        tenant_figures, line, tenant_latencies[tenant.spec.name] = _tenant_figures(tenant, windows, seconds)
        tenant_figures["broker_time_ms_p99_during"] = _broker_times(run, tenant.spec.name, start, end)
        if kind_of(tenant.spec).pipeline:   # its latency_ms is end to end
            tenant_figures.update(pipeline_figures(tenant, windows))
        tenants.append(tenant_figures)
        tenant_lines[tenant_line(tenant.spec.name)] = line

    def during(series_by_broker: list[list[float]], worst=min):
        values = [_window_mean(series, start, end) for series in series_by_broker]
        values = [v for v in values if v is not None]
        return worst(values) if values else None

    summary = Summary(
        produce_requests=requests,
        batches=batches,
        mean_batch_bytes=record_bytes / batches if batches else 0.0,
        mean_batch_wire_bytes=wire / batches if batches else 0.0,
        records_per_request=records / requests if requests else 0.0,
        batches_per_request=batches / requests if requests else 0.0,
        compression_ratio=wire / record_bytes if record_bytes else 1.0,
        record_bytes=record_bytes,
        wire_bytes=wire,
        load_seconds=end - start,
        simulated_seconds=simulated,
        broker_produce_requests=sum(b.produce_requests for b in brokers),
        fetch_requests=sum(b.fetch_requests for b in brokers),
        handler_idle_pct_during=during(handler_idle),
        network_idle_pct_during=during(network_idle),
        cpu_pct_during=during(cpu, max),
        replica_lag_bytes_max_during=max([lag for second, lag in enumerate(run.replica_lag, start=1)
                                          if start <= second <= end + 1], default=0.0),
        quota_throttle_s=sum(b.produce_throttle_s for b in brokers),
        remote_time_ms_p99=max((b.produce_time_ms["RemoteTimeMs"]["p99"] or 0.0) for b in brokers),
        append_rate_bytes_per_s=_mean([f["append_rate_bytes_per_s"] for f in active]),
        drain_interval_ms=_mean([f["drain_interval_ms"] for f in active]),
        batch_fill=_mean([f["batch_fill"] for f in active]),
        record_latency_ms=_record_latency(run.jobs),
        tenants=tuple(TenantFigures.of_run(t, t["broker_time_ms_p99_during"]) for t in tenants),
    )
    timelines = {
        "second": list(range(seconds)),
        "produce_requests_per_s": [sum(v) for v in zip(*(b.metrics.produce.per_second.values(seconds) for b in run.brokers))],
        "fetch_requests_per_s": [sum(v) for v in zip(*(b.metrics.fetch.per_second.values(seconds) for b in run.brokers))],
        "bytes_in_per_s": [sum(v) for v in zip(*(b.nic_in.used.values(seconds) for b in run.brokers))],
        "handler_idle_pct_min": [min(v) for v in zip(*handler_idle)],
        "network_idle_pct_min": [min(v) for v in zip(*network_idle)],
        "cpu_pct_max": [max(v) for v in zip(*cpu)],
        "request_queue_size_max": [max(v) for v in zip(*(b.queue_area.values(seconds) for b in run.brokers))],
        "replica_lag_bytes": [0.0] + run.replica_lag[:seconds - 1],
        **tenant_lines,
        **job_timelines(run, seconds),
    }
    plan = run.load_plan   # the first job's (a night's others: their JobFigures); a producer job has no Spark side
    spark = {} if scenario.batch.spark is None else {"max_split_bytes": plan.max_split_bytes, "scan_tasks": len(plan.scan_tasks),
             "write_tasks": len(plan.write_tasks), "shuffled": plan.shuffled,
             "slots": scenario.batch.spark.slots,
             "waves": math.ceil(len(plan.write_tasks) / scenario.batch.spark.slots),
             "record_bytes": run.bulk_record_bytes, "csv_row_bytes": run.shape.mean_csv_bytes,
             "value_row_bytes": run.shape.mean_value_bytes,
             "write_stage_start_s": run.loads[0].write_started,
             "write_task_seconds": _spread([t.finished - t.started for load in run.jobs[0].loads for t in load.tasks])}
    expired = sum(f.get("expired_records", 0.0) for f in figures)
    if expired and spark:   # Spark's Kafka sink rethrows the failed send's exception: the write task fails
        spark["failed"] = (f"TimeoutException: {expired:,.0f} records expired after delivery.timeout.ms; the Kafka "
                           "sink rethrows it and the write task, then the job, fails")
    result = RunResult(evaluator="model", scenario=scenario.as_mapping(), seed=run.seed, summary=summary,
                       spark=spark, producers=figures, brokers=tuple(brokers), tenants=tenants,
                       windows={k: list(v) for k, v in windows.items()}, timelines=timelines,
                       batch_sizes=_batch_sizes([p for p, _ in producers]), jobs=job_figures(run, tenant_latencies))
    return dataclasses.replace(result, mechanism=mechanism(result))
