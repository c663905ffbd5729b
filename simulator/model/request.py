"""What passes between clients and brokers: partitions (their logs' offsets), connections and
requests, and what a broker needs of a client (``Client``, ``Handler``) and of a consumed log
(``LogObserver``). Partitions, requests and a connection's broker side (``Channel``) are the
event core's (``core/src/request.rs``), as a producer's batches are (``core/src/batch.rs``) and a
client's connection (``Connection``: its requests in flight, ``core/src/network_client.rs``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Final, Protocol

from simulator._core import Channel, Connection, Partition, Request

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


__all__ = ["ApiKeys", "Channel", "Client", "Connection", "Handler", "LogObserver", "Partition", "Request", "RequestLog",
           "RequestTimes"]
