"""A night's jobs in a model run's result: each job's own figures (``JobFigures``) and its produce
requests a second as the brokers counted them by its client.id (a timeline per job), so that a
report can say which job loaded the brokers while a neighbour was over its SLA."""
from __future__ import annotations

import math

from simulator.contract import JobFigures
from simulator.contract.lines import JOB_RECORDS, JOB_REQUESTS, job_line
from simulator.model.metrics import Latencies


def _mean(means: list) -> float | None:
    count = sum(m.count for m in means)
    return sum(m.total for m in means) / count if count else None


def job_figures(run, latencies: dict[str, Latencies]) -> tuple[JobFigures, ...]:
    """Each job's figures when the run has several (none for one job: the summary is its own)."""
    if len(run.jobs) < 2:
        return ()
    figures = []
    for job_run in run.jobs:
        producers = [e.producer for load in job_run.loads for e in load.executors]
        active = [p for p in producers if p.requests]
        start = min(load.started for load in job_run.loads)
        end = None if math.isnan(job_run.ended) else job_run.ended
        batches = sum(p.batches_sent for p in producers)
        client_id = job_run.job.client_id
        figures.append(JobFigures(
            name=job_run.job.name, client_id=client_id, topic=job_run.job.topic, load_start_s=start, load_end_s=end,
            produce_requests=sum(p.requests for p in producers), batches=batches,
            records=sum(p.records_sent for p in producers), record_bytes=sum(p.bytes_sent for p in producers),
            wire_bytes=sum(p.wire_sent for p in producers),
            broker_produce_requests=sum(b.metrics.produce.by_client[client_id].total() for b in run.brokers
                                        if client_id in b.metrics.produce.by_client),
            request_latency_ms=_ms(_mean([p.request_latency for p in active])),
            append_rate_bytes_per_s=_average([p.appended / p.append_seconds for p in active if p.append_seconds]),
            drain_interval_ms=_ms(_average([p.drain_interval.value for p in active if p.drain_interval.value is not None])),
            batch_fill=_average([p.wire_sent / p.batches_sent / p.batch_size for p in active if p.batches_sent]),
            quota_throttle_s=sum(p.throttled_seconds for p in producers),
            neighbour_p99_ms={name: line.p99_between(start, end if end is not None else math.inf)
                              for name, line in latencies.items()},
            record_latency_ms=job_run.latencies.summary()))
    return tuple(figures)


def job_timelines(run, seconds: int) -> dict[str, list[float]]:
    """Each job's produce requests a second, as the brokers counted its client.id's, and their records."""
    lines = {}
    for job_run in run.jobs:
        client_id = job_run.job.client_id
        for line, kept in ((JOB_REQUESTS, lambda b: b.metrics.produce.by_client),
                           (JOB_RECORDS, lambda b: b.metrics.produce.records_by_client)):
            per_broker = [kept(b)[client_id].values(seconds) for b in run.brokers if client_id in kept(b)]
            lines[job_line(job_run.job.name, line)] = [sum(v) for v in zip(*per_broker)] if per_broker \
                else [0.0] * seconds
    return lines


def _average(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1e3
