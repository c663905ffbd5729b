"""The batch load's batch sizes as the brokers wrote them: Kafka's ``DumpLogSegments`` over the
bulk topic's log segments, every record batch's ``size`` (bytes on the wire, the batch header
included) and ``count`` (records), bucketed as ``RunResult.batch_sizes``.

Every replica of a partition holds the same batches (followers append the leader's batches as
they are), so each partition is read from one replica: the one holding the most bytes (a
follower that fell behind, or a broker killed during the load, holds a prefix). The records of
an uncompressed batch are its size less the batch header; a compressed batch's uncompressed
bytes are not in the dump, so ``record_bytes`` is None once any batch is compressed.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulator.live.jars import KafkaJars, java_command, resolve_jars
from simulator.live._process import StackError
from simulator._core import BATCH_HEADER
from simulator.contract import BatchSizeFigures
from simulator.contract.histograms import SizeHistogram, batch_size_section

DUMP_TOOL = "kafka.tools.DumpLogSegments"
SOURCE = "broker log"
_FIELD = re.compile(r"(\w+): (\S+)")


@dataclass(frozen=True)
class DumpedBatch:
    """One record batch as ``DumpLogSegments`` prints it."""

    size: int          # bytes on the wire, the batch header included
    records: int       # its ``count``
    codec: str         # its ``compresscodec``


def parse_dump(text: str) -> dict[Path, list[DumpedBatch]]:
    """``DumpLogSegments`` output -> each dumped segment's data batches (control batches and
    batches that fail their CRC are left out)."""
    segments: dict[Path, list[DumpedBatch]] = {}
    batches: list[DumpedBatch] = []
    for line in text.splitlines():
        if line.startswith("Dumping "):
            batches = segments.setdefault(Path(line[len("Dumping "):].strip()), [])
        elif line.startswith("baseOffset: "):
            fields = dict(_FIELD.findall(line))
            if fields.get("isControl") != "true" and fields.get("isvalid", "true") == "true":
                batches.append(DumpedBatch(int(fields["size"]), int(fields["count"]), fields["compresscodec"]))
    return segments


def broker_log_dirs(cluster: Any) -> list[Path]:
    """Each broker's ``log.dirs`` in the local stack's run directory (as ``KafkaCluster`` renders it)."""
    return [cluster.data_dir(node) for node in cluster.nodes() if node.role == "broker"]


def dump_segments(segments: list[Path], jars: KafkaJars | None = None, timeout: float = 600.0) -> str:
    """What ``DumpLogSegments --files`` prints for ``segments``, in one JVM."""
    if not segments:
        return ""
    jars = jars or resolve_jars()
    command = [java_command(), "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", jars.classpath, DUMP_TOOL,
               "--files", ",".join(str(path) for path in segments)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise StackError(f"{DUMP_TOOL} did not finish within {timeout:.0f} s") from None
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.strip()]
        raise StackError(f"{DUMP_TOOL} exited with {done.returncode}: {errors[-1] if errors else 'no message'}")
    return done.stdout


def topic_batches(log_dirs: list[Path], topic: str, jars: KafkaJars | None = None) -> list[DumpedBatch]:
    """Every data batch of ``topic`` in the brokers' ``log_dirs``, each partition from its fullest replica."""
    partition_dir = re.compile(re.escape(topic) + r"-\d+")
    replicas: dict[str, list[Path]] = {}
    for log_dir in log_dirs:
        for path in sorted(log_dir.iterdir()) if log_dir.is_dir() else []:
            if path.is_dir() and partition_dir.fullmatch(path.name):
                replicas.setdefault(path.name, []).append(path)
    segments = {path: sorted(s.resolve() for s in path.glob("*.log")) for copies in replicas.values() for path in copies}
    dumped = parse_dump(dump_segments([s for files in segments.values() for s in files], jars))
    batches: list[DumpedBatch] = []
    for copies in replicas.values():
        held = [[b for s in segments[copy] for b in dumped.get(s, [])] for copy in copies]
        batches += max(held, key=lambda replica: sum(b.size for b in replica))
    return batches


def batch_sizes_from_logs(log_dirs: list[Path], topic: str, jars: KafkaJars | None = None) -> BatchSizeFigures:
    """``RunResult.batch_sizes`` of ``topic`` from the brokers' ``log_dirs``."""
    batches = topic_batches(log_dirs, topic, jars)
    wire = SizeHistogram()
    for batch in batches:
        wire.record(batch.size)
    record: SizeHistogram | None = None
    if all(batch.codec == "none" for batch in batches):
        record = SizeHistogram()
        for batch in batches:
            record.record(batch.size - BATCH_HEADER)
    return batch_size_section(SOURCE, wire, record, sum(batch.records for batch in batches))


def batch_sizes(cluster: Any, topic: str) -> BatchSizeFigures | None:
    """``RunResult.batch_sizes`` of ``topic`` from a local stack's brokers (``KafkaCluster``), read
    while their log directories exist; None without one (a cluster given by its bootstrap servers)."""
    if cluster is None:
        return None
    return batch_sizes_from_logs(broker_log_dirs(cluster), topic)
