"""The typed figures of a RunResult: its ``summary`` (``Summary`` with a ``TenantFigures`` per
neighbour), its ``brokers`` (``BrokerFigures``) and its ``batch_sizes`` (``BatchSizeFigures``), with
the one codec that writes and reads them.

A field's place in its class is its place in the file, so that equal runs give equal bytes.
Fields added to the schema after its first files are optional: a file without them reads with
None. Figures only the live stack measures (``LIVE``) are left out of a model run's file rather
than written as null, as the model's files have always been.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Iterator, Mapping

from simulator.contract.errors import ResultError

# A figure only a live run has: absent from a model run's file (None), written when measured.
LIVE = {"live": True}


def _live() -> Any:
    return field(default=None, metadata=LIVE)


def _plain(value: Any) -> Any:
    if isinstance(value, Figures):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


class Figures:
    """The codec of a frozen dataclass of figures: its fields in order, nested figures by ``NESTED``."""

    NESTED: dict[str, type[Figures]] = {}      # a field holding a list of these figures
    SEQUENCES: tuple[str, ...] = ()            # a field holding a list (kept as a tuple)

    def to_dict(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)     # type: ignore[arg-type]
                if not (f.metadata.get("live") and getattr(self, f.name) is None)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "summary", source: str = "result") -> Any:
        """The figures of ``data`` (checked against the schema before); unknown keys are left out.
        ``where`` names the section in the one line a file lacking a required figure gets."""
        known: dict[str, Any] = {}
        for f in fields(cls):                                                     # type: ignore[arg-type]
            if f.name not in data:
                if f.default is MISSING and f.default_factory is MISSING:
                    raise ResultError(f"{source}: RunResult lacks {where}.{f.name}")
                continue
            value = data[f.name]
            if f.name in cls.NESTED and value is not None:
                value = tuple(cls.NESTED[f.name].from_dict(item, f"{where}.{f.name}[{i}]", source)
                              for i, item in enumerate(value))
            elif f.name in cls.SEQUENCES and value is not None:
                value = tuple(value)
            known[f.name] = value
        return cls(**known)


@dataclass(frozen=True, kw_only=True)
class TenantFigures(Figures):
    """A neighbour's p99 latency (ms) before, during and after the load, against its SLA, and its
    produce requests' p99 times in the brokers during the load (Kafka's LocalTimeMs, RemoteTimeMs,
    TotalTimeMs; empty where the brokers cannot time a client's requests, as live)."""

    name: str
    sla_p99_ms: float | None = None
    p99_ms_before: float | None = None
    p99_ms_during: float | None                  # None: no record was sent during the load
    p99_ms_after: float | None = None
    broker_time_ms_p99_during: Mapping[str, float | None] | None = None

    @classmethod
    def of_run(cls, tenant: Mapping[str, Any], broker_times: Mapping[str, float | None] | None) -> "TenantFigures":
        """A neighbour's figures from its entry in a run's ``tenants`` (its SLA and its latencies by
        window), with the brokers' times of its requests: the one builder of the model's and the live run's."""
        latency_ms = tenant["latency_ms"]
        return cls(name=tenant["name"], sla_p99_ms=tenant["sla_p99_ms"], p99_ms_before=latency_ms["before"]["p99"],
                   p99_ms_during=latency_ms["during"]["p99"], p99_ms_after=latency_ms["after"]["p99"],
                   broker_time_ms_p99_during=broker_times)

    def as_row(self, keys: tuple[str, ...] = ("name", "p99_ms_during", "sla_p99_ms"), unset: bool = True) -> dict[str, Any]:
        """The figures a file keeps of a neighbour, in its order (a night's run, a plan's point: its name,
        p99 during the load and SLA; a study's: its p99 before too); ``unset`` False leaves out a figure
        without a value (a run stopped before its verdict: a neighbour held to no SLA)."""
        return {key: getattr(self, key) for key in keys if unset or getattr(self, key) is not None}


@dataclass(frozen=True, kw_only=True)
class Summary(Figures):
    """The figures scripts, the gate and the tuner read: the batch load's requests and batches,
    the brokers during the load (the busiest broker's), and every neighbour's p99."""

    NESTED = {"tenants": TenantFigures}
    SEQUENCES = ("faults", "noise")

    produce_requests: float | None = None        # the batch load's produce requests
    batches: float | None = None
    mean_batch_bytes: float | None = None        # uncompressed record bytes per batch
    mean_batch_wire_bytes: float | None = None   # bytes on the wire per batch
    records_per_request: float | None = None
    batches_per_request: float | None = None
    compression_ratio: float | None = None       # wire bytes over record bytes
    record_bytes: float | None = None
    wire_bytes: float | None = None
    load_seconds: float | None = None
    simulated_seconds: float | None = None       # the run's length (live: measured)
    broker_produce_requests: float | None = None  # every client's, as the brokers counted them
    producer_request_total: int | None = _live()      # the job's producer's own request-total
    neighbour_produce_requests: int | None = _live()  # the neighbours' own count
    fetch_requests: float | None = None
    handler_idle_pct_during: float | None = None  # RequestHandlerAvgIdlePercent, lowest broker
    network_idle_pct_during: float | None = None  # NetworkProcessorAvgIdlePercent, lowest broker
    cpu_pct_during: float | None = None           # the busiest broker's CPU
    replica_lag_bytes_max_during: float | None = None
    quota_throttle_s: float | None = None
    remote_time_ms_p99: float | None = None
    append_rate_bytes_per_s: float | None = None  # per producer, mean over the active ones
    drain_interval_ms: float | None = None
    batch_fill: float | None = None               # wire bytes per batch over batch.size
    # the batch load's records, send() to acknowledgement (ms): count, p50, p95, p99, p999, max
    record_latency_ms: Mapping[str, float | None] | None = None
    integrity_ok: bool | None = _live()           # every row arrived exactly once
    faults: tuple[Mapping[str, Any], ...] | None = _live()   # {"kind", "broker", "at_s"} per fault injected
    incomplete: Mapping[str, str] | None = _live()           # figure -> why a fault left it short
    noise: tuple[str, ...] | None = _live()                  # why latency measured the machine
    machine: Mapping[str, Any] | None = _live()              # load average, iowait, cores
    tenants: tuple[TenantFigures, ...] = ()
    neighbour_send_lag_ms_p99: Mapping[str, float] | None = _live()
    # each thread group's wait for a core over the load: {"broker-0": {"threads", "run_s", "wait_s", "wait_pct", "judged"}}
    core_waits: Mapping[str, Mapping[str, Any]] | None = _live()

    def tenant(self, name: str) -> TenantFigures | None:
        return next((t for t in self.tenants if t.name == name), None)


