"""An application's append process as the append-trace interceptor recorded it
(interceptor/, ``quietload.trace.AppendTraceInterceptor``: one file per producer JVM), and the
figures the model's append process is made of: the rate, the threads, and how much of it comes in
bursts.

A record is *in a burst* when its thread sent the one before it less than ``BURST_GAP_SHARE`` of
the thread's mean gap ago (the thread's span from its first send to its last, over its sends): it
came at more than 4x the thread's own mean pace. A burst is a run of such records with the record
that opened it. A steady appender (a Spark task parsing and serialising at an even pace) has
almost none; one whose work stops and starts (reads, pauses) has most of its records in bursts.
"""
from __future__ import annotations

import math
import statistics
import struct
from dataclasses import dataclass
from pathlib import Path

from workloads.errors import ScenarioError
from workloads.reader import regular_file

MAGIC = b"QLTRACE1"
SEND, ACK, ERROR, NAME = 0, 1, 2, 3
BURST_GAP_SHARE = 0.25
PAUSE_S = 1e-3                 # a gap of a millisecond or more: the sender (linger.ms 0) drains meanwhile
MAX_TRACE_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class ThreadTrace:
    """One thread's events, times in seconds from the file's anchor: ``sends``, ``acks`` and
    ``errors`` (failed sends' callbacks) as (time, producer, partition, key bytes, value bytes), and
    the thread's names as (time, name) (Spark renames a task thread for every task)."""

    thread_id: int
    names: tuple[tuple[float, str], ...]
    sends: tuple[tuple[float, int, int, int, int], ...]
    acks: tuple[tuple[float, int, int, int, int], ...] = ()
    errors: tuple[tuple[float, int, int, int, int], ...] = ()


@dataclass(frozen=True)
class AppendTrace:
    anchor_wall_s: float        # the anchor's wall clock, seconds since the epoch
    pid: int
    dropped: int                # events beyond the recorder's limit, counted and not kept
    producers: tuple[str, ...]  # client.id of each producer, by index
    threads: tuple[ThreadTrace, ...]


class _Reader:
    def __init__(self, data: bytes, where: str, path: Path):
        self.data, self.at, self.where, self.path = data, 0, where, path

    def fail(self, problem: str) -> ScenarioError:
        return ScenarioError(self.where, f"{self.path}: {problem} (at byte {self.at:,})")

    def take(self, size: int) -> bytes:
        if self.at + size > len(self.data):
            raise self.fail("ends in the middle of a record: not a whole append trace")
        chunk = self.data[self.at:self.at + size]
        self.at += size
        return chunk

    def long(self) -> int:
        return int(struct.unpack(">q", self.take(8))[0])

    def int(self) -> int:
        return int(struct.unpack(">i", self.take(4))[0])

    def utf(self) -> str:
        size = struct.unpack(">H", self.take(2))[0]
        return self.take(size).decode("utf-8", errors="replace")     # a name's broken bytes read as U+FFFD

    def varint(self) -> int:
        value = shift = 0
        data = self.data
        while True:
            if self.at >= len(data):
                raise self.fail("ends in the middle of a record: not a whole append trace")
            byte = data[self.at]
            self.at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7
            if shift > 63:
                raise self.fail("a number longer than 64 bits")

    def zigzag(self) -> int:
        value = self.varint()
        return (value >> 1) ^ -(value & 1)


