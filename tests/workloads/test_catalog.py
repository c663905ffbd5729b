"""Every catalog scenario loads and explains itself; each new one keeps what makes it different."""
import pytest

from workloads import CATALOG, Scenario

GB = 1024**3
FILES = sorted(CATALOG.glob("*.yaml"))


def _load(stem: str) -> Scenario:
    return Scenario.from_yaml(CATALOG / f"{stem}.yaml")


def test_catalog_is_not_empty():
    assert len(FILES) >= 7


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_catalog_file_loads_and_states_its_assumptions(path):
    scenario = Scenario.from_yaml(path)
    assert scenario.name == path.stem
    assert scenario.description.strip()
    assert len(scenario.assumptions) >= 3
    assert all(sentence.strip() for sentence in scenario.assumptions)


def test_keyed_records_keys_the_batch_by_card_id():
    scenario = _load("keyed-records")
    assert scenario.batch.key == "card_id"
    assert scenario.batch.client.kind == "java"


def test_gzip_input_files_are_not_splittable():
    dataset = _load("gzip-input").dataset
    assert dataset.compression == "gzip"
    assert not dataset.splittable


def test_rf3_acks_all_replicates_every_topic_three_times_and_waits_for_it():
    scenario = _load("rf3-acks-all")
    cluster = scenario.cluster
    assert cluster.brokers == 3 and cluster.min_insync_replicas == 2
    assert all((topic.replication_factor or cluster.replication_factor) == 3 for topic in cluster.topics)
    assert all(len(set(replicas)) == 3 for topic in cluster.topics for replicas in cluster.replicas(topic))
    assert scenario.batch.producer.acks == "all"
    assert scenario.batch.producer.enable_idempotence


def test_load_100gb_reads_100_gb():
    scenario = _load("load-100gb")
    assert sum(scenario.dataset.file_sizes) == 100 * GB
