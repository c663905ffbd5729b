"""Cost profiles: the CPU and rate figures the model turns into time.

A profile is a named YAML file in ``workloads/profiles/`` (or a path). Every figure has a
unit in its name and the file says where its numbers come from.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.reader import read_yaml
from workloads.units import parse_byte_rate

PROFILE_DIR = Path(__file__).parent / "profiles"


def _cost(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ScenarioError(path, f"expected a non-negative number, got {value!r}")
    return float(value)


def _codec_costs(value: Any, path: str) -> dict[str, float]:
    raw = f.require_mapping(value, path)
    costs = {"none": 0.0}
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        if codec not in raw:
            raise ScenarioError(f.join(path, codec), "required but missing")
        costs[codec] = _cost(raw[codec], f.join(path, codec))
    unknown = set(raw) - set(costs)
    if unknown:
        raise ScenarioError(f.join(path, sorted(unknown)[0]), "unknown codec")
    return costs


@dataclass(frozen=True)
class BrokerCosts:
    """CPU time a broker spends, by thread pool (microseconds / nanoseconds)."""

    network_request_us: float = f.prop(parse=_cost)
    network_byte_ns: float = f.prop(parse=_cost)
    produce_request_us: float = f.prop(parse=_cost)
    produce_batch_us: float = f.prop(parse=_cost)
    produce_record_ns: float = f.prop(parse=_cost)
    produce_byte_ns: float = f.prop(parse=_cost)
    decompress_byte_ns: dict = f.prop(parse=_codec_costs)
    fetch_request_us: float = f.prop(parse=_cost)
    fetch_partition_us: float = f.prop(parse=_cost)
    fetch_byte_ns: float = f.prop(parse=_cost)
    follower_batch_us: float = f.prop(parse=_cost)
    follower_byte_ns: float = f.prop(parse=_cost)
    # a fetch response's bytes on the network thread; unset: network_byte_ns. Without TLS Kafka sends
    # them from the page cache with sendfile (FileRecords.writeTo: zero-copy), so they cost it nothing
    fetch_send_byte_ns: float | None = f.prop(parse=f.or_none(_cost), default=None, unset_unsaid=True)


@dataclass(frozen=True)
class ClientCosts:
    """CPU time on the producer side: the sender thread and the appending threads."""

    sender_request_us: float = f.prop(parse=_cost)
    sender_batch_us: float = f.prop(parse=_cost)
    sender_byte_ns: float = f.prop(parse=_cost)
    compress_byte_ns: dict = f.prop(parse=_codec_costs)
    # the sender reading a response: completing its batches, callbacks, freeing buffer.memory
    sender_response_us: float = f.prop(parse=_cost, default=20.0)
    # the sender reading a response, per record: its future completed and its callback run
    sender_record_us: float = f.prop(parse=_cost, default=0.0)
    # a producer job's sending thread (kafka-producer-perf-test's loop): one send() call, and per
    # value byte (perf-test from 3.0 draws every byte of every record); compression comes on top
    send_record_us: float = f.prop(parse=_cost, default=1.0, unset_unsaid=True)
    send_byte_ns: float = f.prop(parse=_cost, default=2.0, unset_unsaid=True)
    # what a throttled perf-test's sleep takes beyond the deficit it asks (Object.wait: whole ms, timer slack)
    throttle_wake_ms: float = f.prop(parse=_cost, default=0.1, unset_unsaid=True)


@dataclass(frozen=True)
class TlsCosts:
    """TLS on the wire (clients to brokers, and between brokers): the CPU a byte costs to encrypt or
    decrypt (Java's JSSE, AES-GCM, with its buffer copies) on the broker's network threads, the
    follower's fetcher and the producer's sender, and whether this profile's byte costs were
    measured with it. A scenario's ``cluster.tls`` that differs adds or takes off that cost, and
    without TLS a fetch response goes out zero-copy (``CostProfile.with_tls``)."""

    measured_with: bool = f.prop(parse=f.boolean, default=True)
    byte_ns: float = f.prop(parse=_cost, default=1.1)
    source: str = f.prop(parse=f.one_of("measured", "fitted", "assumed"), default="assumed")


def _factor(value: Any, path: str) -> float:
    """A factor off, either way (``5.84``: 5.84 times too many or too few): at least 1."""
    number = _cost(value, path)
    if number < 1:
        raise ScenarioError(path, f"a factor off is at least 1 (40x too many and 40x too few both read 40), got {value!r}")
    return number


@dataclass(frozen=True)
class ModelError:
    """The model's error at its latest validation against the live rig: each figure's median factor
    off, either way (``tuner.pairing.factor_off``), and which validation measured it. A verdict whose
    figure is within that factor of its bound is marginal (``quietload check``, ``tune``, ``policy``:
    ``--margin``, by default ``neighbour_p99_during``)."""

    validation: str = f.prop(parse=f.text)          # where the figures are published (docs/fidelity.md#...)
    commit: str = f.prop(parse=f.text)
    date: str = f.prop(parse=f.text)
    produce_requests: float = f.prop(parse=_factor)
    records_per_request: float = f.prop(parse=_factor)
    neighbour_p50_during: float = f.prop(parse=_factor)
    neighbour_p99_during: float = f.prop(parse=_factor)

    def describe(self) -> str:
        """``the model's neighbour p99 was a median 3.24x off at its validation of 2026-11-26 (baffb48)``."""
        return (f"the model's neighbour p99 during the load was a median {self.neighbour_p99_during:g}x off at its "
                f"latest validation ({self.date}, {self.commit})")


@dataclass(frozen=True)
class SchedulerFigures:
    """The Linux scheduler (EEVDF) the threads run under, and the threads the model does not
    follow one by one: simulator/model/cpu.py says how they turn into waits for a core."""

    base_slice_us: float = f.prop(parse=_cost, default=750.0)      # sysctl_sched_base_slice, before scaling
    tick_hz: float = f.prop(parse=f.positive(_cost), default=250.0)    # CONFIG_HZ
    protected_wake_share: float = f.prop(parse=_cost, default=0.06)
    jvm_background_threads: float = f.prop(parse=_cost, default=0.4)
    broker_background_threads: float = f.prop(parse=_cost, default=0.1)


@dataclass(frozen=True)
class StreamingCosts:
    """Fixed costs of the streaming frameworks (milliseconds / microseconds), which simulator/model/
    streaming.py places on or off a record's path. Defaults: checkpoints on object storage, from
    seeds/spark-async-progress-tracking-latency.txt (async progress tracking saves 200-250 ms a
    micro-batch, 700-900 ms -> 150-250 ms end to end): the offset-log and commit-log writes ~110 ms
    each; planning ~80 ms (assumed: the rest of a 150-250 ms cycle); the rest assumed."""

    microbatch_planning_ms: float = f.prop(parse=_cost, default=80.0)    # latest offsets, plan, schedule tasks
    offset_log_write_ms: float = f.prop(parse=_cost, default=110.0)      # offsets/<batch> in the checkpoint
    commit_log_write_ms: float = f.prop(parse=_cost, default=110.0)      # commits/<batch> in the checkpoint
    state_commit_ms: float = f.prop(parse=_cost, default=50.0)           # a state store's delta file, per batch
    end_txn_request_us: float = f.prop(parse=_cost, default=100.0)       # EndTxn on the coordinator's handler
    txn_marker_us: float = f.prop(parse=_cost, default=30.0)             # a commit marker, per partition written
    poll_us: float = f.prop(parse=_cost, default=20.0)                   # one consumer poll() on the client


@dataclass(frozen=True)
class SparkRates:
    """Per-core rates of a Spark executor, in bytes of Kafka value per second."""

    append_rate: float = f.prop(parse=f.positive(parse_byte_rate))
    shuffle_append_rate: float = f.prop(parse=f.positive(parse_byte_rate))
    csv_scan_rate: float = f.prop(parse=f.positive(parse_byte_rate))


def _number_or_none(value: Any, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(path, f"expected a number, got {value!r}")
    return float(value)


def _figures(value: Any, path: str) -> dict[str, float | None]:
    return {str(k): _number_or_none(v, f.join(path, str(k))) for k, v in f.require_mapping(value, path).items()}


def _texts(value: Any, path: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ScenarioError(path, f"expected a list, got {type(value).__name__}")
    return tuple(str(item) for item in value)


def _items(cls: type) -> Any:
    def parse(value: Any, path: str) -> tuple:
        if not isinstance(value, list):
            raise ScenarioError(path, f"expected a list, got {type(value).__name__}")
        return tuple(f.build(cls, item, f"{path}[{i}]") for i, item in enumerate(value))
    return parse


@dataclass(frozen=True)
class Machine:
    cores: int = f.prop(parse=f.positive_int)
    cpu_model: str = f.prop(parse=f.text)
    kernel: str = f.prop(default="")


@dataclass(frozen=True)
class CalibrationRun:
    """One live run a fit used: its design point, seed, settings and the figures read from it."""

    point: str = f.prop(parse=f.text)
    seed: int = f.prop(parse=f.non_negative_int)
    overrides: tuple[str, ...] = f.prop(parse=_texts, default=())
    figures: dict = f.prop(parse=_figures, default_factory=dict)


@dataclass(frozen=True)
class Parameter:
    """A figure of the profile: its value, its standard error (fitted) or spread (measured), and
    where it came from."""

    name: str = f.prop(parse=f.text)       # as in the profile, e.g. broker.produce_request_us
    value: float = f.prop(parse=_cost)
    source: str = f.prop(parse=f.one_of("measured", "fitted", "assumed"))
    uncertainty: float | None = f.prop(parse=_number_or_none, default=None)


@dataclass(frozen=True)
class Residual:
    run: str = f.prop(parse=f.text)
    figure: str = f.prop(parse=f.text)
    measured: float = f.prop(parse=_number_or_none)
    fitted: float = f.prop(parse=_number_or_none)


@dataclass(frozen=True)
class Provenance:
    """Where a calibrated profile's figures come from; read and checked, never used by the model."""

    summary: str = f.prop(parse=f.text)
    calibrated_at: str = f.prop(parse=f.text)
    kafka_version: str = f.prop(parse=f.text)
    machine: Machine = f.prop(parse=lambda v, p: f.build(Machine, v, p))
    base_profile: str = f.prop(parse=f.text)
    runs: tuple[CalibrationRun, ...] = f.prop(parse=_items(CalibrationRun), default=())
    parameters: tuple[Parameter, ...] = f.prop(parse=_items(Parameter), default=())
    residuals: tuple[Residual, ...] = f.prop(parse=_items(Residual), default=())


def _provenance(value: Any, path: str) -> str | Provenance:
    """Hand-written profiles say in prose where their figures come from; calibrated ones in a mapping."""
    return f.build(Provenance, value, path) if isinstance(value, dict) else f.text(value, path)


@dataclass(frozen=True)
class CostProfile:
    name: str = f.prop(parse=f.text)
    provenance: str | Provenance = f.prop(parse=_provenance)
    broker: BrokerCosts = f.prop(parse=lambda v, p: f.build(BrokerCosts, v, p))
    client: ClientCosts = f.prop(parse=lambda v, p: f.build(ClientCosts, v, p))
    spark: SparkRates = f.prop(parse=lambda v, p: f.build(SparkRates, v, p))
    scheduler: SchedulerFigures = f.prop(parse=lambda v, p: f.build(SchedulerFigures, v, p),
                                         default_factory=SchedulerFigures)
    streaming: StreamingCosts = f.prop(parse=lambda v, p: f.build(StreamingCosts, v, p),
                                       default_factory=StreamingCosts)
    tls: TlsCosts = f.prop(parse=lambda v, p: f.build(TlsCosts, v, p), default_factory=TlsCosts, unset_unsaid=True)
    # the model's error at its latest validation (none stated: no margin by default)
    error: ModelError | None = f.prop(parse=lambda v, p: f.build(ModelError, v, p), default=None, unset_unsaid=True)

    def with_tls(self, on: bool) -> "CostProfile":
        """This profile's costs on a cluster with TLS ``on`` or off: the same when it was measured so;
        else each wire byte's encryption added or taken off, and without TLS fetch responses zero-copy."""
        if on == self.tls.measured_with:
            return self
        delta = self.tls.byte_ns if on else -self.tls.byte_ns
        broker = dataclasses.replace(self.broker, network_byte_ns=max(0.0, self.broker.network_byte_ns + delta),
                                     follower_byte_ns=max(0.0, self.broker.follower_byte_ns + delta),
                                     fetch_send_byte_ns=None if on else 0.0)
        client = dataclasses.replace(self.client, sender_byte_ns=max(0.0, self.client.sender_byte_ns + delta))
        return dataclasses.replace(self, broker=broker, client=client,
                                   tls=dataclasses.replace(self.tls, measured_with=on))

    @classmethod
    def load(cls, name_or_path: str, field: str = "profile") -> "CostProfile":
        path = Path(name_or_path)
        if not path.suffix:
            path = PROFILE_DIR / f"{name_or_path}.yaml"
        if not path.exists():
            known = ", ".join(sorted(p.stem for p in PROFILE_DIR.glob("*.yaml")))
            raise ScenarioError(field, f"no cost profile {name_or_path!r} (known: {known})")
        raw = read_yaml(path, field)
        return f.build(cls, raw, f"{path.name}")
