"""Every run on common axes: the before/after story of one batch job in one plot per figure.

Time is counted from each run's load start (``windows.during``), so the runs' loads line up
whatever their ``before`` windows; a dotted line in a run's colour marks its load's end. Figures
come from the results' 1-second ``timelines`` as they are. The broker figures are also given
under the names an Amazon MSK operator reads in CloudWatch, and the neighbours' time in the
brokers is split into the parts Kafka's produce request metrics time.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from judging.gate import thresholds_of
from reports.kit import plot
from reports.kit.plot import COLORS, LEGEND_ROW_INCHES, Plot, legend_below, legend_rows, log_axis_if_wide
from reports.kit.tables import format_figure, html_table, markdown_table
from reports.sections.runs import RunFigures, neighbour_names, timeline_points
from simulator.contract.lines import tenant_line

MB = 1024 ** 2
TIME_AXIS = "seconds since the run's load started (dotted lines: each run's load end, in its colour)"


def run_color(index: int) -> str:
    return COLORS[index % len(COLORS)]


def load_window(run: RunFigures) -> tuple[float, float | None]:
    """(start, length) of the run's load in simulated seconds; a run without windows starts at 0."""
    during = run.result.windows.get("during")
    return (during[0], during[1] - during[0]) if during else (0.0, None)


def aligned(run: RunFigures, key: str, scale: float = 1.0) -> list[tuple[float, float]]:
    """``(seconds since the load started, value x scale)`` of one timeline, seconds without a value left out."""
    start, _ = load_window(run)
    return [(t - start, v * scale) for t, v in timeline_points(run, key)]


@dataclass(frozen=True)
class Series:
    label: str
    color: str
    points: list[tuple[float, float]]
    load_seconds: float | None


def series_of(runs: list[RunFigures], key: str, scale: float | None = None) -> list[Series]:
    """One series per run that has the timeline (``scale`` per run when a callable gives it)."""
    out = []
    for i, run in enumerate(runs):
        points = aligned(run, key, 1.0 if scale is None else scale)
        if points:
            out.append(Series(run.label, run_color(i), points, load_window(run)[1]))
    return out


def overlay_figure(series: list[Series], title: str, ylabel: str, *, lines: tuple[tuple[float, str], ...] = (),
                   percent: bool = False, log_if_wide: bool = False, top: float | None = None) -> Any:
    plt = plot.pyplot()
    entries = len(series) + 1 + len(lines)
    figure, axes = plt.subplots(figsize=(10, 3.4 + LEGEND_ROW_INCHES * legend_rows(entries)), layout="constrained")
    axes.axvline(0.0, color="#444444", linewidth=1, label="load starts")
    for s in series:
        axes.plot([t for t, _ in s.points], [v for _, v in s.points], marker=".", markersize=5, linewidth=1.6,
                  color=s.color, label=s.label)
        if s.load_seconds is not None:
            axes.axvline(s.load_seconds, color=s.color, linestyle=":", linewidth=1.4)
    for value, label in lines:
        axes.axhline(value, color="#b00020", linestyle="--", linewidth=1, label=label)
    values = [v for s in series for _, v in s.points] + [value for value, _ in lines]
    if top is not None:   # a zoom on a linear scale: the lines that decide pass or fail told apart
        axes.set_ylim(0, top)
    elif log_if_wide and log_axis_if_wide(axes, "y", values):
        ylabel += ", log scale"
    elif percent:
        axes.set_ylim(0, 100)
    else:
        axes.set_ylim(bottom=0)
    axes.set_ylabel(ylabel)
    axes.set_xlabel(TIME_AXIS)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    legend_below(figure, entries)
    return figure


def neighbour_series(runs: list[RunFigures], name: str) -> list[Series]:
    return series_of(runs, tenant_line(name))


