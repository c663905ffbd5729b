"""The report as one self-contained HTML page: the header, tables, and plots embedded as SVG
(``_svg``; PNG at 150 dpi, ``_png``, where a plot is too dense for vector output).

Plots come from the RunResult's 1-second ``timelines`` as they are; seconds a neighbour sent
no record (``null`` p99) are left out, not filled. Runs share each plot (``reports.overlay``);
the batch-size distribution comes from its ``batch_sizes`` (``reports.batch_sizes``).
matplotlib is imported here, lazily, with Agg.
"""
from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from reports.batch_sizes import batch_size_html
from reports.report import (NEIGHBOUR_HEADER, RunFigures, comparison_table, neighbour_names, neighbour_rows,
                            summary_rows)

if TYPE_CHECKING:
    from reports.header import Header

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
td.text { text-align: left; }
.pass { color: #1b5e20; font-weight: bold; }
.meta { color: #444; }
"""
PNG_DPI = 150


@dataclass(frozen=True)
class Plot:
    """One embedded image (SVG or PNG) and the one-line caption that says what to read from it."""

    image: bytes
    alt: str
    caption: str

    @property
    def mime(self) -> str:
        return "image/png" if self.image.startswith(b"\x89PNG") else "image/svg+xml"

    @property
    def png(self) -> bytes:
        """The image of a PNG plot (``_png``)."""
        return self.image

    def html(self) -> str:
        data = base64.b64encode(self.image).decode("ascii")
        return (f'<figure><img src="data:{self.mime};base64,{data}" alt="{escape(self.alt)}">'
                f"<figcaption>{escape(self.caption)}</figcaption></figure>")


def _pyplot() -> Any:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=PNG_DPI, bbox_inches="tight")
    _pyplot().close(figure)
    return buffer.getvalue()


def _svg(figure: Any) -> bytes:
    """The figure as SVG with its text as text (searchable, sharp at any zoom) and no date or random
    ids in it, so that the same results give the same bytes."""
    import matplotlib
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "quietload"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    _pyplot().close(figure)
    return buffer.getvalue()


def timeline_points(run: RunFigures, key: str) -> list[tuple[float, float]]:
    """``(second, value)`` of one timeline; seconds without a value (``null``) are skipped."""
    series = run.result.timelines.get(key) or []
    seconds = run.result.timelines.get("second") or range(len(series))
    return [(t, v) for t, v in zip(seconds, series) if v is not None]


def mean_batch_plot(runs: list[RunFigures]) -> Plot:
    figure, axes = _pyplot().subplots(figsize=(10, 0.8 + 0.55 * len(runs)), layout="constrained")
    sizes_kb = [(run.result.summary.mean_batch_bytes or 0.0) / 1024 for run in runs]
    bars = axes.barh([run.label for run in runs], sizes_kb, color="#1f77b4")
    axes.bar_label(bars, labels=[f"{kb:,.1f} KB" for kb in sizes_kb], padding=3)
    axes.invert_yaxis()
    axes.set_xlabel("mean batch size (KB of records)")
    axes.set_ylabel("run")
    axes.set_title("Mean batch size per run")
    axes.margins(x=0.15)
    return Plot(_svg(figure), "mean batch size per run",
                "Mean records per produce batch for each run: bigger batches carry the same data in fewer "
                "produce requests, which is what keeps the brokers' handlers free for the neighbours.")


_NUMBER = re.compile(r"^[-+]?[\d,]*\.?\d+( ?[%x])?$|^(n/a|-)$")


def _cell(cell: str) -> str:
    """Numbers right-aligned (the table's default), words left-aligned, a breach in red."""
    if cell.startswith("over SLA"):
        return f'<td class="over">{escape(cell)}</td>'
    return f"<td>{escape(cell)}</td>" if _NUMBER.match(cell) else f'<td class="text">{escape(cell)}</td>'


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(_cell(cell) for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _header_html(header: Header) -> list[str]:
    def verdict(line: str, passed: bool | None) -> str:
        return f'<li><span class="{ {True: "pass", False: "over", None: "meta"}[passed] }">{escape(line)}</span></li>'
    return [f'<p class="meta">Generated {escape(header.generated)} by quietload {escape(header.version)}.</p>',
            "<p>Inputs:</p><ul>", *(f"<li><code>{escape(path)}</code>: {escape(what)}</li>" for path, what in header.inputs),
            "</ul>", "<p>Verdicts (the gate's rules, from <code>check --json</code> where given):</p><ul>",
            *(verdict(v.line(), v.passed) for v in header.verdicts), "</ul>"]


def overlay_html(runs: list[RunFigures]) -> list[str]:
    """The before/after story: each neighbour's p99 and the request rate, every run on one time axis."""
    from reports.overlay import (BROKER_TIMELINES, broker_series, neighbour_series, neighbour_slas, overlay_figure,
                                 threshold_lines)
    parts = ["<h2>Before and after, on one time axis</h2>"]
    for name in neighbour_names(runs):
        if series := neighbour_series(runs, name):
            figure = overlay_figure(series, f"Neighbour {name}: p99 latency per second", "p99 latency (ms)",
                                    lines=neighbour_slas(runs, name), log_if_wide=True)
            parts.append(Plot(_svg(figure), f"{name} p99 per second, every run", NEIGHBOUR_CAPTION.format(name=name)).html())
    key, title, ylabel, scale, threshold, percent, caption = BROKER_TIMELINES[0]
    if series := broker_series(runs, key, scale):
        lines = threshold_lines(runs, threshold)
        parts.append(Plot(_svg(overlay_figure(series, title, ylabel, lines=lines, percent=percent)), title, caption).html())
    return parts


NEIGHBOUR_CAPTION = ("{name}'s p99 send-to-acknowledgement latency each second, every run on one time axis from its "
                     "load's start: points above the dashed SLA line after the load starts are the breaches the batch "
                     "job causes; a run whose line stays under it kept {name} within its SLA.")


def cloudwatch_html(runs: list[RunFigures]) -> list[str]:
    from reports.overlay import (BROKER_TIMELINES, CLOUDWATCH_HEADER, CLOUDWATCH_NOTE, broker_series, cloudwatch_rows,
                                 overlay_figure, threshold_lines)
    parts = ["<h2>The brokers under their CloudWatch names</h2>", f"<p>{escape(CLOUDWATCH_NOTE)}</p>",
             _html_table(CLOUDWATCH_HEADER, cloudwatch_rows(runs))]
    for key, title, ylabel, scale, threshold, percent, caption in BROKER_TIMELINES[1:]:
        if series := broker_series(runs, key, scale):
            lines = threshold_lines(runs, threshold)
            parts.append(Plot(_svg(overlay_figure(series, title, ylabel, lines=lines, percent=percent)), title, caption).html())
    return parts


BREAKDOWN_CAPTION = ("For each run and neighbour, the p99 of each part of its produce requests' time in the brokers "
                     "during the load (bars), the brokers' TotalTimeMs p99 (black tick) and the end-to-end p99 (red "
                     "diamond): the longest bar is what the fix must shorten; a diamond far right of the tick is time "
                     "spent behind earlier requests, outside the brokers' timing.")
LAG_CAPTION = ("How far the followers were behind the leaders each second (bytes not yet replicated, all partitions): "
               "with acks=all a neighbour's produce waits until its followers have fetched, so a load that outruns "
               "replication makes every acks=all client wait (RemoteTimeMs).")


def breakdown_html(runs: list[RunFigures]) -> list[str]:
    from reports.overlay import (BREAKDOWN_HEADER, BREAKDOWN_NOTE, breakdown_figure, breakdown_rows, overlay_figure,
                                 replica_lag_series)
    rows = breakdown_rows(runs)
    if not rows:
        return []
    parts = ["<h2>What the neighbours' latency is made of</h2>", f"<p>{escape(BREAKDOWN_NOTE)}</p>",
             _html_table(BREAKDOWN_HEADER, rows)]
    if (figure := breakdown_figure(runs)) is not None:
        parts.append(Plot(_svg(figure), "neighbour latency by part", BREAKDOWN_CAPTION).html())
    if series := replica_lag_series(runs):
        figure = overlay_figure(series, "Replica lag", "bytes behind the leaders (MB)")
        parts.append(Plot(_svg(figure), "replica lag per second, every run", LAG_CAPTION).html())
    return parts


def render_html(runs: list[RunFigures], header: Header | None = None, gates: list[dict] | None = None) -> str:
    from reports.versus import pair_runs, render_versus_html
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>quietload report</title>", f"<style>{_STYLE}</style></head><body>",
             "<h1>quietload report</h1>", *(_header_html(header) if header else [])]
    if len(runs) > 1:
        parts += ["<h2>Comparison</h2>", _html_table(*comparison_table(runs))]
    if runs:
        parts += [*overlay_html(runs), *cloudwatch_html(runs), *breakdown_html(runs), "<h2>Batch sizes</h2>"]
        if len(runs) > 1:
            parts.append(mean_batch_plot(runs).html())
        parts += batch_size_html(runs)
    parts += render_versus_html(pair_runs(runs), _html_table)
    for gate in gates or []:
        parts += gate_html(gate)
    for run in runs:
        parts += [f"<h2>{escape(run.label)}</h2>",
                  f"<p>Scenario: {escape(run.scenario_name)}; evaluator: {escape(run.result.evaluator)}; "
                  f"seed: {run.result.seed}.</p>",
                  _html_table(["figure", "value"], summary_rows(run))]
        if run.neighbours:
            parts.append(_html_table(NEIGHBOUR_HEADER, neighbour_rows(run)))
        parts += ["<h3>Mechanism</h3>", "<ul>", *(f"<li>{escape(s)}</li>" for s in run.result.mechanism), "</ul>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def gate_html(gate: dict) -> list[str]:
    from reports.header import gate_seeds
    from workloads.units import format_seeds
    outcome = "PASS" if gate["passed"] else "FAIL"
    parts = [f"<h2>Gate result: {escape(gate['scenario'])}</h2>",
             f'<p><span class="{"pass" if gate["passed"] else "over"}">{outcome}</span> ({escape(gate["evaluator"])}, '
             f"{escape(format_seeds(gate_seeds(gate)))}).</p>",
             _html_table(["rule", "status", "reason"], [[v["rule"], v["status"], v.get("reason", "")] for v in gate["verdicts"]])]
    if gate.get("recommendations"):
        parts += ["<p>Recommended change:</p><ul>", *(f"<li>{escape(a)}</li>" for a in gate["recommendations"]), "</ul>"]
    return parts
