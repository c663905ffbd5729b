"""Cost profiles: the CPU and rate figures the model turns into time.

A profile is a named YAML file in ``workloads/profiles/`` (or a path). Every figure has a
unit in its name and the file says where its numbers come from.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from workloads import _fields as f
from workloads.errors import ScenarioError
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


@dataclass(frozen=True)
class ClientCosts:
    """CPU time on the producer side: the sender thread and the appending threads."""

    sender_request_us: float = f.prop(parse=_cost)
    sender_batch_us: float = f.prop(parse=_cost)
    sender_byte_ns: float = f.prop(parse=_cost)
    compress_byte_ns: dict = f.prop(parse=_codec_costs)


@dataclass(frozen=True)
class SparkRates:
    """Per-core rates of a Spark executor, in bytes of Kafka value per second."""

    append_rate: float = f.prop(parse=f.positive(parse_byte_rate))
    shuffle_append_rate: float = f.prop(parse=f.positive(parse_byte_rate))
    csv_scan_rate: float = f.prop(parse=f.positive(parse_byte_rate))


@dataclass(frozen=True)
class CostProfile:
    name: str = f.prop(parse=f.text)
    provenance: str = f.prop(parse=f.text)
    broker: BrokerCosts = f.prop(parse=lambda v, p: f.build(BrokerCosts, v, p))
    client: ClientCosts = f.prop(parse=lambda v, p: f.build(ClientCosts, v, p))
    spark: SparkRates = f.prop(parse=lambda v, p: f.build(SparkRates, v, p))

    @classmethod
    def load(cls, name_or_path: str, field: str = "profile") -> "CostProfile":
        path = Path(name_or_path)
        if not path.suffix:
            path = PROFILE_DIR / f"{name_or_path}.yaml"
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in PROFILE_DIR.glob("*.yaml")))
            raise ScenarioError(field, f"no cost profile {name_or_path!r} (known: {known})")
        try:
            raw = yaml.safe_load(path.read_text())
        except yaml.YAMLError as error:
            raise ScenarioError(field, f"{path} is not valid YAML: {str(error).splitlines()[0]}") from None
        return f.build(cls, raw, f"{path.name}")
