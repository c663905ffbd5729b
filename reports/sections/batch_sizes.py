"""The batch load's batch-size distribution (``RunResult.batch_sizes``) in a report: a Markdown
table per run, ``batch_sizes.csv`` and one plot with a panel per run on shared axes. Counts are taken as the
result holds them; shares are a bucket's batches over all of the run's batches.
"""
from __future__ import annotations

import csv
import io
from html import escape
from typing import Any

from reports.kit import plot
from reports.kit.plot import Plot
from reports.kit.tables import markdown_table
from simulator.contract import BatchSizeFigures
from workloads.batch import first_job
from workloads.settings import BATCH_SIZE_CONFIG

KB = 1024
MISSING_LINE = ("No batch-size distribution in {what} (a result written before quietload recorded one, or a "
                "live run on a cluster whose logs are not on this machine).")
CAPTION = ("The share of the batch load's produce batches in each size bucket (bytes on the wire, header "
           "included), one panel per run on the same axes: full batches sit in the bucket that ends at the dashed "
           "batch.size line; weight far left of it is small batches, each a produce request for little data.")
SOURCES = {"model": "the model's batches as sent", "broker log": "every batch in the brokers' logs (DumpLogSegments)"}


def distribution(run: Any) -> BatchSizeFigures | None:
    """The run's ``batch_sizes`` if it has any batches."""
    sizes = run.result.batch_sizes
    return sizes if sizes and sizes.batches else None


def batch_size_limit(run: Any) -> int | None:
    """The batch load's ``batch.size`` in bytes, as the result's scenario states it."""
    return first_job(run.result.scenario).get("producer", {}).get(BATCH_SIZE_CONFIG)


def bucket_label(index: int, upper: int) -> str:
    """``<= 1`` for the first bucket, ``64-128`` for the others (KB)."""
    return f"<= {upper / KB:,g}" if index == 0 else f"{upper / 2 / KB:,g}-{upper / KB:,g}"


def share_pct(count: int, sizes: BatchSizeFigures) -> float:
    return 100.0 * count / sizes.batches


BATCH_SIZE_HEADER = ["batch size (KB)", "batches (on the wire)", "share (%)", "batches (uncompressed records)"]


def batch_size_rows(sizes: BatchSizeFigures) -> list[list[str]]:
    return [[bucket_label(i, upper), f"{wire:,}", f"{share_pct(wire, sizes):,.1f}",
             "n/a" if records is None else f"{records:,}"] for i, (upper, wire, records) in enumerate(sizes.buckets())]


def batch_size_intro(sizes: BatchSizeFigures) -> str:
    return (f"Batch sizes: {sizes.batches:,} batches, {SOURCES.get(sizes.source, sizes.source)}; "
            "buckets end at the bound shown (1 KB = 1024 bytes).")


def render_batch_size_csv(runs: list[Any]) -> str:
    """One row per bucket of every run that has a distribution: the exact counts."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "scenario", "evaluator", "seed", "source", "bucket_upper_bytes", "wire_batches",
                     "record_batches"])
    for run in runs:
        if (sizes := distribution(run)) is None:
            continue
        for upper, wire, records in sizes.buckets():
            writer.writerow([run.label, run.scenario_name, run.result.evaluator, run.result.seed, sizes.source,
                             upper, wire, "" if records is None else records])
    return out.getvalue()


def batch_size_markdown(run: Any) -> list[str]:
    """The run's distribution as a table, or the line that says it has none."""
    sizes = distribution(run)
    return ([batch_size_intro(sizes), "", *markdown_table(BATCH_SIZE_HEADER, batch_size_rows(sizes))] if sizes
            else [MISSING_LINE.format(what="this result")])


def step_points(sizes: BatchSizeFigures) -> tuple[list[float], list[float]]:
    """Bucket edges in KB (the first bucket drawn from 0.5 KB: a log axis has no 0) and each bucket's
    share (%), up to the largest batch on the wire."""
    counts = sizes.wire_bytes
    last = max(i for i, count in enumerate(counts) if count)
    uppers = [upper / KB for upper in sizes.bucket_upper_bytes[:last + 1]]
    return [uppers[0] / 2, *uppers], [share_pct(count, sizes) for count in counts[:last + 1]]


PANEL_INCHES = 1.7


def batch_size_figure(runs: list[Any]) -> Any | None:
    """One panel per run with a distribution, stacked on one shared log2 axis and one 0-100 % scale,
    so that no run's bars hide another's; the dashed line in each panel is that run's batch.size.
    Every bucket bound is a tick (powers of two: their labels never crowd at this width)."""
    shown = [(run, sizes) for run in runs if (sizes := distribution(run)) is not None]
    if not shown:
        return None
    plt = plot.pyplot()
    figure, panels = plt.subplots(len(shown), 1, figsize=(10, 0.9 + PANEL_INCHES * len(shown)), sharex=True,
                                  squeeze=False, layout="constrained")
    ticks: set[float] = set()
    for (run, sizes), axes in zip(shown, panels[:, 0]):
        edges, shares = step_points(sizes)
        ticks.update(edges[1:])
        axes.stairs(shares, edges, fill=True, color="#1f77b4", alpha=0.85)
        if (limit := batch_size_limit(run)) is not None:
            axes.axvline(limit / KB, linestyle="--", linewidth=1.2, color="#222222")
            ticks.add(limit / KB)
            axes.text(limit / KB, 96, f" batch.size {limit / KB:,g} KB", fontsize="small", va="top", ha="left")
        axes.set_ylim(0, 100)
        axes.set_yticks([0, 50, 100])
        axes.set_ylabel("share (%)")
        axes.set_title(f"{run.label}: {sizes.batches:,} batches, {SOURCES.get(sizes.source, sizes.source)}",
                       fontsize="medium", loc="left")
        axes.grid(alpha=0.3)
    bottom = panels[-1, 0]
    bottom.set_xscale("log", base=2)
    ordered = sorted(ticks)
    bottom.set_xticks(ordered)
    bottom.set_xlim(ordered[0] / 2, ordered[-1] * 2)   # the batch.size label clear of the frame
    bottom.xaxis.set_major_formatter(plt.FuncFormatter(lambda value, _: f"{value:,g}"))
    bottom.xaxis.set_minor_locator(plt.NullLocator())
    bottom.set_xlabel("batch size (KB on the wire, log2 buckets; the first holds every batch up to 1 KB)")
    return figure


def batch_size_plot(runs: list[Any]) -> Plot | None:
    """The distributions as one plot; None if no run has one."""
    figure = batch_size_figure(runs)
    return None if figure is None else Plot(plot.svg(figure), "batch-size distribution per run", CAPTION)


def batch_size_html(runs: list[Any]) -> list[str]:
    """The plot and a line naming the runs without a distribution."""
    drawn = batch_size_plot(runs)
    missing = [run.label for run in runs if distribution(run) is None]
    parts = ["<h3>Batch-size distribution</h3>"] + ([drawn.html()] if drawn else [])
    if missing:
        parts.append(f"<p>{escape(MISSING_LINE.format(what=', '.join(missing)))}</p>")
    return parts
