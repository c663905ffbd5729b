"""Did every row of the dataset arrive exactly once? Each row is hashed as the object the job
writes (``to_json(struct(*))`` of the CSV row, plus its key), once from the CSV files as Spark
reads them and once from the records read back from the topic; the two multisets are compared.

Spark's CSV reader (``header=true``, no schema, so every column a string) is followed exactly
where it differs from Python's ``csv``: one record per line (multiLine off), ``\\`` escapes a
quote inside a quoted field, a field whose quotes do not close at a delimiter is taken raw up
to the next delimiter (one still open at the line's end is the rest of the line), an empty field (quoted or not) is null, which ``to_json`` omits; a short
row's missing columns are null and a long row's extra fields are dropped; empty lines are skipped.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from simulator.live._process import StackError
from simulator.live.clients import QUIET_LOG

_MASK = (1 << 128) - 1


@dataclass(frozen=True)
class Digest:
    """``rows`` rows; ``content_hash`` is the sum of the rows' 128-bit hashes (so any order of the
    same rows gives the same hash); ``counts`` how often each row hash occurs; ``complete`` is
    False when reading back stopped at its timeout before the end offsets."""

    rows: int
    content_hash: str
    counts: Counter = field(repr=False, compare=False, default_factory=Counter)
    complete: bool = True


@dataclass(frozen=True)
class IntegrityReport:
    """Expected against arrived rows: ``missing`` rows did not arrive, ``duplicated`` arrived more
    than once, ``unexpected`` arrived but are not in the dataset; ``ok`` only when none of these,
    the counts and hashes agree, and the whole topic was read."""

    rows_expected: int
    rows_arrived: int
    missing: int
    duplicated: int
    unexpected: int
    hash_expected: str
    hash_arrived: str
    hash_match: bool
    complete: bool
    ok: bool

    def render(self) -> str:
        verdict = "every row exactly once" if self.ok else "ROWS LOST OR DUPLICATED" if self.complete else "TOPIC NOT READ TO ITS END"
        return (f"integrity: {self.rows_arrived:,} of {self.rows_expected:,} rows arrived, {self.missing:,} missing, "
                f"{self.duplicated:,} duplicated, {self.unexpected:,} unexpected, content hash "
                + ("matches" if self.hash_match else "differs") + f": {verdict}")


def row_hash(value: dict[str, str], key: str | None) -> int:
    """A row as the job writes it: the JSON object (key order and escaping do not matter) and its key."""
    canonical = json.dumps([value, key], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return int.from_bytes(hashlib.blake2b(canonical.encode(), digest_size=16).digest(), "big")


def digest(hashes: Iterable[int], complete: bool = True) -> Digest:
    counts = Counter(hashes)
    total = sum(h * n for h, n in counts.items()) & _MASK
    return Digest(sum(counts.values()), f"{total:032x}", counts, complete)


def spark_csv_rows(text: Iterable[str]) -> Iterator[dict[str, str]]:
    """The rows of one CSV file as Spark reads it with ``header=true``: non-null fields only.
    ``text`` is the file's lines (a file opened with ``newline=""``: any of \\n, \\r\\n, \\r ends a line)."""
    lines = (stripped for line in text if (stripped := line.rstrip("\r\n")))
    header = next(lines, None)
    if header is None:
        return
    names, seen = [], set()
    for index, name in enumerate(_fields(header)):
        name = name or f"_c{index}"
        names.append(f"{name}{index}" if name.lower() in seen else name)   # Spark renames duplicates
        seen.add(name.lower())
    for line in lines:
        yield {name: value for name, value in zip(names, _fields(line)) if value}


def expected_digest(csv_files: list[Path], key_column: str | None) -> Digest:
    """The digest of every row of the CSV files (``.csv.gz`` inflated), as the job will write them."""
    def hashes() -> Iterator[int]:
        for path in csv_files:
            opener = gzip.open if path.name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as text:
                for row in spark_csv_rows(text):
                    yield row_hash(row, row.get(key_column) if key_column else None)
    return digest(hashes())


def read_back(bootstrap_servers: str, topic: str, timeout_s: float, security: dict[str, str] | None = None) -> Digest:
    """The digest of every record in ``topic``, read from the beginning of each partition up to
    the end offsets it had when reading started (``complete`` False if ``timeout_s`` ran out)."""
    from confluent_kafka import OFFSET_BEGINNING, TopicPartition     # optional extra (live)

    consumer = _consumer(bootstrap_servers, security)
    try:
        ends = {p: end for p, (_, end) in _offsets(consumer, bootstrap_servers, topic, timeout_s).items()}
        remaining = {p: end for p, end in ends.items() if end > 0}
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in remaining])
        hashes: list[int] = []
        deadline = time.monotonic() + timeout_s
        while remaining and time.monotonic() < deadline:
            for message in consumer.consume(num_messages=10_000, timeout=0.5):
                if message.error() or message.partition() not in remaining:
                    continue
                key = message.key()
                hashes.append(row_hash(json.loads(message.value()), key.decode() if key is not None else None))
                if message.offset() + 1 >= remaining[message.partition()]:
                    del remaining[message.partition()]
        return digest(hashes, complete=not remaining)
    finally:
        consumer.close()


