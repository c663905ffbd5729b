import pytest

from tuner.planning import cluster_options
from workloads import CATALOG, Scenario, ScenarioError
from workloads.scenario import load_mapping
from workloads.scenario import Plan

BASELINE = CATALOG / "paypay-glue-2gb.yaml"


def _options(path, overrides=(), **plan):
    mapping = load_mapping(path, list(overrides))
    return {o.name: o for o in cluster_options(mapping, Plan(**plan))}


def test_broker_down_moves_its_leaders_to_the_next_replica():
    options = _options(BASELINE, broker_down=True)
    assert list(options) == ["current", "broker_down"]
    cluster = Scenario.from_mapping(options["broker_down"].mapping).cluster
    assert cluster.brokers == 2 and cluster.min_insync_replicas == 2
    bulk = cluster.topic("card-transactions")
    # leaders were p % 3; broker 2's partitions (replicas [2, 0, 1]) fail over to broker 0
    assert bulk.leaders[:6] == (0, 1, 0, 0, 1, 0) and bulk.replication_factor == 2
    assert cluster.replicas(bulk)[2] == [0, 1]


def test_broker_down_is_refused_when_partitions_would_fall_below_min_insync():
    with pytest.raises(ScenarioError) as error:
        _options(BASELINE, ["cluster.replication.factor=2"], broker_down=True)
    assert str(error.value) == ("what-if broker_down: topic 'card-transactions' would keep 1 in-sync replica(s), "
                                "below min.insync.replicas 2")


def test_what_ifs_change_only_their_part_of_the_cluster():
    options = _options(CATALOG / "rf3-acks-all.yaml", brokers=(4,), broker_types=("kafka.m5.2xlarge",),
                       replication_factor=(2,), quota=(20 * 1024**2,))
    assert list(options) == ["current", "brokers=4", "broker_type=kafka.m5.2xlarge", "replication.factor=2", "quota=20MB/s"]
    built = {name: Scenario.from_mapping(o.mapping) for name, o in options.items()}
    assert built["brokers=4"].cluster.brokers == 4
    bigger = built["broker_type=kafka.m5.2xlarge"].cluster.broker
    assert (bigger.vcpus, bigger.nic_bandwidth, bigger.disk_bandwidth) == (8, 10e9 / 8, 250 * 1024**2)
    assert bigger.num_replica_fetchers == built["current"].cluster.broker.num_replica_fetchers   # hardware only
    # topics that state their own replication factor follow the what-if too
    assert {t.replication_factor for t in built["replication.factor=2"].cluster.topics} == {2}
    assert built["quota=20MB/s"].batch.quota.producer_byte_rate == 20 * 1024**2
    assert built["current"].cluster == Scenario.from_yaml(CATALOG / "rf3-acks-all.yaml").cluster


def test_an_express_broker_type_throttles_the_load_at_its_ingress_quota():
    options = _options(CATALOG / "rf3-acks-all.yaml", broker_types=("express.m7g.large", "express.m7g.16xlarge"))
    built = {name: Scenario.from_mapping(o.mapping) for name, o in options.items()}
    large, big = built["broker_type=express.m7g.large"], built["broker_type=express.m7g.16xlarge"]
    assert (large.cluster.broker.vcpus, big.cluster.broker.vcpus) == (2, 64)
    assert (large.batch.quota.producer_byte_rate, big.batch.quota.producer_byte_rate) == (23.4e6, 750e6)
    assert built["current"].batch.quota.producer_byte_rate is None
    # a scenario's own lower quota stays
    low = _options(CATALOG / "rf3-acks-all.yaml", ["batch.quota.producer_byte_rate=5MB/s"], broker_types=("express.m7g.large",))
    assert Scenario.from_mapping(low["broker_type=express.m7g.large"].mapping).batch.quota.producer_byte_rate == 5 * 1024**2


def test_a_broker_count_the_topics_cannot_use_names_the_what_if():
    with pytest.raises(ScenarioError) as error:
        _options(BASELINE, brokers=(2,))
    assert str(error.value) == "what-if brokers=2: cluster.topics[0].replication.factor: 3 is more than the 2 brokers"


def test_a_replication_factor_that_one_broker_down_would_take_below_min_insync_carries_that_caveat():
    options = _options(BASELINE, replication_factor=(2, 3))   # min.insync.replicas 2
    assert options["replication.factor=2"].caveat == (
        "min.insync.replicas is 2: with one broker down its partitions keep 1 in-sync replica, and acks=all produces "
        "to them fail (NOT_ENOUGH_REPLICAS)")
    assert options["replication.factor=3"].caveat == "" and options["current"].caveat == ""
