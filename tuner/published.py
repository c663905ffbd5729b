"""Tables measured on multi-host Kafka clusters by others, run on the model and judged on shape.

A table (``workloads/catalog/published/*.yaml``) holds its source, the setup as published, what the
scenario had to assume, one scenario and its rows: each row the scenario with ``--set`` overrides
and the figure the publication gives for it. The model's figure for a row is the one the table
publishes (a throughput: the producers' records a second times the record size, in MB/s of 2^20
bytes, as ``kafka-producer-perf-test`` prints it). The tool's own CPU per record is in neither the
model nor the profile, so the producers' append rate comes from one row, the table's *anchor*,
where nothing else held the producer back: the rate at which the model's anchor row sends at its
published figure (``append_rate``); the other rows are predictions relative to it. A table's
verdict is on its shape only:

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
from typing import Any

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
ANCHOR_PROBES = 4       # runs of the anchor row that set the append rate
MB = 1024 ** 2


@dataclass(frozen=True)
class Row:
    label: str
    published: float
    overrides: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    name: str
    title: str
    source: str
    published_by: str
    unit: str
    record_size: int
    setup: tuple[str, ...]
    model: tuple[str, ...]       # what the scenario assumes, and why
    anchor: str | None           # the row whose figure sets a Spark job's append rate; None: the profile's
    scenario: dict[str, Any]
    rows: tuple[Row, ...]
    path: Path

    @classmethod
    def from_yaml(cls, path: Path) -> "Table":
        raw = read_yaml(path, "published table")
        try:
            rows = tuple(Row(str(r["label"]), float(r["published"]), tuple(r.get("set") or ())) for r in raw["rows"])
            table = cls(raw["name"], raw["title"], raw["source"], raw["published"], raw["unit"], int(raw["record_size"]),
                        tuple(raw["setup"]), tuple(raw["model"]), raw.get("anchor"), raw["scenario"], rows, path)
        except (KeyError, TypeError, ValueError) as e:
            raise ScenarioError(str(path), f"not a published table: {e!r}") from None
        if table.anchor is not None and table.anchor not in [row.label for row in rows]:
            raise ScenarioError(f"{path}: anchor", f"{table.anchor!r} is none of the table's rows")
        return table

    @property
    def anchor_row(self) -> Row:
        return next(row for row in self.rows if row.label == self.anchor)

    def scenario_of(self, row: Row, overrides: list[str] | None = None) -> Scenario:
        """The row's scenario: the table's, its CSV sample found beside the table, the row's overrides."""
        raw = copy.deepcopy(self.scenario)
        rows = raw.get("dataset", {}).get("rows")
        if rows and rows != "card-transactions":
            raw["dataset"]["rows"] = str(self.path.parent / rows)
        return Scenario.from_mapping(apply_overrides(raw, [*row.overrides, *(overrides or [])]), source=str(self.path))


def tables() -> list[Table]:
    return [Table.from_yaml(path) for path in sorted(TABLES.glob("*.yaml"))]


def throughput_mb_s(result: RunResult, record_size: int) -> float:
    """The load's records a second times the published record size, in MB/s (2^20 bytes)."""
    s = result.summary
    records = (s.produce_requests or 0.0) * (s.records_per_request or 0.0)
    return records * record_size / (s.load_seconds or float("nan")) / MB


def append_rate(table: Table, evaluator: Evaluator, seed: int = 1, overrides: list[str] | None = None) -> float:
    """The append rate a core (``batch.spark.append_rate``, bytes a second) at which the model's
    anchor row sends at its published figure: probe runs of the anchor row, each rate scaled by
    the published figure over the one it gave (the rate's share of a figure bound by the appender
    alone, net of the codec's cost on the same thread, converges in a few)."""
    anchor = table.anchor_row
    rate = table.scenario_of(anchor, overrides).profile.spark.append_rate
    for _ in range(ANCHOR_PROBES):
        pinned = [*(overrides or []), f"batch.spark.append_rate={rate:.0f}B/s"]
        rate *= anchor.published / throughput_mb_s(evaluator.evaluate(table.scenario_of(anchor, pinned), seed), table.record_size)
    return rate


@dataclass(frozen=True)
class RowRun:
    row: Row
    model: float
    result: RunResult

    def mechanism(self) -> dict[str, float | None]:
        """What set the row's figure on the model: each producer's append rate, its sender's drain
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
    append_rate: float | None    # a Spark job's bytes a second a core, from the anchor row
    rows: tuple[RowRun, ...]
    verdict: Verdict


def run_table(table: Table, evaluator: Evaluator, seed: int = 1, overrides: list[str] | None = None) -> TableRun:
    rate = append_rate(table, evaluator, seed, overrides) if table.anchor is not None else None
    pinned = [*(overrides or []), *([f"batch.spark.append_rate={rate:.0f}B/s"] if rate else [])]
    runs = []
    for row in table.rows:
        result = evaluator.evaluate(table.scenario_of(row, pinned), seed)
        runs.append(RowRun(row, throughput_mb_s(result, table.record_size), result))
    verdict = judge([r.row.label for r in runs], [r.row.published for r in runs], [r.model for r in runs])
    return TableRun(table, rate, tuple(runs), verdict)
