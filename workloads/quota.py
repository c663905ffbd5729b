"""The batch job's client quota (Kafka's producer_byte_rate and request_percentage) and the one
client id its producers share, model and live."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.units import finite, parse_byte_rate


def _request_percentage(value: Any, path: str) -> float:
    """Kafka's request_percentage: percent of one thread, so above 100 when several threads may be used."""
    try:
        number = float(str(value).strip().rstrip("%").strip())
    except ValueError:
        raise ScenarioError(path, f"expected a percentage of one thread's time like 50 or 250%, got {value!r}") from None
    if not number > 0:
        raise ScenarioError(path, f"must be greater than zero, got {value!r}")
    return finite(number, path, value)


QUOTA_CLIENT_ID = "batch-load"   # the job's producers share it, so the brokers meter them as one client


@dataclass(frozen=True)
class Quota:
    """A client quota on the batch job (all its executors share the client-id
    ``QUOTA_CLIENT_ID``), per broker: bytes per second, and percent of one request-handler
    thread's time (200 = two threads)."""

    producer_byte_rate: float | None = f.prop(parse=f.positive(parse_byte_rate), default=None)
    request_percentage: float | None = f.prop(parse=lambda v, p: _request_percentage(v, p), default=None)

    def settings(self) -> dict[str, float]:
        """The quota's settings that are set, by their kafka-configs names."""
        return {key: value for key, value in (("producer_byte_rate", self.producer_byte_rate),
                                              ("request_percentage", self.request_percentage)) if value is not None}
