"""Cluster what-ifs for capacity planning: each one a change to the scenario's raw mapping.

A what-if is tried alone on the scenario's cluster (``brokers=6``, ``broker_type=kafka.m5.xlarge``,
``replication.factor=2``, ``broker_down``, ``quota=20MB/s``), next to the cluster as it is
(``current``). Each becomes the mapping a grid point then sizes its load on.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field

from workloads import Scenario, ScenarioError
from workloads.broker_types import broker_settings, broker_type
from workloads.scenario import Plan, with_file_values

@dataclass(frozen=True)
class ClusterOption:
    """One cluster to plan on: its name, the changes it makes (path -> value) and the mapping."""

    name: str
    changes: dict = field(default_factory=dict)
    mapping: dict = field(default_factory=dict, repr=False, compare=False)
    caveat: str = ""    # what the option costs that the plan's runs do not show (e.g. a broker down)


def cluster_options(mapping: dict, plan: Plan) -> list[ClusterOption]:
    """``current`` and one option per what-if value in ``plan``, each checked to build a scenario."""
    options = [ClusterOption("current", {}, mapping)]
    for brokers in plan.brokers:
        options.append(_set(mapping, f"brokers={brokers}", {"cluster.brokers": brokers}))
    for name in plan.broker_types:
        # the cluster's brokers on another MSK type: its hardware (on the burst figures, as a load of
        # minutes runs), the scenario's own server.properties
        kind = broker_type(name)
        changes = {f"cluster.broker.{k}": v for k, v in broker_settings(kind).items()}
        if kind.express:
            changes.update(_express_throttle(mapping, kind.express_ingress_quota))
        options.append(_set(mapping, f"broker_type={name}", changes))
    for rf in plan.replication_factor:
        options.append(_replication(mapping, rf))
    if plan.broker_down:
        options.append(_broker_down(mapping))
    for rate in plan.quota:
        options.append(_set(mapping, f"quota={rate / 1024**2:g}MB/s",
                            {"batch.quota.producer_byte_rate": f"{int(rate)}B/s"}))
    names = [o.name for o in options]
    for name in names:
        if names.count(name) > 1:
            raise ScenarioError("plan", f"what-if {name} is listed twice")
    return options


def _express_throttle(mapping: dict, ingress: float) -> dict:
    """MSK throttles an Express broker's client ingress at its quota, as a Kafka produce quota would; the batch load is nearly all of that ingress, so the model meters it as
    the batch client's producer_byte_rate per broker (a lower quota of the scenario's stays)."""
    own = Scenario.from_mapping(mapping).batch.quota.producer_byte_rate
    return {} if own is not None and own <= ingress else {"batch.quota.producer_byte_rate": f"{ingress:.0f}B/s"}


def _checked(name: str, mapping: dict) -> dict:
    """The what-if's mapping if it makes a valid scenario; else one line naming the what-if."""
    try:
        Scenario.from_mapping(mapping)
    except ScenarioError as error:
        raise ScenarioError(f"what-if {name}", str(error)) from None
    return mapping


def _set(mapping: dict, name: str, changes: dict) -> ClusterOption:
    return ClusterOption(name, changes, _checked(name, with_file_values(mapping, {tuple(k.split(".")): v for k, v in changes.items()})))


def _replication(mapping: dict, rf: int) -> ClusterOption:
    """Every topic at replication factor ``rf`` (topics that set their own too); min.insync.replicas
    is kept, so an ``rf`` below it is refused, as Kafka would refuse acks=all produces."""
    name = f"replication.factor={rf}"
    changed = copy.deepcopy(mapping)
    changed["cluster"]["replication.factor"] = rf
    for topic in changed["cluster"]["topics"]:
        if "replication.factor" in topic:
            topic["replication.factor"] = rf
    option = ClusterOption(name, {"cluster.replication.factor": rf}, _checked(name, changed))
    least = Scenario.from_mapping(changed).cluster.min_insync_replicas
    if rf - 1 < least:   # what broker_down refuses on such a cluster, said where the option is offered
        option = dataclasses.replace(option, caveat=(
            f"min.insync.replicas is {least}: with one broker down its partitions keep {rf - 1} in-sync "
            f"replica{'s' if rf - 1 != 1 else ''}, and acks=all produces to them fail (NOT_ENOUGH_REPLICAS)"))
    return option


def _broker_down(mapping: dict) -> ClusterOption:
    """The highest-numbered broker down for the whole run. Its partitions' leadership moves to the
    next replica in each replica list (Kafka elects the first live in-sync replica), so the
    survivors lead everything; the cluster is modelled as brokers-1 brokers with those leaders,
    each topic at min(replication factor, brokers-1). Partitions that really keep every replica on
    the survivors are placed round-robin over them, so no partition is modelled with more
    replicas than it has; a partition left with fewer in-sync replicas than min.insync.replicas
    is refused (acks=all produces would fail with NOT_ENOUGH_REPLICAS)."""
    name = "broker_down"
    cluster = Scenario.from_mapping(mapping).cluster
    down, survivors = cluster.brokers - 1, cluster.brokers - 1
    if survivors < 1:
        raise ScenarioError(f"what-if {name}", "the cluster has one broker: none would be left")
    changed = copy.deepcopy(mapping)
    changed["cluster"]["brokers"] = survivors
    for raw, topic in zip(changed["cluster"]["topics"], cluster.topics):
        rf = topic.replication_factor or cluster.replication_factor
        live = [[b for b in replicas if b != down] for replicas in cluster.replicas(topic)]
        if any(not replicas for replicas in live):
            raise ScenarioError(f"what-if {name}", f"topic {topic.name!r} has replication.factor {rf}: "
                                f"its partitions on broker {down} would be offline")
        if min(map(len, live)) < cluster.min_insync_replicas:
            raise ScenarioError(f"what-if {name}", f"topic {topic.name!r} would keep {min(map(len, live))} in-sync "
                                f"replica(s), below min.insync.replicas {cluster.min_insync_replicas}")
        raw["leaders"] = [replicas[0] for replicas in live]
        raw["replication.factor"] = min(rf, survivors)
    return ClusterOption(name, {"cluster.brokers": survivors, "down_broker": down}, _checked(name, changed))
