"""A bench rig's placement in the model: the broker's core and the probe's, each beside the other
runnable threads counted there; a broker in a cgroup on hosts of the model's own, a broker given its
core whole on the profile's background threads."""
from simulator.live.placement import placed
from workloads import CATALOG, Scenario

SCENARIO = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["profile=loopback", "cluster.brokers=1",
                                                                  "cluster.replication.factor=1",
                                                                  "cluster.min.insync.replicas=1"])


def test_a_broker_in_a_cgroup_runs_on_the_rigs_two_cores_as_hosts():
    rig = placed(SCENARIO, {2: 0.5, 3: 1.25}, 2, 3, broker_vcpus=0.5)
    assert [(h.name, h.cpuset, h.quota_us, h.period_us, h.background) for h in rig.hosts] == [
        ("broker-core", (2,), 2500, 5000, 0.5), ("probe-core", (3,), -1, 100000, 1.25)]
    assert rig.placement.brokers == "broker-core" and rig.profile == SCENARIO.profile


def test_a_broker_given_its_core_whole_adds_each_cores_count_to_the_profiles_background_threads():
    rig = placed(SCENARIO, {0: 0.5, 1: 1.25}, 0, 1)
    before, after = SCENARIO.profile.scheduler, rig.profile.scheduler
    assert (after.broker_background_threads - before.broker_background_threads,
            after.jvm_background_threads - before.jvm_background_threads) == (0.5, 1.25)
    assert rig.hosts == SCENARIO.hosts
