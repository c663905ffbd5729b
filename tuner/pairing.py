"""Predicted against measured: the model's runs and the live runs of one scenario, paired.

Runs pair up when their resolved scenarios are equal (the same file with the same ``--set``
overrides); each side's figure is the median over its seeds. The ratio measured / predicted
says how far the model is from the real parts for that figure, which is what a calibration
of the cost profile starts from. Beside the medians: the model's interval (min-max over its
seeds: the spread its jitter predicts), the live runs' spread (min-max over repeats) and
whether the live median falls inside the model's interval. Figures a side lacks (e.g. handler
idle of a live run on ``--bootstrap-servers``) are None and get no ratio.

Across scenarios (``fidelity_summary``): per figure the median and worst error of the model
against the live median, |live / model - 1|, and the rank correlation (Spearman) of the
configurations' produce requests and worst neighbour p99 during the load: does the model put
the configurations in the live stack's order. A streaming tenant's figures are its end-to-end
latency (p50 and p99 before and during the load), titled so and summarised apart from the
producers'. ``reports.sections.versus`` renders them.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass

from simulator.contract import RunResult
from simulator.contract.titles import SUMMARY_FIGURES

# the run table's figures but the compression ratio (medians of each side); tenant figures
# follow per neighbour
FIGURES = tuple(figure for figure in SUMMARY_FIGURES if figure[0] != "compression_ratio")
TENANT_FIGURES = (("p99_ms_before", "p99 before (ms)"), ("p50_ms_during", "p50 during (ms)"),
                  ("p99_ms_during", "p99 during (ms)"))
# a streaming tenant's latency is end to end, its titles say so: p50 and p99 before and during the load
END_TO_END = "end-to-end"
STREAMING_FIGURES = (("p50_ms_before", "p50 before (ms)"), ("p99_ms_before", "p99 before (ms)"),
                     ("p50_ms_during", "p50 during (ms)"), ("p99_ms_during", "p99 during (ms)"))
# figures summarised across scenarios: (key in a pair's figures, title)
SUMMARY_ERRORS = (("produce requests", "produce requests"), ("mean batch (KB of records)", "mean batch"),
                  ("records / request", "records per request"), ("handler idle during (%)", "handler idle during"),
                  ("p50 during (ms)", "neighbour p50 during"), ("p99 during (ms)", "neighbour p99 during"),
                  ("load (s)", "load duration"), (f"{END_TO_END} p50 during (ms)", "streaming end-to-end p50 during"),
                  (f"{END_TO_END} p99 during (ms)", "streaming end-to-end p99 during"))


@dataclass(frozen=True)
class Spread:
    """A side's figure over its runs: (min, max); None where no run has it."""

    low: float | None
    high: float | None

    def holds(self, value: float | None) -> bool | None:
        if value is None or self.low is None or self.high is None:
            return None
        return self.low <= value <= self.high


@dataclass(frozen=True)
class Versus:
    """One scenario run by both evaluators: (title, model median, live median) per figure."""

    scenario: str
    model_seeds: list[int]
    live_seeds: list[int]
    figures: list[tuple[str, float | None, float | None, str]]
    spreads: list[tuple[Spread, Spread]]     # per figure: the model's interval, the live runs' spread
    scenario_settings: dict                  # the resolved scenario both sides ran

    @property
    def rows(self) -> list[dict]:
        return [{"figure": title, "model": model, "live": live, "live_over_model": ratio(model, live),
                 "model_min": m.low, "model_max": m.high, "live_min": l.low, "live_max": l.high,
                 "live_in_model_interval": m.holds(live)}
                for (title, model, live, _), (m, l) in zip(self.figures, self.spreads)]

    def tenant_rows(self, title: str) -> list[tuple[str, float | None, float | None, str]]:
        """The rows of a tenant figure, one per tenant: the producers' for ``p99 during (ms)``, the
        streaming tenants' (end to end) for ``end-to-end p99 during (ms)``."""
        return [row for row in self.figures if row[0].endswith(" " + title)
                and (title.startswith(END_TO_END) or not row[0].endswith(f" {END_TO_END} {title}"))]

    def rows_of(self, title: str) -> list[tuple[str, float | None, float | None, str]]:
        """A figure's rows: its own, or its tenant rows (``tenant_rows``)."""
        return [row for row in self.figures if row[0] == title] + self.tenant_rows(title)

    def figure(self, title: str) -> tuple[float | None, float | None, Spread, Spread]:
        """(model median, live median, model interval, live spread) of a figure by its title."""
        for (name, model, live, _), (m, l) in zip(self.figures, self.spreads):
            if name == title:
                return model, live, m, l
        raise KeyError(title)


def ratio(model: float | None, live: float | None) -> float | None:
    return live / model if model and live is not None else None


