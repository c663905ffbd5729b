"""A streaming pipeline's process never outlives its run: stopped when its start fails (one
error line naming its log, the log kept), and killed when the process that started it dies.
A Kafka Streams pipeline (a real JVM) against a port where no broker listens never reaches
RUNNING, which is all these tests need."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from simulator.live import streaming
from simulator.live._process import StackError
from stack_probes import eventually
from workloads import kinds

NO_BROKER = "127.0.0.1:1"
TENANT = {"name": "enrich", "kind": "kafka-streams", "topic": "in", "output_topic": "out", "rate": "10/s",
          "record_size": "100B", "record_cost": "0us", "sla_p99": "1s", "client": {"kind": "librdkafka", "version": "2.3.0"}}
MARKER = "quietload.streaming.KafkaStreamsPipeline"


def pipelines_running(work: str = "") -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes() if entry.name.isdigit() else b""
        except OSError:
            continue
        if MARKER.encode() in cmdline and work.encode() in cmdline:
            found.append(int(entry.name))
    return found


@pytest.mark.live
def test_a_pipeline_that_does_not_start_is_stopped_and_named(monkeypatch):
    monkeypatch.setattr(streaming, "START_TIMEOUT_S", 8.0)
    tenant = kinds.tenant(dict(TENANT), "tenants[0]")
    pipelines = streaming.StreamingNeighbours([tenant], NO_BROKER)
    with pytest.raises(StackError) as failure:
        with pipelines:
            work = str(pipelines.work)
            assert eventually(lambda: pipelines_running(work), bool, timeout=30.0)
            pipelines.flow()
    message = str(failure.value)
    assert "the kafka-streams pipeline of enrich said nothing of 'quietload: pipeline running' within 8 s" in message
    log = Path(message.rsplit("(log: ", 1)[1].rstrip(")"))
    assert log.is_file() and not any(log.parent.glob("*.properties"))     # the log kept, the settings gone
    assert pipelines_running(work) == []
    log.unlink()
    log.parent.rmdir()


@pytest.mark.live
def test_a_pipeline_dies_with_the_process_that_started_it(tmp_path):
    script = (f"import time, sys; sys.path.insert(0, {str(Path.cwd())!r})\n"
              "from simulator.live.streaming import StreamingNeighbours\n"
              "from workloads import kinds\n"
              f"pipelines = StreamingNeighbours([kinds.tenant({TENANT!r}, 't')], {NO_BROKER!r})\n"
              "pipelines.launch()\n"
              "print(pipelines.work, flush=True)\n"
              "time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        work = parent.stdout.readline().strip()
        assert work and eventually(lambda: pipelines_running(work), bool, timeout=30.0)
    finally:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    assert eventually(lambda: pipelines_running(work), lambda pids: pids == [], timeout=10.0) == []
    subprocess.run(["rm", "-rf", work], check=True)    # what a killed run cannot remove
