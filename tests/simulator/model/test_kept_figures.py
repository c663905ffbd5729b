"""What a run keeps for its figures while it runs: a neighbour's latencies counted into histograms
as they are acknowledged, with the same figures as from every record's (intended, latency); its
produce requests' times only while they can fall in the load's window; nothing of either that
grows with the load's records."""
from __future__ import annotations

import math
import random

from simulator.contract.histograms import LatencyHistogram
from simulator.model.metrics import SAMPLES_CHUNK, FloatSamples, Latencies, RequestTimesDuring
from simulator.model.model import ModelRun

START, END, SIMULATED = 2.0, 5.5, 7.25
WINDOWS = {"before": (0.0, START), "during": (START, END), "after": (END, SIMULATED)}


def from_every_pair(pairs: list[tuple[float, float]], seconds: int) -> tuple[dict, list]:
    """The figures as a run made them when it kept every record."""
    histograms = {name: LatencyHistogram() for name in WINDOWS}
    per_second = [LatencyHistogram() for _ in range(seconds)]
    for intended, latency in pairs:
        for name, (start, end) in WINDOWS.items():
            if start <= intended < end:
                histograms[name].record(latency)
        if int(intended) < seconds:
            per_second[int(intended)].record(latency)
    return ({name: h.summary() for name, h in histograms.items()},
            [h.percentile(0.99) for h in per_second])


def test_counted_as_acknowledged_gives_the_figures_of_every_record():
    rng = random.Random(7)
    pairs = [(rng.uniform(0.0, SIMULATED - 0.5), rng.lognormvariate(-5.0, 1.5)) for _ in range(5_000)]
    # acknowledged with no latency: on the load's end and on the run's, where only the end decides
    pairs += [(END, 0.0), (SIMULATED, 0.0), (1.0, 0.0)]
    latencies = Latencies(START)
    for intended, latency in sorted(pairs, key=sum):   # in the order they are acknowledged
        if intended + latency > END:
            latencies.end = END
        latencies.record(intended, latency)
    seconds = 8
    histograms = latencies.histograms(WINDOWS)
    assert ({name: h.summary() for name, h in histograms.items()}, latencies.p99_line(seconds)) \
        == from_every_pair(pairs, seconds)
    assert len(latencies) == len(pairs)


def test_a_producer_tells_its_acknowledged_records_in_one_call():
    latencies = Latencies(START)
    latencies([1.0, 2.5, 3.0], 3.0)     # as a producer's on_records_acked: intended send times, then now
    assert len(latencies) == 3
    assert (latencies.before.count, latencies.during.count, latencies.after.count) == (1, 1, 0)
    assert latencies.before.maximum == 2.0 and latencies.during.maximum == 0.5
    assert latencies.undecided == [(3.0, 0.0)]      # acknowledged with no latency: waits for the windows
    latencies.end = 3.0
    latencies.histograms(WINDOWS)
    assert (latencies.during.count, latencies.after.count, latencies.undecided) == (2, 0, [])
    assert latencies.p99_line(4) == [None, 2000.0, 500.0, 0.0]    # by the second each was meant for, in ms


def test_a_latency_counts_in_the_bucket_it_records_in():
    for seconds in (0.0, 1e-7, 1e-6, 2.5e-6, 0.0123, 1.0, 812.5):
        histogram = LatencyHistogram()
        histogram.record(seconds)
        assert histogram.counts == {LatencyHistogram.bucket(seconds): 1}
        assert LatencyHistogram.of_buckets([LatencyHistogram.bucket(seconds)], seconds).summary() == histogram.summary()


def test_request_times_are_kept_only_while_they_can_fall_in_the_load():
    kept = RequestTimesDuring(START)
    for arrival in (0.5, 1.999, 2.0, 3.0, 5.0):
        kept.add((arrival, arrival + 0.1, arrival + 0.2, arrival + 0.3))
    kept.end = END
    for arrival in (5.25, 5.5, 6.0):
        kept.add((arrival, 1.0, 2.0, 3.0))
    assert list(kept.arrivals) == [2.0, 3.0, 5.0, 5.25]
    assert all(isinstance(part, FloatSamples) for part in kept.between(START, END))
    assert [list(part) for part in kept.between(START, END)] == [[2.1, 3.1, 5.1, 1.0], [2.2, 3.2, 5.2, 2.0],
                                                                 [2.3, 3.3, 5.3, 3.0]]


def test_samples_read_back_as_the_list_of_them_would():
    rng = random.Random(3)
    values = [rng.expovariate(1e3) for _ in range(2 * SAMPLES_CHUNK + 5)]
    samples = FloatSamples()
    for value in values:
        samples.append(value)
    assert len(samples) == len(values) and list(samples) == values
    assert sum(samples) == sum(values) and sorted(samples) == sorted(values)
    # the sum and a rank as a list's, without reading them back: a run's mean and p99 of its time parts
    assert samples.total() == sum(values)
    ordered = sorted(values)
    assert [samples.at_rank(rank) for rank in (0, len(values) // 2, len(values) - 1, len(values) + 5)] \
        == [ordered[0], ordered[len(values) // 2], ordered[-1], ordered[-1]]
    assert math.isnan(FloatSamples().at_rank(0)) and FloatSamples().total() == 0.0
    # no array past its chunk: none is ever grown by copying a large one
    assert [len(chunk) for chunk in samples.chunks] == [SAMPLES_CHUNK, SAMPLES_CHUNK, 5]
    # read one by one: no list of float objects (32 bytes a value) made of them all
    values_read = iter(samples)
    assert not isinstance(values_read, list) and next(values_read) == values[0] and list(values_read) == values[1:]


def run(make_scenario, evaluator, files: int) -> ModelRun:
    scenario = make_scenario({
        "dataset": {"files": [{"size": "2MB", "count": files}]},
        "tenants": [{"name": "api", "topic": "bulk", "client": {"kind": "java", "version": "3.6.1"},
                     "rate": "200/s", "record_size": "1KB", "sla_p99": "50ms"}]})
    model = ModelRun(scenario, 1, evaluator)
    model.execute()
    return model


def test_what_a_neighbour_keeps_grows_with_seconds_not_records(make_scenario, evaluator):
    for files in (1, 4):
        model = run(make_scenario, evaluator, files)
        latencies = model.latencies[0]
        seconds = int(model.engine.now) + 1
        # a second per second of the run, two bytes a record, no record waiting for the windows
        assert latencies.seconds_kept <= seconds
        assert latencies.bucket_bytes == 2 * len(latencies) > 0
        assert latencies.undecided == []
        # a window's histogram has a bucket per 1 % of latency, never one per record
        assert all(len(h.counts) < 1_000 for h in latencies.windows.values())
        requests = model.broker_times["api"]
        assert all(model.scenario.load_start <= a < model.load_end for a in requests.arrivals)


def test_a_partitions_replica_lag_is_its_leaders_offset_less_its_slowest_followers(make_scenario, evaluator):
    model = ModelRun(make_scenario({"cluster": {"brokers": 3, "replication.factor": 3,
                                                "topics": [{"name": "bulk", "partitions": 4, "replication.factor": 3}]}}),
                     1, evaluator)
    model.execute()
    partitions = [p for topic in model.partitions.values() for p in topic]
    assert any(p.follower_leo for p in partitions)
    for p in partitions:
        assert p.replica_lag == (p.leo - min(p.follower_leo.values()) if p.follower_leo else None)
    # sampled once a second while the run ran (tests/golden's fixed variant holds a lag that is not 0)
    assert len(model.replica_lag) == int(model.engine.now)
