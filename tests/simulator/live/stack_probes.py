"""What the live tests look at from outside a stack: ports, processes, a state reached in time."""
import socket
import time
import uuid
from pathlib import Path

# A SASL/PLAIN login made at run time: a copy of a test file anywhere on disk holds no secret
# the tests look for.
USER, PASSWORD = "loader", f"pw-{uuid.uuid4().hex}"
SECURITY = {"QUIETLOAD_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "QUIETLOAD_KAFKA_SASL_MECHANISM": "PLAIN",
            "QUIETLOAD_KAFKA_SASL_USERNAME": USER, "QUIETLOAD_KAFKA_SASL_PASSWORD": PASSWORD}


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def processes_using(run_dir: Path) -> list[int]:
    """Pids whose command line names a file in ``run_dir`` (the JVMs name their properties there)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(run_dir).encode() in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            pass
    return pids


def eventually(probe, done, timeout: float = 10.0):
    """``probe()`` until ``done(value)``; the last value either way."""
    deadline = time.monotonic() + timeout
    while not done(value := probe()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return value
