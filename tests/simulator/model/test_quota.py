"""producer_byte_rate quotas: ClientQuotaManager's throttle time, and a load held to its bound."""
import pytest

from simulator.model.model import ModelEvaluator
from simulator.model.quota import byte_rate_quota, request_time_quota
from workloads import ScenarioError

MB = 1024**2


def test_throttle_is_the_time_the_window_needs_to_fall_back_to_the_bound():
    quota = byte_rate_quota(1 * MB)
    # 20 MB in the first second: the young window counts as 10.5 s (padded to 10 full samples)
    assert quota.record(0.5, 20 * MB) == pytest.approx((20 * MB / 10.5 - MB) / MB * 10.5)   # 9.5 s
    assert quota.throttled == pytest.approx(9.5)


def test_a_rate_within_the_bound_is_not_throttled():
    quota = byte_rate_quota(1 * MB)
    for second in range(30):
        assert quota.record(second + 0.5, 0.9 * MB) == 0.0
    assert quota.throttled == 0.0


def test_old_samples_leave_the_window():
    quota = byte_rate_quota(1 * MB)
    quota.record(0.5, 50 * MB)
    # 12 s later the burst is out of the 11 one-second samples
    assert quota.record(12.5, 0.5 * MB) == 0.0


def test_a_quota_holds_the_load_to_its_bound_after_one_window_of_burst(make_scenario):
    evaluator = ModelEvaluator()
    size = {"dataset": {"files": [{"size": "48MB"}]}}
    free = evaluator.evaluate(make_scenario(size), seed=1)
    held = evaluator.evaluate(make_scenario(size, {"batch": {"quota": {"producer_byte_rate": "2MB/s"}}}), seed=1)
    assert free.summary.quota_throttle_s == 0.0
    assert held.summary.quota_throttle_s > 0.0
    assert held.summary.record_bytes == pytest.approx(free.summary.record_bytes, rel=1e-6)
    # one broker: the rolling 11 x 1 s window lets about one window's worth through at once,
    # then the job gets the bound: bytes / bound - 11 s <= load <= bytes / bound
    at_bound = held.summary.wire_bytes / (2 * MB)
    assert at_bound - 11 <= held.summary.load_seconds <= at_bound + 1
    assert free.summary.load_seconds < 0.25 * held.summary.load_seconds
    assert any("producer_byte_rate" in line for line in held.mechanism)


def test_a_quota_needs_a_byte_rate(make_scenario):
    with pytest.raises(ScenarioError, match=r"^batch\.quota\.producer_byte_rate: "):
        make_scenario({"batch": {"quota": {"producer_byte_rate": "2MB"}}})


def test_request_time_is_recorded_in_percent_of_a_thread_and_throttles_at_most_one_window():
    quota = request_time_quota(50.0)    # half of one handler thread
    # 5 thread-seconds (500 %) in the young window of 10.5 s: 47.6 %, within the bound
    assert quota.record(0.5, 500.0) == 0.0
    # 100 % more: 57.1 % > 50 %: (57.1 - 50) / 50 x 10.5 s = 1.5 s, capped at the 1 s sample window
    assert quota.record(0.6, 100.0) == 1.0
    assert quota.throttled == 1.0


def test_network_thread_time_counts_without_throttling_the_request_that_used_it():
    quota = request_time_quota(50.0)
    quota.record_no_throttle(0.5, 600.0)    # already over the bound, yet nothing is handed out
    assert quota.throttled == 0.0
    assert quota.record(0.6, 1.0) == 1.0    # the next request pays for it


def test_a_request_percentage_quota_stretches_the_load_and_keeps_every_record(make_scenario):
    evaluator = ModelEvaluator()
    size = {"dataset": {"files": [{"size": "48MB"}]}}
    free = evaluator.evaluate(make_scenario(size), seed=1)
    held = evaluator.evaluate(make_scenario(size, {"batch": {"quota": {"request_percentage": 1}}}), seed=1)
    assert free.summary.quota_throttle_s == 0.0
    assert held.summary.quota_throttle_s > 0.0
    assert held.summary.record_bytes == pytest.approx(free.summary.record_bytes, rel=1e-6)
    assert held.summary.load_seconds > 2 * free.summary.load_seconds
    assert any("request_percentage quota of 1 % of a handler thread" in line for line in held.mechanism)


@pytest.mark.parametrize("value, problem", [("0", "must be greater than zero"), ("lots", "expected a percentage")])
def test_a_request_percentage_is_a_positive_percentage(make_scenario, value, problem):
    with pytest.raises(ScenarioError, match=rf"^batch\.quota\.request_percentage: {problem}"):
        make_scenario({"batch": {"quota": {"request_percentage": value}}})
