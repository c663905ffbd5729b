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
from workloads.settings import CLIENT_KINDS, CODECS, PRODUCER, parse_acks, parse_codec, producer_setting
from workloads.versions import known_version, parse_version

__all__ = ["CLIENT_KINDS", "CODECS", "Client", "ProducerConfig", "client_defaults", "parse_acks", "parse_codec"]


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
    """The producer properties a client uses when the job does not set them (workloads.settings)."""
    return {s.name: s.default.of(client) for s in PRODUCER if s.default is not None}


@dataclass(frozen=True)
class ProducerConfig:
    """Producer properties, fully resolved (defaults filled in) for one client."""

    batch_size: int = producer_setting("batch_size").prop()
    linger_ms: float = producer_setting("linger_ms").prop()
    compression_type: str = producer_setting("compression_type").prop()
    buffer_memory: int = producer_setting("buffer_memory").prop()
    acks: str = producer_setting("acks").prop()
    enable_idempotence: bool = producer_setting("enable_idempotence").prop()
    max_in_flight: int = producer_setting("max_in_flight").prop()
    max_request_size: int = producer_setting("max_request_size").prop()
    batch_num_messages: int | None = producer_setting("batch_num_messages").prop(default=None)
    delivery_timeout_ms: float | None = producer_setting("delivery_timeout_ms").prop()

    @classmethod
    def build(cls, raw: Any, client: Client, path: str) -> "ProducerConfig":
        raw = f.require_mapping(raw, path)
        for setting in PRODUCER:
            if client.kind not in setting.clients and setting.name in raw:
                raise ScenarioError(f.join(path, setting.name), f"is a {setting.clients[0]} property, not the Java client's")
        late = {setting.name for setting in PRODUCER if setting.late}   # left unset: workloads.settings.Setting.late
        merged = {key: value for key, value in client_defaults(client).items() if value is not None and key not in late}
        parsed = f.build(cls, {**merged, **raw}, path)
        parsed = _implied_idempotence(parsed, raw, client, path)
        if parsed.batch_size > parsed.max_request_size:
            raise ScenarioError(f.join(path, producer_setting("batch_size").name),
                                f"{parsed.batch_size} bytes is larger than max.request.size ({parsed.max_request_size} bytes)")
        if parsed.buffer_memory < parsed.batch_size:
            raise ScenarioError(f.join(path, producer_setting("buffer_memory").name),
                                f"{parsed.buffer_memory} bytes cannot hold one batch of batch.size ({parsed.batch_size} bytes)")
        for setting in PRODUCER:
            if setting.check is not None:
                parsed = setting.check(parsed, raw, path)
        return parsed

    def evolve(self, values: dict[str, Any], client: Client, path: str) -> "ProducerConfig":
        """This configuration with ``values`` (Kafka's names, values as their parsers give them) set, checked
        as a file's would be: a typed edit (a knob's value, a policy's bound)."""
        return ProducerConfig.build({**self.as_properties(), **values}, client, path)

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
