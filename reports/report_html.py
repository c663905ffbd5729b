"""The report as one self-contained HTML page: tables plus plots embedded as base64 PNG.

Plots come from the RunResult's 1-second ``timelines`` as they are; seconds a neighbour sent
no record (``null`` p99) are left out, not filled. The batch-size distribution comes from its
``batch_sizes`` (``reports.batch_sizes``). matplotlib is imported here, lazily, with Agg.
"""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from html import escape
from typing import Any

from reports.batch_sizes import batch_size_html
from reports.gate import HANDLER_IDLE_MIN_PCT
from reports.report import (NEIGHBOUR_HEADER, RunFigures, comparison_table, neighbour_rows, summary_rows)

_STYLE = """
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; }
figcaption { font-size: 0.95em; color: #444; }
.over { color: #b00020; font-weight: bold; }
"""


@dataclass(frozen=True)
class Plot:
    """One embedded PNG and the one-line caption that says what to read from it."""

    png: bytes
    alt: str
    caption: str

    def html(self) -> str:
        data = base64.b64encode(self.png).decode("ascii")
        return (f'<figure><img src="data:image/png;base64,{data}" alt="{escape(self.alt)}">'
                f"<figcaption>{escape(self.caption)}</figcaption></figure>")


def _pyplot() -> Any:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    _pyplot().close(figure)
    return buffer.getvalue()


def timeline_points(run: RunFigures, key: str) -> list[tuple[float, float]]:
    """``(second, value)`` of one timeline; seconds without a value (``null``) are skipped."""
    series = run.result.timelines.get(key) or []
    seconds = run.result.timelines.get("second") or range(len(series))
    return [(t, v) for t, v in zip(seconds, series) if v is not None]


def _plot_timeline(axes: Any, points: list[tuple[float, float]], **style: Any) -> None:
    axes.plot([t for t, _ in points], [v for _, v in points], marker=".", **style)


def _timeline_axes(run: RunFigures, title: str) -> tuple[Any, Any]:
    """A figure whose axes shade the load window (``windows.during``) and label time in seconds."""
    figure, axes = _pyplot().subplots(figsize=(10, 3.4))
    during = run.result.windows.get("during")
    if during:
        axes.axvspan(during[0], during[1], color="#f2c14e", alpha=0.25, label="load window")
    axes.set_title(f"{title}: {run.label}")
    axes.set_xlabel("time since the run started (s)")
    axes.grid(alpha=0.3)
    return figure, axes


def neighbour_p99_plot(run: RunFigures) -> Plot | None:
    lines = {n["name"]: timeline_points(run, f"tenant.{n['name']}.p99_ms") for n in run.neighbours}
    lines = {name: points for name, points in lines.items() if points}
    if not lines:
        return None
    figure, axes = _timeline_axes(run, "Neighbour p99 latency per second")
    for name, points in lines.items():
        _plot_timeline(axes, points, label=name)
    for sla in sorted({n["sla_p99_ms"] for n in run.neighbours}):
        axes.axhline(sla, color="#b00020", linestyle="--", linewidth=1, label=f"SLA p99 {sla:g} ms")
    values = [v for points in lines.values() for _, v in points]
    if min(values) > 0 and max(values) > 20 * min(values):  # a load that multiplies p99 needs a log axis to show both levels
        axes.set_yscale("log")
        axes.yaxis.set_major_formatter(_pyplot().FuncFormatter(lambda value, _: f"{value:,g}"))
        axes.set_ylabel("p99 latency (ms, log scale)")
    else:
        axes.set_ylabel("p99 latency (ms)")
    axes.legend(loc="upper left", fontsize="small")
    return Plot(_png(figure), f"neighbour p99 per second, {run.label}",
                "Each neighbour's p99 send-to-acknowledgement latency per second: points above the dashed "
                "SLA line inside the shaded load window are the breaches the batch job causes.")