def read_trace(path: str | Path, where: str = "--trace") -> AppendTrace:
    """The file, or one error line naming ``where``: not a file, not an append trace, cut short."""
    size = regular_file(path, where).st_size
    if size > MAX_TRACE_BYTES:
        raise ScenarioError(where, f"{path} holds {size:,} bytes; an append trace is at most {MAX_TRACE_BYTES:,}")
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ScenarioError(where, f"{path}: cannot be read ({error.strerror or error})") from None
    if not data.startswith(MAGIC):
        raise ScenarioError(where, f"{path}: not an append trace (it should start with {MAGIC.decode()}: the "
                            "interceptor's quietload-trace-PID.qltrace)")
    reader = _Reader(data, where, Path(path))
    reader.take(len(MAGIC))
    wall, anchor, pid, dropped = reader.long(), reader.long(), reader.long(), reader.long()
    del anchor
    producers = tuple(reader.utf() for _ in range(_count(reader, "producers")))
    threads = []
    for _ in range(_count(reader, "threads")):
        thread_id = reader.long()
        names: list[tuple[float, str]] = []
        events: dict[int, list[tuple[float, int, int, int, int]]] = {SEND: [], ACK: [], ERROR: []}
        t = 0
        for _ in range(_count(reader, "events")):
            kind = reader.take(1)[0]
            t += reader.varint()
            if kind == NAME:
                names.append((t / 1e9, reader.utf()))
                continue
            if kind > NAME:
                raise reader.fail(f"an event of kind {kind}: not one this reader knows (0-3)")
            producer = reader.varint()
            if producer >= len(producers):
                raise reader.fail(f"an event of producer {producer}: the file names {len(producers)}")
            event = (t / 1e9, producer, reader.zigzag(), reader.zigzag(), reader.zigzag())
            events[kind].append(event)
        threads.append(ThreadTrace(thread_id, tuple(names), tuple(events[SEND]), tuple(events[ACK]), tuple(events[ERROR])))
    if reader.at != len(data):
        raise reader.fail(f"{len(data) - reader.at:,} bytes after the last thread")
    return AppendTrace(wall / 1e9, pid, dropped, producers, tuple(threads))


def _count(reader: _Reader, what: str) -> int:
    count = reader.int()
    if count < 0:
        raise reader.fail(f"a negative count of {what}")
    return count


@dataclass(frozen=True)
class Appends:
    """The figures of one producer's (one client.id's) append process."""

    client_id: str
    records: int
    threads: int                 # threads that sent
    seconds: float               # first send to last
    value_bytes: float           # mean value size
    key_bytes: float             # mean key size (0 without keys)
    rate: float                  # value bytes per second over ``seconds``, all threads
    thread_rate: float           # median over threads: value bytes per second from its first send to its last
    burst_share: float           # records in bursts / records
    burst_sizes: tuple[int, ...]  # records of every burst, sorted
    gaps: tuple[float, ...]      # every gap between a thread's consecutive sends, seconds, sorted
    pauses: int                  # gaps of PAUSE_S or more
    pause_seconds: float         # their sum
    tasks: tuple[float, ...]     # per thread name (Spark: per task), first send to last, seconds, sorted
    acks: int
    failed: int
    burst_every: float = 0.0     # seconds from a burst's start to the next's on its thread (median over threads)

    @property
    def burst_size(self) -> float:
        return statistics.median(self.burst_sizes) if self.burst_sizes else 0.0


def appends(trace: AppendTrace, client_id: str | None = None) -> Appends:
    """The append figures of ``client_id``'s sends (default: the client.id with the most)."""
    counts: dict[int, int] = {}
    for thread in trace.threads:
        for send in thread.sends:
            counts[send[1]] = counts.get(send[1], 0) + 1
    ids = {i for i, name in enumerate(trace.producers) if client_id is None or name == client_id}
    if client_id is not None and not ids:
        raise ScenarioError("--client-id", f"no producer of client.id {client_id!r} in the trace "
                            f"(it holds {', '.join(sorted(set(trace.producers))) or 'none'})")
    chosen = max(sorted({trace.producers[i] for i in ids}), key=lambda name: sum(
        counts.get(i, 0) for i, p in enumerate(trace.producers) if p == name), default="")
    mine = {i for i, name in enumerate(trace.producers) if name == chosen}
    records = values = keys = acks = failed = pauses = 0
    pause_seconds = 0.0
    firsts, lasts, thread_rates, gaps, bursts, tasks, periods = [], [], [], [], [], [], []
    in_bursts = 0
    for thread in trace.threads:
        sends = [s for s in thread.sends if s[1] in mine]
        acks += sum(1 for a in thread.acks if a[1] in mine)
        failed += sum(1 for a in thread.errors if a[1] in mine)
        if not sends:
            continue
        records += len(sends)
        own_values = sum(max(0, s[4]) for s in sends)
        values += own_values
        keys += sum(max(0, s[3]) for s in sends)
        firsts.append(sends[0][0])
        lasts.append(sends[-1][0])
        span = sends[-1][0] - sends[0][0]
        if span > 0:
            thread_rates.append(own_values / span)
        own = [b - a for a, b in zip((s[0] for s in sends), (s[0] for s in sends[1:]))]
        gaps.extend(own)
        pauses += sum(1 for g in own if g >= PAUSE_S)
        pause_seconds += sum(g for g in own if g >= PAUSE_S)
        tight = BURST_GAP_SHARE * span / len(sends) if len(sends) > 1 else 0.0
        run, starts = 1, []
        for i, gap in enumerate(own + [float("inf")]):
            if gap < tight:
                run += 1
                continue
            if run > 1:
                bursts.append(run)
                in_bursts += run
                starts.append(sends[i + 1 - run][0])
            run = 1
        if len(starts) > 1:
            periods.append((starts[-1] - starts[0]) / (len(starts) - 1))
        tasks.extend(_tasks(thread, sends))
    seconds = max(lasts) - min(firsts) if records else 0.0
    return Appends(chosen, records, len(firsts), seconds, values / records if records else 0.0,
                   keys / records if records else 0.0, values / seconds if seconds > 0 else 0.0,
                   statistics.median(thread_rates) if thread_rates else 0.0,
                   in_bursts / records if records else 0.0, tuple(sorted(bursts)), tuple(sorted(gaps)), pauses,
                   pause_seconds, tuple(sorted(tasks)), acks, failed, statistics.median(periods) if periods else 0.0)


