"""Tables measured on multi-host Kafka clusters by others, run on the model and judged on shape.

A table (``workloads/catalog/published/*.yaml``) holds its source, the setup as published, what the
scenario had to assume, one scenario and its rows: each row the scenario with ``--set`` overrides
and the figures the publication gives for it. The model's figures for a row are the ones the table
publishes, as ``kafka-producer-perf-test`` prints them: the throughput (the producers' records a
second times the record size, in MB/s of 2^20 bytes) and its records' latency percentiles
(``send()`` to acknowledgement). A table's verdict is on its shape only, figure by figure:

- every ordering it shows: two rows whose published figures differ by 10 % or more rank the same
  way on the model, by more than 1 % (closer rows are within one run's repeatability, so only their
  ratio is judged; model figures within 1 % of each other are a tie);
- every ratio between two of its rows within 1.5x of the published ratio.
"""
from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from simulator.contract.result import RunResult
from simulator.evaluator import Evaluator
from workloads import CATALOG, Scenario
from workloads.errors import ScenarioError
from workloads.reader import read_yaml
from workloads.scenario import apply_overrides

TABLES = CATALOG / "published"
ORDERING_GAP = 1.10     # published figures this far apart (or more) show an ordering
RATIO_BAND = 1.5        # a ratio between two rows within this factor of the published one
MODEL_TIE = 1.01        # model figures closer than this are a tie: they show no ordering
MB = 1024 ** 2


def throughput_mb_s(result: RunResult, record_size: int) -> float:
    """The load's records a second times the record size, in MB/s (2^20 bytes)."""
    s = result.summary
    records = (s.produce_requests or 0.0) * (s.records_per_request or 0.0)
    return records * record_size / (s.load_seconds or float("nan")) / MB


def _latency(percentile: str) -> Callable[[RunResult, int], float]:
    return lambda result, _: float((result.summary.record_latency_ms or {}).get(percentile) or float("nan"))


# a table's figure: how the model gives it, from a row's result and the job's record size
FIGURES: dict[str, Callable[[RunResult, int], float]] = {
    "throughput": throughput_mb_s, "p50_ms": _latency("p50"), "p95_ms": _latency("p95"),
    "p99_ms": _latency("p99"), "p999_ms": _latency("p999"),
}


@dataclass(frozen=True)
class Row:
    label: str
    published: dict[str, float]
    overrides: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    name: str
    title: str
    source: str
    published_by: str
    figures: dict[str, str]      # figure -> its unit, in the table's order
    setup: tuple[str, ...]
    model: tuple[str, ...]       # what the scenario assumes, and why
    scenario: dict[str, Any]
    rows: tuple[Row, ...]
    path: Path

    @classmethod
    def from_yaml(cls, path: Path) -> "Table":
        raw = read_yaml(path, "published table")
        try:
            figures = dict(raw["figures"])
            rows = tuple(Row(str(r["label"]), _published(r["published"], figures), tuple(r.get("set") or ()))
                         for r in raw["rows"])
            table = cls(raw["name"], raw["title"], raw["source"], raw["published"], figures, tuple(raw["setup"]),
                        tuple(raw["model"]), raw["scenario"], rows, path)
        except (KeyError, TypeError, ValueError) as e:
            raise ScenarioError(str(path), f"not a published table: {e!r}") from None
        unknown = set(figures) - set(FIGURES)
        if unknown:
            raise ScenarioError(f"{path}: figures", f"{sorted(unknown)} are none of {sorted(FIGURES)}")
        return table

    def scenario_of(self, row: Row, overrides: list[str] | None = None) -> Scenario:
        return Scenario.from_mapping(apply_overrides(copy.deepcopy(self.scenario), [*row.overrides, *(overrides or [])]),
                                     source=str(self.path))


def _published(value: Any, figures: dict[str, str]) -> dict[str, float]:
    """A row's published figures: a number for a table of one figure, else one for each of its figures."""
    given = value if isinstance(value, dict) else {next(iter(figures)): value}
    if set(given) != set(figures):
        raise ValueError(f"a row gives {sorted(given)}, the table {sorted(figures)}")
    return {name: float(given[name]) for name in figures}


def tables() -> list[Table]:
    return [Table.from_yaml(path) for path in sorted(TABLES.glob("*.yaml"))]


@dataclass(frozen=True)
class RowRun:
    row: Row
    model: dict[str, float]
    result: RunResult

    def mechanism(self) -> dict[str, float | None]:
        """What set the row's figures on the model: each producer's append rate, its sender's drain
        interval, the batches and requests it made, and the busiest broker."""
        s = self.result.summary
        return {"append MB/s": (s.append_rate_bytes_per_s or 0.0) / MB, "drain ms": s.drain_interval_ms,
                "batch KB": (s.mean_batch_bytes or 0.0) / 1024, "wire/records": s.compression_ratio,
                "requests": s.produce_requests, "broker CPU %": s.cpu_pct_during}


@dataclass(frozen=True)
class Verdict:
    orderings: int               # pairs whose ordering the table shows
    misses: tuple[str, ...]      # each ordering or ratio the model gets wrong, with its numbers

    @property
    def holds(self) -> bool:
        return not self.misses


def judge(labels: list[str], published: list[float], model: list[float]) -> Verdict:
    """Every ordering the published figures show, and every ratio between two rows, on the model."""
    misses, orderings = [], 0
    for i, j in itertools.combinations(range(len(labels)), 2):
        (a, b), (pa, pb), (ma, mb) = (labels[i], labels[j]), (published[i], published[j]), (model[i], model[j])
        if max(pa, pb) >= ORDERING_GAP * min(pa, pb):
            orderings += 1
            if (pa > pb) != (ma > mb) or max(ma, mb) < MODEL_TIE * min(ma, mb):
                misses.append(f"ordering: '{a}' {pa:g} {'above' if pa > pb else 'below'} '{b}' {pb:g}; "
                              f"the model {ma:.1f} against {mb:.1f}")
        off = (ma / mb) / (pa / pb)
        if not 1 / RATIO_BAND <= off <= RATIO_BAND:
            misses.append(f"ratio '{a}' / '{b}': published {pa / pb:.2f}, the model {ma / mb:.2f} ({max(off, 1 / off):.2f}x off)")
    return Verdict(orderings, tuple(misses))


@dataclass(frozen=True)
class TableRun:
    table: Table
    rows: tuple[RowRun, ...]
    verdicts: dict[str, Verdict]     # figure -> its verdict

    @property
    def holds(self) -> bool:
        return all(verdict.holds for verdict in self.verdicts.values())


def run_table(table: Table, evaluator: Evaluator, seed: int = 1, overrides: list[str] | None = None) -> TableRun:
    runs = []
    for row in table.rows:
        scenario = table.scenario_of(row, overrides)
        result = evaluator.evaluate(scenario, seed)
        size = scenario.jobs[0].record_size or 0
        runs.append(RowRun(row, {name: FIGURES[name](result, size) for name in table.figures}, result))
    labels = [r.row.label for r in runs]
    verdicts = {name: judge(labels, [r.row.published[name] for r in runs], [r.model[name] for r in runs])
                for name in table.figures}
    return TableRun(table, tuple(runs), verdicts)
