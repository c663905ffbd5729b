"""The model's error as a margin: a pass within it of an SLA is marginal, with the factor used."""
import pytest

from judging.margin import Margin
from workloads import CostProfile, ScenarioError


def test_every_profile_carries_its_latest_validations_error_with_where_it_came_from():
    for name in ("default", "loopback", "loopback-calibrated"):
        error = CostProfile.load(name).error
        assert (error.commit, error.date, error.neighbour_p99_during, error.produce_requests) == \
            ("8f8eb14", "2026-11-28", 1.68, 3.37)
        assert error.validation == "docs/fidelity.md#on-the-cluster-like-layout-the-model-as-production-runs-it"


def test_the_default_margin_is_the_profiles_neighbour_p99_error_and_the_option_overrides_it():
    assert Margin.of("default").factor == 1.68
    assert Margin.of("default").source.endswith("1.68x off at its latest validation (2026-11-28, 8f8eb14)")
    assert Margin.of("default", 1.2) == Margin(1.2, "--margin")
    assert Margin.of("no-such-profile") == Margin()   # a profile file not here: no figure to take
    with pytest.raises(ScenarioError, match="at least 1"):
        Margin.of("default", 0.5)


def test_a_pass_within_the_factor_of_its_sla_is_marginal_and_names_the_neighbour():
    margin = Margin(1.5, "--margin")
    assert margin.marginal([("api", 6.0, 10.0), ("ledger", 4.0, 10.0)]) == ""   # 6.0 x 1.5 = 9.0: holds with it
    assert margin.marginal([("api", 7.0, 10.0), ("ledger", 4.0, 10.0)]) == (
        "marginal: within the model's error of the SLA (api 7.00 ms x 1.5 = 10.5 ms > SLA 10.0 ms); "
        "the factor: --margin; --margin 1 judges without it")
    assert margin.marginal([("api", 11.0, 10.0)]) == ""     # over its SLA: a fail, not a marginal pass
    assert Margin().marginal([("api", 9.9, 10.0)]) == ""     # no margin


def test_a_trial_holds_with_the_margin_when_each_sla_constraint_leaves_room_for_the_factor():
    margin = Margin(2.0, "--margin")
    assert margin.holds_constraints({"sla:api": -0.5, "deadline": 0.0})            # p99 at half its SLA
    assert not margin.holds_constraints({"sla:api": -0.4})
    assert not margin.holds_constraints({"sla:api": -0.9, "deadline": 0.1})        # the deadline has no margin