def produce_requests_plot(run: RunFigures) -> Plot | None:
    points = timeline_points(run, "produce_requests_per_s")
    if not points:
        return None
    figure, axes = _timeline_axes(run, "Produce requests per second")
    _plot_timeline(axes, points, color="#1f77b4", label="produce requests, all brokers")
    axes.set_ylabel("produce requests (per s)")
    axes.set_ylim(bottom=0)
    axes.legend(loc="upper left", fontsize="small")
    return Plot(_png(figure), f"produce requests per second, {run.label}",
                "Produce requests the brokers received each second: the rise inside the shaded window is the "
                "batch job's request rate on top of the neighbours'; fewer is quieter.")


def handler_idle_plot(run: RunFigures) -> Plot | None:
    points = timeline_points(run, "handler_idle_pct_min")
    if not points:
        return None
    figure, axes = _timeline_axes(run, "Broker request-handler idle")
    _plot_timeline(axes, points, color="#2ca02c", label="handler idle, busiest broker")
    axes.axhline(HANDLER_IDLE_MIN_PCT, color="#b00020", linestyle="--", linewidth=1,
                 label=f"check threshold {HANDLER_IDLE_MIN_PCT:g} %")
    axes.set_ylabel("handler idle (%)")
    axes.set_ylim(0, 100)
    axes.legend(loc="lower left", fontsize="small")
    return Plot(_png(figure), f"broker handler idle per second, {run.label}",
                "The least request-handler idle % of any broker each second: the dip inside the shaded window "
                "is the handler capacity the load takes; near 0 % every request queues.")


def mean_batch_plot(runs: list[RunFigures]) -> Plot:
    figure, axes = _pyplot().subplots(figsize=(10, 0.6 + 0.55 * len(runs)))
    sizes_kb = [(run.summary["mean_batch_bytes"] or 0.0) / 1024 for run in runs]
    bars = axes.barh([run.label for run in runs], sizes_kb, color="#1f77b4")
    axes.bar_label(bars, labels=[f"{kb:,.1f} KB" for kb in sizes_kb], padding=3)
    axes.invert_yaxis()
    axes.set_xlabel("mean batch size (KB of records)")
    axes.set_ylabel("run")
    axes.set_title("Mean batch size per run")
    axes.margins(x=0.15)
    return Plot(_png(figure), "mean batch size per run",
                "Mean records per produce batch for each run: bigger batches carry the same data in fewer "
                "produce requests, which is what keeps the brokers' handlers free for the neighbours.")


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(
        f'<td class="over">{escape(cell)}</td>' if cell.startswith("over SLA") else f"<td>{escape(cell)}</td>"
        for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_html(runs: list[RunFigures]) -> str:
    from reports.versus import pair_runs, render_versus_html
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>quietload report</title>", f"<style>{_STYLE}</style></head><body>",
             "<h1>quietload report</h1>"]
    if len(runs) > 1:
        parts += ["<h2>Comparison</h2>", _html_table(*comparison_table(runs)), mean_batch_plot(runs).html(),
                  *batch_size_html(runs)]
    parts += render_versus_html(pair_runs(runs), _html_table)
    for run in runs:
        parts += [f"<h2>{escape(run.scenario_name)}</h2>",
                  f"<p>Evaluator: {escape(run.result.evaluator)}; seed: {run.result.seed}.</p>",
                  _html_table(["figure", "value"], summary_rows(run))]
        if run.neighbours:
            parts.append(_html_table(NEIGHBOUR_HEADER, neighbour_rows(run)))
        parts += ["<h3>Mechanism</h3>", "<ul>", *(f"<li>{escape(s)}</li>" for s in run.result.mechanism), "</ul>"]
        plots = [neighbour_p99_plot(run), produce_requests_plot(run), handler_idle_plot(run)]
        parts += [plot.html() for plot in plots if plot is not None]
        if len(runs) == 1:
            parts += batch_size_html(runs)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
