"""The model's counters that become the RunResult: per-second timelines, means, the batches a
producer sent, the neighbours' latencies and request times (the histograms themselves are the
contract's: the live stack fills them too).

A run keeps nothing per record or request that a figure does not need: a neighbour's latencies
are counted into histograms as they are acknowledged, and the values an exact mean or
percentile needs are kept as 8-byte floats in arrays (a float object in a list takes 32).
The timelines (``Timeline``), means (``Mean``), a producer's batch sizes (``BatchSizes``), a
neighbour's latencies (``Latencies``), a batch job's record latencies (``RecordLatencies``), a
request kind's counts (``RequestMetrics``), the float samples (``Samples``) and a neighbour's request times (``RequestTimesDuring``) are the event
core's (``core/src/``).
"""
from __future__ import annotations

from typing import Final

from simulator._core import Latencies, RequestMetrics, RequestTimesDuring, Samples, Timeline


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
