"""Predicted against measured, as tables: the pairs of model and live runs ``tuner.pairing`` makes
(each side's median over its seeds, the model's interval, the live runs' spread, live / model),
per scenario, and the model's error across scenarios. A figure a side lacks shows as n/a."""
from __future__ import annotations

import csv
import io
from html import escape

from reports.kit.tables import format_figure, html_table, markdown_table
from reports.sections.runs import RunFigures
from tuner.pairing import Spread, Versus, fidelity_summary, pair_results, ratio


def pair_runs(runs: list[RunFigures]) -> list[Versus]:
    """The report's runs paired (``tuner.pairing.pair_results``)."""
    return pair_results([run.result for run in runs])


def versus_header(pair: Versus) -> list[str]:
    return ["figure", f"model (seeds {_seeds(pair.model_seeds)})", f"live (seeds {_seeds(pair.live_seeds)})", "live / model",
            "model min-max", "live min-max", "live in model's interval"]


def _range(spread: Spread, fmt: str) -> str:
    return "n/a" if spread.low is None else f"{format_figure(spread.low, fmt)}-{format_figure(spread.high, fmt)}"


def versus_rows(pair: Versus) -> list[list[str]]:
    return [[title, format_figure(model, fmt), format_figure(live, fmt),
             "n/a" if ratio(model, live) is None else f"{ratio(model, live):.2f}x",
             _range(m, fmt), _range(l, fmt), {None: "n/a", True: "yes", False: "no"}[m.holds(live)]]
            for (title, model, live, fmt), (m, l) in zip(pair.figures, pair.spreads)]


def fidelity_summary_rows(summary: list[dict]) -> list[list[str]]:
    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:,.0f} %"
    def times(value: float | None) -> str:
        return "n/a" if value is None else f"{value:,.2f}x"
    return [[row["figure"], pct(row["median_error"]), pct(row["worst_error"]), times(row.get("median_factor")),
             str(row["count"]), "" if row["spearman"] is None else f"{row['spearman']:.2f}"] for row in summary]


FIDELITY_SUMMARY_HEADER = ["figure", "median error", "worst error", "median factor off (either way)", "comparisons",
                           "Spearman (across scenarios)"]


def _exact(value: float | None) -> str:
    """Six significant digits, as a RunResult keeps its figures; empty when absent."""
    return "" if value is None else f"{value:.6g}"


def _seeds(seeds: list[int]) -> str:
    return ", ".join(str(seed) for seed in sorted(seeds))


def render_versus_csv(pairs: list[Versus]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = ("model", "live", "live_over_model", "model_min", "model_max", "live_min", "live_max")
    writer.writerow(["scenario", "figure", *columns, "live_in_model_interval"])
    for pair in pairs:
        for row in pair.rows:
            inside = row["live_in_model_interval"]
            writer.writerow([pair.scenario, row["figure"], *(_exact(row[key]) for key in columns),
                             "" if inside is None else str(inside).lower()])
    return buffer.getvalue()


VERSUS_INTRO = ("Predicted against measured: {scenario}, the model's median over its seeds against the live "
                "stack's; live / model above 1 means the real parts showed more than the model predicted.")


def render_versus_markdown(pairs: list[Versus]) -> list[str]:
    lines: list[str] = []
    for pair in pairs:
        lines += [f"## Predicted against measured: {pair.scenario}", "", VERSUS_INTRO.format(scenario=pair.scenario), "",
                  *markdown_table(versus_header(pair), versus_rows(pair)), ""]
    if len(pairs) > 1:
        lines += ["## The model's error across scenarios", "", FIDELITY_INTRO, "",
                  *markdown_table(FIDELITY_SUMMARY_HEADER, fidelity_summary_rows(fidelity_summary(pairs))), ""]
    return lines


FIDELITY_INTRO = ("Error: |live median / model median - 1|, per scenario (neighbour figures: per neighbour); Spearman: "
                  "the rank correlation of the scenarios' model and live medians (worst neighbour for p99).")


def render_versus_html(pairs: list[Versus]) -> list[str]:
    parts = [part for pair in pairs for part in (f"<h2>Predicted against measured: {escape(pair.scenario)}</h2>",
                                                  f"<p>{escape(VERSUS_INTRO.format(scenario=pair.scenario))}</p>",
                                                  html_table(versus_header(pair), versus_rows(pair)))]
    if len(pairs) > 1:
        parts += ["<h2>The model's error across scenarios</h2>", f"<p>{escape(FIDELITY_INTRO)}</p>",
                  html_table(FIDELITY_SUMMARY_HEADER, fidelity_summary_rows(fidelity_summary(pairs)))]
    return parts

