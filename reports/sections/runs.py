"""The runs of a report (``RunFigures``: a RunResult and the label that tells it from the
others) and their own sections: the comparison table, each run's figures, neighbours and
mechanism, and the mean batch size per run.

Every figure is taken as it is from the RunResult's ``summary``: the report formats numbers,
it never recomputes them.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

from reports.kit import plot
from reports.kit.plot import Plot
from reports.kit.tables import format_figure, format_ms, html_table, markdown_table
from reports.sections.labels import run_labels, settings_legend
from reports.summary import job_table
from simulator.contract import WINDOWS, RunResult
from simulator.contract import explain as words
from simulator.contract.titles import SUMMARY_FIGURES

JOBS_NOTE = ("The night's jobs: each job's own requests, batches, records and bytes, and each neighbour's p99 "
             "over the seconds of that job's load (other jobs may load then too).")
RECORD_LATENCY_HEADER = ["the job's records (send() to ack)", "count", "p50 (ms)", "p95 (ms)", "p99 (ms)",
                         "p99.9 (ms)", "max (ms)"]
NEIGHBOUR_HEADER = ["neighbour", "p99 before (ms)", "p99 during (ms)", "p99 after (ms)", "SLA p99 (ms)", "verdict"]


@dataclass(frozen=True)
class RunFigures:
    """The figures a report shows for one run, exactly as its RunResult holds them."""

    label: str
    result: RunResult

    @property
    def scenario_name(self) -> str:
        return self.result.scenario["name"]

    @property
    def summary(self) -> dict:
        return {key: getattr(self.result.summary, key) for key, _, _ in SUMMARY_FIGURES}

    @property
    def neighbours(self) -> list[dict]:
        return [{"name": n.name, "sla_p99_ms": n.sla_p99_ms, **{f"p99_ms_{w}": getattr(n, f"p99_ms_{w}") for w in WINDOWS}}
                for n in self.result.summary.tenants]

    def to_dict(self) -> dict:
        return {"label": self.label, "scenario": self.scenario_name, "evaluator": self.result.evaluator,
                "seed": self.result.seed, "summary": self.summary, "neighbours": self.neighbours,
                "record_latency_ms": self.result.summary.record_latency_ms,
                "batch_sizes": self.result.batch_sizes and self.result.batch_sizes.to_dict(), "mechanism": list(self.result.mechanism),
                **({"jobs": [job.to_dict() for job in self.result.jobs]} if self.result.jobs else {})}


def run_figures(results: list[RunResult], sources: list[str | Path] | None = None) -> list[RunFigures]:
    """One RunFigures per result, labelled by what tells it from the others (``sections.labels``)."""
    return [RunFigures(label, result) for label, result in zip(run_labels(results, sources), results)]


def sla_verdict(neighbour: dict) -> str:
    return words.sla_verdict_by_window({w: neighbour[f"p99_ms_{w}"] for w in WINDOWS}, neighbour["sla_p99_ms"])


def neighbour_names(runs: list[RunFigures]) -> list[str]:
    """Every neighbour of any run, in order of first appearance."""
    names: list[str] = []
    for run in runs:
        names += [n["name"] for n in run.neighbours if n["name"] not in names]
    return names


def summary_rows(run: RunFigures) -> list[list[str]]:
    return [[title, format_figure(run.summary[key], fmt)] for key, title, fmt in SUMMARY_FIGURES]


def record_latency_rows(run: RunFigures) -> list[list[str]]:
    """The batch job's own records' latency, as kafka-producer-perf-test prints it; none for a run without it."""
    latency = run.result.summary.record_latency_ms
    if not latency or not latency.get("count"):
        return []
    return [["all", f"{latency['count']:,.0f}", *(format_ms(latency[k]) for k in ("p50", "p95", "p99", "p999", "max"))]]


def neighbour_rows(run: RunFigures) -> list[list[str]]:
    return [[n["name"], *(format_ms(n[f"p99_ms_{w}"]) for w in WINDOWS),
             "n/a" if n["sla_p99_ms"] is None else words.sla_figure(n["sla_p99_ms"]), sla_verdict(n)]
            for n in run.neighbours]


def comparison_table(runs: list[RunFigures]) -> tuple[list[str], list[list[str]]]:
    """One row per run: its summary figures and each neighbour's p99 during the load."""
    names = neighbour_names(runs)
    header = ["run", *(title for _, title, _ in SUMMARY_FIGURES), *(f"{name} p99 during (ms)" for name in names)]
    rows = []
    for run in runs:
        during = {n["name"]: n["p99_ms_during"] for n in run.neighbours}
        rows.append([run.label, *(format_figure(run.summary[key], fmt) for key, _, fmt in SUMMARY_FIGURES),
                     *(format_ms(during[name]) if name in during else "-" for name in names)])
    return header, rows


