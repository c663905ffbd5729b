"""A latency-sensitive neighbour producer: the base of every tenant (workloads.streaming's pipelines
are tenants too, fed by such a producer)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads import _fields as f
from workloads.producer import Client, ProducerConfig
from workloads.sla import Sla, parse_sla
from workloads.units import parse_bytes, parse_record_rate

_positive_bytes = f.positive(parse_bytes)


@dataclass(frozen=True)
class Tenant:
    """A latency-sensitive neighbour producer sharing the cluster."""

    name: str = f.prop(parse=f.client_id)       # its producer's client.id, live
    topic: str = f.prop(parse=f.text)
    rate: float = f.prop(parse=f.positive(parse_record_rate))
    record_size: int = f.prop(parse=_positive_bytes)
    sla: Sla = f.prop("sla_p99", parse_sla)
    client: Client = f.prop()
    producer: ProducerConfig = f.prop()
    keys: int = f.prop(parse=f.non_negative_int, default=0)

    @classmethod
    def build(cls, raw: Any, path: str) -> "Tenant":
        raw = f.require_mapping(raw, path)
        client = Client.build(raw.get("client"), f.join(path, "client"))
        return f.build(cls, raw, path, client=client,
                       producer=ProducerConfig.build(raw.get("producer"), client, f.join(path, "producer")))

    def validate(self, cluster: Any, path: str) -> None:
        """Checks against the cluster beyond the input topic (a streaming tenant's output topic)."""
