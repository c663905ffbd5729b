"""What passes between clients and brokers: partitions (their logs' offsets), connections and
requests, and what a broker needs of a client (``Client``, ``Handler``) and of a consumed log
(``LogObserver``).
"""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Final, Protocol

if TYPE_CHECKING:
    from simulator.model.broker import Broker
    from simulator.model.metrics import RequestTimesDuring

# a produce request's (arrival, LocalTimeMs, RemoteTimeMs, TotalTimeMs), in seconds
RequestTimes = tuple[float, float, float, float]
# the request log of the client ids a run keeps (their produce requests' times), by client.id
RequestLog = dict[str, "RequestTimesDuring"]


class ApiKeys:
    """What a request asks for, numbered as Kafka's ``ApiKeys``; a broker routes a request by it
    (``KafkaApis.handle``). A fetch is a follower's (the leader's replica manager serves it) unless
    its client handles it (a consumer's, ``Handler``)."""

    PRODUCE: Final = 0
    FETCH: Final = 1
    LIST_OFFSETS: Final = 2
    OFFSET_COMMIT: Final = 8
    END_TXN: Final = 26


class Client(Protocol):
    """A connection's client as a broker sees it: where its responses go."""

    response_at: Callable[[Request], None]


class Handler(Protocol):
    """A request the broker serves at its client's word (a consumer's fetch, a coordinator's
    call): the handler thread's CPU for it, and what follows once it is handled."""

    def handler_cpu(self, request: Request, broker: Broker) -> float: ...

    def handled(self, request: Request, now: float) -> None: ...


class LogObserver(Protocol):
    """A consumed partition's log (``consumer.InputLog``): told of appends and of the high watermark."""

    def appended(self, batch: Any, now: float) -> None: ...

    def visible(self, now: float) -> None: ...


class Partition:
    __slots__ = ("topic", "index", "leader", "followers", "leo", "hw", "follower_leo", "waiting",
                 "fetch_waiters", "batches", "observer")

    def __init__(self, topic: str, index: int, leader: Broker, followers: list[Broker]):
        self.topic, self.index, self.leader, self.followers = topic, index, leader, followers
        self.leo = 0.0                      # log end offset, in bytes appended
        self.hw = 0.0
        self.follower_leo = {f.id: 0.0 for f in followers}
        self.waiting: deque[tuple[float, Request]] = deque()   # (end offset, request) for acks=all
        self.fetch_waiters: list[Request] = []
        self.batches = 0.0
        self.observer: LogObserver | None = None   # a consumed partition's log (simulator/model/consumer.py)

    def __repr__(self) -> str:
        return f"{self.topic}-{self.index}"


_NO_PARTITIONS: list[Partition] = []   # shared defaults of requests, never mutated
_NO_OFFSETS: list[float] = []
_NO_BATCHES: list[Any] = []


class Request:
    __slots__ = ("api", "connection", "size", "client", "handler", "batches", "acks", "pending", "partitions",
                 "offsets", "ends", "fetched_batches", "throttle", "t_created", "t_received",
                 "t_arrive", "t_enqueue", "t_start", "t_local", "t_complete", "parked", "data")

    def __init__(self, api: int, connection: Connection, size: float, client: Client, handler: Handler | None = None):
        self.api, self.connection, self.size, self.client, self.handler = api, connection, size, client, handler
        self.batches: list[Any] = _NO_BATCHES
        self.acks = "1"
        self.pending = 0
        # fetch requests: the partitions asked for, the follower's offsets, where the response ends
        self.partitions: list[Partition] = _NO_PARTITIONS
        self.offsets: list[float] = _NO_OFFSETS
        self.ends: list[float] = _NO_OFFSETS
        self.fetched_batches = 0.0
        self.throttle = 0.0        # quota throttle time handed back with the response
        self.parked = False
        self.data = 0.0
        self.t_created = self.t_received = self.t_arrive = self.t_enqueue = self.t_start = self.t_local = self.t_complete = 0.0


class Connection:
    """A client's connection to a broker: the broker's side (muting, the requests waiting to
    be read, the client.id its requests carry) and the client's (requests in flight, when the
    last one was fully sent)."""

    __slots__ = ("broker", "processor", "client_id", "busy", "free_at", "pending", "inflight", "send_done")

    def __init__(self, broker: Broker, processor: int, client_id: str):
        self.broker, self.processor, self.client_id = broker, processor, client_id
        self.busy = False
        self.free_at = 0.0
        self.pending: deque[Request] = deque()
        self.inflight = 0
        self.send_done = 0.0
