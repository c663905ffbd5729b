import pytest

from workloads import Scenario, ScenarioError
from workloads.broker_types import BROKER_TYPES, SOURCES, broker_settings, broker_type
from workloads.units import parse_byte_rate

MIB = 1024**2


def test_the_table_holds_every_msk_size_by_its_msk_name():
    m5 = [f"kafka.m5.{s}" for s in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge")]
    m7g = [f"kafka.m7g.{s}" for s in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge")]
    express = [name.replace("kafka.", "express.") for name in m7g]
    assert list(BROKER_TYPES) == m5 + m7g + express


def test_every_figure_names_a_known_source():
    for kind in BROKER_TYPES.values():
        assert kind.sources and set(kind.sources) <= set(SOURCES)
        assert ("msk-express" in kind.sources) == kind.express


def test_sizes_double_their_hardware_and_bursts_are_never_below_baselines():
    for family in ("kafka.m5", "kafka.m7g", "express.m7g"):
        kinds = [k for name, k in BROKER_TYPES.items() if name.startswith(family + ".")]
        assert all(b.vcpus > a.vcpus and b.memory_gib == 4 * b.vcpus for a, b in zip(kinds, kinds[1:]))
        assert all(k.network_burst >= k.network_baseline and k.ebs_burst >= k.ebs_baseline for k in kinds)


def test_express_throughput_grows_with_size_up_to_the_published_500_mbps():
    express = [k for k in BROKER_TYPES.values() if k.express]
    assert [round(k.express_ingress / 1e6, 1) for k in express] == [15.6, 31.2, 62.5, 124.9, 250.0, 375.0, 500.0]
    assert all(k.express_egress == pytest.approx(2 * k.express_ingress, rel=0.01) for k in express)
    # MSK throttles at the quota, 1.5 x the recommended ingress
    assert all(k.express_ingress_quota == pytest.approx(1.5 * k.express_ingress, rel=0.01) for k in express)
    assert all(k.express_egress_quota > k.express_egress for k in express)


def test_settings_take_the_burst_or_the_baseline_and_the_volume_bounds_the_disk():
    large = broker_type("kafka.m5.large")
    burst, sustained = broker_settings(large), broker_settings(large, sustained=True)
    assert burst["vcpus"] == sustained["vcpus"] == 2
    assert parse_byte_rate(burst["nic_bandwidth"], "x") == 10e9 / 8        # "up to 10 Gigabit"
    assert parse_byte_rate(sustained["nic_bandwidth"], "x") == 0.75e9 / 8
    # the 250 MiB/s volume is below the 4,750 Mbit/s EBS burst; the 650 Mbit/s EBS baseline below the volume
    assert parse_byte_rate(burst["disk_bandwidth"], "x") == 250 * MIB
    assert parse_byte_rate(sustained["disk_bandwidth"], "x") == 650e6 / 8


def test_an_unknown_broker_type_is_one_line_listing_the_known():
    with pytest.raises(ScenarioError, match=r"^--broker-type: unknown broker type 'm5.large' \(known: kafka.m5.large, "):
        broker_type("m5.large")


def test_a_plan_section_names_broker_types_by_msk_name(tmp_path):
    from workloads import CATALOG
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["plan.broker_type=[kafka.m7g.xlarge]"])
    assert scenario.plan.broker_types == ("kafka.m7g.xlarge",)
    with pytest.raises(ScenarioError, match=r"^plan.broker_type\[0\]: unknown broker type 'm5.xlarge'"):
        Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["plan.broker_type=[m5.xlarge]"])
