"""A sender's run in one call into the event core (SenderMetrics): what it counts and returns,
against the host's and the means' own calls."""
from __future__ import annotations

import math

from simulator._core import Batch, Cores, Random, Scheduler, SenderMetrics

EEVDF = Scheduler(base_slice_us=750, tick_hz=250, protected_wake_share=0.06)


def test_a_run_without_a_host_counts_its_first_response_and_is_not_stretched():
    metrics = SenderMetrics()
    assert metrics.read(0.0, 2.0, math.nan) == 1.0
    assert metrics.request_latency.count == 0
    assert metrics.read(0.0, 2.0, 1.5) == 1.0
    assert (metrics.request_latency.count, metrics.request_latency.total) == (1, 0.5)
    assert metrics.wake(0.0, 3.0, 2.75) == (0.0, 1.0)
    assert (metrics.request_latency.count, metrics.request_latency.total) == (2, 0.75)


def test_a_run_on_a_host_is_stretched_as_the_host_stretches_it():
    host, alone = Cores(1, EEVDF, Random.seeded(1)), Cores(1, EEVDF, Random.seeded(1))
    metrics = SenderMetrics(host)
    assert metrics.read(2.0, 1.0, math.nan) == alone.stretch(3.0) == 3.0
    assert metrics.read(0.0, 1.0, math.nan) == alone.stretch(1.0) == 1.0


def test_a_wake_draws_the_hosts_wait_and_reads_only_when_it_waits_not_at_all():
    host, alone = Cores(1, EEVDF, Random.seeded(7)), Cores(1, EEVDF, Random.seeded(7))
    metrics = SenderMetrics(host)
    waits = []
    for _ in range(200):
        wait, stretch = metrics.wake(9.0, 1.0, 0.5)
        expected = alone.wake_delay(9.0)
        assert wait == expected
        assert stretch == (1.0 if wait > 0.0 else alone.stretch(10.0))
        waits.append(wait)
    assert sum(w > 0.0 for w in waits) == 98   # seed 7: 98 of 200 wakes wait for the core
    assert (metrics.request_latency.count, metrics.request_latency.total) == (102, 102 * 0.5)
    assert (host.wakes, host.slow_wakes, host.waited) == (alone.wakes, alone.slow_wakes, alone.waited)


def test_a_drain_counts_its_interval_after_the_first_every_batch_and_what_it_sends():
    metrics = SenderMetrics()
    batches = []
    for wire, records in ((1000.0, 4000.0), (20000.0, 80000.0), (300.0, 600.0)):
        batch = Batch(None, 0.0, 0, "lz4")
        batch.wire, batch.bytes, batch.records = wire, records, 4.0
        batches.append(batch)
    metrics.sent(1.0, [])                           # a drain that made no request counts nothing
    metrics.sent(2.0, [batches[:1]])
    metrics.sent(2.25, [batches[1:2], batches[2:]])
    assert (metrics.drain_interval.count, metrics.drain_interval.total) == (1, 0.25)
    sizes = metrics.batch_sizes
    assert (sum(sizes.wire.counts), sum(sizes.records.counts)) == (3, 3)
    assert (metrics.requests, metrics.batches_sent, metrics.records_sent) == (3, 3, 12.0)
    assert (metrics.wire_sent, metrics.bytes_sent) == (21300.0, 84600.0)
