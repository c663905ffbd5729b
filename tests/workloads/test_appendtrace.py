"""The append trace's file format (interceptor/'s Recorder) read back, and its figures, on small
traces written here byte for byte as the Recorder writes them."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from workloads import ScenarioError, appendtrace


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _zigzag(value: int) -> bytes:
    return _varint(((value << 1) ^ (value >> 31)) & 0xFFFFFFFF)


def _utf(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def encode(producers: list[str], threads: list[tuple[int, list[tuple]]], dropped: int = 0) -> bytes:
    """threads: (thread id, events); an event is (kind, ns since the anchor, name) for a name, else
    (kind, ns, producer, partition, key bytes, value bytes)."""
    out = bytearray(b"QLTRACE1" + struct.pack(">qqqq", 1_700_000_000 * 10**9, 555, 4242, dropped))
    out += struct.pack(">i", len(producers)) + b"".join(_utf(p) for p in producers)
    out += struct.pack(">i", len(threads))
    for thread_id, events in threads:
        out += struct.pack(">qi", thread_id, len(events))
        last = 0
        for kind, t, *rest in events:
            out += bytes([kind]) + _varint(t - last)
            last = t
            if kind == appendtrace.NAME:
                out += _utf(rest[0])
            else:
                out += _varint(rest[0]) + b"".join(_zigzag(v) for v in rest[1:])
    return bytes(out)


def sends(times_us: list[float], producer: int = 0, value: int = 1000) -> list[tuple]:
    return [(appendtrace.SEND, round(t * 1000), producer, -1, -1, value) for t in times_us]


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "quietload-trace-4242.qltrace"
    path.write_bytes(data)
    return path


def test_a_trace_reads_back_event_for_event(tmp_path: Path) -> None:
    events = [(appendtrace.NAME, 0, "Executor task launch worker for task 0.0"),
              (appendtrace.SEND, 1_000, 1, -1, 16, 1000), (appendtrace.SEND, 3_000, 1, 7, -1, 200_000),
              (appendtrace.NAME, 9_000, "Executor task launch worker for task 1.0")]
    acks = [(appendtrace.ACK, 5_000, 1, 4, 16, 1000), (appendtrace.ERROR, 6_000, 0, -1, -1, -1)]
    trace = appendtrace.read_trace(write(tmp_path, encode(["warm-up", "batch-load"], [(31, events), (32, acks)], dropped=3)))
    assert (trace.pid, trace.dropped, trace.producers, trace.anchor_wall_s) == (4242, 3, ("warm-up", "batch-load"), 1.7e9)
    first, second = trace.threads
    assert first.thread_id == 31
    assert first.names == ((0.0, "Executor task launch worker for task 0.0"), (9e-6, "Executor task launch worker for task 1.0"))
    assert first.sends == ((1e-6, 1, -1, 16, 1000), (3e-6, 1, 7, -1, 200_000))
    assert second.acks == ((5e-6, 1, 4, 16, 1000),)
    assert second.errors == ((6e-6, 0, -1, -1, -1),)


def test_bursts_rate_gaps_and_tasks_of_a_small_trace(tmp_path: Path) -> None:
    # one thread: a burst of 4 (1 us apart) at 0, one lone send at 500 us, a burst of 3 at 1000 us;
    # its mean gap is 1002 us / 8 sends, so a gap under 31.3 us is inside a burst
    times = [0, 1, 2, 3, 500, 1000, 1001, 1002]
    task = ([(appendtrace.NAME, 0, "task 0")] + sends(times[:5], producer=1) + [(appendtrace.NAME, 800_000, "task 1")]
            + sends(times[5:], producer=1))
    other = sends([10, 30], producer=0, value=50)        # another client.id: not counted
    trace = appendtrace.read_trace(write(tmp_path, encode(["warm-up", "batch-load"], [(1, task), (2, other)])))
    found = appendtrace.appends(trace, "batch-load")
    assert (found.client_id, found.records, found.threads) == ("batch-load", 8, 1)
    assert found.seconds == pytest.approx(1002e-6)
    assert found.rate == pytest.approx(8000 / 1002e-6)
    assert found.burst_sizes == (3, 4)
    assert found.burst_share == 7 / 8
    assert found.tasks == pytest.approx((2e-6, 500e-6))      # per task: its first send to its last
    assert found.pauses == 0
    assert appendtrace.quantile(found.gaps, 1.0) == pytest.approx(500e-6)
    assert (appendtrace.figures(found)["burst_size_p50"], appendtrace.figures(found)["burst_size_p90"]) == (3, 4)


def test_the_busiest_client_id_is_the_default(tmp_path: Path) -> None:
    trace = appendtrace.read_trace(write(tmp_path, encode(["a", "b"], [(1, sends([0], producer=0) + sends([1, 5001, 10001], producer=1))])))
    assert appendtrace.appends(trace).client_id == "b"
    assert appendtrace.appends(trace).pauses == 2
    with pytest.raises(ScenarioError, match=r"--client-id: no producer of client.id 'c' in the trace \(it holds a, b\)"):
        appendtrace.appends(trace, "c")


@pytest.mark.parametrize("data, problem", [
    (b"PK\x03\x04", "not an append trace (it should start with QLTRACE1"),
    (encode(["a"], [(1, sends([0, 1]))])[:-3], "ends in the middle of a record"),
    (encode(["a"], [(1, sends([0]))]) + b"\x00", "1 bytes after the last thread"),
    (encode(["a"], [(1, [(7, 0, 0, 0, 0, 0)])]), "an event of kind 7"),
    (encode(["a"], [(1, sends([0], producer=2))]), "an event of producer 2: the file names 1"),
])
def test_a_file_that_is_not_a_whole_trace_is_one_line(tmp_path: Path, data: bytes, problem: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        appendtrace.read_trace(write(tmp_path, data))
    assert str(caught.value).startswith("--trace: ") and problem in str(caught.value)
    assert "\n" not in str(caught.value)


def test_import_trace_gives_the_jobs_append_rate_per_thread(tmp_path: Path) -> None:
    from workloads.imports import Request, build, gather

    # two threads of batch-load, 1,000-byte values: the first sends 4 every 2 ms (1 us apart), 3
    # times; the second 12 records 500 us apart; the warm-up's producer sends one record
    bursty = sends([t + i for t in (0, 2000, 4000) for i in range(4)], producer=1)
    steady = sends([500 * i for i in range(12)], producer=1)
    path = write(tmp_path, encode(["quietload-warm-up", "batch-load"], [(1, sends([0])), (2, bursty), (3, steady)]))
    imported = gather(Request(trace=path))
    assert (imported.trace.records, imported.trace.threads, imported.trace.burst_sizes) == (24, 2, (4, 4, 4))
    # per thread: 4,000 value bytes over 4,003 us; 12,000 over 5,500 us: the median of the two
    rate = (4000 * 3 / 4003e-6 + 12000 / 5500e-6) / 2
    assert imported.trace.thread_rate == pytest.approx(rate)
    scenario = build(imported, "traced").scenario
    assert scenario.batch.spark.append_rate == round(rate)
    assert scenario.batch.spark.executor_cores == 4      # the stated default: a trace is one JVM's
    said = [line for line in scenario.assumptions if "trace" in line]
    assert said == [
        f"From the append trace {path} (client.id 'batch-load'): 24 records of 1,000 value bytes by 2 thread(s) in "
        f"0.0055 s, {rate / 1024**2:.2f} MB/s per appending thread (batch.spark.append_rate), "
        f"{24000 / 5500e-6 / 1024**2:.2f} MB/s in all.",
        "The trace's bursts: 50% of the records came in bursts (median 4 records, every 2 ms on a thread), 2 pauses "
        "of 1 ms or more (0.00399 s); the model's tasks append at a steady rate, so the scenario keeps the rate and not "
        "the bursts."]


def test_import_of_a_trace_with_no_send_is_one_line(tmp_path: Path) -> None:
    from workloads.imports import Request, gather

    path = write(tmp_path, encode(["batch-load"], []))
    with pytest.raises(ScenarioError, match=r"^--trace: .*: no send\(\) recorded: the interceptor saw no record$"):
        gather(Request(trace=path))


def test_each_producers_sends_meet_its_acknowledgements_in_order() -> None:
    # producer 0 (batch-load) on two task threads, its acks on the sender thread; producer 1 is another client
    task_a = appendtrace.ThreadTrace(1, (), sends=((0.000, 0, -1, 0, 10), (0.002, 0, -1, 0, 10)))
    task_b = appendtrace.ThreadTrace(2, (), sends=((0.001, 0, -1, 0, 10), (0.001, 1, -1, 0, 10)))
    sender = appendtrace.ThreadTrace(3, (), sends=(), acks=((0.005, 0, 4, 0, 10), (0.006, 0, 2, 0, 10),
                                                          (0.010, 0, 4, 0, 10), (0.020, 1, 0, 0, 10)))
    trace = appendtrace.AppendTrace(0.0, 1, 0, ("batch-load", "other"), (task_a, task_b, sender))
    assert appendtrace.record_latencies(trace, "batch-load") == pytest.approx([0.005, 0.005, 0.008])
