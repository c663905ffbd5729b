"""What the model takes from a dataset's rows, and a file per row source that keeps it.

Sampling the rows, writing them as CSV and as Spark's ``to_json`` values and compressing them
with each codec costs tenths of a second in every process that runs the model: each CLI run
and each worker of a study or a plan. A file under ``.quietload/rows/`` keeps exactly what was
measured (JSON numbers read back as the same floats), so a run from it gives the same bytes
as one without it. Its name is a digest of all the figures depend on: the row source (the
generator and its sample size, or the sample's own rows as read from the CSV file), the key
column, and the code and codec libraries that compute them. A file that does not read back
whole (its CRC, its shape) is measured again and rewritten; a directory that cannot be
written leaves the figures unkept, never a run undone.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
import tempfile
import zlib
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import cramjam
import lz4
import zstandard

import workloads.rows
from simulator.model.compression import CODECS, CompressionCurve, measure_curve
from workloads import BatchJob, Scenario, ScenarioError
from workloads.rows import RowShape, csv_text, generate_rows, read_sample_csv, to_json_value

ROW_CACHE = Path(".quietload") / "rows"   # beside the live stack's state, not among the results a user lists
GENERATOR_SEED = 0   # the generator's rows are the same for every run: only the run's seed varies
_KIND, _VERSION = "quietload-rows", 1
_HERE = Path(__file__).resolve().parent
_CODE = (_HERE / "rows.py", _HERE / "compression.py", Path(workloads.rows.__file__))


def sample_rows(scenario: Scenario, job: BatchJob | None = None) -> list[dict]:
    """The rows of ``job``'s files (by default the first job's)."""
    dataset = (job or scenario.batch).dataset or scenario.dataset
    if dataset.rows == "card-transactions":
        return generate_rows(dataset.sample_rows, seed=GENERATOR_SEED)
    try:
        return read_sample_csv(dataset.rows, limit=dataset.sample_rows)
    except ValueError as error:
        raise ScenarioError("dataset.rows" if dataset == scenario.dataset else "batch.dataset.rows", str(error)) from None


@dataclass
class RowFigures:
    """What the model takes from the dataset's rows, measured once per row source."""

    shape: RowShape
    values: list[bytes]
    keys: list[bytes] | None
    csv_gzip_ratio: float           # gzip'd CSV bytes per CSV byte (gzip input files)
    curves: dict[str, CompressionCurve] = field(default_factory=dict)
    kept_in: Path | None = None     # the file that keeps them, if any

    def curve(self, codec: str) -> CompressionCurve:
        if codec not in self.curves:
            self.curves[codec] = measure_curve(self.values, self.keys, codec)
            if self.kept_in is not None:
                _write(self.kept_in, self)
        return self.curves[codec]


def row_figures(scenario: Scenario, cache: Path | None = ROW_CACHE, job: BatchJob | None = None) -> RowFigures:
    """The row figures of ``job``'s files and key (by default the first job's): from ``cache`` when
    it holds them, else measured (and kept there)."""
    job = job or scenario.batch
    key, dataset = job.key, job.dataset or scenario.dataset
    if dataset.rows == "card-transactions":
        source: Any = {"generator": dataset.rows, "rows": dataset.sample_rows, "seed": GENERATOR_SEED}
        rows = None   # generated only if the cache misses: generating is most of the cost
    else:
        rows = sample_rows(scenario, job)   # reading the sample is cheap; its content is what counts
        source = hashlib.sha256(json.dumps(rows).encode()).hexdigest()
    path = None
    if cache is not None:
        digest = hashlib.sha256(json.dumps({"source": source, "key": key, "code": code_version()}).encode())
        path = cache / digest.hexdigest()[:32]
        if (kept := _read(path)) is not None:
            return kept
    figures = measure(sample_rows(scenario, job) if rows is None else rows, key)
    if path is not None:
        figures.kept_in = path
        _write(path, figures)
    return figures


def measure(rows: list[dict], key: str | None) -> RowFigures:
    csv, values = csv_text(rows), [to_json_value(row) for row in rows]   # each serialised once
    try:
        shape = RowShape.of(rows, key, len(csv), values)
    except ValueError as error:
        raise ScenarioError("batch.key", str(error)) from None
    return RowFigures(shape, values, [row[key].encode() for row in rows] if key else None,
                      len(gzip.compress(csv, mtime=0)) / len(csv))


@cache
def code_version() -> str:
    """A digest of the code and codec libraries the figures come from: another version, another file."""
    digest = hashlib.sha256(f"{_VERSION} {sys.version} {zlib.ZLIB_RUNTIME_VERSION} {zstandard.__version__} "
                            f"{lz4.__version__} {cramjam.__version__}".encode())
    for path in _CODE:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _write(path: Path, figures: RowFigures) -> None:
    """A header line with the checksum of the rest, a line of figures, then the values and keys
    as they are (no JSON escaping to undo); written whole or not at all."""
    keys = figures.keys or []
    table = json.dumps({"shape": asdict(figures.shape), "csv_gzip_ratio": figures.csv_gzip_ratio,
                        "curves": {codec: curve.points for codec, curve in figures.curves.items()},
                        "value_bytes": [len(v) for v in figures.values],
                        "key_bytes": None if figures.keys is None else [len(k) for k in keys]}).encode()
    body = b"".join([table, b"\n", *figures.values, *keys])
    head = json.dumps({"kind": _KIND, "version": _VERSION, "crc32": zlib.crc32(body)}).encode()
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(handle, "wb") as out:
            out.write(head + b"\n" + body)
        os.replace(temporary, path)   # another process reads the old file or the new one, never half
    except OSError:   # a read-only or full disk: the figures stay in memory only
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


def _read(path: Path) -> RowFigures | None:
    """The figures kept in ``path``, or None when it is missing or not whole."""
    try:
        whole = path.read_bytes()
        table_at = whole.index(b"\n") + 1   # slices of the whole, not copies of its megabytes
        header, body = json.loads(whole[:table_at]), memoryview(whole)[table_at:]
        if (header.get("kind"), header.get("version")) != (_KIND, _VERSION) or header.get("crc32") != zlib.crc32(body):
            return None
        data_at = whole.index(b"\n", table_at) + 1
        table, data = whole[table_at:data_at], memoryview(whole)[data_at:]
        kept = json.loads(table)
        shape = RowShape(**{name: _number(value) for name, value in kept["shape"].items()})
        values = _split(data, kept["value_bytes"])
        keys = None if kept["key_bytes"] is None else _split(data[sum(map(len, values)):], kept["key_bytes"])
        curves = {codec: CompressionCurve(codec, tuple((int(_number(size)), _number(ratio)) for size, ratio in points))
                  for codec, points in kept["curves"].items() if codec in CODECS and points}
        if len(values) != shape.rows or (keys is not None and len(keys) != len(values)) \
                or len(data) != sum(map(len, values)) + sum(map(len, keys or [])):
            return None
        return RowFigures(shape, values, keys, _number(kept["csv_gzip_ratio"]), curves, kept_in=path)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def _split(data: memoryview, sizes: list[Any]) -> list[bytes]:
    parts, start = [], 0
    for size in sizes:
        if type(size) is not int or size < 0 or start + size > len(data):
            raise ValueError("the sizes do not fit the data")
        parts.append(bytes(data[start:start + size]))
        start += size
    return parts


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {value!r}")
    return value
