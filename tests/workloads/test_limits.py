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
