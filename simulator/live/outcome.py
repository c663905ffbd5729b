"""A live run's RunResult: the same schema as the model's, filled from what the real parts said.

Requests per broker come from the brokers' own counters; the batch job's produce requests are
the brokers' Produce count over the run less the neighbours' (librdkafka counts its own). Batch
size, records per request and compression come from the job's Java producer metrics, which
average over their last 30-60 s (Kafka's metrics.sample.window.ms x metrics.num.samples).
The distribution of batch sizes is the brokers' own: every record batch of the bulk topic's
logs (``simulator.live.logdump``), None against a cluster whose logs are not on this machine.
Seconds count from the start of the run (the neighbours' first record); ``simulated_seconds``
is the run's measured length. Figures that a live run cannot see are None.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from simulator.live.neighbours import TenantTrace
from workloads.sla import Sla
from simulator.live.sampler import Scrape, handler_idle_pct, per_second, rate
from simulator.live.waits import placed_badly
from simulator.contract.histograms import LatencyHistogram
from simulator.contract.lines import tenant_line
from simulator.contract import BatchSizeFigures, BrokerFigures, RunResult, Summary, TenantFigures
from simulator.contract import explain as words
from workloads import Scenario, appendtrace
from workloads.kinds import is_pipeline


@dataclass(frozen=True)
class LiveRun:
    """Everything a live run measured, in wall-clock epoch seconds."""

    scenario: Scenario
    seed: int
    started: float                       # the neighbours' first due record
    load_started: float                  # the job's write began
    load_ended: float                    # ... and ended
    ended: float                         # the after window closed
    traces: list[TenantTrace]
    scrapes: dict[int, list[Scrape]]     # per broker id; empty against a cluster without exporters
    job: dict                            # the Glue job's report: rows, tasks, producer metrics
    integrity: dict                      # rows expected/arrived, missing, duplicated, ok
    broker_cores: float                  # CPU each broker JVM may use: its budget (CPU % is of this)
    notes: list[str] = field(default_factory=list)
    faults: list[dict] = field(default_factory=list)   # [{"kind": "broker killed", "broker": 1, "at_s": 12.3}]
    batch_sizes: BatchSizeFigures | None = None      # RunResult.batch_sizes from the bulk topic's logs (logdump)
    machine: dict = field(default_factory=dict)        # MachineLoad: load average, iowait, cores
    waits: dict = field(default_factory=dict)          # each thread group's wait for a core over the load (waits.CoreWaits)


# A run on a machine busier than this, or whose neighbours fell this far behind their schedule,
# measured the machine more than the cluster: a load average of twice the cores means each
# runnable thread waits about as long as it runs; 20 % iowait, a disk the run queues behind; a
# neighbour handing 1 % of its records over 100 ms late, a producer thread that lacked a core.
LOAD_PER_CORE_MAX = 2.0
IOWAIT_MAX_PCT = 20.0
SEND_LAG_P99_MAX_S = 0.1


def noise(run: LiveRun) -> list[str]:
    """Why the run's latency figures measure the machine rather than the cluster (empty: no sign of it)."""
    reasons = []
    for trace in run.traces:
        if trace.send_lag_p99_s > SEND_LAG_P99_MAX_S:
            reasons.append(f"neighbour {trace.name} fell behind its schedule: 1 % of its records went to its client "
                           f"over {trace.send_lag_p99_s * 1000:,.0f} ms late (worst {trace.send_lag_max_s:,.1f} s)")
    reasons.extend(placed_badly(run.waits))
    machine = run.machine
    # the machine's load counts every core's threads: where the waits were measured, they say
    # whether the brokers' and the neighbours' threads had their cores, whatever ran elsewhere
    if machine and not run.waits and machine["load_avg_1m_max"] > LOAD_PER_CORE_MAX * machine["cores"]:
        reasons.append(f"the machine was saturated: load average up to {machine['load_avg_1m_max']:.1f} "
                       f"on {machine['cores']} core(s)")
    if machine and machine["iowait_pct"] > IOWAIT_MAX_PCT:
        reasons.append(f"the machine waited on I/O {machine['iowait_pct']:.0f} % of its CPU time")
    return reasons


def incomplete_figures(run: LiveRun) -> dict[str, str]:
    """Figures a fault left short, and why: a killed broker's counters end at its last scrape
    (taken just before the kill), and requests in flight to it then are in no broker's count."""
    killed = sorted({fault["broker"] for fault in run.faults if fault["kind"] == "broker killed"})
    if not killed:
        return {}
    brokers = f"broker {', '.join(map(str, killed))} counted only until killed; requests in flight to it then are in no broker's count"
    return {"broker_produce_requests": brokers, "fetch_requests": brokers,
            "produce_requests": "the job's producer's own count (request-total), retries after the kill included, "
                                "since the brokers' count less the neighbours' misses what the killed broker never counted"}


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _window_mean(series: list[float | None], start: float, end: float) -> float | None:
    return _mean(series[int(start):max(int(math.ceil(end)), int(start) + 1)])


