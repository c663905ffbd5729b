"""A night's jobs on the live stack: every job's Glue driver at once, each with its own files,
topic, client.id and start; each job's rows verified on its own topic; each job's produce
requests as the brokers counted them by client.id (their request log, ``KafkaCluster``), and
each neighbour's p99 over the seconds of each job's load."""
from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any, Callable

from simulator.contract import JobFigures
from simulator.contract.histograms import LatencyHistogram
from simulator.contract.lines import JOB_RECORDS, JOB_REQUESTS, job_line
from simulator.contract.night import night_lines
from simulator.live._process import StackError
from workloads import BatchJob, Scenario, ScenarioError, appendtrace

DRIVERS_READY_S = 600.0   # every driver's JVM up and warm: a driver that never gets there calls the night off


def job_view(scenario: Scenario, job: BatchJob) -> Scenario:
    """``scenario`` with ``job`` as its one job and its files as the dataset: what the single job's
    parts (the dataset's writer, the driver, the integrity check) take."""
    return dataclasses.replace(scenario, jobs=(job,), listed=False, dataset=job.dataset or scenario.dataset)


def check_night(scenario: Scenario) -> None:
    """Each job of a night writes a topic of its own: its rows are read back and verified there."""
    seen: dict[str, int] = {}
    for i, job in enumerate(scenario.jobs):
        if job.topic in seen:
            raise ScenarioError(f"batch[{i}].topic", f"{job.topic!r} is also batch[{seen[job.topic]}]'s topic; the live "
                                                     "stack verifies each job's rows on a topic of its own")
        seen[job.topic] = i


