"""A neighbour's SLA: an absolute p99 or a factor of its p99 alone; a number without a unit refused."""
import pickle

import pytest

from workloads import CATALOG, Scenario, ScenarioError
from workloads.sla import Sla, parse_sla
from workloads.scenario import load_mapping

PAYPAY = "workloads/catalog/paypay-glue-2gb.yaml"


def test_an_absolute_and_a_relative_sla_parse_and_write_back_as_given():
    assert parse_sla("10ms", "s") == Sla(ms=10.0) and str(parse_sla("10ms", "s")) == "10ms"
    assert parse_sla("0.5s", "s") == Sla(ms=500.0)
    assert parse_sla("1.5x", "s") == Sla(factor=1.5) and str(parse_sla("1.5x", "s")) == "1.5x"


@pytest.mark.parametrize("value, message", [
    (10, "s: 10 has no unit: write a p99 like 10ms, or a factor of the neighbour's p99 alone like 1.5x"),
    ("10", "s: expected a p99 like 10ms, or a factor of the neighbour's p99 alone like 1.5x, got '10'"),
    ("0.5x", "s: a relative SLA is a factor of at least 1 of the p99 alone, got '0.5x'"),
    ("0ms", "s: must be greater than zero, got '0ms'"),
])
def test_a_number_without_a_unit_or_a_factor_below_one_is_refused(value, message):
    with pytest.raises(ScenarioError) as error:
        parse_sla(value, "s")
    assert str(error.value) == message


def test_the_limit_is_the_absolute_p99_or_the_factor_times_the_p99_alone():
    assert Sla(ms=10.0).limit_ms(7.0) == 10.0
    assert Sla(factor=1.5).limit_ms(8.0) == 12.0
    assert Sla(factor=1.5).limit_ms(None) is None


def test_set_takes_either_form_and_refuses_a_bare_number():
    scenario = Scenario.from_mapping(load_mapping(PAYPAY, ["tenants.0.sla_p99=1.5x"]))
    assert [str(t.sla) for t in scenario.tenants] == ["1.5x", "10ms"]
    assert scenario.as_mapping()["tenants"][0]["sla_p99"] == "1.5x"
    with pytest.raises(ScenarioError, match=r"^tenants\[0\]\.sla_p99: 10 has no unit"):
        Scenario.from_mapping(load_mapping(PAYPAY, ["tenants.0.sla_p99=10"]))


def test_an_sla_and_a_scenario_holding_it_survive_pickling():
    """A live run hands its tenants to the neighbours' process (spawned) by pickle."""
    for sla in (Sla(ms=10.0), Sla(factor=1.5)):
        assert pickle.loads(pickle.dumps(sla)) == sla
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["tenants.0.sla_p99=1.5x"])
    assert pickle.loads(pickle.dumps(scenario.tenants)) == scenario.tenants


def test_a_resolved_relative_sla_reads_back_as_written_with_where_its_p99_alone_came_from():
    sla = parse_sla("1.5x", "s").resolved(8.234, "model seeds 1-5")
    assert str(sla) == "1.5x of 8.23ms (model seeds 1-5)" and sla.ms == 12.35 and not sla.relative
    assert parse_sla(str(sla), "s") == sla and sla.limit_ms(99.0) == 12.35
    assert sla.describe() == "12.35 ms (1.5x its p99 alone, 8.23 ms on model seeds 1-5)"