def neighbour_slas(runs: list[RunFigures], name: str) -> tuple[tuple[float, str], ...]:
    slas = sorted({n["sla_p99_ms"] for run in runs for n in run.neighbours if n["name"] == name})
    return tuple((sla, f"SLA p99 {sla:g} ms") for sla in slas)


def brokers_of(run: RunFigures) -> int:
    return len(run.result.brokers) or int((run.result.scenario.get("cluster") or {}).get("brokers") or 1)


def threshold_lines(runs: list[RunFigures], threshold: str | None) -> tuple[tuple[float, str], ...]:
    """The ``check:`` threshold (a ``workloads.Gate`` field) of each run's own scenario, once per value."""
    if threshold is None:
        return ()
    values = sorted({getattr(thresholds_of(run.result.scenario), threshold) for run in runs})
    return tuple((value, f"check threshold {value:g} %") for value in values)


# (timeline, title, y label, scale, the check: threshold drawn (a workloads.Gate field), percent axis, caption)
BROKER_TIMELINES: tuple[tuple[str, str, str, str, str | None, bool, str], ...] = (
    ("produce_requests_per_s", "Produce requests per second, all brokers", "produce requests (per s)", "one", None, False,
     "Produce requests the brokers received each second, every run on one time axis: the rise after the load starts "
     "is the batch job's request rate on top of the neighbours'; fewer is quieter."),
    ("cpu_pct_max", "CpuUser + CpuSystem: the busiest broker's CPU", "broker CPU (%)", "one",
     "cpu_max", True,
     "The busiest broker's CPU each second (CloudWatch CpuUser + CpuSystem): above about 60 % the waits for a core "
     "turn into latency for every client of the broker."),
    ("handler_idle_pct_min", "RequestHandlerAvgIdlePercent: the least idle broker", "request handler idle (%)", "one",
     "handler_idle_min", True,
     "The least request-handler idle % of any broker each second (CloudWatch RequestHandlerAvgIdlePercent): the dip "
     "after the load starts is the handler capacity the load takes; near 0 % every request queues."),
    ("bytes_in_per_s", "Bytes into a broker", "bytes in per broker (MB/s)", "per broker", None, False,
     "Bytes into the brokers each second, over the broker count: a live run's is Kafka's and MSK's BytesInPerSec (what "
     "the clients produce); a model run's is every byte into a broker's network interface, BytesInPerSec + "
     "ReplicationBytesInPerSec (what the followers fetch from the leaders)."),
)


def broker_series(runs: list[RunFigures], key: str, scale: str) -> list[Series]:
    out = []
    for i, run in enumerate(runs):
        factor = 1.0 / MB / brokers_of(run) if scale == "per broker" else 1.0
        if points := aligned(run, key, factor):
            out.append(Series(run.label, run_color(i), points, load_window(run)[1]))
    return out


def replica_lag_series(runs: list[RunFigures]) -> list[Series]:
    return series_of(runs, "replica_lag_bytes", 1.0 / MB)


# ---- the same figures under MSK's CloudWatch names ---------------------------------------------
CLOUDWATCH_HEADER = ["run", "CpuUser + CpuSystem (%)", "ProduceTotalTimeMsMean (ms)", "RequestHandlerAvgIdlePercent (%)",
                     "bytes in (MB/s per broker)", "bytes in, as MSK names them"]
CLOUDWATCH_NOTE = ("During the load, the busiest broker for CPU and ProduceTotalTimeMsMean, the least idle for "
                   "RequestHandlerAvgIdlePercent, the mean over the load's seconds and the brokers for bytes in. MSK's "
                   "BytesInPerSec counts what the clients produce, ReplicationBytesInPerSec what the followers fetch from "
                   "the leaders; a live run measures the first, the model counts every byte into a broker's network "
                   "interface: both.")
# the bytes in, by evaluator: a live broker's BytesInPerSec; the model's network interface takes both
BYTES_IN = {"live": "BytesInPerSec", "model": "BytesInPerSec + ReplicationBytesInPerSec"}


