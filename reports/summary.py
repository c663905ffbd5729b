"""A run's summary as a few readable lines: requests, batches, broker load, neighbours vs SLA."""
from __future__ import annotations

from simulator.contract import WINDOWS, RunResult, TenantFigures
from simulator.contract import explain as words
from workloads.batch import job_mappings
from workloads.settings import COMPRESSION_TYPE_CONFIG

_LABEL_WIDTH = 22


def _number(value: float | None, decimals: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{decimals}f}"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.1f} %"


def _line(label: str, value: str) -> str:
    return f"  {label:<{_LABEL_WIDTH}}{value}"


def _neighbour_lines(neighbours: tuple[TenantFigures, ...]) -> list[str]:
    if not neighbours:
        return ["  no neighbours in this scenario"]
    width = max(len("neighbour p99 (ms)"), *(len(n.name) for n in neighbours))
    lines = [f"  {'neighbour p99 (ms)':<{width}}  {'before':>9}  {'during':>9}  {'after':>9}  {'SLA':>9}"]
    for n in neighbours:
        figures = "  ".join(f"{_number(getattr(n, f'p99_ms_{w}')):>9}" for w in ("before", "during", "after"))
        lines.append(f"  {n.name:<{width}}  {figures}  {'n/a' if n.sla_p99_ms is None else words.sla_figure(n.sla_p99_ms):>9}  {words.sla_verdict_by_window({w: getattr(n, f'p99_ms_{w}') for w in WINDOWS}, n.sla_p99_ms)}")
    return lines


def record_latency(latency) -> str | None:
    """The batch job's records, send() to acknowledgement, as kafka-producer-perf-test prints them."""
    if not latency or not latency.get("count"):
        return None
    return ", ".join(f"{name} {_number(latency[key], 2)}"
                     for name, key in (("p50", "p50"), ("p95", "p95"), ("p99", "p99"), ("p99.9", "p999"), ("max", "max")))


def _record_latency_lines(latency) -> list[str]:
    text = record_latency(latency)
    return [_line("record latency (ms)", text)] if text else []


def job_table(result: RunResult) -> tuple[list[str], list[list[str]]]:
    """A night's jobs, a row each: its load's span, requests (its producers' and the brokers' count of
    its client.id's), batches, records and bytes, request latency, and each neighbour's p99 over its
    load's seconds; no rows for one job."""
    names = [t.name for t in result.summary.tenants]
    head = ["job", "client.id", "start s", "end s", "requests", "broker count", "batches", "records", "MB", "req ms",
            "record p99 ms", *(f"{n} p99 ms" for n in names)]
    rows = [[job.name, job.client_id, _number(job.load_start_s), _number(job.load_end_s), f"{job.produce_requests:,.0f}",
             f"{job.broker_produce_requests:,.0f}" if job.broker_produce_requests is not None else "n/a",
             f"{job.batches:,.0f}", f"{job.records:,.0f}", f"{(job.record_bytes or 0) / 1024**2:,.1f}",
             _number(job.request_latency_ms), _number((job.record_latency_ms or {}).get("p99")), *(_number((job.neighbour_p99_ms or {}).get(n)) for n in names)]
            for job in result.jobs] if len(result.jobs) > 1 else []
    return head, rows


def _job_lines(result: RunResult) -> list[str]:
    head, rows = job_table(result)
    if not rows:
        return []
    widths = [max(len(str(row[i])) for row in [head, *rows]) for i in range(len(head))]
    return [("  " + "  ".join(f"{cell:<{w}}" if i < 2 else f"{cell:>{w}}" for i, (cell, w) in enumerate(zip(row, widths)))).rstrip()
            for row in [head, *rows]] + [""]


def render_summary(result: RunResult) -> str:
    """The figures a person reads first, then the mechanism that produced them."""
    s = result.summary
    codecs = {job["producer"][COMPRESSION_TYPE_CONFIG] for job in job_mappings(result.scenario)}
    codec = codecs.pop() if len(codecs) == 1 else "the jobs' " + ", ".join(sorted(codecs))
    batch_size = f"{_number(s.mean_batch_bytes / 1024)} KB of records"
    if codec != "none":
        batch_size += f", {_number(s.mean_batch_wire_bytes / 1024)} KB on the wire"
    lines = [
        f"{result.scenario['name']} ({result.evaluator}, seed {result.seed})",
        _line("produce requests", f"{s.produce_requests:,}"),
        _line("batches", f"{s.batches:,} ({s.batches_per_request:,.2f} per request)"),
        _line("mean batch size", batch_size),
        _line("records per request", _number(s.records_per_request, 0)),
        _line("compression ratio", f"{s.compression_ratio:.2f} (wire / value bytes, {codec})"),
        _line("load duration", f"{_number(s.load_seconds)} s"),
        *_record_latency_lines(s.record_latency_ms),
        _line("busiest broker", f"handler idle {_percent(s.handler_idle_pct_during)}, "
                                f"CPU {_percent(s.cpu_pct_during)} during the load"),
        "",
        *_job_lines(result),
        *_neighbour_lines(s.tenants),
        *(f"  {line}" for line in words.sla_sources(result.scenario)),
        "",
        "mechanism",
        *(f"  - {sentence}" for sentence in result.mechanism),
    ]
    return "\n".join(lines)