def record_latencies(trace: AppendTrace, client_id: str) -> list[float]:
    """Each record of ``client_id``'s producers from send() to acknowledgement, seconds. A record's
    partition is not known at send() (the partitioner picks it after the interceptor), so each
    producer's sends are matched to its acknowledgements in order: exact while its batches complete
    in the order they were filled, else off by how far in-flight requests overtake each other."""
    mine = {i for i, name in enumerate(trace.producers) if name == client_id}
    sends: dict[int, list[float]] = {}
    acks: dict[int, list[float]] = {}
    for thread in trace.threads:
        for event in thread.sends:
            if event[1] in mine:
                sends.setdefault(event[1], []).append(event[0])
        for event in thread.acks:
            if event[1] in mine:
                acks.setdefault(event[1], []).append(event[0])
    return [ack - sent for producer, times in sends.items()
            for sent, ack in zip(sorted(times), sorted(acks.get(producer, [])))]


def _tasks(thread: ThreadTrace, sends: list[tuple[float, int, int, int, int]]) -> list[float]:
    """Per name the thread had while sending (a Spark task each), its first send to its last."""
    bounds = [t for t, _ in thread.names[1:]] + [float("inf")]
    out, i = [], 0
    for end in bounds:
        mine = []
        while i < len(sends) and sends[i][0] < end:
            mine.append(sends[i][0])
            i += 1
        if mine:
            out.append(mine[-1] - mine[0])
    return out


def quantile(values: tuple[float, ...] | list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values`` by nearest rank (the smallest value with at least
    ``q`` of them at or below it), 0 for none."""
    if not values:
        return 0.0
    return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]


def figures(found: Appends) -> dict[str, float | int | str]:
    """The figures a result file keeps and a report shows, by name."""
    return {"client_id": found.client_id, "records": found.records, "threads": found.threads,
            "seconds": round(found.seconds, 6), "value_bytes": round(found.value_bytes, 1),
            "rate_bytes_per_s": round(found.rate, 1), "thread_rate_bytes_per_s": round(found.thread_rate, 1),
            "burst_share": round(found.burst_share, 4), "bursts": len(found.burst_sizes),
            "burst_size_p50": quantile(found.burst_sizes, 0.5), "burst_size_p90": quantile(found.burst_sizes, 0.9),
            "burst_every_ms": round(found.burst_every * 1e3, 3),
            "gap_us_p50": round(quantile(found.gaps, 0.5) * 1e6, 1), "gap_us_p99": round(quantile(found.gaps, 0.99) * 1e6, 1),
            "gap_ms_max": round(quantile(found.gaps, 1.0) * 1e3, 3), "pauses": found.pauses,
            "pause_s": round(found.pause_seconds, 6), "tasks": len(found.tasks),
            "task_s_p50": round(quantile(found.tasks, 0.5), 6), "acks": found.acks, "failed": found.failed}