def busiest_produce_time(run: RunFigures, part: str, statistic: str) -> float | None:
    """The largest of the brokers' produce ``part`` (``TotalTimeMs``, ...) ``statistic`` (``mean``, ``p99``)."""
    values = [((b.produce_time_ms or {}).get(part) or {}).get(statistic) for b in run.result.brokers]
    values = [v for v in values if v is not None]
    return max(values) if values else None


def bytes_in_per_broker_during(run: RunFigures) -> float | None:
    """Mean bytes/s into one broker over the load's whole seconds."""
    start, length = load_window(run)
    if length is None:
        return None
    points = [v for t, v in aligned(run, "bytes_in_per_s") if 0.0 <= t and t + 1.0 <= length + 1e-9]
    return sum(points) / len(points) / brokers_of(run) if points else None


def cloudwatch_figures(run: RunFigures) -> dict[str, float | None]:
    return {"CpuUser + CpuSystem": run.result.summary.cpu_pct_during,
            "ProduceTotalTimeMsMean": busiest_produce_time(run, "TotalTimeMs", "mean"),
            "RequestHandlerAvgIdlePercent": run.result.summary.handler_idle_pct_during,
            "bytes in": bytes_in_per_broker_during(run)}


def cloudwatch_rows(runs: list[RunFigures]) -> list[list[str]]:
    rows = []
    for run in runs:
        f = cloudwatch_figures(run)
        bytes_in = None if f["bytes in"] is None else f["bytes in"] / MB
        rows.append([run.label, format_figure(f["CpuUser + CpuSystem"], "{:,.1f}"),
                     format_figure(f["ProduceTotalTimeMsMean"], "{:,.2f}"),
                     format_figure(f["RequestHandlerAvgIdlePercent"], "{:,.1f}"), format_figure(bytes_in, "{:,.1f}"),
                     BYTES_IN.get(run.result.evaluator, "-")])
    return rows


# ---- what the neighbours' latency is made of ----------------------------------------------------
PARTS = (("RequestQueueTimeMs", "queue: waiting for a handler thread"),
         ("LocalTimeMs", "local: appending to the leader's log"),
         ("RemoteTimeMs", "remote: waiting for followers to fetch"))
BREAKDOWN_HEADER = ["run", "neighbour", "p99 during (ms)", "in the brokers, TotalTimeMs p99 (ms)",
                    "RequestQueueTimeMs p99 (ms)", "LocalTimeMs p99 (ms)", "RemoteTimeMs p99 (ms)", "replica lag max (MB)",
                    "largest part"]
BREAKDOWN_NOTE = ("The neighbours' produce requests as the brokers timed them during the load (p99 of each part, so the "
                  "parts do not add up to the total); RequestQueueTimeMs is that of every produce request on the "
                  "busiest broker, as the model and Kafka keep no queue time per client. Time beyond the brokers' "
                  "TotalTimeMs (largest part: \"outside the brokers' timing\") is spent in the client (its linger.ms, its "
                  "queue) and behind the neighbour's earlier requests on its connection (a broker reads one request per "
                  "connection at a time).")


def latency_parts(run: RunFigures, name: str) -> dict[str, float | None]:
    tenant = run.result.summary.tenant(name)
    broker = (tenant.broker_time_ms_p99_during if tenant else None) or {}
    return {"p99_during": tenant.p99_ms_during if tenant else None, "TotalTimeMs": broker.get("TotalTimeMs"),
            "RequestQueueTimeMs": busiest_produce_time(run, "RequestQueueTimeMs", "p99") if broker else None,
            "LocalTimeMs": broker.get("LocalTimeMs"), "RemoteTimeMs": broker.get("RemoteTimeMs")}


OUTSIDE = "outside the brokers' timing"   # what that means is said once, above the table (BREAKDOWN_NOTE)


