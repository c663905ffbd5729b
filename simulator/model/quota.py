"""Client quotas as the broker enforces them (ClientQuotaManager, KIP-219).

A producer_byte_rate quota records each produce request's bytes in 1-second samples; the
rate is the bytes of the last 11 samples over the window they span (at least 10 s, as
Kafka's Rate pads a young window). A request that finds the rate above the bound is
throttled for (rate - bound) / bound x window: the broker mutes the connection that long
after the response, and the client sends nothing to that broker meanwhile.
"""
from __future__ import annotations

SAMPLES = 11            # quota.window.num
SAMPLE_SECONDS = 1.0    # quota.window.size.seconds


class ByteRateQuota:
    __slots__ = ("bound", "samples", "first", "throttled")

    def __init__(self, bound: float):
        self.bound = bound
        self.samples: dict[int, float] = {}
        self.first = -1.0
        self.throttled = 0.0    # seconds of throttle handed out

    def record(self, now: float, size: float) -> float:
        """Record a request's bytes; return how long its client is throttled (seconds)."""
        second = int(now // SAMPLE_SECONDS)
        self.samples[second] = self.samples.get(second, 0.0) + size
        oldest = second - SAMPLES + 1
        for stale in [s for s in self.samples if s < oldest]:
            del self.samples[stale]
        if self.first < 0:
            self.first = now
        start = max(min(self.samples) * SAMPLE_SECONDS, self.first - self.first % SAMPLE_SECONDS)
        window = now - start
        full = int(window / SAMPLE_SECONDS)
        if full < SAMPLES - 1:
            window += (SAMPLES - 1 - full) * SAMPLE_SECONDS
        total = 0.0
        for value in self.samples.values():
            total += value
        rate = total / window
        if rate <= self.bound:
            return 0.0
        throttle = (rate - self.bound) / self.bound * window
        self.throttled += throttle
        return throttle
