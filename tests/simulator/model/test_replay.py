"""The broker alone (simulator/model/replay.py): a request stream of given sizes and cadence against
the model's broker, as bench/BrokerProbe.java replays it against a real one."""
from __future__ import annotations

import pytest

from simulator._core import BATCH_HEADER, PARTITION_HEADER, REQUEST_HEADER
from simulator.model.compression import record_overhead
from simulator.model.replay import VALUE_BYTES, RequestStream, replay

# 4 batches of 16 KB (16 records of 1,000 bytes each) to 4 partitions
STREAM = RequestStream("job", 4, 16 * 1024, "bulk", 4, 0.010)
REQUEST_BYTES = REQUEST_HEADER + 4 * (PARTITION_HEADER + BATCH_HEADER + 16 * (VALUE_BYTES + record_overhead(VALUE_BYTES)))


@pytest.fixture
def scenario(make_scenario):
    return make_scenario({"cluster": {"network_rtt": "0.1ms", "broker": {"vcpus": 1}}})


def test_an_idle_broker_answers_every_request_alike_round_trip_wire_and_its_own_time(scenario):
    figures = replay(scenario, [STREAM], 1.0, seed=1)
    latencies = figures.streams[0].latencies
    assert len(latencies) == 100 == figures.produce_requests
    # the round trip, the request's bytes on the NIC, then the broker's TotalTimeMs: nothing waits
    total = figures.produce_time["TotalTimeMs"]
    expected = 1e-4 + REQUEST_BYTES / scenario.cluster.broker.nic_bandwidth + total
    assert all(latency == pytest.approx(expected, rel=1e-9) for latency in latencies)
    assert figures.produce_time["RequestQueueTimeMs"] == figures.produce_time["ResponseQueueTimeMs"] == 0.0


def test_a_full_in_flight_window_holds_each_write_back_by_what_the_last_answer_took_beyond_the_cadence(scenario):
    # one request in flight, due every 0.5 ms, each answered in 0.93 ms: the k-th write waits k x 0.43 ms
    stream = RequestStream("job", 4, 16 * 1024, "bulk", 4, 0.0005, in_flight=1)
    figures = replay(scenario, [stream], 1.0, seed=1, lead=0.0)
    latency, lags = figures.streams[0].latencies[0], figures.streams[0].lags
    assert len(lags) == 2000 and latency == pytest.approx(0.000933, abs=1e-6)
    assert all(lag == pytest.approx(k * (latency - 0.0005), abs=1e-9) for k, lag in enumerate(lags))


def test_a_stream_is_the_probes_argument():
    assert STREAM.probe_argument() == "job:4:16384:bulk:4:10:5"
    assert STREAM.records_per_batch == 16
