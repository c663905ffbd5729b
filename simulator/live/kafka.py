"""Real Apache Kafka on loopback (KRaft: one controller and 1-3 brokers) run from Maven Central
jars, as a service of the live stack (``simulator.live.service``: ``start`` cleans first, then
starts; ``stop``; ``clean``). One run directory holds each node's properties, data and log, and
``state.json`` (pids and ports), so ``status`` and ``stop`` work from another process.
"""
from __future__ import annotations

import base64
import os
import re
import socket
import string
import struct
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from simulator.contract.names import STACK_RUN_DIR
from simulator.live.jars import LOCALSTACK, KafkaJars, java_command, resolve_jars
from simulator.live._process import StackError, http_get, last_error, reserve_ports
from workloads.prometheus_text import parse_metrics
from simulator.live.budget import cgroups_available, remove_leftovers
from simulator.live.clients import jaas_config
from simulator.live.service import Recorded, Service
from workloads import Broker, Scenario, ScenarioError

MAX_BROKERS = 3          # each broker is a JVM with a 512 MB heap sharing this machine's cores
CONTROLLER_ID = 1000     # brokers are 0..N-1, as in a scenario's leader placement
BROKER_RUNNING = 3.0     # kafka.server:type=KafkaServer,name=BrokerState once registered and unfenced
# kafka-run-class.sh's JVM flags; log4j2's default console configuration at INFO goes to the node's log.
_JVM_FLAGS = ["-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
              "-XX:+ExplicitGCInvokesConcurrent", "-Djava.awt.headless=true",
              "-Dorg.apache.logging.log4j.level=INFO"]
