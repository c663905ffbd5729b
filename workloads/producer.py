"""Kafka clients and their producer configuration, with each client's own defaults.

Defaults follow the clients' sources: kafka-clients ``ProducerConfig.java`` (2.x: acks=1,
no idempotence; 3.x: acks=all with idempotence; 4.x: linger.ms=5, KIP-1030) and
librdkafka's ``CONFIGURATION.md``. Property names are Kafka's own.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.units import parse_bytes, parse_milliseconds
from workloads.versions import known_version, parse_version

CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
CLIENT_KINDS = ("java", "librdkafka")


@dataclass(frozen=True)
class Client:
    """Which producer library, which version: it decides defaults and batching behaviour."""

    kind: str = f.prop(parse=f.one_of(*CLIENT_KINDS), default="java")
    version: tuple[int, int, int] = f.prop(parse=parse_version, default=(3, 9, 0))

    @classmethod
    def build(cls, raw: Any, path: str, version: str | None = None) -> "Client":
        """The client of ``raw``, its version one of its kind's known releases; ``version`` is the
        one the job's platform brings (batch.platform), used where ``raw`` names none."""
        raw = {k: v for k, v in f.require_mapping(raw, path).items() if not (k == "version" and v is None)}
        if version is not None and "version" not in raw:
            raw = {**raw, "version": version}
        client = f.build(cls, raw, path)
        known_version(client.kind, client.version, f.join(path, "version"))
        return client

    @property
    def label(self) -> str:
        return f"{self.kind} {'.'.join(map(str, self.version))}"

    @property
    def partitioner(self) -> str:
        """Null-key partitioning: round-robin before 2.4 (``DefaultPartitioner``: a counter per topic,
        each record the next partition), KIP-480 sticky (2.4-3.2), KIP-794 built-in (3.3+),
        librdkafka's consistent_random with sticky.partitioning.linger.ms."""
        if self.kind == "librdkafka":
            return "librdkafka-sticky"
        if self.version < (2, 4, 0):
            return "round-robin"
        return "kip794" if self.version >= (3, 3, 0) else "kip480"


def client_defaults(client: Client) -> dict[str, Any]:
    """The producer properties a client uses when the job does not set them."""
    if client.kind == "librdkafka":
        return {"batch.size": 1_000_000, "batch.num.messages": 10_000,
                "linger.ms": 5.0 if client.version >= (1, 5, 0) else 0.5,
                "compression.type": "none", "buffer.memory": 1_048_576 * 1024,
                "acks": "all", "enable.idempotence": False,
                "max.in.flight.requests.per.connection": 1_000_000,
                "max.request.size": 1_000_000}
    modern = client.version >= (3, 0, 0)
    return {"batch.size": 16_384, "batch.num.messages": None,
            "linger.ms": 5.0 if client.version >= (4, 0, 0) else 0.0,
            "compression.type": "none", "buffer.memory": 32 * 1024 * 1024,
            "acks": "all" if modern else "1", "enable.idempotence": modern,
            "max.in.flight.requests.per.connection": 5, "max.request.size": 1_048_576}


def parse_acks(value: Any, path: str) -> str:
    """``acks`` as Kafka takes it: 0, 1, all, or -1 (all)."""
    text = str(value).strip().lower()
    text = "all" if text == "-1" else text
    if text not in ("0", "1", "all"):
        raise ScenarioError(path, f"expected 0, 1 or all, got {value!r}")
    return text


def parse_codec(value: Any, path: str) -> str:
    if str(value) not in CODECS:
        raise ScenarioError(path, f"expected one of {', '.join(CODECS)}, got unknown codec {value!r}")
    return str(value)


@dataclass(frozen=True)
class ProducerConfig:
    """Producer properties, fully resolved (defaults filled in) for one client."""

    batch_size: int = f.prop("batch.size", f.positive(parse_bytes))
    linger_ms: float = f.prop("linger.ms", parse_milliseconds)
    compression_type: str = f.prop("compression.type", parse_codec)
    buffer_memory: int = f.prop("buffer.memory", f.positive(parse_bytes))
    acks: str = f.prop("acks", parse_acks)
    enable_idempotence: bool = f.prop("enable.idempotence", f.boolean)
    max_in_flight: int = f.prop("max.in.flight.requests.per.connection", f.positive_int)
    max_request_size: int = f.prop("max.request.size", f.positive(parse_bytes))
    batch_num_messages: int | None = f.prop("batch.num.messages", f.positive_int, default=None)

    @classmethod
    def build(cls, raw: Any, client: Client, path: str) -> "ProducerConfig":
        raw = f.require_mapping(raw, path)
        if client.kind == "java" and "batch.num.messages" in raw:
            raise ScenarioError(f.join(path, "batch.num.messages"), "is a librdkafka property, not the Java client's")
        merged = {key: value for key, value in client_defaults(client).items() if value is not None}
        parsed = f.build(cls, {**merged, **raw}, path)
        parsed = _implied_idempotence(parsed, raw, client, path)
        if parsed.batch_size > parsed.max_request_size:
            raise ScenarioError(f.join(path, "batch.size"),
                                f"{parsed.batch_size} bytes is larger than max.request.size ({parsed.max_request_size} bytes)")
        if parsed.buffer_memory < parsed.batch_size:
            raise ScenarioError(f.join(path, "buffer.memory"),
                                f"{parsed.buffer_memory} bytes cannot hold one batch of batch.size ({parsed.batch_size} bytes)")
        return parsed

    def as_properties(self) -> dict[str, Any]:
        """Kafka property names, sorted, as a client would be configured."""
        return dict(sorted((k, v) for k, v in f.as_mapping(self).items() if v is not None))


def _implied_idempotence(config: ProducerConfig, raw: dict, client: Client, path: str) -> ProducerConfig:
    """Kafka 3.x+: idempotence is on by default but yields to an explicit acks != all or
    max.in.flight > 5; set explicitly, those combinations are configuration errors."""
    conflict = config.acks != "all" or (client.kind == "java" and config.max_in_flight > 5)
    if not config.enable_idempotence or not conflict:
        return config
    if "enable.idempotence" in raw:
        why = "acks must be all" if config.acks != "all" else "max.in.flight.requests.per.connection must be at most 5"
        raise ScenarioError(f.join(path, "enable.idempotence"), f"true requires that {why}")
    return dataclasses.replace(config, enable_idempotence=False)
