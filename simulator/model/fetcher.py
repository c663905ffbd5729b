"""A follower's replica fetcher threads, as Kafka's ``ReplicaFetcherThread`` has them: each pulls
the partitions it is given from one leader, appends what comes back on its own thread (on the
follower's cores), and fetches again; partitions go to fetchers by Kafka's own hash."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from simulator.model.engine import Engine
from simulator.model.request import ApiKeys, Partition, Request

if TYPE_CHECKING:
    from simulator.model.broker import Broker


class Fetcher:
    """A replica fetcher thread of ``broker`` pulling the partitions it follows from ``leader``."""

    def __init__(self, engine: Engine, broker: Broker, leader: Broker, partitions: list[Partition]):
        self.engine, self.broker, self.leader, self.partitions = engine, broker, leader, partitions
        self.leo = [0.0] * len(partitions)       # this follower's log end offsets
        self.connection = leader.connect(f"broker-{broker.id}-fetcher")
        self.bytes = 0.0
        self.response_at: Callable[[Request], None] = self.on_response
        self.appended_at: Callable[[Request], None] = self._appended
        self.fetched: Callable[[float, float, float, int], float] = broker.threads.fetched

    def start(self, _: object = None) -> None:
        request = Request(ApiKeys.FETCH, self.connection, 100 + 30 * len(self.partitions), self)
        request.partitions = self.partitions
        request.offsets = self.leo[:]
        self.leader.receive(request, self.engine.now + self.broker.half_rtt)

    def on_response(self, request: Request) -> None:
        """Append what came back (on this thread, sharing the follower's cores), fetch again."""
        now = self.engine.now
        broker = self.broker
        cpu = request.fetched_batches * broker.follower_batch_s + request.data * broker.follower_byte_s
        stall = broker.disk_append(now, request.data)
        took = self.fetched(now, cpu, stall, broker.requests.busy + broker.fetchers_busy)
        broker.fetchers_busy += 1
        self.bytes += request.data
        broker.at(now + took, self.appended_at, request)

    def _appended(self, request: Request) -> None:
        self.broker.fetchers_busy -= 1
        leo, ends = self.leo, request.ends
        for i in range(len(leo)):
            if ends[i] > leo[i]:
                leo[i] = ends[i]
        self.start()


def fetcher_of(request: Request) -> Fetcher:
    """A fetch request's replica fetcher: the follower broker it appends for."""
    fetcher = request.client
    assert isinstance(fetcher, Fetcher)
    return fetcher


def fetcher_id(topic: str, partition: int, fetchers: int) -> int:
    """AbstractFetcherManager.getFetcherId: abs(31 * topic.hashCode + partition) % fetchers."""
    h = 0
    for ch in topic:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    h = h - (1 << 32) if h >= 1 << 31 else h
    value = (31 * h + partition) & 0xFFFFFFFF
    value = value - (1 << 32) if value >= 1 << 31 else value
    return abs(value) % fetchers if value != -(1 << 31) else 0
