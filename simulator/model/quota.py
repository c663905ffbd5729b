"""Client quotas as the broker enforces them (ClientQuotaManager, ClientRequestQuotaManager, KIP-219).

A quota records its client's usage in 1-second samples: produce bytes for
``producer_byte_rate``, request-handler thread time in percent of one thread for
``request_percentage`` (network thread time is recorded too, but never throttles by itself).
The rate is the usage of the last 11 samples over the window they span (at least 10 s, as
Kafka's Rate pads a young window). A request that finds the rate above the bound is
throttled for (rate - bound) / bound x window, at most one sample window for request-time
quotas: the broker mutes the connection that long after the response, and the client sends
nothing to that broker meanwhile. The rate and the throttle are the event core's ``RateQuota``
(``core/src/quota.rs``).
"""
from __future__ import annotations

from typing import Callable, Mapping

from simulator._core import RateQuota
from simulator.model.request import Request
from workloads.quota import Quota

SAMPLE_SECONDS = 1.0    # quota.window.size.seconds (the core's RateQuota samples as many: 11)
PERCENT_PER_SECOND = 100.0   # ClientRequestQuotaManager.NanosToPercentagePerSecond, per second


def byte_rate_quota(producer_byte_rate: float) -> RateQuota:
    return RateQuota(producer_byte_rate)


def request_time_quota(request_percentage: float) -> RateQuota:
    """Thread time in percent of one thread per second; throttles of at most one sample window."""
    return RateQuota(request_percentage, max_throttle=SAMPLE_SECONDS)


class ProduceQuotas:
    """A broker's client quotas on produce requests, by ``client.id`` as kafka-configs sets them, and
    the throttle ``KafkaApis.handleProduceRequest`` hands back: the larger of the byte-rate and the
    request-time throttle; the handler thread's time counts at once, the network threads' without
    throttling."""

    def __init__(self, quotas: Mapping[str, Quota]):
        self.client_quotas: Mapping[str, Quota] = quotas
        self.byte_quotas: dict[str, RateQuota] = {}      # producer_byte_rate, per quota entity (client-id)
        self.request_quotas: dict[str, RateQuota] = {}   # request_percentage, per quota entity
        self.throttle_s = 0.0                            # throttle handed back with produce responses

    def throttle(self, request: Request, now: float, network_s: float) -> None:
        client_id = request.connection.client_id
        config = self.client_quotas.get(client_id)
        throttle = 0.0
        if config is not None and config.producer_byte_rate:
            quota = _quota(self.byte_quotas, client_id, byte_rate_quota, config.producer_byte_rate)
            throttle = quota.record(now, request.size)
        if config is not None and config.request_percentage and request.acks != "0":
            quota = _quota(self.request_quotas, client_id, request_time_quota, config.request_percentage)
            throttle = max(throttle, quota.record(now, (request.t_local - request.t_start) * PERCENT_PER_SECOND))
            quota.record_no_throttle(now, network_s * PERCENT_PER_SECOND)
        request.throttle = throttle
        self.throttle_s += throttle


def _quota(quotas: dict[str, RateQuota], client_id: str, make: Callable[[float], RateQuota], bound: float) -> RateQuota:
    quota = quotas.get(client_id)
    if quota is None:
        quota = quotas[client_id] = make(bound)
    return quota
