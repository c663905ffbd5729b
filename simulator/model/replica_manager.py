"""A broker's logs and purgatory, as Kafka's ``ReplicaManager`` and ``DelayedOperationPurgatory``
have them (core/.../server/ReplicaManager.scala, DelayedProduce.scala, DelayedFetch.scala): a
produce request's batches appended to their partitions' logs; with ``acks=all`` the request waits
in the produce purgatory until the followers' fetches have moved every partition's high watermark
past its batches (``DelayedProduce``); a follower's fetch reports its log end offsets (which move
the high watermark) and returns what the leader's logs hold beyond them, or waits in the fetch
purgatory until data arrives or ``replica.fetch.wait.max.ms`` passes (``DelayedFetch``). A request
done here goes to its network processor for the response.
"""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Callable

from simulator.model.fetcher import fetcher_of
from simulator.model.metrics import BrokerMetrics
from simulator.model.request import Partition, Request

if TYPE_CHECKING:
    from simulator.model.broker import Broker

FETCH_RESPONSE_MAX = 10 * 1024 * 1024     # replica.fetch.response.max.bytes


class ReplicaManager:
    """The partitions ``broker`` leads: appends, the high watermark, the produce and fetch purgatories."""

    def __init__(self, broker: Broker, metrics: BrokerMetrics, fetch_wait: float, fetch_max: int):
        self.broker = broker
        self.record_produce: Callable[[float, str, float], None] = metrics.produce.record_request   # bound once
        self.record_fetch: Callable[[float], None] = metrics.fetch.record
        self.fetch_wait = fetch_wait                            # replica.fetch.wait.max.ms, in seconds
        self.fetch_max = fetch_max                              # replica.fetch.max.bytes
        self.parked: deque[tuple[float, Request]] = deque()     # (deadline, fetch) in deadline order
        self.sweep_at: float | None = None

    # ---- produce ------------------------------------------------------------------------------
    def append(self, request: Request, now: float) -> None:
        records = 0.0
        wait_for_replicas = request.acks == "all"
        for batch in request.batches:
            records += batch.records
            partition = batch.partition
            partition.leo += batch.wire
            partition.batches += 1
            observer = getattr(partition, "observer", None)
            if observer is not None:
                observer.appended(batch, now)
            if wait_for_replicas and partition.followers:
                partition.waiting.append((partition.leo, request))
                request.pending += 1
            if partition.fetch_waiters:
                waiters, partition.fetch_waiters = partition.fetch_waiters, []
                for fetch in waiters:
                    if fetch.parked:
                        self._complete_fetch(fetch, now)
        self.record_produce(now, request.connection.client_id, records)
        if request.pending == 0:
            self.broker.network.respond(request, now)

    def _advance_hw(self, partition: Partition, now: float) -> None:
        hw = partition.leo
        for follower_leo in partition.follower_leo.values():
            if follower_leo < hw:
                hw = follower_leo
        if hw <= partition.hw:
            return
        partition.hw = hw
        observer = partition.observer
        if observer is not None:
            observer.visible(now)
        waiting = partition.waiting
        while waiting and waiting[0][0] <= hw:
            _, request = waiting.popleft()
            request.pending -= 1
            if request.pending == 0:
                self.broker.network.respond(request, now)

    # ---- fetch (leader side) ----------------------------------------------------------------------
    def fetchable(self, request: Request) -> float:
        total = 0.0
        offsets = request.offsets
        for i, partition in enumerate(request.partitions):
            total += min(partition.leo - offsets[i], self.fetch_max)
        return min(total, FETCH_RESPONSE_MAX)

    def fetch(self, request: Request, now: float) -> None:
        broker = self.broker
        self.record_fetch(now)
        follower = fetcher_of(request).broker.id
        offsets = request.offsets
        for i, partition in enumerate(request.partitions):
            if offsets[i] > partition.follower_leo[follower]:
                partition.follower_leo[follower] = offsets[i]
                self._advance_hw(partition, now)
        if self.fetchable(request) > 0:
            self._complete_fetch(request, now)
            return
        request.parked = True     # DelayedFetch: until data arrives or replica.fetch.wait.max.ms
        for partition in request.partitions:
            partition.fetch_waiters.append(request)
        self.parked.append((now + self.fetch_wait, request))
        if self.sweep_at is None:
            self.sweep_at = now + self.fetch_wait
            broker.at(self.sweep_at, self._expire_fetches, None)

    def _expire_fetches(self, _: object = None) -> None:
        """Fetches that waited replica.fetch.wait.max.ms for data return empty."""
        now = self.broker.engine.now
        parked = self.parked
        while parked and (parked[0][0] <= now or not parked[0][1].parked):
            _, request = parked.popleft()
            if request.parked:
                self._complete_fetch(request, now)
        self.sweep_at = None
        if parked:
            self.sweep_at = parked[0][0]
            self.broker.at(parked[0][0], self._expire_fetches, None)

    def _complete_fetch(self, request: Request, now: float) -> None:
        request.parked = False
        budget = float(FETCH_RESPONSE_MAX)
        ends = request.offsets[:]
        data = batches = 0.0
        for i, partition in enumerate(request.partitions):
            size = min(min(partition.leo - ends[i], self.fetch_max), budget)
            if size > 0.0:
                budget -= size
                data += size
                batches += size * partition.batches / partition.leo
                ends[i] += size
        request.ends = ends
        request.data = data
        request.fetched_batches = batches
        self.broker.network.respond(request, now)
