"""The live job's input: the scenario's dataset written as CSV files of the sizes it names, or
the user's own CSV files, checked before anything is uploaded."""
from __future__ import annotations

import csv
import gzip
import itertools
import time
from pathlib import Path
from typing import Callable, Iterator

from workloads import Scenario, ScenarioError
from workloads.rows import generate_rows, read_sample_csv

_CHUNK_ROWS = 20_000   # rows generated at a time: a 2 GB file never sits in memory


def write_dataset_csv(scenario: Scenario, directory: Path, progress: Callable[[str], None] = lambda line: None) -> list[Path]:
    """One CSV file per entry of ``dataset.files`` (``part-00000.csv``, ... or ``.csv.gz`` for
    gzip), each with a header and whole rows until it reaches its size: for gzip, the size
    on S3, i.e. compressed, reached within one 256 KB flush. Rows come from the card-transaction generator (seeded per file,
    so the same scenario writes the same bytes) or are cycled from ``dataset.rows``' CSV."""
    dataset = scenario.dataset
    columns, chunks = _row_source(scenario)
    directory.mkdir(parents=True, exist_ok=True)
    suffix = ".csv.gz" if dataset.compression == "gzip" else ".csv"
    paths, started, total = [], time.monotonic(), sum(dataset.file_sizes)
    progress(f"writing the dataset: {len(dataset.file_sizes)} file(s), {total / 2**20:,.1f} MB into {directory} ...")
    for index, size in enumerate(dataset.file_sizes):
        path = directory / f"part-{index:05d}{suffix}"
        with path.open("wb") as raw:
            compressed = suffix == ".csv.gz"
            sink = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) if compressed else raw
            text = _TextSink(sink)
            writer = csv.writer(text, lineterminator="\n")
            writer.writerow(columns)
            for rows in chunks(index):
                for row in rows:
                    writer.writerow(row.values())
                    # gzip: what reached the file so far (within one flush of the size)
                    if raw.tell() + (0 if compressed else text.pending) >= size:
                        break
                else:
                    continue
                break
            text.flush()
            if sink is not raw:
                sink.close()
        paths.append(path)
        progress(f"  {path.name}: {path.stat().st_size / 2**20:,.1f} MB")
    progress(f"dataset written in {time.monotonic() - started:.1f} s")
    return paths


def dataset_files(paths: list[Path]) -> list[Path]:
    """The user's CSV files (``.csv`` or ``.csv.gz``; a folder stands for those in it), each
    checked to exist and to be non-empty, sorted within a folder."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.name.endswith((".csv", ".csv.gz")))
            if not found:
                raise ScenarioError("dataset", f"{path} holds no .csv or .csv.gz files")
            files += found
        elif not path.exists():
            raise ScenarioError("dataset", f"{path} does not exist")
        elif not path.name.endswith((".csv", ".csv.gz")):
            raise ScenarioError("dataset", f"{path} is not a .csv or .csv.gz file")
        else:
            files.append(path)
    if empty := [p for p in files if p.stat().st_size == 0]:
        raise ScenarioError("dataset", f"{empty[0]} is empty: a CSV file needs a header row")
    return files


def _row_source(scenario: Scenario) -> tuple[list[str], Callable[[int], Iterator[list[dict[str, str]]]]]:
    """The header and, per file index, an endless stream of row chunks."""
    rows = scenario.dataset.rows
    if rows == "card-transactions":
        header = list(generate_rows(1, seed=0)[0])
        # Chunk c of file i is seeded (i, c): rows differ across chunks and files (random transaction ids).
        return header, lambda index: (generate_rows(_CHUNK_ROWS, seed=index * 1_000_003 + chunk) for chunk in itertools.count())
    try:
        sample = read_sample_csv(rows)
    except ValueError as error:
        raise ScenarioError("dataset.rows", str(error)) from None
    return list(sample[0]), lambda index: itertools.repeat(sample)


class _TextSink:
    """A text file over a binary sink that knows how many encoded bytes it still buffers, so a
    file stops at its size without flushing the gzip stream row by row."""

    def __init__(self, sink) -> None:
        self.sink, self.parts, self.pending = sink, [], 0

    def write(self, text: str) -> None:
        data = text.encode("utf-8")
        self.parts.append(data)
        self.pending += len(data)
        if self.pending >= 1 << 18:
            self.flush()

    def flush(self) -> None:
        self.sink.write(b"".join(self.parts))
        self.parts, self.pending = [], 0
