"""A bench rig's placement, as the model runs it: one broker on a core of its own and the client that
probes it on another, each core beside the machine's other runnable threads the live rounds counted
there (``simulator.live.background``; the median over the rounds).

Two rigs place the broker differently, and so the model: a broker in a cgroup of ``broker_vcpus``
on its core (``bench/broker_alone.py``) runs on hosts of the model's own (``hosts:`` and
``placement:``, each host's background its core's count); a broker given its core whole
(``bench/client_cadence.py``) keeps the profile's hosts, its core's count added to the profile's
broker background threads and the client's core's to the JVM's.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping

from simulator.live.budget import Budget
from workloads import Scenario
from workloads.placement import parse_hosts, parse_placement

BROKER_HOST, CLIENT_HOST = "broker-core", "probe-core"


def placed(scenario: Scenario, background: Mapping[int, float], broker_core: int, client_core: int,
           broker_vcpus: float | None = None) -> Scenario:
    """``scenario`` as the rig placed it: ``background`` the other runnable threads per core; with
    ``broker_vcpus``, the broker in a cgroup of that many vCPUs on its core (Budget's quota and period)."""
    if broker_vcpus is None:
        scheduler = scenario.profile.scheduler
        scheduler = dataclasses.replace(
            scheduler, jvm_background_threads=scheduler.jvm_background_threads + background[client_core],
            broker_background_threads=scheduler.broker_background_threads + background[broker_core])
        return dataclasses.replace(scenario, profile=dataclasses.replace(scenario.profile, scheduler=scheduler))
    broker = Budget("broker-0", broker_vcpus, (broker_core,))
    hosts = parse_hosts([
        {"name": BROKER_HOST, "cpuset.cpus": str(broker_core), "cpu.cfs_quota_us": broker.quota_us,
         "cpu.cfs_period_us": broker.period_us, "background": background[broker_core]},
        {"name": CLIENT_HOST, "cpuset.cpus": str(client_core), "background": background[client_core]}], "hosts")
    placed_scenario = dataclasses.replace(scenario, hosts=hosts,
                                          placement=parse_placement({"brokers": BROKER_HOST}, "placement"))
    placed_scenario.validate()
    return placed_scenario