def _tenant_figures(trace: TenantTrace, sla: Sla, origin: float, windows: dict, seconds: int) -> tuple[dict, list]:
    histograms = {name: LatencyHistogram() for name in windows}
    per_second_h = [LatencyHistogram() for _ in range(seconds)]
    for intended, latency in zip(trace.intended, trace.latency):
        at = intended - origin
        for name, (start, end) in windows.items():
            if start <= at < end:
                histograms[name].record(latency)
        if 0 <= at < seconds:
            per_second_h[int(at)].record(latency)
    latency_ms = {name: h.summary() for name, h in histograms.items()}
    figures = {"name": trace.name, "sla_p99_ms": sla.limit_ms(latency_ms["before"]["p99"]), "records": trace.sent,
               "failed": trace.failed, "produce_requests": trace.produce_requests,
               "client_statistics": trace.statistics, "latency_ms": latency_ms}
    return figures, [h.percentile(0.99) for h in per_second_h]


def _broker_figures(broker: int, scrapes: list[Scrape], origin: float, seconds: int, windows: dict,
                    cores: int) -> tuple[BrokerFigures, dict]:
    series = {
        "produce": per_second(scrapes, origin, seconds, rate("produce")),
        "fetch": per_second(scrapes, origin, seconds, rate("fetch")),
        "bytes_in": per_second(scrapes, origin, seconds, rate("bytes_in")),
        "handler_idle": per_second(scrapes, origin, seconds, handler_idle_pct),
        "network_idle": per_second(scrapes, origin, seconds, lambda a, b: 100.0 * b.network_idle),
        "cpu": per_second(scrapes, origin, seconds, lambda a, b: min(100.0, 100.0 * rate("cpu_seconds")(a, b) / cores)),
        "queue": per_second(scrapes, origin, seconds, lambda a, b: b.queue_size),
    }
    first, last = scrapes[0], scrapes[-1]
    figures = BrokerFigures(
        id=broker,
        produce_requests=last.produce - first.produce,
        fetch_requests=last.fetch - first.fetch,
        bytes_in=last.bytes_in - first.bytes_in,
        bytes_out=None,
        RequestQueueSize_max=max((v for v in series["queue"] if v is not None), default=0.0),
        produce_throttle_s=None,
        RequestHandlerAvgIdlePercent={w: _window_mean(series["handler_idle"], *span) for w, span in windows.items()},
        NetworkProcessorAvgIdlePercent={w: _window_mean(series["network_idle"], *span) for w, span in windows.items()},
        cpu_percent={w: _window_mean(series["cpu"], *span) for w, span in windows.items()},
        produce_time_ms=last.produce_time,
    )
    return figures, series


