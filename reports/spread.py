"""The spread of a scenario's figures over seeds: what the model predicts does not hinge
on one run's timing, or shows how much it does."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from simulator.contract import RunResult


def spread(results: list[RunResult]) -> dict[str, dict[str, float | None]]:
    """min, median and max of each figure across runs of one scenario (None if any run lacks it)."""
    figures: dict[str, list[float | None]] = {
        "produce_requests": [r.summary.produce_requests for r in results],
        "mean_batch_kb": [r.summary.mean_batch_bytes / 1024 for r in results],
        "load_seconds": [r.summary.load_seconds for r in results],
        "handler_idle_pct_during": [r.summary.handler_idle_pct_during for r in results],
    }
    for index, tenant in enumerate(results[0].summary.tenants):
        for window in ("before", "during"):
            figures[f"{tenant.name} p99_ms_{window}"] = [getattr(r.summary.tenants[index], f"p99_ms_{window}")
                                                         for r in results]
    table: dict[str, dict[str, float | None]] = {}
    for name, values in figures.items():
        known = [v for v in values if v is not None]
        if len(known) < len(values):
            table[name] = {"min": None, "median": None, "max": None}
        else:
            table[name] = {"min": min(known), "median": statistics.median(known), "max": max(known)}
    return table


def write_spread(results: list[RunResult], runs: list[Path], path: Path) -> Path:
    """The spread of repeated runs as JSON beside their RunResult files: per figure its min,
    median and max, the runs' seeds and files, and the figures that are mostly noise."""
    table = spread(results)
    document = {"kind": "spread", "scenario": results[0].scenario["name"], "evaluator": results[0].evaluator,
                "seeds": [r.seed for r in results], "runs": [str(run) for run in runs], "figures": table,
                "mostly_noise": noisy_figures(table) if len(results) > 1 else []}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def render_spread(results: list[RunResult]) -> str:
    seeds = [r.seed for r in results]
    table = spread(results)
    width = max(len(name) for name in table)
    lines = [f"{results[0].scenario['name']} ({results[0].evaluator}, seeds {min(seeds)}-{max(seeds)}: "
             f"{len(results)} runs)",
             f"  {'figure':<{width}}  {'min':>10}  {'median':>10}  {'max':>10}  spread"]
    for name, row in table.items():
        if row["median"] is None:
            lines.append(f"  {name:<{width}}  {'n/a':>10}  {'n/a':>10}  {'n/a':>10}")
            continue
        low, middle, high = row["min"], row["median"], row["max"]
        relative = (high - low) / middle * 100 if middle else 0.0
        lines.append(f"  {name:<{width}}  {low:>10,.1f}  {middle:>10,.1f}  {high:>10,.1f}  {relative:5.0f} %")
    noisy = noisy_figures(table)
    if len(results) > 1 and noisy:
        lines.append(f"  mostly noise: {', '.join(noisy)} differ between runs by more than "
                     f"{NOISE_LIMIT:.0%} of their median; compare medians of more runs before trusting them")
    return "\n".join(lines)


NOISE_LIMIT = 0.5


def noisy_figures(table: dict[str, dict[str, float | None]], limit: float = NOISE_LIMIT) -> list[str]:
    """Figures whose spread (max - min) is more than ``limit`` of their median."""
    return [name for name, row in table.items()
            if row["median"] and row["max"] is not None and row["min"] is not None
            and (row["max"] - row["min"]) / row["median"] > limit]
