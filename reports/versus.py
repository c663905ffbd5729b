"""Predicted against measured: the model's runs and the live runs of one scenario, side by side.

Runs pair up when their resolved scenarios are equal (the same file with the same ``--set``
overrides); each side's figure is the median over its seeds. The ratio measured / predicted
says how far the model is from the real parts for that figure, which is what a calibration
of the cost profile starts from. Figures a side lacks (e.g. handler idle of a live run on
``--bootstrap-servers``) show as n/a and get no ratio.
"""
from __future__ import annotations

import csv
import io
import json
import statistics
from dataclasses import dataclass
from html import escape
from typing import Callable

from reports.report import SUMMARY_FIGURES, RunFigures, _table, format_figure

# the run table's figures but the compression ratio (medians of each side); tenant figures
# follow per neighbour
FIGURES = tuple(figure for figure in SUMMARY_FIGURES if figure[0] != "compression_ratio")
TENANT_FIGURES = (("p99_ms_before", "p99 before (ms)"), ("p99_ms_during", "p99 during (ms)"))


@dataclass(frozen=True)
class Versus:
    """One scenario run by both evaluators: (title, model median, live median) per figure."""

    scenario: str
    model_seeds: list[int]
    live_seeds: list[int]
    figures: list[tuple[str, float | None, float | None, str]]

    @property
    def rows(self) -> list[dict]:
        return [{"figure": title, "model": model, "live": live, "live_over_model": ratio(model, live)}
                for title, model, live, _ in self.figures]


def ratio(model: float | None, live: float | None) -> float | None:
    return live / model if model and live is not None else None


def _median(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def _figures(runs: list[RunFigures]) -> dict[str, list[float | None]]:
    out: dict[str, list[float | None]] = {}
    for run in runs:
        for key, _, _ in FIGURES:
            out.setdefault(key, []).append(run.summary.get(key))
        for tenant in run.neighbours:
            for key, _ in TENANT_FIGURES:
                out.setdefault(f"{tenant['name']}.{key}", []).append(tenant.get(key))
    return out


def pair_runs(runs: list[RunFigures]) -> list[Versus]:
    """Every scenario that has runs of both the model and the live evaluator, in first-seen order."""
    groups: dict[str, dict[str, list[RunFigures]]] = {}
    for run in runs:
        key = json.dumps(run.result.scenario, sort_keys=True)
        groups.setdefault(key, {}).setdefault(run.result.evaluator, []).append(run)
    pairs = []
    for group in groups.values():
        if "model" not in group or "live" not in group:
            continue
        model, live = _figures(group["model"]), _figures(group["live"])
        rows = [(title, _median(model[key]), _median(live[key]), fmt) for key, title, fmt in FIGURES]
        for name in [t["name"] for t in group["model"][0].neighbours]:
            rows += [(f"{name} {title}", _median(model.get(f"{name}.{key}", [])), _median(live.get(f"{name}.{key}", [])),
                      "{:,.1f}") for key, title in TENANT_FIGURES]
        pairs.append(Versus(group["model"][0].scenario_name, [r.result.seed for r in group["model"]],
                            [r.result.seed for r in group["live"]], rows))
    return pairs


def versus_header(pair: Versus) -> list[str]:
    return ["figure", f"model (seeds {_seeds(pair.model_seeds)})", f"live (seeds {_seeds(pair.live_seeds)})", "live / model"]


def versus_rows(pair: Versus) -> list[list[str]]:
    return [[title, format_figure(model, fmt), format_figure(live, fmt),
             "n/a" if ratio(model, live) is None else f"{ratio(model, live):.2f}x"]
            for title, model, live, fmt in pair.figures]


def _exact(value: float | None) -> str:
    """Six significant digits, as a RunResult keeps its figures; empty when absent."""
    return "" if value is None else f"{value:.6g}"


def _seeds(seeds: list[int]) -> str:
    return ", ".join(str(seed) for seed in sorted(seeds))


def render_versus_csv(pairs: list[Versus]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["scenario", "figure", "model", "live", "live_over_model"])
    for pair in pairs:
        for row in pair.rows:
            writer.writerow([pair.scenario, row["figure"], *(_exact(row[key]) for key in ("model", "live", "live_over_model"))])
    return buffer.getvalue()


VERSUS_INTRO = ("Predicted against measured: {scenario}, the model's median over its seeds against the live "
                "stack's; live / model above 1 means the real parts showed more than the model predicted.")


def render_versus_markdown(pairs: list[Versus]) -> list[str]:
    lines: list[str] = []
    for pair in pairs:
        lines += [f"## Predicted against measured: {pair.scenario}", "", VERSUS_INTRO.format(scenario=pair.scenario), "",
                  *_table(versus_header(pair), versus_rows(pair)), ""]
    return lines


def render_versus_html(pairs: list[Versus], table: Callable[[list[str], list[list[str]]], str]) -> list[str]:
    return [part for pair in pairs for part in (f"<h2>Predicted against measured: {escape(pair.scenario)}</h2>",
                                                 f"<p>{escape(VERSUS_INTRO.format(scenario=pair.scenario))}</p>",
                                                 table(versus_header(pair), versus_rows(pair)))]

