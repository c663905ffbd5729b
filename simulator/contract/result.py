"""RunResult: the one result schema of every evaluator (model and live).

A run's file is JSON with ``schema_version``; ``summary`` holds the figures scripts read,
the other sections hold per-broker, per-producer and per-tenant detail and 1-second
timelines. Floats are rounded to six significant digits so that equal runs give equal bytes.

``batch_sizes`` is the batch load's produce batches as a distribution: ``bucket_upper_bytes``
(1 KiB, 2 KiB, 4 KiB, ... up to the bucket of the largest batch), and per bucket the number of
batches whose ``wire_bytes`` (bytes on the wire, batch header included) or ``record_bytes``
(uncompressed records; None where the evaluator cannot see them) are at most that bound and
more than the one before; ``batches``, ``records`` and ``source`` (``model`` or ``broker log``).
It is None where a run has none (files written before it existed, a live run on a cluster
whose logs quietload cannot read): fields added later are optional, so older files still read.

``overrides`` is the ``--set KEY=VALUE`` list the run's scenario file was given (empty for the
file as it is), so that reports can label runs by what differs; ``result_path``
(``simulator.contract.names``) names a run's file after its scenario, overrides and seed, so that no
run overwrites another's.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulator.contract.errors import ResultError
from simulator.contract.figures import BatchSizeFigures, BrokerFigures, JobFigures, Summary
from simulator.contract.schema import check, rules_of
from workloads.errors import ScenarioError
from workloads.reader import read_json
from workloads.settings import COMPRESSION_TYPE_CONFIG

SCHEMA_VERSION = 1
WINDOWS = ("before", "during", "after")
PERCENTILES = ("p50", "p95", "p99", "p999", "max")


def read_document(path: str | Path) -> Any:
    """What the JSON file ``path`` holds, through the one reader (``workloads.reader``: a regular file,
    no key twice, no number past 2^53 or not finite); anything else is one ResultError naming it."""
    try:
        return read_json(path)
    except ScenarioError as error:
        raise ResultError(str(error)) from None


# What a RunResult's figures must be (``simulator.contract.schema``): none is required here (older
# files lack later fields; ``from_dict`` requires the four every file has).
_SCHEMA: dict[str, Any] = {
    "evaluator": "S", "seed": "I",
    "scenario": {"name": "S", "batch": ("+", {"producer": {COMPRESSION_TYPE_CONFIG: "S"}}),
                 "check": {"handler_idle_min": "P", "cpu_max": "P", "requests_per_broker_max": "L", "deadline": "L"}},
    "summary": rules_of(Summary),
    "brokers": [rules_of(BrokerFigures)],
    "tenants": [{"name": "S", "records": "C", "produce_requests": "C", "sla_p99_ms": "L",
                 "latency_ms": {"*": {"count": "C", "*": "L"}}}],   # a window without records: count 0, no latencies
    "producers": [{"name": "S", **{key: "C" for key in ("produce_requests", "batches", "bytes", "records",
                                                         "mean_batch_bytes", "batch_fill")}}],
    "windows": {"*": ["C"]},
    "timelines": {"*": ["C"]},
    "jobs": [rules_of(JobFigures)],
    "mechanism": ["S"],
    "overrides": ["S"],
}
_BATCH_SIZES = rules_of(BatchSizeFigures)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        # a figure a run cannot give (a load that never ended) is null: JSON has no NaN
        return float(f"{value:.6g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(item) for item in value]
    return value


@dataclass(frozen=True)
class RunResult:
    evaluator: str
    scenario: dict
    seed: int
    summary: Summary
    spark: dict = field(default_factory=dict)
    producers: list = field(default_factory=list)
    brokers: tuple[BrokerFigures, ...] = ()
    tenants: list = field(default_factory=list)
    windows: dict = field(default_factory=dict)
    timelines: dict = field(default_factory=dict)
    mechanism: list = field(default_factory=list)
    batch_sizes: BatchSizeFigures | None = None
    overrides: list = field(default_factory=list)     # the run's --set KEY=VALUE, as given
    jobs: tuple[JobFigures, ...] = ()                 # a night's jobs, each its own; none for one job
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict:
        return _rounded({
            "schema_version": self.schema_version, "evaluator": self.evaluator, "seed": self.seed,
            "scenario": self.scenario, "overrides": self.overrides, "summary": self.summary.to_dict(),
            **({"jobs": [job.to_dict() for job in self.jobs]} if self.jobs else {}),
            "mechanism": self.mechanism, "windows": self.windows, "spark": self.spark, "producers": self.producers,
            "brokers": [broker.to_dict() for broker in self.brokers], "tenants": self.tenants,
            "batch_sizes": self.batch_sizes.to_dict() if self.batch_sizes is not None else None,
            "timelines": self.timelines,
        })

    def to_json(self) -> str:
        # NaN and Infinity are not JSON: most parsers refuse them, so no figure may be one
        return json.dumps(self.to_dict(), indent=1, sort_keys=False, allow_nan=False) + "\n"

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_json())
        return path

    @classmethod
    def from_dict(cls, data: Any, source: str = "result") -> "RunResult":
        if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
            found = data.get("schema_version") if isinstance(data, dict) else type(data).__name__
            raise ResultError(f"{source}: not a quietload RunResult of schema_version {SCHEMA_VERSION} (found {found!r})")
        missing = [key for key in ("evaluator", "scenario", "seed", "summary") if key not in data]
        if missing:
            raise ResultError(f"{source}: RunResult lacks {', '.join(missing)}")
        check(data, _SCHEMA, "", source)
        if data.get("batch_sizes") is not None:
            if not isinstance(data["batch_sizes"], dict):
                raise ResultError(f"{source}: batch_sizes must be a mapping or null")
            check(data["batch_sizes"], _BATCH_SIZES, "batch_sizes", source)
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        known["summary"] = Summary.from_dict(data["summary"], "summary", source)
        known["jobs"] = tuple(JobFigures.from_dict(job, f"jobs[{i}]", source) for i, job in enumerate(data.get("jobs") or ()))
        known["brokers"] = tuple(BrokerFigures.from_dict(broker, f"brokers[{i}]", source)
                                 for i, broker in enumerate(data.get("brokers") or ()))
        if data.get("batch_sizes") is not None:
            known["batch_sizes"] = BatchSizeFigures.from_dict(data["batch_sizes"], "batch_sizes", source).checked(source)
        return cls(**known)

    @classmethod
    def read(cls, path: str | Path) -> "RunResult":
        return cls.from_dict(read_document(path), str(path))
