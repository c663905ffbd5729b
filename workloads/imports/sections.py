"""One imported job's sections of the scenario (its batch section and its dataset) from what the
sources gave of it, and the imported sources themselves; every figure none of them gave is a
stated default, said in the list of assumptions it is handed.
"""
from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from workloads.appendtrace import Appends
from workloads.imports.glue import GlueJob
from workloads.imports.history import History, Window
from workloads.imports.keys import Key
from workloads.imports.msk import MskCluster
from workloads.imports.script import ScriptFacts
from workloads.imports.triggers import Trigger
from workloads.rows import generate_rows

# The stated defaults (each one, when used, is named in the scenario's assumptions)
DEFAULT_EXECUTORS, DEFAULT_CORES = 2, 4
DEFAULT_CLIENT = "3.9.0"                 # kafka-clients, when no Glue version says which
DEFAULT_FILE = 1024**3
LOAD_TOPIC = "batch-load"
KEY_COLUMNS = tuple(generate_rows(1, 0)[0])     # the generated card-transaction rows' columns
UNIQUE_KEY = "transaction_id"


@dataclass(frozen=True)
class ImportedJob:
    """One Glue job of a night: the job, its script and its input, any of them missing."""

    glue: GlueJob | None
    script: ScriptFacts | None
    files: list[tuple[str, int]] | None
    notes: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.glue.name if self.glue else "batch"


@dataclass(frozen=True)
class Imported:
    """What the sources gave; any of them may be missing."""

    glue: GlueJob | None = None
    script: ScriptFacts | None = None
    files: list[tuple[str, int]] | None = None       # the input's objects (key, size) from S3
    msk: MskCluster | None = None
    history: History | None = None
    load_topic: str | None = None                    # --load-topic
    partitions: dict[str, int] = field(default_factory=dict)   # --partitions TOPIC=N
    sla: str | None = None                           # the neighbours' p99 SLA (--sla)
    profile: str | None = None                       # a profile fitted to the history
    notes: tuple[str, ...] = ()                      # what could not be read, and so is assumed
    jobs: tuple[ImportedJob, ...] = ()               # a night's jobs (two or more; one job is glue/script/files)
    triggers: tuple[Trigger, ...] = ()               # the Glue triggers that start them
    partitions_from: dict[str, str] = field(default_factory=dict)   # topic -> where its partition count came from
    night: date | None = None                        # the day the night is looked for from (default: today)
    trace: Appends | None = None                     # the job's append process (--trace)
    trace_file: str | None = None


def job_topic(imported: Imported, said: list[str]) -> str:
    if imported.load_topic:
        return imported.load_topic
    if imported.script and imported.script.topic:
        return imported.script.topic
    if imported.history and imported.history.topic_bytes:
        peaks = {t: max((v for v in s if v is not None), default=0.0) for t, s in imported.history.topic_bytes.items()}
        topic = max(sorted(peaks), key=lambda t: peaks[t])
        said.append(f"Assumed: the load's topic is {topic!r}, the topic with the largest peak BytesInPerSec "
                    "(neither --load-topic nor the script names one).")
        return topic
    said.append(f"Assumed: the load's topic is {LOAD_TOPIC!r} (no source names one).")
    return LOAD_TOPIC


def _files(imported: Imported, loads: list[Window], said: list[str]) -> tuple[list[dict], str]:
    if imported.files:
        counts = Counter(size for _, size in imported.files)
        compression = "gzip" if all(key.endswith(".gz") for key, _ in imported.files) else "none"
        said.append(f"Input: {len(imported.files)} file(s) of {sum(counts.elements()):,} bytes in all, their sizes from S3 "
                    f"({', '.join(imported.script.input_paths) if imported.script else 'the script'}).")
        return [{"size": size, "count": n} for size, n in counts.items()], compression
    if loads:
        size = int(statistics.median(w.bytes for w in loads))
        said.append(f"Assumed: one input file of {size:,} bytes, the median bytes the load topic took in per past load "
                    f"({len(loads)} found in the metrics); the files' own sizes were not read from S3.")
        return [{"size": size}], "none"
    said.append(f"Assumed: one input file of {DEFAULT_FILE:,} bytes (no script input on S3, no past loads).")
    return [{"size": DEFAULT_FILE}], "none"