def _median(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def _spread(values: list[float | None]) -> Spread:
    present = [value for value in values if value is not None]
    return Spread(min(present), max(present)) if present else Spread(None, None)


def _figures(results: list[RunResult]) -> dict[str, list[float | None]]:
    out: dict[str, list[float | None]] = {}
    for result in results:
        for key, _, _ in FIGURES:
            out.setdefault(key, []).append(getattr(result.summary, key))
        p50 = {(t["name"], window): ((t.get("latency_ms") or {}).get(window) or {}).get("p50")
               for t in result.tenants for window in ("before", "during")}
        for tenant in result.summary.tenants:
            for key, _ in STREAMING_FIGURES:
                window = key.rsplit("_", 1)[1]
                value = p50.get((tenant.name, window)) if key.startswith("p50") else getattr(tenant, key)
                out.setdefault(f"{tenant.name}.{key}", []).append(value)
    return out


def configuration_key(result: RunResult) -> str:
    """The run's configuration, the same wherever it ran: a live run writes the hosts it placed its
    parts on, and the model run of the same scenario may be given them (``tuner.fidelity.as_placed``)."""
    return json.dumps({k: v for k, v in result.scenario.items() if k not in ("hosts", "placement")}, sort_keys=True)


def pair_results(results: list[RunResult]) -> list[Versus]:
    """Every scenario that has runs of both the model and the live evaluator, in first-seen order."""
    groups: dict[str, dict[str, list[RunResult]]] = {}
    for result in results:
        groups.setdefault(configuration_key(result), {}).setdefault(result.evaluator, []).append(result)
    pairs = []
    for group in groups.values():
        if "model" not in group or "live" not in group:
            continue
        model, live = _figures(group["model"]), _figures(group["live"])
        keys = [(key, title, fmt) for key, title, fmt in FIGURES]
        kinds = {t["name"]: t.get("kind") for t in group["model"][0].tenants}
        for name in [t.name for t in group["model"][0].summary.tenants]:
            if kinds.get(name):     # a streaming tenant
                keys += [(f"{name}.{key}", f"{name} {END_TO_END} {title}", "{:,.1f}") for key, title in STREAMING_FIGURES]
            else:
                keys += [(f"{name}.{key}", f"{name} {title}", "{:,.1f}") for key, title in TENANT_FIGURES]
        rows = [(title, _median(model.get(key, [])), _median(live.get(key, [])), fmt) for key, title, fmt in keys]
        spreads = [(_spread(model.get(key, [])), _spread(live.get(key, []))) for key, _, _ in keys]
        first = group["model"][0]
        pairs.append(Versus(first.scenario["name"], [r.seed for r in group["model"]], [r.seed for r in group["live"]],
                            rows, spreads, first.scenario))
    return pairs


def error(model: float | None, live: float | None) -> float | None:
    """|live / model - 1|: how far the measured figure is from the predicted one."""
    r = ratio(model, live)
    return None if r is None else abs(r - 1.0)


def factor_off(model: float | None, live: float | None) -> float | None:
    """How many times too large or too small the prediction is, either way (1: exact): ``error``
    reads at most 100 % for a model that predicts too much, this does not (40x too many: 40)."""
    r = ratio(model, live)
    if r is None or r <= 0.0:
        return None
    return r if r >= 1.0 else 1.0 / r


def _worst_neighbour(pair: Versus, title: str) -> tuple[float | None, float | None]:
    """The largest of the neighbours' medians of a tenant figure, each side's own."""
    rows = [(model, live) for _, model, live, _ in pair.tenant_rows(title)]
    models = [m for m, _ in rows if m is not None]
    lives = [l for _, l in rows if l is not None]
    return (max(models) if models else None), (max(lives) if lives else None)


def spearman(pairs: list[Versus], title: str) -> float | None:
    """Rank correlation of the model's and the live medians of a figure across the pairs."""
    from scipy.stats import spearmanr     # heavy: loaded only when a validation ranks its pairs

    points = []
    for pair in pairs:
        model, live = (_worst_neighbour(pair, title) if title in ("p50 during (ms)", "p99 during (ms)")
                       else pair.figure(title)[:2])
        if model is not None and live is not None:
            points.append((model, live))
    if len(points) < 3 or len({m for m, _ in points}) < 2 or len({l for _, l in points}) < 2:
        return None
    rho = spearmanr([m for m, _ in points], [l for _, l in points]).statistic
    return float(rho)


def fidelity_summary(pairs: list[Versus]) -> list[dict]:
    """Per summarised figure: the median and worst error over the pairs (neighbour figures: every
    neighbour of every pair), the median factor off either way, how many pairs had it, and the
    figure's Spearman rank correlation."""
    out = []
    for title, label in SUMMARY_ERRORS:
        rows = [row for pair in pairs for row in pair.rows_of(title)]
        errors = [e for _, model, live, _ in rows if (e := error(model, live)) is not None]
        factors = [f for _, model, live, _ in rows if (f := factor_off(model, live)) is not None]
        rho = spearman(pairs, title) if title in ("produce requests", "p99 during (ms)") else None
        out.append({"figure": label, "median_error": statistics.median(errors) if errors else None,
                    "worst_error": max(errors) if errors else None,
                    "median_factor": statistics.median(factors) if factors else None,
                    "count": len(errors), "spearman": rho})
    return out
