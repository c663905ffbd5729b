"""A follower's replica fetcher threads, as Kafka's ``ReplicaFetcherThread`` has them: each pulls
the partitions it is given from one leader, appends what comes back on its own thread (on the
follower's cores), and fetches again (``Fetcher``, the event core's: ``core/src/fetcher.rs``);
partitions go to fetchers by Kafka's own hash."""
from __future__ import annotations

from simulator._core import Fetcher

__all__ = ["Fetcher", "fetcher_id"]


def fetcher_id(topic: str, partition: int, fetchers: int) -> int:
    """AbstractFetcherManager.getFetcherId: abs(31 * topic.hashCode + partition) % fetchers."""
    h = 0
    for ch in topic:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    h = h - (1 << 32) if h >= 1 << 31 else h
    value = (31 * h + partition) & 0xFFFFFFFF
    value = value - (1 << 32) if value >= 1 << 31 else value
    return abs(value) % fetchers if value != -(1 << 31) else 0
