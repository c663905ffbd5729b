"""A run stopped at its verdict: the bound that makes a p99 over its SLA beyond doubt, checked
against the histogram's own percentile, and runs that stop (or do not) on a tiny scenario."""
from __future__ import annotations

import math

import pytest

from simulator.contract.histograms import LatencyHistogram
from simulator.evaluator import RunStopped, StopWhen
from simulator.model.model import ModelRun
from simulator.model.verdict import first_bucket_over, least_window_s, most_records, over_beyond_doubt, sends_before

SLA_MS = 10.0


def _p99(under: int, over: int) -> float:
    histogram = LatencyHistogram()
    for _ in range(under):
        histogram.record(0.001)    # 1 ms: within the SLA
    for _ in range(over):
        histogram.record(SLA_MS * 1.0000001 / 1e3)   # just over it: the bucket edge decides
    return histogram.percentile(0.99)


@pytest.mark.parametrize("most", [1, 2, 99, 100, 101, 199, 200, 250, 1000])
def test_more_over_than_a_hundredth_of_the_most_the_window_holds_puts_every_p99_over(most):
    over = most // 100 + 1
    assert over_beyond_doubt(over, most) and not over_beyond_doubt(over - 1, most)
    # whatever number of records the window ends with, up to the most it can hold
    assert all(_p99(total - over, over) > SLA_MS for total in range(over, most + 1))
    # one fewer, and the window that fills up holds a p99 within the SLA: the bound is exact
    assert over - 1 == 0 or _p99(most - (over - 1), over - 1) <= SLA_MS


@pytest.mark.parametrize("sla_ms", [0.05, 1.0, 9.99, 10.0, 12.5, 800.0])
def test_every_latency_of_the_first_bucket_over_is_over_and_the_bucket_below_is_not_wholly(sla_ms):
    first = first_bucket_over(sla_ms)
    lowest = math.exp((first - 1) * LatencyHistogram.STEP) / 1e3     # ms: its lower edge
    assert lowest > sla_ms and LatencyHistogram.bucket(lowest * 1.000001 / 1e3) == first
    assert LatencyHistogram.bucket(sla_ms / 1e3) < first


def test_the_latencies_from_a_bucket_up_are_those_its_counts_hold_from_it_on():
    histogram = LatencyHistogram()
    for seconds in (0.0005, 0.001, 0.001, 0.0099, 0.0101, 0.02, 0.8):
        histogram.record(seconds)
    first = first_bucket_over(SLA_MS)
    assert histogram.count_from(first) == 3   # 10.1 ms, 20 ms, 800 ms
    assert [histogram.count_from(b) for b in (0, LatencyHistogram.bucket(0.0099), LatencyHistogram.bucket(0.8), 10**6)] == [7, 4, 1, 0]
    assert histogram.count_from(first) == sum(n for bucket, n in histogram.counts.items() if bucket >= first)


def test_the_most_records_a_window_holds_covers_every_send_time_the_rate_makes():
    interval, first = 1 / 300, 0.0021
    sends, t = [], first
    while t < 20.0:
        sends.append(t)
        t += interval     # as the neighbour's producer adds them up
    assert sum(1 for s in sends if 5.0 <= s < 20.0) <= most_records(300, 5.0, 20.0) <= 15 * 300 + 2


NEIGHBOUR = {"tenants": [{"name": "api", "topic": "events", "client": {"kind": "java", "version": "4.1.0"},
                          "rate": "500/s", "record_size": "1KB", "sla_p99": "1ms"}],
             "cluster": {"topics": [{"name": "bulk", "partitions": 4}, {"name": "events", "partitions": 2}]},
             "dataset": {"files": [{"size": "64MB"}]}, "windows": {"max_duration": "30s"}}


def test_a_neighbour_over_its_sla_beyond_doubt_stops_the_run_and_the_full_run_agrees(make_scenario, evaluator):
    scenario = make_scenario(NEIGHBOUR)
    full = evaluator.evaluate(scenario, 1)
    with pytest.raises(RunStopped) as stopped:
        evaluator.evaluate(scenario, 1, stop=StopWhen())
    tenant = full.summary.tenants[0]
    assert tenant.p99_ms_during > tenant.sla_p99_ms == 1.0
    assert stopped.value.reason.startswith("api's p99 during the load over its SLA of 1 ms beyond doubt")
    assert stopped.value.figures["simulated_s"] < full.windows["during"][1]   # before the load ended, even
    assert stopped.value.figures["tenants"]["api"]["p99_ms_during"] > 1.0


def test_a_run_within_its_sla_runs_to_its_end_with_the_same_figures(make_scenario, evaluator):
    scenario = make_scenario(NEIGHBOUR, {"tenants": [{**NEIGHBOUR["tenants"][0], "sla_p99": "5s"}]})
    assert evaluator.evaluate(scenario, 1, stop=StopWhen()).summary == evaluator.evaluate(scenario, 1).summary


