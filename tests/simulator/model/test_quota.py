"""producer_byte_rate quotas: ClientQuotaManager's throttle time, and a load held to its bound."""
import pytest

from simulator.model.model import ModelEvaluator
from simulator.model.quota import ByteRateQuota
from workloads import ScenarioError

MB = 1024**2


def test_throttle_is_the_time_the_window_needs_to_fall_back_to_the_bound():
    quota = ByteRateQuota(bound=1 * MB)
    # 20 MB in the first second: the young window counts as 10.5 s (padded to 10 full samples)
    assert quota.record(0.5, 20 * MB) == pytest.approx((20 * MB / 10.5 - MB) / MB * 10.5)   # 9.5 s
    assert quota.throttled == pytest.approx(9.5)


def test_a_rate_within_the_bound_is_not_throttled():
    quota = ByteRateQuota(bound=1 * MB)
    for second in range(30):
        assert quota.record(second + 0.5, 0.9 * MB) == 0.0
    assert quota.throttled == 0.0


def test_old_samples_leave_the_window():
    quota = ByteRateQuota(bound=1 * MB)
    quota.record(0.5, 50 * MB)
    # 12 s later the burst is out of the 11 one-second samples
    assert quota.record(12.5, 0.5 * MB) == 0.0


def test_a_quota_holds_the_load_to_its_bound_after_one_window_of_burst(make_scenario):
    evaluator = ModelEvaluator()
    size = {"dataset": {"files": [{"size": "48MB"}]}}
    free = evaluator.evaluate(make_scenario(size), seed=1)
    held = evaluator.evaluate(make_scenario(size, {"batch": {"quota": {"producer_byte_rate": "2MB/s"}}}), seed=1)
    assert free.summary["quota_throttle_s"] == 0.0
    assert held.summary["quota_throttle_s"] > 0.0
    assert held.summary["record_bytes"] == pytest.approx(free.summary["record_bytes"], rel=1e-6)
    # one broker: the rolling 11 x 1 s window lets about one window's worth through at once,
    # then the job gets the bound: bytes / bound - 11 s <= load <= bytes / bound
    at_bound = held.summary["wire_bytes"] / (2 * MB)
    assert at_bound - 11 <= held.summary["load_seconds"] <= at_bound + 1
    assert free.summary["load_seconds"] < 0.25 * held.summary["load_seconds"]
    assert any("producer_byte_rate" in line for line in held.mechanism)


def test_a_quota_needs_a_byte_rate(make_scenario):
    with pytest.raises(ScenarioError, match=r"^batch\.quota\.producer_byte_rate: "):
        make_scenario({"batch": {"quota": {"producer_byte_rate": "2MB"}}})