def largest_part(parts: dict[str, float | None]) -> str:
    """The broker part with the largest p99; or, when the end-to-end p99 is more than twice the
    brokers' TotalTimeMs p99, the time outside the brokers' timing (p99s do not subtract exactly,
    hence the margin)."""
    total, during = parts["TotalTimeMs"], parts["p99_during"]
    if total is not None and during is not None and during > 2 * total:
        return OUTSIDE
    known = [(parts[key], text) for key, text in PARTS if parts[key] is not None]
    return max(known)[1] if known else "n/a (no broker timing in this result)"


def breakdown_rows(runs: list[RunFigures]) -> list[list[str]]:
    """Per run and neighbour; none when no run has the brokers' timing of its neighbours."""
    if not any(t.broker_time_ms_p99_during for run in runs for t in run.result.summary.tenants):
        return []
    rows = []
    for run in runs:
        lag = run.result.summary.replica_lag_bytes_max_during
        for name in [n["name"] for n in run.neighbours]:
            parts = latency_parts(run, name)
            rows.append([run.label, name, *(format_figure(parts[key], "{:,.1f}") for key in
                                            ("p99_during", "TotalTimeMs", "RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs")),
                         format_figure(None if lag is None else lag / MB, "{:,.1f}"), largest_part(parts)])
    return rows


def breakdown_figure(runs: list[RunFigures]) -> Any | None:
    """Per run and neighbour: the three parts as bars, the end-to-end p99 and the brokers' total as marks."""
    rows = [(f"{run.label}: {name}", latency_parts(run, name)) for run in runs for name in neighbour_names([run])]
    rows = [(label, parts) for label, parts in rows if parts["TotalTimeMs"] is not None]
    if not rows:
        return None
    plt = plot.pyplot()
    figure, axes = plt.subplots(figsize=(10, 1.6 + 0.9 * len(rows) + LEGEND_ROW_INCHES * legend_rows(len(PARTS) + 2)),
                                layout="constrained")
    height = 0.25
    for k, (key, text) in enumerate(PARTS):
        ys = [i + (k - 1) * height for i in range(len(rows))]
        axes.barh(ys, [parts[key] or 0.0 for _, parts in rows], height=height, color=COLORS[k + 2], label=f"{key} p99 ({text})")
    axes.plot([parts["TotalTimeMs"] for _, parts in rows], range(len(rows)), "|", color="black", markersize=22,
              markeredgewidth=2, linestyle="none", label="TotalTimeMs p99 (in the brokers)")
    axes.plot([parts["p99_during"] or 0.0 for _, parts in rows], range(len(rows)), "D", color="#b00020",
              linestyle="none", label="p99 during the load, send to acknowledgement")
    log_axis_if_wide(axes, "x", [v for _, parts in rows for v in parts.values() if v], "ms (p99 during the load)",
                     "ms (p99 during the load, log scale)")
    axes.set_yticks(range(len(rows)), [label for label, _ in rows])
    axes.invert_yaxis()
    axes.set_title("What the neighbours' latency is made of, in the brokers")
    axes.grid(alpha=0.3, axis="x")
    legend_below(figure, len(PARTS) + 2)
    return figure


# ---- the sections ---------------------------------------------------------------------------------
NEIGHBOUR_CAPTION = ("{name}'s p99 send-to-acknowledgement latency each second, every run on one time axis from its "
                     "load's start: points above the dashed SLA line after the load starts are the breaches the batch "
                     "job causes; a run whose line stays under it kept {name} within its SLA.")
BREAKDOWN_CAPTION = ("For each run and neighbour, the p99 of each part of its produce requests' time in the brokers "
                     "during the load (bars), the brokers' TotalTimeMs p99 (black tick) and the end-to-end p99 (red "
                     "diamond): the longest bar is what the fix must shorten; a diamond far right of the tick is time "
                     "spent behind earlier requests, outside the brokers' timing.")
LAG_CAPTION = ("How far the followers were behind the leaders each second (bytes not yet replicated, all partitions): "
               "with acks=all a neighbour's produce waits until its followers have fetched, so a load that outruns "
               "replication makes every acks=all client wait (RemoteTimeMs).")


