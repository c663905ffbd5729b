"""The phrases a result's sentences are built of (``simulator.contract.explain`` words the sentences):
a figure in its unit, and a neighbour's p99 against its SLA ("10.04 ms > SLA 10.00 ms", "OVER SLA")."""
from __future__ import annotations

from typing import Any, Mapping

from simulator.contract.judgement import over
from workloads.sla import parse_sla
from workloads.units import format_bytes


# --- figures ---------------------------------------------------------------------------------------

def ms(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f} ms"


def ms_against(value: float, limit: float) -> tuple[str, str]:
    """Both figures, with a second decimal where one would show a value just over its limit as equal."""
    digits = 2 if (value != limit and ms(value) == ms(limit)) or round(limit, 1) != limit else 1
    return ms(value, digits), ms(limit, digits)


def sla_figure(sla_ms: float) -> str:
    """An SLA's ms as every output prints it: ``10.0``; a resolved relative one to the hundredth, ``12.35``."""
    return f"{sla_ms:,.1f}" if round(sla_ms, 1) == sla_ms else f"{sla_ms:,.2f}"


def kb(size: float) -> str:
    return f"{size / 1024:,.1f} KB"


def appended(rate_bytes_per_s: float) -> str:
    return f"appended {format_bytes(rate_bytes_per_s)}/s"


def drained_every(interval_ms: float) -> str:
    return f"drained every {interval_ms:,.2f} ms"


def share_of_batch_size(fill: float, batch_size: float | None = None) -> str:
    """A batch's bytes on the wire as a share of batch.size (``batch_fill``)."""
    return f"{fill * 100:.0f} % of batch.size" + (f"={format_bytes(batch_size)}" if batch_size is not None else "")


def before_after(before: str, after: str) -> str:
    return f"{before} -> {after}"


def changed(name: str, before: str, after: str) -> str:
    """A setting changed: ``linger.ms 0 ms -> 88 ms``."""
    return f"{name} {before_after(before, after)}"


# --- a neighbour's p99 against its SLA -------------------------------------------------------------

def sla(sla_ms: float) -> str:
    return f"SLA {round(sla_ms, 1):g} ms" if round(sla_ms, 1) == sla_ms else f"SLA {sla_figure(sla_ms)} ms"


def sla_sources(scenario: Mapping[str, Any]) -> list[str]:
    """One line per neighbour whose SLA was resolved from its p99 alone (``simulator.model.alone``, or a live
    run's window before the load: ``simulator.live.alone``), from a
    scenario's mapping (a RunResult's ``scenario``): ``payment-api: SLA 12.35 ms = 1.5x its p99 alone, ...``."""
    lines = []
    for tenant in scenario.get("tenants") or []:
        sla = parse_sla(tenant["sla_p99"], "sla_p99") if tenant.get("sla_p99") is not None else None
        if sla is not None and sla.alone_ms is not None:   # several seeds' records pooled (the model's), or one run's (live)
            pooled = " pooled" if " seeds " in f" {sla.alone_from} " else ""
            lines.append(f"{tenant['name']}: SLA {sla.ms:,.2f} ms = {sla.factor:g}x its p99 alone, {sla.alone_ms:g} ms "
                         f"(the neighbours without the load, {sla.alone_from}{pooled})")
    return lines


def against_sla(p99: float, sla_ms: float) -> str:
    """``10.04 ms > SLA 10.00 ms``, ``9.0 ms <= SLA 10.0 ms``."""
    shown, limit = ms_against(p99, sla_ms)
    return f"{shown} {'>' if over(p99, sla_ms) else '<='} SLA {limit}"


def within_sla(within: bool) -> str:
    """The verdict of a p99, or of a run's every neighbour, against the SLA."""
    return "within SLA" if within else "OVER SLA"


def sla_verdict(p99: float, sla_ms: float) -> str:
    return within_sla(not over(p99, sla_ms))


TOO_FEW_RECORDS = "too few records to judge"


def sla_verdict_by_window(p99_by_window: Mapping[str, float | None], sla_ms: float) -> str:
    """``OVER SLA (during, after)``: the windows whose p99 was over the SLA; else ``within SLA``, or, when
    the neighbour sent no record during the load (no p99 to hold to the SLA), ``too few records to judge``."""
    windows = [window for window, p99 in p99_by_window.items() if p99 is not None and over(p99, sla_ms)]
    if windows:
        return f"{within_sla(False)} ({', '.join(windows)})"
    return TOO_FEW_RECORDS if p99_by_window.get("during") is None else within_sla(True)


def sla_reason(measured: list[tuple[str, float, float]], unmeasured: list[str]) -> str:
    """The gate's neighbour_sla reason: the neighbours over their SLA (name, p99, SLA), or every one within."""
    breaching = [m for m in measured if over(m[1], m[2])]
    figures = ", ".join(f"{name} {against_sla(p99, sla_ms)}" for name, p99, sla_ms in breaching or measured)
    note = f" ({', '.join(unmeasured)}: no records during the load)" if unmeasured else ""
    return f"neighbour p99 during the load {'over' if breaching else 'within'} SLA: {figures}{note}"


def sla_margin(name: str, p99: float, sla_ms: float) -> str:
    shown, limit = ms_against(p99, sla_ms)
    return f"p99 {shown} of a {limit} SLA ({name})"


def missed_sla(name: str, p99: float, sla_ms: float) -> str:
    return f"{name} p99 {against_sla(p99, sla_ms)}"


def worst_neighbour(name: str, p99: float, sla_ms: float) -> str:
    return f"worst neighbour {missed_sla(name, p99, sla_ms)} during the load"


def p99_of_sla(name: str, p99: float, sla_ms: float) -> str:
    """A predicted p99 as a share of its SLA, with the decimals that tell close figures apart."""
    limit = f"{sla_ms:g}" if round(sla_ms, 2) == sla_ms else f"{sla_ms:,.2f}"
    return f"{name} p99 during {p99:,.2f} ms of its {limit} ms SLA"
