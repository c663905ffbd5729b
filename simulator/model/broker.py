"""A Kafka broker: its host (cores, NIC, disk) and its parts, cut where Kafka cuts them.

| part | Kafka's | module |
|---|---|---|
| ``network`` | ``SocketServer``: acceptor, network processors, muting, response send | ``network.py`` |
| ``requests`` | ``RequestChannel`` and ``KafkaRequestHandlerPool``: the queue, the I/O threads | ``handlers.py`` |
| ``replicas`` | ``ReplicaManager``, ``DelayedProduce``/``DelayedFetch`` purgatories | ``replica_manager.py`` |
| ``quotas`` | ``ClientQuotaManager``, ``ClientRequestQuotaManager`` | ``quota.py`` |
| (the follower's) | ``ReplicaFetcherThread`` | ``fetcher.py`` |

A request goes network -> requests -> replicas (or its client's handler) -> network, routed by
its key (``ApiKeys``, as ``KafkaApis.handle`` routes). The broker's metrics (``BrokerMetrics``:
per request kind, as Kafka's ``RequestChannel.Metrics``, and the CPU its threads use) are handed
to the parts that count them, as Kafka hands its metrics objects to each component. All the
broker's threads share its cores (``cpu.Cores``): a thread woken while every core is busy waits
for one, and its CPU work takes longer when more threads are runnable than there are cores.

A broker knows its clients by ``client.id`` only: quotas are configured per client id
(``quotas``), and the time parts of the produce requests of the client ids the run keeps (its
neighbours') go to their rows of the request log (``request_log``, by client id).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from simulator._core import Cores, Random, Scheduler, Shared, Threads
from simulator.model.engine import Engine
from simulator.model.fetcher import Fetcher, fetcher_id
from simulator.model.handlers import RequestHandlerPool
from simulator.model.metrics import PRODUCE_TIME_PARTS, BrokerMetrics, Timeline
from simulator.model.network import SocketServer
from simulator.model.quota import ProduceQuotas
from simulator.model.replica_manager import ReplicaManager
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
        self.at: Callable[[float, Callable[[Any], None], Any], None] = engine.at   # bound once: events are many
        # its host's cores: its own (a broker on a host of its own), or a host it shares
        if cores is None:
            cores = Cores(spec.vcpus, scheduler, rng, background)
        else:
            cores.add_background(background)
        self.cores = cores
        self.member = self.cores.join(self.threads_runnable)
        self.nic_in = Shared(spec.nic_bandwidth)
        self.nic_out = Shared(spec.nic_bandwidth)
        self.disk_bandwidth = spec.disk_bandwidth
        self.dirty_cache = spec.dirty_cache
        self.disk_backlog, self.disk_time = 0.0, 0.0
        self.fetchers_busy = 0
        self.half_rtt = rtt / 2
        self.request_log: RequestLog = request_log if request_log is not None else {}
        self.follower_batch_s = costs.follower_batch_us * 1e-6
        self.follower_byte_s = costs.follower_byte_ns * 1e-9
        # its metrics, named after the broker's own, handed to the parts that count them
        self.metrics = BrokerMetrics()
        self.handler_busy = Timeline()      # the request handlers' busy time and queue (RequestHandlerPool)
        self.queue_area = Timeline()
        # its threads' bursts on its cores (the handlers', fetchers' and network processors')
        self.processors = [Shared(1.0, spread=True) for _ in range(spec.num_network_threads)]
        self.threads = Threads(cores, self.member, rng, jitter, self.processors, self.metrics.cpu_busy,
                               self.handler_busy, self.queue_area, self.nic_in, self.nic_out)
        self.on_core_of: Callable[[float, float, int], float] = self.threads.on_core   # bound once: events are many
        # its parts: each reaches the others through the broker
        self.quotas = ProduceQuotas(quotas or {})
        self.replicas = ReplicaManager(self, self.metrics, spec.replica_fetch_wait_max_ms / 1e3, spec.replica_fetch_max_bytes)
        self.requests = RequestHandlerPool(self, self.metrics, spec.num_io_threads, spec.queued_max_requests, costs)
        self.network = SocketServer(self, self.metrics, costs)
        self.io_threads = spec.num_io_threads

    def __repr__(self) -> str:
        return f"broker-{self.id}"

    @property
    def queue_max(self) -> int:
        return self.requests.queue_max

    @property
    def produce_throttle_s(self) -> float:
        return self.quotas.throttle_s

    def connect(self, client_id: str) -> Connection:
        return self.network.connect(client_id)

    def receive(self, request: Request, at: float) -> float:
        """Bytes leave the client at ``at``; returns when the broker has them all."""
        return self.network.receive(request, at)

    def respond(self, request: Request, now: float) -> None:
        """A request done (its client's handler says so for a consumer's or a coordinator's): its response."""
        self.network.respond(request, now)

    # ---- CPU ----------------------------------------------------------------------------
    def runnable(self, now: float) -> int:
        """Threads of this broker runnable now: busy handlers, fetchers and network processors."""
        return self.requests.busy + self.fetchers_busy + self.threads.processors_runnable(now)

    def threads_runnable(self, now: float) -> float:
        return float(self.runnable(now))

    def on_core(self, now: float, cpu: float, counted: bool) -> float:
        """Wall time a thread takes for ``cpu`` seconds of work starting now (``Threads.on_core``):
        the work at its share of the cores, with the seeded spread of the broker's jitter, and a
        wait for a tick when it wakes behind the host's CPU-bound work (its background, and on a
        shared host the other components' CPU-bound threads). ``counted``: the thread is already
        among the runnable ones."""
        return self.on_core_of(now, cpu, self.requests.busy + self.fetchers_busy - (1 if counted else 0))

    def disk_append(self, now: float, size: float) -> float:
        """Page-cache write; returns the stall once dirty pages exceed what the disk drains."""
        drained = (now - self.disk_time) * self.disk_bandwidth
        self.disk_backlog = max(0.0, self.disk_backlog - drained) + size
        self.disk_time = now
        excess = self.disk_backlog - self.dirty_cache
        return excess / self.disk_bandwidth if excess > 0 else 0.0


def idle_percent(busy: Timeline, threads: int, seconds: int) -> list[float]:
    return [max(0.0, 100.0 * (1.0 - b / threads)) for b in busy.values(seconds)]
