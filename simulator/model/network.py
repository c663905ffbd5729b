"""A broker's network side, as Kafka's ``SocketServer`` has it (core/.../network/SocketServer.scala,
RequestChannel.scala): the acceptor hands each new connection to a network processor round-robin;
the processor reads a request off the connection and hands it to the request channel, then mutes
the connection (``Processor.processCompletedReceives``: one request per connection inside the
broker); once a handler has put the response in the processor's queue, the processor writes it
(``processNewResponses``) and, when its last byte has left (``processCompletedSends``), unmutes the
connection, and the next request it holds is read. ``RequestChannel.updateRequestMetrics`` times
the request's parts then: RequestQueue (channel to handler), Local (the handler), Remote
(purgatory), ResponseQueue (the response waiting for its processor) and ResponseSend.

Each processor is one thread: its CPU work (per request and per byte read or written) runs on
the broker's cores and in turn with the other connections it serves (``Shared``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from simulator._core import Shared
from simulator.model.fetcher import fetcher_of
from simulator.model.metrics import BrokerMetrics, FloatSamples
from simulator.model.request import ApiKeys, Connection, Request
from workloads.profile import BrokerCosts

if TYPE_CHECKING:
    from simulator.model.broker import Broker

RESPONSE_BYTES = 64


class SocketServer:
    """The acceptor and the network processors of ``broker``."""

    def __init__(self, broker: Broker, metrics: BrokerMetrics, costs: BrokerCosts):
        self.broker = broker
        self.produce_times: dict[str, FloatSamples] = metrics.produce.times
        self.processors: list[Shared] = broker.processors
        self.connections = 0
        self.request_s = costs.network_request_us * 1e-6
        self.byte_s = costs.network_byte_ns * 1e-9
        # a fetch response's bytes: zero-copy (sendfile) without TLS, copied and encrypted with it
        self.send_byte_s = (costs.network_byte_ns if costs.fetch_send_byte_ns is None else costs.fetch_send_byte_ns) * 1e-9
        self.read_done: Callable[[Request], None] = broker.requests.enqueue     # bound once: events are many
        threads = broker.threads
        self.arrive: Callable[[float, float, Connection], float] = broker.nic_in.take
        self.read: Callable[..., tuple[float, float, float]] = threads.receive
        self.work: Callable[[int, float, float, int, Connection], float] = threads.work
        self.write: Callable[..., tuple[float, float, float]] = threads.respond

    def connect(self, client_id: str) -> Connection:
        """Acceptor hands new connections to processors round-robin."""
        self.connections += 1
        return Connection(self.broker, (self.connections - 1) % len(self.processors), client_id)

    def receive(self, request: Request, at: float) -> float:
        """Bytes leave the client at ``at``; returns when the broker has them all. A muted
        connection keeps the request (with its arrival time) until its response is sent."""
        connection = request.connection
        broker = self.broker
        if connection.busy or connection.pending:
            arrived = self.arrive(at, request.size, connection)
            request.t_received = arrived
            connection.pending.append(request)
            return arrived
        # read at once, once the connection is free
        connection.busy = True
        cpu = self.request_s + request.size * self.byte_s
        arrived, request.t_arrive, done = self.read(connection.processor, at, request.size, connection,
                                                    connection.free_at, cpu, broker.requests.busy + broker.fetchers_busy)
        request.t_received = arrived
        broker.at(done, self.read_done, request)
        return arrived

    def _work(self, connection: Connection, start: float, cpu: float) -> float:
        # on the broker's cores (a processor with no work in hand sleeps in select(): it wakes
        # for this one), then in turn with the processor's other connections
        broker = self.broker
        return self.work(connection.processor, start, cpu, broker.requests.busy + broker.fetchers_busy, connection)

    def _read(self, request: Request, start: float) -> None:
        request.connection.busy = True
        request.t_arrive = start
        cpu = self.request_s + request.size * self.byte_s
        self.broker.at(self._work(request.connection, start, cpu), self.read_done, request)

    def respond(self, request: Request, now: float) -> None:
        """The response queued for the connection's processor at ``now``: written, the connection
        unmuted (after a quota's throttle), its next request read, the client told."""
        broker = self.broker
        request.t_complete = now
        connection = request.connection
        size = RESPONSE_BYTES + request.data
        cpu = self.request_s + request.data * self.send_byte_s
        produce = request.api == ApiKeys.PRODUCE
        # a follower's fetch response enters the follower's NIC as it leaves this one's
        from_follower = request.api == ApiKeys.FETCH and request.handler is None
        follower_nic = fetcher_of(request).broker.nic_in if from_follower else None
        # written by the connection's processor, out through the NIC(s); a produce response waits
        # from when the processor's earlier work for the connection is done (begin)
        begin, sent, delivered = self.write(connection.processor, now, cpu, broker.requests.busy + broker.fetchers_busy,
                                            connection, size, produce, follower_nic)
        if produce:
            self._record_produce_times(request, begin, delivered)
        if produce:
            network_s = self.request_s + request.size * self.byte_s + cpu
            broker.quotas.throttle(request, now, network_s)
        connection.busy = False
        connection.free_at = sent + request.throttle     # KIP-219: muted while throttled
        if connection.pending:
            waiting = connection.pending.popleft()
            self._read(waiting, max(connection.free_at, waiting.t_received))
        if not produce or request.acks != "0":
            broker.at(delivered + broker.half_rtt, request.client.response_at, request)

    def _record_produce_times(self, request: Request, response_begin: float, delivered: float) -> None:
        times = self.produce_times
        times["RequestQueueTimeMs"].append(request.t_start - request.t_enqueue)
        times["LocalTimeMs"].append(request.t_local - request.t_start)
        times["RemoteTimeMs"].append(request.t_complete - request.t_local)
        times["ResponseQueueTimeMs"].append(response_begin - request.t_complete)
        times["ResponseSendTimeMs"].append(delivered - response_begin)
        times["TotalTimeMs"].append(delivered - request.t_arrive)
        rows = self.broker.request_log.get(request.connection.client_id)
        if rows is not None:
            rows.add((request.t_arrive, request.t_local - request.t_start, request.t_complete - request.t_local,
                      delivered - request.t_arrive))