def test_a_run_past_the_requests_asked_stops_with_them(make_scenario, evaluator):
    scenario = make_scenario(NEIGHBOUR, {"tenants": [{**NEIGHBOUR["tenants"][0], "sla_p99": "5s"}]})
    full = evaluator.evaluate(scenario, 1)
    with pytest.raises(RunStopped) as stopped:
        evaluator.evaluate(scenario, 1, stop=StopWhen(requests_over=full.summary.produce_requests // 3))
    assert full.summary.produce_requests // 3 < stopped.value.figures["produce_requests"] < full.summary.produce_requests


@pytest.mark.parametrize("over", [1, 2, 30, 101, 5_000])
def test_the_least_load_that_could_hold_is_the_shortest_window_not_beyond_doubt(over):
    rate = 300.0
    least = least_window_s(over, rate)
    assert not over_beyond_doubt(over, most_records(rate, 0.0, least + 1e-6))   # a window that long could hold
    assert over_beyond_doubt(over, most_records(rate, 0.0, least - 1 / rate)) or least < 1 / rate


def test_a_run_beaten_on_both_by_a_held_point_stops_and_one_beaten_on_one_does_not(make_scenario, evaluator):
    scenario = make_scenario(NEIGHBOUR, {"tenants": [{**NEIGHBOUR["tenants"][0], "sla_p99": "5s"}]})
    full = evaluator.evaluate(scenario, 1).summary
    fewer, shorter = full.produce_requests // 3, full.load_seconds / 3
    with pytest.raises(RunStopped, match="beaten by a trial that held: ") as stopped:
        evaluator.evaluate(scenario, 1, stop=StopWhen(beaten_by=((fewer, shorter),)))
    figures = stopped.value.figures
    assert figures["produce_requests"] > fewer and shorter < figures["load_s"] < full.load_seconds
    # more requests but a longer load than the run's (or the reverse): it may be on the front, it runs to its end
    for point in ((fewer, full.load_seconds + 1.0), (full.produce_requests, shorter)):
        assert evaluator.evaluate(scenario, 1, stop=StopWhen(beaten_by=(point,))).summary == full


def test_a_run_past_the_events_asked_stops_as_past_a_single_runs_limit(make_scenario, evaluator):
    scenario = make_scenario(NEIGHBOUR, {"tenants": [{**NEIGHBOUR["tenants"][0], "sla_p99": "5s"}]})
    with pytest.raises(RunStopped, match="past the limit of a single run, its verdict unknown: ") as stopped:
        evaluator.evaluate(scenario, 1, stop=StopWhen(events_over=10_000))
    assert 0 < stopped.value.figures["simulated_s"] < evaluator.evaluate(scenario, 1).summary.simulated_seconds
    assert stopped.value.figures["verdict"] == "unknown"


def test_a_load_past_its_deadline_stops_the_run(make_scenario, evaluator):
    scenario = make_scenario(NEIGHBOUR, {"tenants": [{**NEIGHBOUR["tenants"][0], "sla_p99": "5s"}]},
                             {"check": {"deadline": "1s"}})
    assert evaluator.evaluate(scenario, 1).summary.load_seconds > 2.0
    with pytest.raises(RunStopped, match="past check.deadline 1 s"):
        evaluator.evaluate(scenario, 1, stop=StopWhen())


def test_a_relative_sla_is_judged_once_the_window_alone_is_complete(make_scenario, evaluator):
    scenario = make_scenario(NEIGHBOUR, {"tenants": [{**NEIGHBOUR["tenants"][0], "sla_p99": "1x"}]},
                             {"cluster": {"broker": {"vcpus": 1, "num.io.threads": 1, "num.network.threads": 1}},
                              "batch": {"spark": {"spark.executor.cores": 4}}})   # a small broker the load keeps busy
    full = evaluator.evaluate(scenario, 1)
    tenant = full.summary.tenants[0]
    assert tenant.p99_ms_during > tenant.sla_p99_ms
    with pytest.raises(RunStopped) as stopped:
        evaluator.evaluate(scenario, 1, stop=StopWhen())
    assert stopped.value.figures["tenants"]["api"]["sla_p99_ms"] == tenant.sla_p99_ms   # the very limit the run's end gives
    assert stopped.value.figures["simulated_s"] < full.windows["during"][1]


def test_the_records_meant_before_the_load_are_those_the_window_alone_counts(make_scenario, evaluator):
    run = ModelRun(make_scenario(NEIGHBOUR), 1, evaluator)
    run.execute()
    [tenant] = run.tenants
    assert tenant.latencies.before.count == sends_before(tenant.first_send, tenant.spec.rate, run.night_start) > 0