@dataclass(frozen=True, kw_only=True)
class BrokerFigures(Figures):
    """One broker over the run, by Kafka's own metric names: counters over the whole run, the
    idle and CPU shares as a mean per window (``before``, ``during``, ``after``), and the produce
    requests' time parts (``LocalTimeMs`` ...) as ``{"mean", "p99"}``. None: not measured."""

    id: int | None = None
    produce_requests: float | None = None
    fetch_requests: float | None = None
    bytes_in: float | None = None
    bytes_out: float | None = None
    RequestQueueSize_max: float | None = None
    produce_throttle_s: float | None = None
    RequestHandlerAvgIdlePercent: Mapping[str, float | None] | None = None
    NetworkProcessorAvgIdlePercent: Mapping[str, float | None] | None = None
    cpu_percent: Mapping[str, float | None] | None = None
    produce_time_ms: Mapping[str, Mapping[str, float | None]] | None = None


@dataclass(frozen=True, kw_only=True)
class JobFigures(Figures):
    """One batch job of a night (a scenario of several): what its producers (client.id
    ``client_id``) sent, its load's start and end (s from the run's start, the first load's start
    to the last load's end), its produce requests as the brokers counted them by client.id, and each
    neighbour's p99 (ms) over the seconds of its load (``neighbour_p99_ms``; other jobs may load
    then too). The night's totals stay in the summary."""

    name: str
    client_id: str
    topic: str | None = None
    load_start_s: float | None = None
    load_end_s: float | None = None                  # None: the job's load did not end
    produce_requests: float | None = None         # its producers' own count
    batches: float | None = None
    records: float | None = None
    record_bytes: float | None = None             # uncompressed
    wire_bytes: float | None = None
    broker_produce_requests: float | None = None  # RequestsPerSec{request=Produce} of its client.id
    request_latency_ms: float | None = None       # its producers' mean request latency
    append_rate_bytes_per_s: float | None = None  # per producer, mean over the active ones
    drain_interval_ms: float | None = None
    batch_fill: float | None = None
    quota_throttle_s: float | None = None         # throttle its producers were handed
    neighbour_p99_ms: Mapping[str, float | None] | None = None
    record_latency_ms: Mapping[str, float | None] | None = None   # its records, send() to ack: p50 ... max


@dataclass(frozen=True, kw_only=True)
class BatchSizeFigures(Figures):
    """The batch load's produce batches per size bucket (``histograms.batch_size_section`` fills it):
    each bucket's upper bound (1 KiB, 2 KiB, 4 KiB, ...), and per bucket the batches by bytes on the
    wire (batch header included) and by uncompressed record bytes (None where the evaluator cannot
    see them); ``source`` is ``model`` or ``broker log``."""

    SEQUENCES = ("bucket_upper_bytes", "wire_bytes", "record_bytes")

    source: str
    bucket_upper_bytes: tuple[int, ...]
    wire_bytes: tuple[int, ...]
    record_bytes: tuple[int, ...] | None = None
    batches: int
    records: float | None = None

    def checked(self, source: str) -> "BatchSizeFigures":
        """These figures if each bucket has its bound, in rising order; else one ResultError naming ``source``."""
        bounds = self.bucket_upper_bytes
        for name in ("wire_bytes", "record_bytes"):
            counts = getattr(self, name)
            if counts is not None and len(counts) != len(bounds):
                raise ResultError(f"{source}: batch_sizes.{name} has {len(counts)} buckets, "
                                  f"batch_sizes.bucket_upper_bytes {len(bounds)} bounds")
        if any(upper <= lower for lower, upper in zip(bounds, bounds[1:])):
            raise ResultError(f"{source}: batch_sizes.bucket_upper_bytes must rise from bucket to bucket, got {list(bounds)[:8]}")
        return self

    def buckets(self) -> Iterator[tuple[int, int, int | None]]:
        """(upper bound in bytes, batches by wire size, batches by record size or None) of each bucket."""
        by_records = self.record_bytes or (None,) * len(self.wire_bytes)
        return zip(self.bucket_upper_bytes, self.wire_bytes, by_records)
