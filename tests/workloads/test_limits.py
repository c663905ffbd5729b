"""The run-size estimate: every catalog scenario is within the limits, and a scenario past them
is refused naming the field that makes it so, before anything is built."""
import pytest

from workloads import CATALOG, Scenario, ScenarioError
from workloads.limits import MEMORY_MAX, TIME_MAX_S, RunSize, check_run_size, estimate

CATALOG_FILES = sorted(CATALOG.glob("*.yaml"))


@pytest.mark.parametrize("path", CATALOG_FILES, ids=[p.stem for p in CATALOG_FILES])
def test_every_catalog_scenario_is_within_the_limits(path):
    scenario = Scenario.from_yaml(path)
    check_run_size(scenario)
    size = estimate(scenario)
    assert RunSize.total(size.memory) < MEMORY_MAX / 20


def test_the_estimate_counts_the_neighbours_records_over_the_run():
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml")
    size = estimate(scenario)
    records = {part.field: part.amount for part in size.events if part.field.startswith("tenants")}
    assert records == {"tenants[0].rate": pytest.approx(500 * size.seconds), "tenants[1].rate": pytest.approx(300 * size.seconds)}
    # the run lasts at least its windows and the load at the executors' full append rate
    assert size.seconds >= scenario.windows.before + scenario.windows.after


@pytest.mark.parametrize("overrides, field, words", [
    (["cluster.brokers=100000000"], "cluster.brokers", "GB of memory (100,000,000 brokers)"),
    (["tenants.0.rate=1000000000000/s"], "tenants[0].rate", "neighbour records"),
    (["cluster.topics.0.partitions=100000000"], "cluster.topics", "partition replicas"),
    (["dataset.files.0.count=10000000", "dataset.files.0.size=1KB"], "dataset.files", "Spark tasks"),
    (["dataset.files.0.count=1000000"], "dataset.files", "produce requests of at most max.request.size"),
    (["dataset.files.0.size=20TB"], "dataset.files", "would take at least"),
    (["windows.before=1000000h", "windows.max_duration=2000000h"], "windows.before", "timelines of 3,600,000,"),
    (["windows.after=1000000h", "windows.max_duration=2000000h"], "windows.after", "timelines of 3,600,000,"),
])
def test_a_run_past_the_limits_is_refused_naming_its_field(overrides, field, words):
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", overrides)
    with pytest.raises(ScenarioError) as refused:
        check_run_size(scenario)
    assert refused.value.field == field
    assert words in str(refused.value) and str(refused.value).endswith("--force runs it anyway")
    assert len(str(refused.value).splitlines()) == 1


def test_a_long_run_is_refused_for_its_time():
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["dataset.files.0.size=20TB"])
    with pytest.raises(ScenarioError, match=f"more than its limit of {TIME_MAX_S / 60:.0f} minutes"):
        check_run_size(scenario)


def test_the_estimate_never_lists_a_dataset_s_files():
    """A million file groups' counts are summed, not expanded into a list of sizes."""
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["dataset.files.0.count=2000000000"])
    assert scenario.dataset.files[0].count == 2_000_000_000
    with pytest.raises(ScenarioError, match="dataset.files: the model run would need"):
        check_run_size(scenario)


# What the hostile cases cost, each refused naming the key and a value that fits (which, set, is not refused for it)
COSTLY = {
    "an append rate of bytes a second": (["batch.spark.append_rate=5B/s"], "batch.spark.append_rate",
                                         "batch.spark.append_rate of at least 24.3 KB/s (or at most 421.3 KB of input) fits"),
    "a quota of 1 B/s": (["batch.quota.producer_byte_rate=1B/s"], "batch.quota.producer_byte_rate",
                         "(1 B/s on each of 3 brokers), past windows.max_duration's 60 minutes for it; "
                         "batch.quota.producer_byte_rate of at least 194.5 KB/s (or at most 10.5 KB of input) fits"),
    "a quota of 1 B/s on a compressed load": (["batch.quota.producer_byte_rate=1B/s", "batch.producer.compression.type=zstd"],
                                              "batch.quota.producer_byte_rate", "of at least 199 B/s (or at most 10.3 MB of input) fits"),
    "a hundred million tasks": (["batch.spark.repartition=100000000"], "batch.spark.repartition",
                                "(100,000,000 Spark tasks), more than its limit of 4.0 GB; batch.spark.repartition of at most "),
    "2^31-1 network threads": (["cluster.broker.num.network.threads=2147483647"], "cluster.broker.num.network.threads",
                               "(6,442,450,941 network threads), more than its limit of 4.0 GB; cluster.broker.num.network.threads of at most "),
    "three thousand loads": (["batch.loads=3000"], "batch.loads", "produce batches of at most batch.size), more than its limit of "
                                                               "10 minutes; batch.loads of at most "),
    "a load past the run's cap": (["dataset.files.0.size=2TB"], "dataset.files", "would take at least 61 minutes (16 cores a load, appending at most 36.0 MB/s each), past windows.max_duration's 60 minutes for it; at most 2022.2 GB of input fits"),
}


@pytest.mark.parametrize("case", COSTLY)
def test_a_costly_scenario_is_refused_naming_the_value_that_fits(case):
    overrides, field, words = COSTLY[case]
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", overrides)
    with pytest.raises(ScenarioError) as refused:
        check_run_size(scenario)
    assert refused.value.field == field and words in str(refused.value), str(refused.value)
    fits = str(refused.value).split(f"{field} of at most ")[-1].split(" fits")[0]
    if f"{field} of at most " in str(refused.value):    # a count: the value said fits, for this key
        value = fits.replace(",", "").replace("/s", "")
        fitted = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", [*overrides, f"{field.replace('cluster.broker.', 'cluster.broker.')}={value}"])
        try:
            check_run_size(fitted)
        except ScenarioError as still:
            assert still.field != field, str(still)


@pytest.mark.parametrize("overrides, words", [
    (["cluster.broker.num.network.threads=2147483647"], "more than its limit of "),
    (["dataset.files.0.size=100TB"], "would take at least 2 days"),
])
def test_force_runs_past_the_limits_but_not_past_the_machine_or_the_runs_cap(overrides, words):
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", overrides)
    with pytest.raises(ScenarioError, match=words):
        check_run_size(scenario, force=True)
    check_run_size(Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["dataset.files.0.size=200GB"]), force=True)


@pytest.mark.parametrize("fetchers, field, sessions", [
    (1, "cluster.brokers", 3 * 2 * 1),                               # a fetcher thread per source broker
    (2, "cluster.broker.num.replica.fetchers", 3 * 2 * 2),           # as many threads as follower replicas
    (1_000_000, "cluster.topics", (30 + 6 + 6) * 2),                 # a thread without a partition fetches nothing
])
def test_replica_fetch_sessions_are_at_most_one_per_follower_replica_and_owed_to_what_makes_them(fetchers, field, sessions):
    # three brokers, replication factor 3, topics of 30, 6 and 6 partitions
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", [f"cluster.broker.num.replica.fetchers={fetchers}"])
    size = estimate(scenario)
    fetches = next(part for part in size.events if "replica fetcher sessions" in part.why)
    interval = max(scenario.cluster.broker.replica_fetch_wait_max_ms / 1000.0, 0.001)
    assert (fetches.field, fetches.amount) == (field, pytest.approx(sessions * size.seconds / interval))
