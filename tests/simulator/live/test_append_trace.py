"""The append-trace interceptor on a real kafka-clients producer against a real broker: the
producer (bench/ProducerProbe.java) sends bursts of 20 records every 10 ms for a second with the
interceptor in its ``interceptor.classes``; the file it leaves is the process it ran."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from simulator.live import KafkaCluster
from simulator.live.jars import INTERCEPTOR_CLASS, interceptor_jar, java_command, resolve_jars
from workloads import appendtrace

pytestmark = pytest.mark.live
PROBE = Path(__file__).parents[3] / "bench" / "ProducerProbe.java"


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    work = tmp_path_factory.mktemp("trace")
    jars = resolve_jars()
    classpath = f"{jars.classpath}:{interceptor_jar()}:{work}"
    subprocess.run([str(Path(java_command()).with_name("javac")), "-d", str(work), "-cp", classpath, str(PROBE)], check=True)
    with KafkaCluster(work / "stack", brokers=1) as cluster:
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
        admin.create_topics([NewTopic("traced", 3, 1)])["traced"].result(timeout=30)
        done = subprocess.run([java_command(), "-cp", classpath, "ProducerProbe", cluster.bootstrap_servers, "traced", "1",
                               "bursts:20:10:1", "700", "probe.warm.s=0", "linger.ms=0", "client.id=probe",
                               f"interceptor.classes={INTERCEPTOR_CLASS}", f"quietload.trace.dir={work / 'out'}"],
                              capture_output=True, text=True, check=True)
    figures = dict(item.split("=") for item in done.stdout.split())
    files = list((work / "out").glob("quietload-trace-*.qltrace"))
    return figures, files


def test_the_trace_holds_every_send_and_ack_of_the_producer(traced):
    figures, files = traced
    assert len(files) == 1                         # one file per JVM: the warm-up producer's and the measured one's
    trace = appendtrace.read_trace(files[0])
    assert trace.producers == ("probe", "probe") and trace.dropped == 0
    records = int(float(figures["records"]))
    assert records == 20 * 100                     # 100 bursts in the second, 20 records each
    sent = [s for t in trace.threads for s in t.sends]
    acked = [a for t in trace.threads for a in t.acks]
    assert len(sent) == len(acked) == records
    assert {(s[2], s[3], s[4]) for s in sent} == {(-1, -1, 700)}          # no partition asked, no key, 700 bytes
    assert {a[2] for a in acked} <= {0, 1, 2} and {(a[3], a[4]) for a in acked} == {(-1, 700)}
    senders = [t for t in trace.threads if t.sends]
    assert [t.names[0][1] for t in senders] == ["appender-0"]
    ackers = [t for t in trace.threads if t.acks]
    assert [t.names[0][1].startswith("kafka-producer-network-thread") for t in ackers] == [True]


def test_the_append_process_is_read_from_the_trace_as_the_producer_ran_it(traced):
    """What the trace says of the process that holds on any machine: every record and its ack, one
    appending thread, a gap between each of its sends and the next. When the sends came (the first
    waits for the topic's metadata; a busy machine splits or merges bursts) is bench/traces.py's to
    measure; tests/workloads/test_appendtrace.py finds bursts exactly in hand-built traces."""
    _, files = traced
    found = appendtrace.appends(appendtrace.read_trace(files[0]), "probe")
    assert found.records == 2000 and found.threads == 1 and found.acks == 2000 and found.failed == 0
    assert len(found.gaps) == 1999 and found.seconds > 0