def build(run: LiveRun) -> RunResult:
    origin = run.started
    start, end, simulated = run.load_started - origin, run.load_ended - origin, run.ended - origin
    seconds = int(math.ceil(simulated))
    windows = {"before": (0.0, start), "during": (start, end), "after": (end, simulated)}

    brokers, series = [], []
    for broker, scrapes in sorted(run.scrapes.items()):
        if len(scrapes) >= 2:
            figures, broker_series = _broker_figures(broker, scrapes, origin, seconds, windows, run.broker_cores)
            brokers.append(figures)
            series.append(broker_series)

    slas = {t.name: t.sla for t in run.scenario.tenants}
    tenants, tenant_lines = [], {}
    for trace in run.traces:
        figures, line = _tenant_figures(trace, slas[trace.name], origin, windows, seconds)
        tenants.append(figures)
        tenant_lines[tenant_line(trace.name)] = line

    producer = run.job.get("producer", {})
    client_requests = int(producer.get("request-total") or 0)
    neighbour_requests = sum(t.produce_requests for t in run.traces)
    warm_up_requests = int(run.job.get("warm_up", {}).get("request-total") or 0)   # the job's warm-up, before the windows
    broker_requests = sum(b.produce_requests for b in brokers) - warm_up_requests if brokers else None
    incomplete = incomplete_figures(run)
    requests = (int(broker_requests - neighbour_requests) if broker_requests is not None and not incomplete
                else client_requests)
    ratio = producer.get("compression-rate-avg") or 1.0
    wire_batch = producer.get("batch-size-avg") or 0.0
    records = int(producer.get("record-send-total") or run.job.get("rows", 0))
    record_bytes = records * (producer.get("record-size-avg") or 0.0)
    batch_bytes = wire_batch / ratio if ratio else wire_batch
    batches = int(round(record_bytes / batch_bytes)) if batch_bytes else 0
    load_seconds = end - start

    def during(name: str, worst: Any = min) -> float | None:
        values = [_window_mean(s[name], start, end) for s in series]
        known = [v for v in values if v is not None]
        return worst(known) if known else None

    summary = Summary(
        produce_requests=requests,
        batches=batches,
        mean_batch_bytes=batch_bytes,
        mean_batch_wire_bytes=wire_batch,
        records_per_request=producer.get("records-per-request-avg") or 0.0,
        batches_per_request=batches / requests if requests else 0.0,
        compression_ratio=ratio,
        record_bytes=record_bytes,
        wire_bytes=record_bytes * ratio,
        load_seconds=load_seconds,
        simulated_seconds=simulated,
        broker_produce_requests=broker_requests,
        producer_request_total=client_requests,
        neighbour_produce_requests=neighbour_requests,
        fetch_requests=sum(b.fetch_requests for b in brokers) if brokers else None,
        handler_idle_pct_during=during("handler_idle"),
        network_idle_pct_during=during("network_idle"),
        cpu_pct_during=during("cpu", max),
        replica_lag_bytes_max_during=None,
        quota_throttle_s=None,
        remote_time_ms_p99=max((b.produce_time_ms["RemoteTimeMs"]["p99"] or 0.0) for b in brokers) if brokers else None,
        append_rate_bytes_per_s=record_bytes / load_seconds / run.scenario.batch.instances if load_seconds > 0 else None,
        drain_interval_ms=None,
        batch_fill=wire_batch / run.scenario.batch.producer.batch_size,
        record_latency_ms=run.job.get("record_latency_ms"),    # a producer job's, as perf-test printed it
        integrity_ok=bool(run.integrity.get("ok")),
        faults=tuple(run.faults),
        incomplete=incomplete,
        noise=tuple(noise(run)),
        machine=run.machine,
        core_waits=run.waits or None,
        tenants=tuple(TenantFigures.of_run(t, {}) for t in tenants),   # no broker times a client's request
        neighbour_send_lag_ms_p99={t.name: t.send_lag_p99_s * 1000 for t in run.traces},
    )

    def combined(name: str, how: Any) -> list[float | None]:
        columns = [s[name] for s in series]
        return [how(known) if (known := [v for v in values if v is not None]) else None for values in zip(*columns)] \
            if columns else [None] * seconds

    timelines = {
        "second": list(range(seconds)),
        "produce_requests_per_s": combined("produce", sum),
        "fetch_requests_per_s": combined("fetch", sum),
        "bytes_in_per_s": combined("bytes_in", sum),
        "handler_idle_pct_min": combined("handler_idle", min),
        "network_idle_pct_min": combined("network_idle", min),
        "cpu_pct_max": combined("cpu", max),
        "request_queue_size_max": combined("queue", max),
        **tenant_lines,
    }
    spark = {"write_tasks": run.job.get("write_tasks"), "tasks": run.job.get("tasks"), "rows": run.job.get("rows"),
             "input_bytes": run.job.get("input_bytes"),
             "job_seconds": run.job.get("wall_seconds"), **_traced(run.job, run.scenario.batch.client_id)}
    result = RunResult(evaluator="live", scenario=run.scenario.as_mapping(), seed=run.seed, summary=summary,
                       spark=spark, producers=[{"name": "spark-job" if run.scenario.batch.spark else "perf-test", **producer}],
                       brokers=tuple(brokers), tenants=tenants,
                       windows={k: list(v) for k, v in windows.items()}, timelines=timelines,
                       batch_sizes=run.batch_sizes)
    return dataclasses.replace(result, mechanism=mechanism(result, run))


def _traced(job: dict, client_id: str) -> dict:
    """The job's JVM threads by kind, its CPU budgets' throttling over the load, and its append
    process from the interceptor's trace of its producers (``client_id``; the file's path beside its figures)."""
    out: dict = {key: job[key] for key in ("threads", "cgroups") if job.get(key)}
    if job.get("trace"):
        out["append_trace"] = job["trace"]
        out["appends"] = appendtrace.figures(appendtrace.appends(appendtrace.read_trace(job["trace"]), client_id))
    return out


def mechanism(result: RunResult, run: LiveRun) -> list[str]:
    """What the real parts measured, in the model's words where the figures are the same."""
    s = result.summary
    lines = [words.job_wrote(run.job.get("rows", 0), s,
                             "The Spark job" if run.scenario.batch.spark else "kafka-producer-perf-test")]
    if s.record_latency_ms and s.record_latency_ms.get("count"):
        lines.append(words.record_latency(s.record_latency_ms))
    if s.broker_produce_requests is not None and "produce_requests" not in s.incomplete:
        lines.append(words.broker_count(s))
    if s.handler_idle_pct_during is not None:
        lines.append(words.broker_load(s, run.broker_cores))
    lines.append(words.integrity(run.integrity))
    pipelines = {tenant.name for tenant in run.scenario.tenants if is_pipeline(tenant)}   # timed end to end
    lines.extend(words.neighbour_p99(tenant, tenant.name in pipelines) + "."
                 for tenant in s.tenants if tenant.p99_ms_before and tenant.p99_ms_during)
    lines.extend(words.fault(fault) for fault in run.faults)
    lines.extend(words.incomplete(figure, why) for figure, why in s.incomplete.items())
    if s.core_waits:
        lines.append(words.core_waits(s.core_waits))
    lines.extend(words.noise(reason) for reason in s.noise)
    lines.extend(run.notes)
    return lines
