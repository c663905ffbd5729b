"""What a run shows the world: every socket the stack's processes listen on (Kafka brokers,
the KRaft controller, the JMX exporters, LocalStack's gateway and whatever else they open, TCP
or UDP) is bound to loopback; a cluster that does not answer is one line, not the client's log."""
import ipaddress
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from simulator.live import KafkaCluster
from simulator.live.s3 import LocalStackS3
from workloads import CATALOG


def _address(hex_address: str) -> str:
    """/proc/net/{tcp,udp}[6] local address ("0100007F:1F90") as "127.0.0.1:8080"."""
    host, port = hex_address.split(":")
    raw = bytes.fromhex(host)
    # the kernel writes each 32-bit word in host (little-endian) order
    packed = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    ip = ipaddress.ip_address(packed)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return f"{ip}:{int(port, 16)}"


def bound_sockets(pids: set[int]) -> dict[str, set[str]]:
    """Per pid's command (short), the local addresses of its listening TCP and bound UDP sockets."""
    inodes: dict[str, int] = {}
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes[target[8:-1]] = pid
    found: dict[str, set[str]] = {}
    for table, listening in (("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == listening and fields[9] in inodes:
                command = Path(f"/proc/{inodes[fields[9]]}/comm").read_text().strip()
                found.setdefault(f"{command} ({table})", set()).add(_address(fields[1]))
    return found


def with_descendants(pids: set[int]) -> set[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit():
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            pass
    found, grown = set(pids), True
    while grown:
        grown = False
        for pid, parent in parents.items():
            if parent in found and pid not in found:
                found.add(pid)
                grown = True
    return found


def test_proc_net_addresses_read_as_written():
    assert _address("0100007F:1F90") == "127.0.0.1:8080"
    assert _address("00000000:0035") == "0.0.0.0:53"
    assert _address("00000000000000000000000001000000:0050") == "::1:80"
    assert _address("0000000000000000FFFF00000100007F:0050") == "127.0.0.1:80"


@pytest.mark.live
def test_every_socket_the_stack_listens_on_is_loopback(tmp_path):
    run_dir = tmp_path / "stack"
    runner = CliRunner()
    up = runner.invoke(app, ["stack", "up", "--brokers", "3", "--run-dir", str(run_dir)])
    try:
        assert up.exit_code == 0, up.output
        nodes, s3 = KafkaCluster(run_dir).nodes(), LocalStackS3(run_dir).status()
        sockets = bound_sockets(with_descendants({node.pid for node in nodes} | {s3.pid}))
        addresses = {address for bound in sockets.values() for address in bound}
        known = {node.port for node in nodes} | {node.metrics_port for node in nodes if node.metrics_port} | {s3.port}
        assert len(known) == 3 * 2 + 1 + 1                # brokers: listener and exporter; the controller; LocalStack
        assert {f"127.0.0.1:{port}" for port in known} <= addresses     # the probe sees them all
        assert {(command, address) for command, bound in sockets.items() for address in bound
                if not address.startswith(("127.0.0.1:", "::1:"))} == set()
    finally:
        down = runner.invoke(app, ["stack", "down", "--run-dir", str(run_dir)])
        assert down.exit_code == 0, down.output


@pytest.mark.live
def test_an_unreachable_cluster_is_said_once_without_the_clients_log(tmp_path):
    with socket.socket() as probe:          # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # a process of its own: librdkafka writes its log to file descriptor 2, past any capture
    run = subprocess.run([str(Path(sys.executable).with_name("quietload")), "live", str(CATALOG / "paypay-glue-2gb.yaml"),
                          "--set", "batch.spark.spark.executor.instances=1", "--set", "batch.spark.spark.executor.cores=1",
                          "--bootstrap-servers", f"127.0.0.1:{port}", "--run-dir", str(tmp_path / "run")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert [line.split("] ", 1)[-1] for line in run.stderr.splitlines()] == [
        "live run 1 of 1: paypay-glue-2gb", f"error: --bootstrap-servers: no Kafka broker answers at 127.0.0.1:{port} within 10 s"]
