"""The model's counters that become the RunResult: per-second timelines, means, the batches a
producer sent, the neighbours' latencies and request times (the histograms themselves are the
contract's: the live stack fills them too).

A run keeps nothing per record or request that a figure does not need: a neighbour's latencies
are counted into histograms as they are acknowledged, and the values an exact mean or
percentile needs are kept as 8-byte floats in arrays (a float object in a list takes 32).
The timelines (``Timeline``), means (``Mean``), a producer's batch sizes (``BatchSizes``), a batch
job's record latencies (``RecordLatencies``), a request kind's counts (``RequestMetrics``), the
float samples (``Samples``) and a neighbour's request times (``RequestTimesDuring``) are the event
core's (``core/src/``).
"""
from __future__ import annotations

import math
from array import array
from typing import Final

from simulator._core import RequestMetrics, RequestTimesDuring, Samples, Timeline
from simulator.contract.histograms import LatencyHistogram


SAMPLES_CHUNK: Final = 8192     # the event core's chunk of samples (its Samples)

# values kept for an exact mean and percentile, in order, in chunks (the event core's, its
# produce time parts filled there): read back as the same floats in the same order as a list's
FloatSamples = Samples


# a request's time parts, as RequestChannel.updateRequestMetrics times them
PRODUCE_TIME_PARTS: Final = ("RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs",
                             "ResponseSendTimeMs", "TotalTimeMs")


def request_times() -> dict[str, FloatSamples]:
    """A request kind's time parts (``RequestMetrics.times``), by part name."""
    return {part: FloatSamples() for part in PRODUCE_TIME_PARTS}


class BrokerMetrics:
    """A broker's metrics, handed to each of its parts (as Kafka hands ``RequestChannel.Metrics``
    to its SocketServer, KafkaApis and handler pool): the produce and fetch requests', and the CPU
    seconds its threads use per second (``cpu_busy``)."""

    __slots__ = ("produce", "fetch", "cpu_busy")

    def __init__(self) -> None:
        self.produce = RequestMetrics(request_times())
        self.fetch = RequestMetrics(request_times())
        self.cpu_busy = Timeline()


class Latencies:
    """A neighbour's records' latencies, counted as they are acknowledged: into the histogram of
    the window each record was meant to be sent in (before, during or after the load, whose end
    is told once known: ``end``) and, for the per-second p99 line, as its histogram bucket (2
    bytes) under the second it was meant for. A record acknowledged with no latency at all could
    still fall on the load's or the run's end: it waits, as it is, for the windows (``histograms``)."""

    __slots__ = ("start", "end", "windows", "before", "during", "after", "buckets", "maxima", "count", "undecided")

    def __init__(self, start: float) -> None:
        self.start = start
        self.end = math.inf
        self.before, self.during, self.after = LatencyHistogram(), LatencyHistogram(), LatencyHistogram()
        self.windows = {"before": self.before, "during": self.during, "after": self.after}
        # 65,536 buckets of 1 % reach e^652 microseconds: 'H' holds any latency a run can have
        self.buckets: dict[int, array[int]] = {}
        self.maxima: dict[int, float] = {}
        self.count = 0
        self.undecided: list[tuple[float, float]] = []

    def __len__(self) -> int:
        return self.count

    def record(self, intended: float, latency: float) -> None:
        self.count += 1
        if latency <= 0.0:
            self.undecided.append((intended, latency))
            return
        index = LatencyHistogram.bucket(latency)
        # acknowledged after it was meant to be sent, so before the load's end (not yet known) or the run's
        if intended < self.start:
            if intended >= 0.0:
                self.before.record_in(index, latency)
        elif intended < self.end:
            self.during.record_in(index, latency)
        else:
            self.after.record_in(index, latency)
        self._by_second(int(intended), index, latency)

    def _by_second(self, second: int, index: int, latency: float) -> None:
        buckets = self.buckets.get(second)
        if buckets is None:
            buckets = self.buckets[second] = array("H")
            self.maxima[second] = latency
        elif latency > self.maxima[second]:
            self.maxima[second] = latency
        buckets.append(index)

    def histograms(self, windows: dict[str, tuple[float, float]]) -> dict[str, LatencyHistogram]:
        """Each window's histogram, once the windows are known (the run is over)."""
        for intended, latency in self.undecided:
            for name, (start, end) in windows.items():
                if start <= intended < end:
                    self.windows[name].record(latency)
            self._by_second(int(intended), LatencyHistogram.bucket(latency), latency)
        self.undecided = []
        return self.windows

    def p99_between(self, start: float, end: float) -> float | None:
        """The p99 (ms) of the records meant to be sent in the seconds from ``start``'s to the one
        ``end`` falls in (a job's load, in whole seconds), after ``histograms``; None for none."""
        first, kept, maximum = int(start), array("H"), 0.0
        for second, buckets in self.buckets.items():
            if first <= second < end:
                kept.extend(buckets)
                maximum = max(maximum, self.maxima[second])
        return LatencyHistogram.of_buckets(kept, maximum).percentile(0.99) if kept else None

    def p99_line(self, seconds: int) -> list[float | None]:
        """Each second's p99 (ms; None for a second with no record), after ``histograms``."""
        return [None if second not in self.buckets else
                LatencyHistogram.of_buckets(self.buckets[second], self.maxima[second]).percentile(0.99)
                for second in range(seconds)]
