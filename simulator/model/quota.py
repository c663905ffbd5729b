"""Client quotas as the broker enforces them (ClientQuotaManager, ClientRequestQuotaManager, KIP-219).

A quota records its client's usage in 1-second samples: produce bytes for
``producer_byte_rate``, request-handler thread time in percent of one thread for
``request_percentage`` (network thread time is recorded too, but never throttles by itself).
The rate is the usage of the last 11 samples over the window they span (at least 10 s, as
Kafka's Rate pads a young window). A request that finds the rate above the bound is
throttled for (rate - bound) / bound x window, at most one sample window for request-time
quotas: the broker mutes the connection that long after the response, and the client sends
nothing to that broker meanwhile. The rate and the throttle are the event core's ``RateQuota``,
and a broker's quotas on produce requests its ``ProduceQuotas`` (``core/src/quota.rs``).
"""
from __future__ import annotations

from simulator._core import RateQuota

SAMPLE_SECONDS = 1.0    # quota.window.size.seconds (the core's RateQuota samples as many: 11)
PERCENT_PER_SECOND = 100.0   # ClientRequestQuotaManager.NanosToPercentagePerSecond, per second


def byte_rate_quota(producer_byte_rate: float) -> RateQuota:
    return RateQuota(producer_byte_rate)


def request_time_quota(request_percentage: float) -> RateQuota:
    """Thread time in percent of one thread per second; throttles of at most one sample window."""
    return RateQuota(request_percentage, max_throttle=SAMPLE_SECONDS)