def count_back(bootstrap_servers: str, topic: str, timeout_s: float, security: dict[str, str] | None = None) -> Digest:
    """How many records ``topic`` holds, from its partitions' offsets (a producer job's records
    carry random bytes: there is nothing to hash them against)."""
    consumer = _consumer(bootstrap_servers, security)
    try:
        offsets = _offsets(consumer, bootstrap_servers, topic, timeout_s)
        return Digest(sum(end - start for start, end in offsets.values()), "")
    finally:
        consumer.close()


def _consumer(bootstrap_servers: str, security: dict[str, str] | None) -> Any:
    from confluent_kafka import Consumer     # optional extra (live)
    return Consumer({"bootstrap.servers": bootstrap_servers, "group.id": f"quietload-integrity-{uuid.uuid4()}",
                     "enable.auto.commit": False, "enable.partition.eof": False, **QUIET_LOG, **(security or {})})


def _offsets(consumer: Any, bootstrap_servers: str, topic: str, timeout_s: float) -> dict[int, tuple[int, int]]:
    """Each partition of ``topic``: its first and its end offset."""
    from confluent_kafka import KafkaException, TopicPartition     # optional extra (live)
    try:
        metadata = consumer.list_topics(topic, timeout=min(timeout_s, 30))
    except KafkaException as error:
        raise StackError(f"reading {topic} back from {bootstrap_servers} failed: {error}") from None
    partitions = metadata.topics.get(topic)
    if partitions is None or partitions.error is not None:
        raise StackError(f"topic {topic!r} does not exist on {bootstrap_servers}")
    return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10) for p in partitions.partitions}


def verify(expected: Digest, actual: Digest) -> IntegrityReport:
    missing = sum(max(0, n - actual.counts.get(h, 0)) for h, n in expected.counts.items())
    duplicated = sum(n - expected.counts[h] for h, n in actual.counts.items() if n > expected.counts.get(h, 0) > 0)
    unexpected = sum(n for h, n in actual.counts.items() if h not in expected.counts)
    hash_match = expected.content_hash == actual.content_hash
    ok = (expected.rows == actual.rows and hash_match and actual.complete and not (missing or duplicated or unexpected))
    return IntegrityReport(expected.rows, actual.rows, missing, duplicated, unexpected, expected.content_hash,
                           actual.content_hash, hash_match, actual.complete, ok)


def counted(rows: int, actual: Digest) -> IntegrityReport:
    """A producer job's records (random payloads, no dataset to hash against): their count only."""
    missing, extra = max(0, rows - actual.rows), max(0, actual.rows - rows)
    return IntegrityReport(rows, actual.rows, missing, extra, 0, "", actual.content_hash, True, actual.complete,
                           actual.complete and not (missing or extra))


def combined(reports: list[IntegrityReport]) -> IntegrityReport:
    """A night's jobs' reports as one: counts summed, hashes joined job by job, ok only when each is."""
    return IntegrityReport(sum(r.rows_expected for r in reports), sum(r.rows_arrived for r in reports),
                           sum(r.missing for r in reports), sum(r.duplicated for r in reports),
                           sum(r.unexpected for r in reports), "+".join(r.hash_expected for r in reports),
                           "+".join(r.hash_arrived for r in reports), all(r.hash_match for r in reports),
                           all(r.complete for r in reports), all(r.ok for r in reports))


def _fields(line: str) -> list[str]:
    """One CSV line split as univocity does under Spark's defaults (quote ``"``, escape ``\\``,
    unescapedQuoteHandling STOP_AT_DELIMITER)."""
    fields, i, n = [], 0, len(line)
    while True:
        start = i
        if i < n and line[i] == '"':
            value, i = [], i + 1
            while i < n:
                if line[i] == "\\" and i + 1 < n and line[i + 1] in '"\\':
                    value.append(line[i + 1])
                    i += 2
                elif line[i] == '"':
                    break
                else:
                    value.append(line[i])
                    i += 1
            if i >= n or i + 1 == n or line[i + 1] == ",":   # closed at a delimiter, or never closed on this line
                fields.append("".join(value))
                i += 1
            else:   # the quotes do not close the field: the raw text up to the next delimiter
                end = line.find(",", start)
                end = n if end < 0 else end
                fields.append(line[start:end])
                i = end
        else:
            end = line.find(",", i)
            end = n if end < 0 else end
            fields.append(line[i:end])
            i = end
        if i >= n:
            return fields
        i += 1   # the delimiter
        if i == n:
            fields.append("")
            return fields