def run_jobs(scenario: Scenario, run_one: Callable[[Scenario, Callable[[], None]], Any],
             before_loads: Callable[[], None]) -> list[Any]:
    """Run every job's driver at once (``run_one(view, before_load)``, in a thread each): once all
    are warm, ``before_loads`` runs (the settling and the before window) and each job's load starts
    its own start after the first's. The drivers' reports in the jobs' order; the first failure is raised."""
    views = [job_view(scenario, job) for job in scenario.jobs]
    first = min(scenario.job_start(job) for job in scenario.jobs)
    ready = threading.Barrier(len(views), action=before_loads, timeout=DRIVERS_READY_S)
    reports: list[Any] = [None] * len(views)
    errors: list[BaseException] = []

    def gate(index: int) -> Callable[[], None]:
        def before_load() -> None:
            try:
                ready.wait()
            except threading.BrokenBarrierError:
                raise StackError("another job of the night failed before its load") from None
            time.sleep(scenario.job_start(scenario.jobs[index]) - first)
        return before_load

    def drive(index: int) -> None:
        try:
            reports[index] = run_one(views[index], gate(index))
        except BaseException as error:   # noqa: BLE001 - raised below, after every driver ended
            errors.append(error)
            ready.abort()
    threads = [threading.Thread(target=drive, args=(i,), name=f"night-{job.name}") for i, job in enumerate(scenario.jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise next((e for e in errors if not isinstance(e, StackError) or "another job" not in str(e)), errors[0])
    return reports


def merged(reports: list[dict]) -> dict:
    """The night's jobs as one job's report (the summary's figures: totals summed, from the first
    load's start to the last load's end); each job's own figures are ``job_figures``'."""
    totals = ("request-total", "record-send-total", "outgoing-byte-total")
    producer = {metric: sum(r["producer"].get(metric, 0.0) for r in reports) for metric in totals}
    weights = [r["producer"].get("request-total", 0.0) for r in reports]
    for metric in {m for r in reports for m in r["producer"]} - set(totals):
        pairs = [(r["producer"][metric], w) for r, w in zip(reports, weights) if metric in r["producer"] and w > 0]
        producer[metric] = sum(v * w for v, w in pairs) / sum(w for _, w in pairs) if pairs else 0.0
    warm_up = {"request-total": sum((r.get("warm_up") or {}).get("request-total", 0.0) for r in reports),
               "rows": sum((r.get("warm_up") or {}).get("rows", 0.0) for r in reports)}
    started, ended = min(r["started"] for r in reports), max(r["ended"] for r in reports)
    return {**reports[0], "rows": sum(r["rows"] for r in reports), "input_bytes": sum(r["input_bytes"] for r in reports),
            "tasks": sum(r["tasks"] for r in reports), "write_tasks": sum(r["write_tasks"] for r in reports),
            "started": started, "ended": ended, "wall_seconds": ended - started, "producer": producer, "warm_up": warm_up}


def job_figures(scenario: Scenario, reports: list[dict], requests_by_client: dict[str, list[float]],
                traces: list, origin: float) -> tuple[JobFigures, ...]:
    """Each job's figures from its driver's report (its producer's own metrics), the brokers' request
    log (its client.id's Produce requests) and the neighbours' records meant for its load's seconds."""
    figures = []
    for job, report in zip(scenario.jobs, reports):
        producer = report["producer"]
        records = producer.get("record-send-total") or report["rows"]
        record_bytes = records * (producer.get("record-size-avg") or 0.0)
        ratio = producer.get("compression-rate-avg") or 1.0
        batch_bytes = (producer.get("batch-size-avg") or 0.0) / ratio
        start, end = report["started"] - origin, report["ended"] - origin
        logged = requests_by_client.get(job.client_id)
        figures.append(JobFigures(
            name=job.name, client_id=job.client_id, topic=job.topic, load_start_s=start, load_end_s=end,
            produce_requests=producer.get("request-total"), batches=round(record_bytes / batch_bytes) if batch_bytes else None,
            records=records, record_bytes=record_bytes, wire_bytes=producer.get("outgoing-byte-total"),
            broker_produce_requests=None if logged is None else len(logged),
            request_latency_ms=producer.get("request-latency-avg"),
            neighbour_p99_ms={trace.name: _p99(trace, origin + start, origin + end) for trace in traces}))
    return tuple(figures)


def job_timelines(scenario: Scenario, requests_by_client: dict[str, list[float]], origin: float,
                  seconds: int) -> dict[str, list[float]]:
    """Each job's Produce requests a second as the brokers logged them (the model's ``job.NAME`` lines)."""
    lines = {}
    for job in scenario.jobs:
        line = [0.0] * seconds
        for at in requests_by_client.get(job.client_id, []):
            if 0 <= at - origin < seconds:
                line[int(at - origin)] += 1
        lines[job_line(job.name, JOB_REQUESTS)] = line
    return lines


def job_lines(result: Any, scenario: Scenario, requests_by_client: dict[str, list[float]], trace: str | None,
              origin: float) -> Any:
    """A one-job run's result with its job's lines, as the model's: its Produce requests a second as
    the brokers logged them and, from its append trace, the records acknowledged to its producers a second."""
    seconds = len(result.timelines.get("second", []))
    lines = job_timelines(scenario, requests_by_client, origin, seconds) if requests_by_client else {}
    summary = result.summary
    if trace:
        job = scenario.jobs[0]
        read = appendtrace.read_trace(trace)
        latency = LatencyHistogram()     # the job's records, send() to acknowledgement, from its trace
        for seconds_taken in appendtrace.record_latencies(read, job.client_id):
            latency.record(max(seconds_taken, 0.0))
        summary = dataclasses.replace(summary, record_latency_ms=latency.summary() if latency.count else None)
        mine = {i for i, name in enumerate(read.producers) if name == job.client_id}
        line = [0.0] * seconds
        for thread in read.threads:
            for ack in thread.acks:
                if ack[1] in mine and 0 <= (at := read.anchor_wall_s + ack[0] - origin) < seconds:
                    line[int(at)] += 1
        lines[job_line(job.name, JOB_RECORDS)] = line
    return dataclasses.replace(result, summary=summary, timelines={**result.timelines, **lines}) if lines else result


def _p99(trace: Any, start: float, end: float) -> float | None:
    histogram = LatencyHistogram()
    for intended, latency in zip(trace.intended, trace.latency):
        if start <= intended < end:
            histogram.record(latency)
    return histogram.percentile(0.99)


def night_result(result: Any, scenario: Scenario, reports: list[dict], checked: list, requests_by_client: dict[str, list[float]],
                 traces: list, origin: float) -> Any:
    """A live night's RunResult: each job's figures and requests a second, each job's rows verified on
    its topic, and the night's lines (which job sent most requests while a neighbour was over its SLA)."""
    seconds = len(result.timelines.get("second") or [])
    jobs = job_figures(scenario, reports, requests_by_client, traces, origin)
    night_run = dataclasses.replace(result, jobs=jobs,
                                    timelines={**result.timelines, **job_timelines(scenario, requests_by_client, origin, seconds)})
    lines = [f"Job {job.name}: {report.render()}." for job, report in zip(jobs, checked)]
    lines += [f"The brokers counted {job.broker_produce_requests:,} Produce requests of client.id {job.client_id} "
              f"(its producer's own count: {job.produce_requests:,.0f})." for job in jobs if job.broker_produce_requests is not None]
    return dataclasses.replace(night_run, mechanism=[*night_run.mechanism, *lines, *night_lines(night_run)])
