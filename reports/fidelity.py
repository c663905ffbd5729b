"""A validation's tables and files (``quietload validate``): per configuration and figure the
model's interval, the live median and spread and live / model; the summary errors; the targets'
verdicts; and, for ``validate --history``, the past loads replayed on the model beside what the
metrics observed. The figures are ``tuner.fidelity``'s and ``tuner.calibration.history``'s."""
from __future__ import annotations

import csv
import io
import json
import statistics
from pathlib import Path

from reports.kit.tables import format_figure, plain_markdown_table
from reports.sections.versus import FIDELITY_SUMMARY_HEADER, fidelity_summary_rows
from tuner.calibration.replay import REPLAY_FIGURES, Replayed
from tuner.fidelity import Validation, figure_rows
from tuner.repeats import Repeats
from tuner.pairing import END_TO_END, STREAMING_FIGURES, Versus, ratio

# (title in a pair's figures, short name, format) shown per configuration
TABLE_FIGURES = (("produce requests", "requests", "{:,.0f}"), ("mean batch (KB of records)", "mean batch (KB of records)", "kb"),
                 ("records / request", "records/request", "{:,.1f}"), ("handler idle during (%)", "handler idle (%)", "{:,.1f}"),
                 ("load (s)", "load (s)", "{:,.1f}"), ("p50 during (ms)", "p50 (ms)", "{:,.1f}"),
                 ("p99 during (ms)", "p99 (ms)", "{:,.1f}"),
                 *((f"{END_TO_END} {title}", f"{END_TO_END} {title}", "{:,.1f}") for _, title in STREAMING_FIGURES))


def _range(low: float | None, high: float | None, fmt: str) -> str:
    return "n/a" if low is None else f"{format_figure(low, fmt)}-{format_figure(high, fmt)}"


def table_rows(pairs: list[Versus]) -> list[list[str]]:
    """Per configuration and figure: the model's interval, the live median (spread) and live / model."""
    rows = []
    for pair in pairs:
        for title, short, fmt in TABLE_FIGURES:
            for name, (model, live, interval, spread) in figure_rows(pair, title):
                label = short if name == title else f"{name.split(' ')[0]} {short}"
                r = ratio(model, live)
                rows.append([pair.scenario, label, _range(interval.low, interval.high, fmt),
                             format_figure(live, fmt) + ("" if spread.low is None else f" ({_range(spread.low, spread.high, fmt)})"),
                             "n/a" if r is None else f"{r:.2f}x"])
    return rows


TABLE_HEADER = ["configuration", "figure", "model (min-max over seeds)", "live median (min-max)", "live / model"]


def render_validation(validation: Validation) -> str:
    """The table, the summary errors and the targets' verdicts, as Markdown (readable as text)."""
    lines = [*plain_markdown_table(TABLE_HEADER, table_rows(validation.pairs)), "",
             *plain_markdown_table(FIDELITY_SUMMARY_HEADER, fidelity_summary_rows(validation.summary)), "",
             *plain_markdown_table(["target", "verdict", "detail"],
                                   [[t.name, {None: "n/a", True: "met", False: "MISSED"}[t.passed], t.detail]
                                    for t in validation.targets])]
    if validation.apart:
        lines += ["", "Not judged together (shown above): " + "; ".join(f"{name}: {why}" for name, why in validation.apart.items())]
    if validation.failed_runs:
        lines += ["", "Runs that failed twice (left out): " + "; ".join(validation.failed_runs)]
    if validation.repeats:
        lines += ["", "The live repeats (judged over the whole load; steady: the load's whole seconds at the job's full pace, "
                  "as each run's line says; waits for a core over the load's window, per thread group):", "",
                  *render_repeats(validation.repeats)]
    return "\n".join(lines)


REPEATS_HEADER = ["configuration", "figure", "median", "min-max", "largest distance from the median"]


def repeat_rows(spreads: list[Repeats]) -> list[list[str]]:
    """Per configuration and figure: the live runs' median, lowest-highest and largest distance from the median."""
    return [[r.configuration, title, f"{spread.median:,.1f}", f"{min(spread.values):,.1f}-{max(spread.values):,.1f}",
             "n/a" if spread.distance is None else f"{spread.distance:.0%}"]
            for r in spreads for title, spread in r.figures.items()]


def render_repeats(spreads: list[Repeats]) -> list[str]:
    lines = plain_markdown_table(REPEATS_HEADER, repeat_rows(spreads))
    for r in spreads:
        verdict = {None: "not judged" + (f" ({r.brokers} brokers)" if r.brokers > 1 else ""), True: "repeats",
                   False: f"does NOT repeat ({', '.join(r.misses)})"}[r.verdict]
        lines.append(f"{r.configuration}: {verdict}; " + "; ".join(r.middles)
                     + ("" if not r.noise else "; NOISE " + "; ".join(r.noise)))
    return lines


def write_validation(validation: Validation, out_dir: Path) -> list[Path]:
    """fidelity.json (every figure exactly, the summary, the targets), fidelity.md and fidelity.csv."""
    out_dir.mkdir(parents=True, exist_ok=True)
    document = {"configurations": [{"name": p.scenario, "model_seeds": p.model_seeds, "live_seeds": p.live_seeds,
                                    "figures": p.rows} for p in validation.pairs],
                "summary": validation.summary,
                "targets": [{"target": t.name, "passed": t.passed, "detail": t.detail} for t in validation.targets],
                "failed_runs": validation.failed_runs, "apart": validation.apart,
                "repeats": [{"name": r.configuration, "seeds": list(r.seeds), "middles": list(r.middles), "noise": list(r.noise),
                             "judged": r.verdict, "figures": {title: {"values": list(spread.values), "median": spread.median,
                                                                      "distance": spread.distance}
                                                              for title, spread in r.figures.items()}}
                            for r in validation.repeats]}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(TABLE_HEADER)
    writer.writerows(table_rows(validation.pairs))
    paths = {"fidelity.json": json.dumps(document, indent=1) + "\n", "fidelity.md": render_validation(validation) + "\n",
             "fidelity.csv": buffer.getvalue()}
    for name, text in paths.items():
        (out_dir / name).write_text(text)
    return [out_dir / name for name in paths]


REPLAY_HEADER = ["past load", "figure", "model (min-max over seeds)", "observed", "observed / model"]


def replay_rows(replayed: list[Replayed]) -> list[list[str]]:
    rows = []
    for load in replayed:
        for title, model, observed, fmt in load.figures:
            middle = statistics.median(model) if model else None
            r = ratio(middle, observed)
            interval = "n/a" if not model else f"{fmt.format(min(model))}-{fmt.format(max(model))}"
            rows.append([load.load, title, interval, "n/a" if observed is None else fmt.format(observed),
                         "n/a" if r is None else f"{r:.2f}x"])
    return rows


def render_replay(replayed: list[Replayed]) -> str:
    """The table of the live validation, a past load per configuration; then each figure's median and worst error."""
    errors = []
    for title, _ in REPLAY_FIGURES:
        found = [abs(r - 1) for load in replayed for t, model, observed, _ in load.figures if t == title and model
                 and (r := ratio(statistics.median(model), observed)) is not None]
        errors.append([title, f"{len(found)}", f"{statistics.median(found):.0%}" if found else "n/a",
                       f"{max(found):.0%}" if found else "n/a"])
    return "\n".join([*plain_markdown_table(REPLAY_HEADER, replay_rows(replayed)), "",
                      *plain_markdown_table(["figure", "loads", "median error", "worst error"], errors)])