def _broker_plot(runs: list[RunFigures], timeline: tuple) -> list[str]:
    key, title, ylabel, scale, threshold, percent, caption = timeline
    if series := broker_series(runs, key, scale):
        lines = threshold_lines(runs, threshold)
        return [Plot(plot.svg(overlay_figure(series, title, ylabel, lines=lines, percent=percent)), title, caption).html()]
    return []


def overlay_html(runs: list[RunFigures]) -> list[str]:
    """The before/after story: each neighbour's p99 and the request rate, every run on one time axis."""
    parts = ["<h2>Before and after, on one time axis</h2>"]
    for name in neighbour_names(runs):
        if series := neighbour_series(runs, name):
            figure = overlay_figure(series, f"Neighbour {name}: p99 latency per second", "p99 latency (ms)",
                                    lines=neighbour_slas(runs, name), log_if_wide=True)
            parts.append(Plot(plot.svg(figure), f"{name} p99 per second, every run", NEIGHBOUR_CAPTION.format(name=name)).html())
            slas = neighbour_slas(runs, name)
            values = [v for s in series for _, v in s.points]
            if len(series) > 1 and slas and values and max(values) > ZOOM_ABOVE * max(sla for sla, _ in slas):
                zoom = overlay_figure(series, f"Neighbour {name}: p99 per second near its SLA (linear)",
                                      "p99 latency (ms)", lines=slas, top=ZOOM_ABOVE * max(sla for sla, _ in slas))
                parts.append(Plot(plot.svg(zoom), f"{name} p99 per second near its SLA, every run",
                                  ZOOM_CAPTION.format(name=name)).html())
    return parts + _broker_plot(runs, BROKER_TIMELINES[0])


ZOOM_ABOVE = 2.0   # a run far over the SLA squeezes the runs near it on a log scale: zoom to twice the SLA
ZOOM_CAPTION = ("{name}'s p99 each second on a linear scale up to twice its SLA, so that the runs that pass or fail "
                "by a millisecond can be told apart; a run far over it leaves the top of the plot.")   # drawn when several runs share the plot


def cloudwatch_markdown(runs: list[RunFigures]) -> list[str]:
    return ["## The brokers under their CloudWatch names", "", CLOUDWATCH_NOTE, "",
            *markdown_table(CLOUDWATCH_HEADER, cloudwatch_rows(runs)), ""]


def cloudwatch_html(runs: list[RunFigures]) -> list[str]:
    parts = ["<h2>The brokers under their CloudWatch names</h2>", f"<p>{escape(CLOUDWATCH_NOTE)}</p>",
             html_table(CLOUDWATCH_HEADER, cloudwatch_rows(runs))]
    return parts + [part for timeline in BROKER_TIMELINES[1:] for part in _broker_plot(runs, timeline)]


def breakdown_markdown(runs: list[RunFigures]) -> list[str]:
    if rows := breakdown_rows(runs):
        return ["## What the neighbours' latency is made of", "", BREAKDOWN_NOTE, "", *markdown_table(BREAKDOWN_HEADER, rows), ""]
    return []


def breakdown_html(runs: list[RunFigures]) -> list[str]:
    rows = breakdown_rows(runs)
    if not rows:
        return []
    parts = ["<h2>What the neighbours' latency is made of</h2>", f"<p>{escape(BREAKDOWN_NOTE)}</p>",
             html_table(BREAKDOWN_HEADER, rows)]
    if (figure := breakdown_figure(runs)) is not None:
        parts.append(Plot(plot.svg(figure), "neighbour latency by part", BREAKDOWN_CAPTION).html())
    if series := replica_lag_series(runs):
        figure = overlay_figure(series, "Replica lag", "bytes behind the leaders (MB)")
        parts.append(Plot(plot.svg(figure), "replica lag per second, every run", LAG_CAPTION).html())
    return parts
