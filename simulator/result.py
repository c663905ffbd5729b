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
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
WINDOWS = ("before", "during", "after")
PERCENTILES = ("p50", "p95", "p99", "p999", "max")


class ResultError(ValueError):
    """A file that is not a RunResult of this schema version."""


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.6g}")
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
    summary: dict
    spark: dict = field(default_factory=dict)
    producers: list = field(default_factory=list)
    brokers: list = field(default_factory=list)
    tenants: list = field(default_factory=list)
    windows: dict = field(default_factory=dict)
    timelines: dict = field(default_factory=dict)
    mechanism: list = field(default_factory=list)
    batch_sizes: dict | None = None
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict:
        return _rounded({
            "schema_version": self.schema_version, "evaluator": self.evaluator, "seed": self.seed,
            "scenario": self.scenario, "summary": self.summary, "mechanism": self.mechanism,
            "windows": self.windows, "spark": self.spark, "producers": self.producers,
            "brokers": self.brokers, "tenants": self.tenants, "batch_sizes": self.batch_sizes,
            "timelines": self.timelines,
        })

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=False) + "\n"

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
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)

    @classmethod
    def read(cls, path: str | Path) -> "RunResult":
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise ResultError(f"{path}: no such file") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ResultError(f"{path}: not JSON ({error})") from None
        return cls.from_dict(data, str(path))
