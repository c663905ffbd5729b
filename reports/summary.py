"""A run's summary as a few readable lines: requests, batches, broker load, neighbours vs SLA."""
from __future__ import annotations

from simulator.contract import WINDOWS, RunResult, TenantFigures
from simulator.contract import explain as words
from workloads.batch import first_job

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
        lines.append(f"  {n.name:<{width}}  {figures}  {_number(n.sla_p99_ms):>9}  {words.sla_verdict_by_window({w: getattr(n, f'p99_ms_{w}') for w in WINDOWS}, n.sla_p99_ms)}")
    return lines


def render_summary(result: RunResult) -> str:
    """The figures a person reads first, then the mechanism that produced them."""
    s = result.summary
    codec = first_job(result.scenario)["producer"]["compression.type"]
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
        _line("busiest broker", f"handler idle {_percent(s.handler_idle_pct_during)}, "
                                f"CPU {_percent(s.cpu_pct_during)} during the load"),
        "",
        *_neighbour_lines(s.tenants),
        "",
        "mechanism",
        *(f"  - {sentence}" for sentence in result.mechanism),
    ]
    return "\n".join(lines)
