"""Placement (workloads/placement.py, simulator/model/cpu.py): components placed on one host share
its cores and wait for each other; a component not placed has a host of its own."""
from __future__ import annotations


import pytest

from simulator._core import Cores, Random, Scheduler
from simulator.model.model import ModelRun
from workloads import ScenarioError

EEVDF = Scheduler(base_slice_us=750, tick_hz=250, protected_wake_share=0.06)

# two 1 KB neighbours at 500 records a second beside the load
NEIGHBOURS = {"cluster": {"topics": [{"name": "bulk", "partitions": 4}, {"name": "events", "partitions": 2}]},
              "tenants": [{"name": n, "topic": "events", "client": {"kind": "java", "version": "3.6.1"}, "rate": "500/s",
                           "record_size": "1KB", "sla_p99": "10ms"} for n in ("payments", "fraud")]}
# one core with two CPU-bound threads always runnable besides what is placed there
NODE = {"hosts": [{"name": "node", "cores": 1, "background": 2.0}]}


def test_components_on_one_host_count_each_others_runnable_threads():
    cores = Cores(1, EEVDF, Random.seeded(1))
    busy = {"broker": 2.0, "executor": 3.0}
    broker = cores.join(lambda now: busy["broker"])
    executor = cores.join(lambda now: busy["executor"], cpu_bound=True)
    assert cores.shared
    assert (cores.others(broker, 0.0), cores.others(executor, 0.0)) == (3.0, 2.0)
    # a woken thread waits behind CPU-bound threads only: the broker's, which sleep between bursts, do not hold it
    assert (cores.others_bound(broker, 0.0), cores.others_bound(executor, 0.0)) == (3.0, 0.0)


def test_a_component_alone_on_its_host_sees_no_others():
    cores = Cores(1, EEVDF, Random.seeded(1))
    only = cores.join(lambda now: 5.0)
    assert not cores.shared and cores.others(only, 0.0) == 0.0


def test_neighbours_not_placed_have_hosts_of_their_own_and_never_wait(make_scenario, traced_run):
    run = traced_run(make_scenario(NEIGHBOURS, NODE))
    run.execute()
    hosts = [t.producer.sender.host for t in run.tenants]
    assert hosts[0] is not hosts[1] and all(h.wakes == 0 for h in hosts)
    assert run.hosts["node"].members == []


def test_two_neighbours_sharing_a_busy_node_wait_for_it_and_see_each_other(make_scenario, traced_run):
    run = traced_run(make_scenario(NEIGHBOURS, NODE, {"placement": {"neighbours": "node"}}))
    run.execute()
    node = run.hosts["node"]
    assert [t.producer.sender.host for t in run.tenants] == [node, node]
    assert len(node.members) == 2 and node.shared
    # every wake of either sender finds the core held by the node's two CPU-bound threads (and at times
    # the other sender): 267 of them wait for a tick, 0.97 s in all; on hosts of their own none waits
    assert (node.wakes, node.slow_wakes) == (3553, 267)
    assert node.waited == pytest.approx(0.97129, abs=1e-5)


def test_a_broker_sharing_one_core_with_the_executor_waits_behind_its_task_thread(make_scenario, traced_run):
    own = traced_run(make_scenario())
    own.execute()
    assert own.brokers[0].cores.wakes == 0          # 1 core of its own, 0.1 threads of background: never waits
    shared = traced_run(make_scenario({"hosts": [{"name": "rig", "cores": 1}],
                                       "placement": {"brokers": "rig", "executors": "rig"}}))
    shared.execute()
    rig = shared.hosts["rig"]
    assert shared.brokers[0].cores is rig and shared.loads[0].executors[0].host is rig
    # the executor's JVM and the broker bring their profile's background to the host: 0.4 + 0.1
    assert rig.background == pytest.approx(0.5)
    # the broker's threads and the sender wake behind the task thread: 301 wakes find the core busy, 34 wait a tick
    assert (rig.wakes, rig.slow_wakes) == (301, 34)
    # the broker's work stretches behind the task thread: its produce requests take longer
    def local_ms(run: ModelRun) -> float:
        times = list(run.brokers[0].metrics.produce.times["LocalTimeMs"])
        return 1e3 * sum(times) / len(times)
    assert local_ms(shared) > 1.9 * local_ms(own)


@pytest.mark.parametrize("placement, hosts, field", [
    ({"brokers": "nowhere"}, [{"name": "node", "cores": 1}], "placement.brokers"),
    ({"brokers": ["node", "node"]}, [{"name": "node", "cores": 1}], "placement.brokers"),
    ({"neighbours": {"nobody": "node"}}, [{"name": "node", "cores": 1}], "placement.neighbours.nobody"),
    ({}, [{"name": "node", "cores": 1}, {"name": "node", "cores": 2}], "hosts[1].name"),
    ({}, [{"name": "node", "cpuset.cpus": "3-1"}], "hosts[0].cpuset.cpus"),
    ({}, [{"name": "node", "cpu.cfs_quota_us": 10}], "hosts[0].cpu.cfs_quota_us"),
    ({}, [{"name": "node", "cores": 2, "cpuset.cpus": "0"}], "hosts[0].cores"),
    ({"executor": "node"}, [{"name": "node", "cores": 1}], "placement.executor"),
])
def test_a_bad_placement_names_its_field(make_scenario, placement, hosts, field):
    with pytest.raises(ScenarioError) as error:
        make_scenario({"hosts": hosts, "placement": placement})
    assert error.value.field == field


def test_a_hosts_cpu_is_its_cpusets_cores_at_most_its_quotas_share(make_scenario):
    scenario = make_scenario({"hosts": [{"name": "rig", "cpuset.cpus": "0-1", "cpu.cfs_quota_us": 2500,
                                         "cpu.cfs_period_us": 5000}, {"name": "vm", "cpuset.cpus": "0,2-3"}]})
    assert [h.vcpus for h in scenario.hosts] == [0.5, 3.0]
    assert "hosts" not in make_scenario().as_mapping()     # unsaid: production scenarios' files unchanged