def _spark(imported: Imported, said: list[str]) -> tuple[dict, dict]:
    if imported.glue:
        said.extend(imported.glue.notes)
        spark, client = dict(imported.glue.spark), {"kind": "java", "version": imported.glue.client_version}
    else:
        spark = {"spark.executor.instances": DEFAULT_EXECUTORS, "spark.executor.cores": DEFAULT_CORES}
        client = {"kind": "java", "version": DEFAULT_CLIENT}
        said.append(f"Assumed: {DEFAULT_EXECUTORS} executors of {DEFAULT_CORES} cores and kafka-clients {DEFAULT_CLIENT} "
                    "(no Glue job given).")
    if imported.script and imported.script.repartition is not None:
        spark["repartition"] = imported.script.repartition
    if imported.trace:
        _traced(imported, spark, said)
    return spark, client


def _traced(imported: Imported, spark: dict, said: list[str]) -> None:
    """The append trace's rate per appending thread as the job's per-core append rate (after a
    shuffle: its shuffle_append_rate)."""
    found = imported.trace
    assert found is not None
    name = "shuffle_append_rate" if spark.get("repartition") is not None else "append_rate"
    spark[name] = f"{round(found.thread_rate)}B/s"
    mb = 1024**2
    said.append(
        f"From the append trace {imported.trace_file} (client.id {found.client_id!r}): {found.records:,} records of "
        f"{found.value_bytes:,.0f} value bytes by {found.threads} thread(s) in {found.seconds:.4g} s, "
        f"{found.thread_rate / mb:.2f} MB/s per appending thread (batch.spark.{name}), {found.rate / mb:.2f} MB/s in all.")
    said.append(
        f"The trace's bursts: {found.burst_share:.0%} of the records came in bursts (median {found.burst_size:g} records, "
        f"every {found.burst_every * 1e3:.3g} ms on a thread), {found.pauses:,} pauses of 1 ms or more "
        f"({found.pause_seconds:.3g} s); the model's tasks append at a steady rate, so the scenario keeps the rate and not "
        "the bursts.")


def _producer(imported: Imported, client: dict, said: list[str]) -> dict:
    producer = dict(imported.script.producer) if imported.script else {}
    if imported.script:
        said.extend(imported.script.notes)
        read = ", ".join(f"{k}={v}" for k, v in sorted(producer.items()))
        repartition = imported.script.repartition
        said.append("From the script: " + (read or "no producer property (the client's defaults)")
                    + (f"; repartition({repartition})" if repartition is not None else "; no repartition") + ".")
    else:
        said.append(f"Assumed: the producer's properties are kafka-clients {client['version']}'s defaults (no script given).")
    return producer


def job_section(imported: Imported, load_topic: str, loads: list[Window], said: list[str]) -> tuple[dict, dict]:
    """One job's batch section and its dataset section, from what ``imported`` holds of it."""
    spark, client = _spark(imported, said)
    producer = _producer(imported, client, said)
    files, compression = _files(imported, loads, said)
    batch = {"topic": load_topic, "client": client, "spark": spark, "producer": producer}
    if imported.script and imported.script.key:
        batch["key"] = _key(imported.script.key, said)
    return batch, {"files": files, **({"compression": compression} if compression != "none" else {})}


def _key(key: Key, said: list[str]) -> str:
    if key.column in KEY_COLUMNS:
        said.append(f"From the script: the records are keyed by the column {key.column!r}.")
        return key.column
    why = (f"by the column {key.column!r}, not a column of the generated card-transaction rows" if key.column
           else f"by an expression quietload does not evaluate ({key.expression})")
    said.append(f"The script keys its records {why}: assumed keyed by {UNIQUE_KEY!r} (a key a row); give dataset.sample "
                "with the job's own rows to key by its column.")
    return UNIQUE_KEY
