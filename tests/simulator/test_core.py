"""The event core (core/, Rust): its parts against what they must equal, exactly."""
from __future__ import annotations

import math
import random

import pytest

from simulator._core import LatencyHistogram, Random, Shared, SizeHistogram, Timeline


@pytest.mark.parametrize("seed", [1, 2, 0.6180339887, 2**70 + 3])
def test_draws_are_random_randoms_draw_for_draw(seed: float) -> None:
    python = random.Random(seed)
    core = Random(python.getstate())
    for _ in range(2000):
        assert core.random() == python.random()
        assert [core.getrandbits(k) for k in (0, 1, 7, 31, 32, 33, 53, 64)] == \
               [python.getrandbits(k) for k in (0, 1, 7, 31, 32, 33, 53, 64)]
        assert [core.randrange(n) for n in (1, 2, 3, 1000, 2**31 + 5, 2**40)] == \
               [python.randrange(n) for n in (1, 2, 3, 1000, 2**31 + 5, 2**40)]
        assert (core.randrange(3, 17), core.randrange(3, 17, 4), core.randrange(17, 3, -3)) == \
               (python.randrange(3, 17), python.randrange(3, 17, 4), python.randrange(17, 3, -3))
        assert core.gauss(2.0, 0.5) == python.gauss(2.0, 0.5)
        ours, theirs = list(range(40)), list(range(40))
        core.shuffle(ours)
        python.shuffle(theirs)
        assert ours == theirs
        assert core.choice("abcdefg") == python.choice("abcdefg")
    assert core.getstate() == python.getstate()


def test_a_seeded_generator_is_random_randoms_of_that_seed() -> None:
    for seed in (1, 0.25, 2**64 + 1):
        assert Random.seeded(seed).getstate() == random.Random(seed).getstate()


def test_a_state_that_is_not_random_randoms_is_refused() -> None:
    with pytest.raises(ValueError, match="not a random.Random state"):
        Random((2, tuple(range(625)), None))


def test_a_timeline_sums_each_second_and_spreads_an_interval_over_seconds() -> None:
    timeline = Timeline()
    timeline.add(0.5)
    timeline.add(0.75, 2.0)
    timeline.add(3.25, 4.0)
    timeline.add_interval(1.5, 3.25, 2.0)     # 0.5 s in second 1, 1 s in 2, 0.25 s in 3, each x2
    assert timeline.values(5) == [3.0, 1.0, 2.0, 4.5, 0.0]
    assert timeline.values(2) == [3.0, 1.0]
    assert timeline.total(1, 3) == 3.0


def test_a_timelines_total_is_math_fsums() -> None:
    rng = random.Random(5)
    values = [rng.random() * 10 ** rng.randrange(-8, 8) for _ in range(3000)]
    timeline = Timeline()
    for second, value in enumerate(values):
        timeline.add(second + 0.5, value)
    assert timeline.total() == math.fsum(values)
    assert timeline.total(100.0, 2000.0) == math.fsum(values[100:2000])


def test_flows_share_a_resource_evenly_while_they_overlap() -> None:
    nic = Shared(100.0)
    a, b = object(), object()
    assert nic.take(0.0, 100.0, a) == 1.0            # alone: the whole capacity
    assert nic.take(0.5, 100.0, b) == 2.5            # a is busy until 1.0: half the capacity
    assert nic.take(0.5, 50.0, a) == 2.0             # after a's own work, b busy: half again
    assert (nic.busy_until(a), nic.busy_until(b), nic.busy_until(object())) == (2.0, 2.5, 0.0)
    assert nic.free_at == 2.5
    assert nic.used.values(2) == [200.0, 50.0]       # amounts counted in the second each piece starts


def test_a_spread_resource_counts_its_busy_share_over_time() -> None:
    processor = Shared(1.0, spread=True)
    a, b = object(), object()
    processor.take(0.0, 0.5, a)                      # busy [0, 0.5) alone
    processor.take(0.25, 0.5, b)                     # shares with a: [0.25, 1.25) at half
    assert processor.used.values(2) == [0.5 + 0.375, 0.125]


def test_a_latency_counts_in_its_1_percent_bucket_from_one_microsecond() -> None:
    step = math.log(1.01)
    assert LatencyHistogram.STEP == step
    assert [LatencyHistogram.bucket(s) for s in (0.0, 0.5e-6, 1e-6)] == [0, 0, 0]
    assert LatencyHistogram.bucket(1.5e-6) == int(math.log(1.5) / step) + 1 == 41
    assert LatencyHistogram.bucket(0.010) == int(math.log(10_000.0) / step) + 1


def test_a_percentile_is_its_buckets_upper_edge_and_never_over_the_largest() -> None:
    histogram = LatencyHistogram()
    for _ in range(99):
        histogram.record(0.001)
    histogram.record(0.100)
    edge_ms = math.exp(LatencyHistogram.bucket(0.001) * LatencyHistogram.STEP) / 1e3
    assert histogram.summary() == {"count": 100, "p50": edge_ms, "p95": edge_ms, "p99": edge_ms,
                                   "p999": 100.0, "max": 100.0}
    assert histogram.counts == {LatencyHistogram.bucket(0.001): 99, LatencyHistogram.bucket(0.1): 100 - 99}
    assert LatencyHistogram().percentile(0.99) is None and LatencyHistogram().summary()["max"] is None


def test_histograms_add_up_and_rebuild_from_their_buckets() -> None:
    a, b = LatencyHistogram(), LatencyHistogram()
    for seconds in (0.002, 0.004, 0.004):
        a.record(seconds)
    b.record(0.050)
    a.add(b)
    assert (a.count, a.maximum) == (4, 0.050)
    rebuilt = LatencyHistogram.of_buckets([LatencyHistogram.bucket(s) for s in (0.002, 0.004, 0.004, 0.050)], 0.050)
    assert (rebuilt.counts, rebuilt.count, rebuilt.summary()) == (a.counts, a.count, a.summary())


def test_a_batch_of_exactly_a_power_of_two_counts_in_its_own_size_bucket() -> None:
    sizes = SizeHistogram()
    for size in (100.0, 1024.0, 1025.0, 2048.0, 2049.0, 16384.0, 16384.5):
        sizes.record(size)
    assert sizes.counts == [2, 2, 1, 0, 1, 1]          # 16 KiB in (8, 16] KiB, 16384.5 bytes above
    more = SizeHistogram()
    more.record(1e9)
    sizes.add(more)
    assert len(sizes.counts) == 21 and sum(sizes.counts) == 8