_HEAP = {"broker": "512m", "controller": "256m"}
# log4j2's console at INFO as by default, and kafka.request.logger at DEBUG into a file of its own:
# a line a completed request, its header (API key, client.id) as JSON
_REQUEST_LOG = string.Template("""status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
appender.requests.type = File
appender.requests.name = REQUESTS
appender.requests.fileName = $file
appender.requests.layout.type = PatternLayout
appender.requests.layout.pattern = %d{UNIX_MILLIS} %m%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.requests.name = kafka.request.logger
logger.requests.level = DEBUG
logger.requests.additivity = false
logger.requests.appenderRef.requests.ref = REQUESTS
""")
_PRODUCE_HEADER = re.compile(r'"requestHeader":\{"requestApiKey":0,[^}]*?"clientId":"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Node:
    """One Kafka process: a broker (client listener ``port``, JMX exporter ``metrics_port``) or the controller."""

    role: str
    node_id: int
    port: int
    metrics_port: int = 0
    pid: int = 0

    @property
    def name(self) -> str:
        return f"broker-{self.node_id}" if self.role == "broker" else "controller"


@dataclass(frozen=True)
class NodeStatus:
    node: Node
    running: bool


class KafkaCluster(Service[list[NodeStatus]]):
    """``brokers`` Kafka brokers and one KRaft controller on 127.0.0.1 with the Prometheus JMX
    exporter on every broker. As a context manager: start on entry; stop and clean on exit."""

    name = "Kafka"
    state_file = "state.json"
    files = re.compile(r"state\.json(\.tmp)?|(controller|broker-\d+)(\.log)?")

    def __init__(self, run_dir: Path | str = STACK_RUN_DIR, brokers: int = 1, broker: Broker = Broker(),
                 replication_factor: int = 1, min_insync_replicas: int = 1, port: int | None = None,
                 start_timeout: float = 90.0, stop_timeout: float = 30.0, sasl_plain: tuple[str, str] | None = None,
                 request_log: bool = False, progress: Callable[[str], None] = lambda line: None) -> None:
        if not 1 <= brokers <= MAX_BROKERS:
            raise ScenarioError("brokers", f"the local stack runs 1 to {MAX_BROKERS} brokers, not {brokers}")
        if replication_factor > brokers:
            raise ScenarioError("replication.factor", f"{replication_factor} needs {replication_factor} brokers; the stack has {brokers}")
        if min_insync_replicas > replication_factor:
            raise ScenarioError("min.insync.replicas", f"{min_insync_replicas} is more than replication.factor {replication_factor}")
        if port is not None and not 1024 <= port <= 65535 - brokers:
            raise ScenarioError("port", f"expected a port from 1024 to {65535 - brokers}, got {port}")
        super().__init__(run_dir, start_timeout, stop_timeout, progress)
        self.brokers, self.port = brokers, port
        self.settings = {"num_network_threads": broker.num_network_threads, "num_io_threads": broker.num_io_threads,
                         "num_replica_fetchers": broker.num_replica_fetchers, "queued_max_requests": broker.queued_max_requests,
                         "replica_fetch_wait_max_ms": round(broker.replica_fetch_wait_max_ms),
                         "replica_fetch_max_bytes": broker.replica_fetch_max_bytes,
                         "default_replication_factor": replication_factor, "min_insync_replicas": min_insync_replicas,
                         "internal_replication_factor": brokers, "internal_min_isr": min(2, brokers),
                         "sasl_plain_user": sasl_plain[0] if sasl_plain else None, "request_log": request_log}
        self._sasl = _sasl_properties(*sasl_plain) if sasl_plain else ""

    @classmethod
    def for_scenario(cls, scenario: Scenario, brokers: int | None = None, **options: Any) -> "KafkaCluster":
        """The scenario's broker settings, replication factor and min.insync.replicas (and broker count unless given)."""
        cluster = scenario.cluster
        if brokers is None and cluster.brokers > MAX_BROKERS:
            raise ScenarioError("cluster.brokers", f"{cluster.brokers} brokers do not fit the local stack (1 to {MAX_BROKERS}): choose a count")
        # the brokers log each request's client.id (kafka.request.logger) where others produce beside a job:
        # each job's requests a second. Not without neighbours (calibrate's runs): a line a request costs CPU
        return cls(brokers=brokers or cluster.brokers, broker=cluster.broker, replication_factor=cluster.replication_factor,
                   min_insync_replicas=cluster.min_insync_replicas,
                   request_log=len(scenario.jobs) > 1 or bool(scenario.tenants), **options)

    # What the run directory records.

    def nodes(self) -> list[Node]:
        return [Node(**node) for node in self.state().get("nodes", [])]

    def processes(self) -> list[Recorded]:
        return [self._recorded(node) for node in self.nodes()]

    def status(self) -> list[NodeStatus]:
        """Each recorded process and whether it still runs (a crashed one shows as not running)."""
        return [NodeStatus(node, self.running(self._recorded(node))) for node in self.nodes()]

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"127.0.0.1:{node.port}" for node in self.nodes() if node.role == "broker")

    def data_dir(self, node: Node) -> Path:
        """The node's ``log.dirs``: its partitions' log segments."""
        return self.run_dir / node.name / "data"

    def log(self, node: Node) -> Path:
        return self.run_dir / f"{node.name}.log"

    # The lifecycle (``Service``'s), and what differs for Kafka.

    def down(self) -> list[NodeStatus]:
        """Stop and clean, and remove the CPU groups of runs killed before they could; what ran
        before (empty if nothing did)."""
        statuses = super().down()
        if cgroups_available() is None:
            remove_leftovers()
        return statuses

    def _check_settings(self) -> None:
        running, wanted = self.state()["settings"], {"brokers": self.brokers, "port": self.port, **self.settings}
        if differing := [f"{key} {running.get(key)} (not {value})" for key, value in wanted.items() if running.get(key) != value]:
            raise StackError(f"a stack with other settings is up in {self.run_dir}: {', '.join(differing)}; "
                             "stop it first (quietload stack down)")

    def _stop_groups(self, processes: list[Recorded]) -> list[list[Recorded]]:
        """Brokers first: their controlled shutdown needs the controller."""
        return [[p for p in processes if p.name != "controller"], [p for p in processes if p.name == "controller"]]

    def _start(self) -> None:
        """Start the controller and the brokers and wait until every broker serves."""
        ids = range(self.brokers)
        java, wanted = java_command(), {"controller": None} | {
            f"broker {i}'s listener": None if self.port is None else self.port + i for i in ids} | {
            f"broker {i}'s exporter": None for i in ids}
        reserve_ports(wanted)   # a taken port fails before a first resolution's seconds, and again after them
        jars = resolve_jars(self.progress)
        ports = reserve_ports(wanted)
        started = time.monotonic()
        self.progress(f"starting Kafka {jars.version}: 1 controller + {self.brokers} broker(s) in {self.run_dir} ...")
        controller = Node("controller", CONTROLLER_ID, ports["controller"])
        brokers = [Node("broker", i, ports[f"broker {i}'s listener"], ports[f"broker {i}'s exporter"]) for i in ids]
        cluster_id = _cluster_id()
        state: dict[str, Any] = {"kafka": f"{jars.version} ({jars.origin})", "cluster_id": cluster_id, "nodes": [],
                                 "settings": {"brokers": self.brokers, "port": self.port, **self.settings}}
        self._format([controller, *brokers], java, jars, cluster_id, controller.port)
        for node in [controller, *brokers]:
            state["nodes"].append(asdict(self._spawn_node(node, java, jars)))
            self._write_state(state)
        self._wait_until_serving()
        self.progress(f"{self.brokers} broker(s) up in {time.monotonic() - started:.1f} s")

    def scrape(self, broker: int = 0) -> dict[str, float]:
        """The broker's JMX exporter metrics (localstack/jmx-exporter.yaml) as ``{'name{labels}': value}``."""
        node = next((n for n in self.nodes() if n.role == "broker" and n.node_id == broker), None)
        if node is None:
            raise StackError(f"broker {broker} is not part of the stack in {self.run_dir}")
        url = f"http://127.0.0.1:{node.metrics_port}/metrics"
        try:
            return parse_metrics(http_get(url))
        except OSError as error:
            raise StackError(f"broker {broker}'s JMX exporter at {url} did not answer: {error}") from None

    # Steps of the lifecycle.

    def _properties(self, node: Node) -> Path:
        return self.run_dir / node.name / "server.properties"

    def _format(self, nodes: list[Node], java: str, jars: KafkaJars, cluster_id: str, controller_port: int) -> None:
        """Render each node's properties and format its storage, all nodes at once (a JVM each)."""
        formats = []
        for node in nodes:
            template = "server.properties.template" if node.role == "broker" else "controller.properties.template"
            (self.run_dir / node.name).mkdir(parents=True)
            self._properties(node).write_text(string.Template((LOCALSTACK / "kafka" / template).read_text()).substitute(
                self.settings, protocol="SASL_PLAINTEXT" if self._sasl else "PLAINTEXT", sasl=self._sasl,
                node_id=node.node_id, port=node.port, log_dirs=self.data_dir(node),
                controller_quorum_voters=f"{CONTROLLER_ID}@127.0.0.1:{controller_port}"))
            with self.log(node).open("ab") as log:
                formats.append(subprocess.Popen([java, "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", jars.classpath,
                                                 "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(self._properties(node))],
                                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT))
        for node, process in zip(nodes, formats):
            if process.wait() != 0:
                raise StackError(f"formatting {node.name}'s storage failed: {last_error(self.log(node))} (log: {self.log(node)})")

    def request_log(self, node: Node) -> Path:
        """The broker's request log (kafka.request.logger at DEBUG): a line a request, with its client.id."""
        return self.run_dir / node.name / "requests.log"

    def produce_requests_by_client(self) -> dict[str, list[float]]:
        """When every broker logged each Produce request it completed (epoch seconds), by the
        client.id in its header (a stack started with ``request_log``; {} without)."""
        counts: dict[str, list[float]] = {}
        for node in self.nodes():
            path = self.request_log(node)
            if node.role != "broker" or not path.is_file():
                continue
            with path.open(encoding="utf-8", errors="replace") as lines:
                for line in lines:
                    if (found := _PRODUCE_HEADER.search(line)) is not None:
                        millis, _, _ = line.partition(" ")
                        counts.setdefault(found.group(1), []).append(int(millis) / 1000.0 if millis.isdigit() else 0.0)
        return counts

    def _spawn_node(self, node: Node, java: str, jars: KafkaJars) -> Node:
        heap = _HEAP[node.role]
        agent = ([f"-javaagent:{jars.agent}=127.0.0.1:{node.metrics_port}:{LOCALSTACK / 'jmx-exporter.yaml'}"]
                 if node.role == "broker" else [])
        if node.role == "broker" and self.settings["request_log"]:
            config = self.run_dir / node.name / "log4j2.properties"
            config.write_text(_REQUEST_LOG.substitute(file=self.request_log(node)))
            agent.append(f"-Dlog4j2.configurationFile={config}")
        process = self._spawn([java, f"-Xms{heap}", f"-Xmx{heap}", *_JVM_FLAGS, *agent, "-cp", jars.classpath,
                               "kafka.Kafka", str(self._properties(node))], self.log(node), cwd=self.run_dir)
        return Node(node.role, node.node_id, node.port, node.metrics_port, process.pid)

    def _wait_until_serving(self) -> None:
        self.progress(f"waiting for the brokers to serve (at most {self.start_timeout:.0f} s) ...")
        deadline, waiting = time.monotonic() + self.start_timeout, [n for n in self.nodes() if n.role == "broker"]
        while waiting:
            for node in self.nodes():
                if not self.running(self._recorded(node)):
                    raise StackError(f"{node.name} exited while starting: {last_error(self.log(node))} (log: {self.log(node)})")
            waiting = [node for node in waiting if not self._serves(node)]
            if waiting and time.monotonic() > deadline:
                raise StackError(f"{waiting[0].name} did not come up within {self.start_timeout:.0f} s (log: {self.log(waiting[0])})")
            time.sleep(0.25 if waiting else 0)

    def _serves(self, node: Node) -> bool:
        """Its exporter shows it RUNNING (registered, unfenced) and its listener answers a Kafka
        request (BrokerState turns RUNNING before the listener is bound, and a connection alone
        could reach another program that took the port)."""
        try:
            return (self.scrape(node.node_id).get("kafka_server_BrokerState_Value") == BROKER_RUNNING
                    and _answers_api_versions(node.port))
        except OSError:
            return False

    def _recorded(self, node: Node) -> Recorded:
        """The node's process: its properties file on its command line marks it as this run directory's."""
        return Recorded(node.name, node.pid, str(self._properties(node)))


def _sasl_properties(username: str, password: str) -> str:
    """SASL/PLAIN on the listener: ``username`` is the one user clients and brokers log in as."""
    jaas = jaas_config("PLAIN", username, password, **{f"user_{username}": password})
    return ("sasl.enabled.mechanisms=PLAIN\nsasl.mechanism.inter.broker.protocol=PLAIN\n"
            f"listener.name.sasl_plaintext.plain.sasl.jaas.config={jaas}\n")


def render_status(cluster: KafkaCluster, statuses: list[NodeStatus]) -> str:
    """What ``quietload stack status`` prints."""
    if not statuses:
        return f"stack in {cluster.run_dir}: down"
    exited = [s.node.name for s in statuses if not s.running]
    lines = [f"stack in {cluster.run_dir}: " + (f"crashed ({', '.join(exited)} exited)" if exited else "up")
             + f", Kafka {cluster.state()['kafka']}", f"bootstrap servers: {cluster.bootstrap_servers}"]
    for s in statuses:
        metrics = f"  metrics http://127.0.0.1:{s.node.metrics_port}/metrics" if s.node.metrics_port else ""
        lines.append(f"  {s.node.name:<10}  pid {s.node.pid:<7}  127.0.0.1:{s.node.port:<5}{metrics}  "
                     + ("running" if s.running else f"exited (log: {cluster.log(s.node)})"))
    return "\n".join(lines)


def render_stopped(cluster: KafkaCluster, statuses: list[NodeStatus]) -> str:
    """What ``quietload stack down`` prints."""
    if not statuses:
        return f"nothing was running in {cluster.run_dir}"
    stopped = ", ".join(s.node.name for s in statuses if s.running) or "nothing"
    exited = ", ".join(s.node.name for s in statuses if not s.running)
    return f"stopped {stopped} in {cluster.run_dir}" + (f" ({exited} had already exited)" if exited else "")


def _answers_api_versions(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a Kafka broker on ``host:port`` answers ApiVersions v0 with no error (a broker
    answers it before any authentication)."""
    request = struct.pack(">hhih", 18, 0, 7, 9) + b"quietload"   # api key, version, correlation id, client id
    with socket.create_connection((host, port), timeout=2) as connection:
        connection.sendall(struct.pack(">i", len(request)) + request)
        response = connection.makefile("rb").read(10)   # size, correlation id, error code
    return len(response) == 10 and struct.unpack(">iih", response)[1:] == (7, 0)


def answers_kafka(bootstrap_servers: str) -> bool:
    """Whether any of the bootstrap servers is a Kafka broker at all, whatever it asks of clients."""
    for server in bootstrap_servers.split(","):
        host, _, port = server.strip().rpartition(":")
        try:
            if _answers_api_versions(int(port), host.strip("[]") or "127.0.0.1"):
                return True
        except (OSError, ValueError, struct.error):
            continue
    return False


def _cluster_id() -> str:
    """A random Kafka Uuid as ``kafka-storage random-uuid`` prints it (never starting with '-')."""
    while (uuid := base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode()).startswith("-"):
        pass
    return uuid