LEGEND_HEADER = ["run", "settings that differ"]
LEGEND_NOTE = "Labels name two of the settings that differ; every one of them, for the runs that have more:"


def legend(runs: list[RunFigures]) -> list[list[str]]:
    return settings_legend([run.result for run in runs], [run.label for run in runs])


def comparison_markdown(runs: list[RunFigures]) -> list[str]:
    if len(runs) < 2:
        return []
    rows = legend(runs)
    return ["## Comparison", "", *markdown_table(*comparison_table(runs)), "",
            *([LEGEND_NOTE, "", *markdown_table(LEGEND_HEADER, rows), ""] if rows else [])]


def comparison_html(runs: list[RunFigures]) -> list[str]:
    if len(runs) < 2:
        return []
    rows = legend(runs)
    return ["<h2>Comparison</h2>", html_table(*comparison_table(runs)),
            *([f"<p>{escape(LEGEND_NOTE)}</p>", html_table(LEGEND_HEADER, rows)] if rows else [])]


def _scenario_line(run: RunFigures) -> str:
    return f"Scenario: {run.scenario_name}; evaluator: {run.result.evaluator}; seed: {run.result.seed}."


def run_markdown(run: RunFigures, batch_sizes: list[str]) -> list[str]:
    """The run's figures and neighbours, its batch sizes (``batch_sizes``: that section's lines), its mechanism."""
    lines = [f"## {run.label}", "", _scenario_line(run), "", *markdown_table(["figure", "value"], summary_rows(run)), ""]
    if record_latency_rows(run):
        lines += [*markdown_table(RECORD_LATENCY_HEADER, record_latency_rows(run)), ""]
    lines += (markdown_table(NEIGHBOUR_HEADER, neighbour_rows(run)) if run.neighbours
              else ["No neighbours in this scenario."]) + [""]
    sources = words.sla_sources(run.result.scenario)   # where a relative SLA's figure came from
    lines += [*(f"- {line}" for line in sources), ""] if sources else []
    head, jobs = job_table(run.result)
    lines += [JOBS_NOTE, "", *markdown_table(head, jobs), ""] if jobs else []
    lines += [*batch_sizes, ""]
    return lines + ["Mechanism:", "", *(f"- {sentence}" for sentence in run.result.mechanism), ""]


def run_html(run: RunFigures) -> list[str]:
    parts = [f"<h2>{escape(run.label)}</h2>", f"<p>{escape(_scenario_line(run))}</p>",
             html_table(["figure", "value"], summary_rows(run))]
    if record_latency_rows(run):
        parts.append(html_table(RECORD_LATENCY_HEADER, record_latency_rows(run)))
    if run.neighbours:
        parts.append(html_table(NEIGHBOUR_HEADER, neighbour_rows(run)))
        parts += [f"<p>{escape(line)}</p>" for line in words.sla_sources(run.result.scenario)]
    head, jobs = job_table(run.result)
    if jobs:
        parts += [f"<p>{escape(JOBS_NOTE)}</p>", html_table(head, jobs)]
    return parts + ["<h3>Mechanism</h3>", "<ul>", *(f"<li>{escape(s)}</li>" for s in run.result.mechanism), "</ul>"]


def timeline_points(run: RunFigures, key: str) -> list[tuple[float, float]]:
    """``(second, value)`` of one timeline; seconds without a value (``null``) are skipped."""
    series = run.result.timelines.get(key) or []
    seconds = run.result.timelines.get("second") or range(len(series))
    return [(t, v) for t, v in zip(seconds, series) if v is not None]


def mean_batch_plot(runs: list[RunFigures]) -> Plot:
    figure, axes = plot.pyplot().subplots(figsize=(10, 0.8 + 0.55 * len(runs)), layout="constrained")
    sizes_kb = [(run.result.summary.mean_batch_bytes or 0.0) / 1024 for run in runs]
    bars = axes.barh([run.label for run in runs], sizes_kb, color="#1f77b4")
    axes.bar_label(bars, labels=[f"{kb:,.1f} KB" for kb in sizes_kb], padding=3)
    axes.invert_yaxis()
    axes.set_xlabel("mean batch size (KB of records)")
    axes.set_ylabel("run")
    axes.set_title("Mean batch size per run")
    axes.margins(x=0.15)
    return Plot(plot.svg(figure), "mean batch size per run",
                "Mean records per produce batch for each run: bigger batches carry the same data in fewer "
                "produce requests, which is what keeps the brokers' handlers free for the neighbours.")
