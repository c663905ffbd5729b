"""The batch job's client quota (Kafka's producer_byte_rate and request_percentage) and the one
client id its producers share, model and live."""
from __future__ import annotations

from dataclasses import dataclass

from workloads.settings import QUOTA, quota_setting

QUOTA_CLIENT_ID = "batch-load"   # the job's producers share it, so the brokers meter them as one client


@dataclass(frozen=True)
class Quota:
    """A client quota on the batch job (all its executors share the client-id
    ``QUOTA_CLIENT_ID``), per broker: bytes per second, and percent of one request-handler
    thread's time (200 = two threads)."""

    producer_byte_rate: float | None = quota_setting("producer_byte_rate").prop(default=None)
    request_percentage: float | None = quota_setting("request_percentage").prop(default=None)

    def settings(self) -> dict[str, float]:
        """The quota's settings that are set, by their kafka-configs names."""
        return {s.name: getattr(self, s.attribute) for s in QUOTA if getattr(self, s.attribute) is not None}
