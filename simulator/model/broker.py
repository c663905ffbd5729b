"""A Kafka broker: its host (cores, NIC, disk) and its server, cut where Kafka cuts it.

| part | Kafka's | in the event core |
|---|---|---|
| network | ``SocketServer``: acceptor, network processors, muting, response send | ``core/src/network.rs`` |
| requests | ``RequestChannel`` and ``KafkaRequestHandlerPool``: the queue, the I/O threads | ``core/src/handlers.rs`` |
| replicas | ``ReplicaManager``, ``DelayedProduce``/``DelayedFetch`` purgatories | ``core/src/replica.rs`` |
| quotas | ``ClientQuotaManager``, ``ClientRequestQuotaManager`` | ``core/src/quota.rs`` |
| (the follower's) | ``ReplicaFetcherThread`` | ``core/src/fetcher.rs`` |

A request goes network -> requests -> replicas (or its client's handler) -> network, routed by
its key (``ApiKeys``, as ``KafkaApis.handle`` routes): the server (``BrokerServer``,
``core/src/broker.rs``) runs its events in the event core without calling Python, and calls
Python at its edges only (a consumer's or a coordinator's ``response_at``, a ``Handler``, a
consumed log's observer): a producer's sender is the core's, its requests and responses native.
The broker's metrics (``BrokerMetrics``: per request kind, as Kafka's ``RequestChannel.Metrics``,
and the CPU its threads use) are handed to the server, as Kafka hands its metrics objects to each
component. All the broker's threads share its cores (``cpu.Cores``): a thread woken while every
core is busy waits for one, and its CPU work takes longer when more threads are runnable than
there are cores.

A broker knows its clients by ``client.id`` only: quotas are configured per client id
(``quotas``), and the time parts of the produce requests of the client ids the run keeps (its
neighbours') go to their rows of the request log (``request_log``, by client id).
"""
from __future__ import annotations

from typing import Mapping

from simulator._core import BrokerServer, Cores, Random, Scheduler, Shared, Threads
from simulator.model.engine import Engine
from simulator.model.fetcher import Fetcher, fetcher_id
from simulator.model.metrics import PRODUCE_TIME_PARTS, BrokerMetrics, Timeline
from simulator.model.request import ApiKeys, Client, Connection, Handler, Partition, Request, RequestLog, RequestTimes
from workloads.profile import BrokerCosts
from workloads.scenario import Broker as BrokerSpec
from workloads.quota import Quota

__all__ = ["ApiKeys", "Broker", "BrokerMetrics", "Client", "Connection", "Fetcher", "Handler", "PRODUCE_TIME_PARTS",
           "Partition", "Request", "RequestLog", "RequestTimes", "fetcher_id", "idle_percent"]


class Broker:
    def __init__(self, engine: Engine, broker_id: int, spec: BrokerSpec, costs: BrokerCosts, rtt: float,
                 rng: Random, jitter: float, scheduler: Scheduler, background: float,
                 quotas: Mapping[str, Quota] | None = None, request_log: RequestLog | None = None,
                 cores: Cores | None = None):
        self.engine, self.id, self.jitter = engine, broker_id, jitter
        # its host's cores: its own (a broker on a host of its own), or a host it shares
        if cores is None:
            cores = Cores(spec.vcpus, scheduler, rng, background)
        else:
            cores.add_background(background)
        self.cores = cores
        self.member = self.cores.join(self.threads_runnable)
        self.nic_in = Shared(spec.nic_bandwidth)
        self.nic_out = Shared(spec.nic_bandwidth)
        self.half_rtt = rtt / 2
        self.request_log: RequestLog = request_log if request_log is not None else {}
        # its metrics, named after the broker's own, handed to the parts that count them
        self.metrics = BrokerMetrics()
        self.handler_busy = Timeline()      # the request handlers' busy time and queue
        self.queue_area = Timeline()
        # its threads' bursts on its cores (the handlers', fetchers' and network processors')
        self.processors = [Shared(1.0, spread=True) for _ in range(spec.num_network_threads)]
        self.threads = Threads(cores, self.member, rng, jitter, self.processors, self.metrics.cpu_busy,
                               self.handler_busy, self.queue_area, self.nic_in, self.nic_out)
        # its server: the socket server, request channel and handlers, replica manager and quotas
        self.server = BrokerServer(engine, broker_id, self.threads, self.nic_in, len(self.processors), rtt, spec, costs,
                                   self.metrics.produce, self.metrics.fetch, quotas or {}, self.request_log)
        self.io_threads = spec.num_io_threads

    def __repr__(self) -> str:
        return f"broker-{self.id}"

    @property
    def queue_max(self) -> int:
        return self.server.queue_max

    @property
    def produce_throttle_s(self) -> float:
        return self.server.produce_throttle_s

    def connect(self, client_id: str) -> Connection:
        """The acceptor hands a new connection to a network processor, round-robin."""
        return Connection(self, self.server.connect(client_id), client_id)

    def receive(self, request: Request, at: float) -> float:
        """Bytes leave the client at ``at``; returns when the broker has them all."""
        return self.server.receive(request, at)

    def respond(self, request: Request, now: float) -> None:
        """A request done (its client's handler says so for a consumer's or a coordinator's): its response."""
        self.server.respond(request, now)

    def threads_runnable(self, now: float) -> float:
        """Threads of this broker runnable now: busy handlers, fetchers and network processors."""
        return self.server.runnable(now)


def idle_percent(busy: Timeline, threads: int, seconds: int) -> list[float]:
    return [max(0.0, 100.0 * (1.0 - b / threads)) for b in busy.values(seconds)]
