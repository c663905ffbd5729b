"""A night's batch jobs in one scenario: ``batch:`` as a list, each job named with its client.id,
start, files and quota; one job as a mapping as ever (name batch, client.id batch-load)."""
import copy

import pytest

from workloads import Scenario, ScenarioError
from workloads.limits import estimate
from workloads.quota import QUOTA_CLIENT_ID

JOB = {"topic": "bulk", "client": {"kind": "java", "version": "3.9.0"},
       "spark": {"spark.executor.instances": 1, "spark.executor.cores": 2},
       "producer": {"batch.size": "64KB", "linger.ms": 5}}
BASE = {
    "name": "small-night",
    "cluster": {"brokers": 1, "topics": [{"name": "bulk", "partitions": 4}, {"name": "export", "partitions": 2},
                                         {"name": "api", "partitions": 2}]},
    "dataset": {"files": [{"size": "8MB"}]},
    "batch": JOB,
    "tenants": [{"name": "api", "topic": "api", "rate": "100/s", "record_size": "1KB", "sla_p99": "20ms"}],
    "windows": {"before": "1s", "after": "1s", "max_duration": "10min"},
}
NIGHT = {**BASE, "batch": [
    {"name": "card-load", **JOB},
    {**JOB, "name": "hourly-export", "client.id": "export-1", "topic": "export", "start": "3s",
     "dataset": {"files": [{"size": "4MB", "count": 2}], "compression": "gzip"},
     "quota": {"producer_byte_rate": "5MB/s", "request_percentage": 50}},
]}


def night(**changes) -> dict:
    raw = copy.deepcopy(NIGHT)
    raw.update(changes)
    return raw


def test_a_list_gives_each_job_its_name_client_id_start_files_and_quota():
    scenario = Scenario.from_mapping(night())
    first, export = scenario.jobs
    assert scenario.batch is first and scenario.listed
    assert (first.name, first.client_id, export.name, export.client_id) == ("card-load", "card-load", "hourly-export", "export-1")
    assert (scenario.job_start(first), scenario.job_start(export), scenario.load_start) == (1.0, 3.0, 1.0)
    assert first.dataset == scenario.dataset and not first.own_dataset
    assert export.dataset.file_sizes == [4 * 1024**2] * 2 and export.dataset.compression == "gzip"
    assert (export.quota.producer_byte_rate, export.quota.request_percentage) == (5 * 1024**2, 50.0)
    assert first.quota.producer_byte_rate is None


def test_one_job_as_a_mapping_is_named_batch_with_the_client_id_of_today():
    scenario = Scenario.from_mapping(copy.deepcopy(BASE))
    assert (scenario.batch.name, scenario.batch.client_id, scenario.listed) == ("batch", QUOTA_CLIENT_ID, False)
    assert scenario.jobs == (scenario.batch,)
    assert scenario.as_mapping()["batch"] == Scenario.from_mapping(copy.deepcopy(BASE)).as_mapping()["batch"]
    assert set(scenario.as_mapping()["batch"]).isdisjoint({"name", "client.id", "dataset"})


def test_a_list_of_one_job_named_batch_is_the_mapping_form():
    listed = Scenario.from_mapping({**copy.deepcopy(BASE), "batch": [{"name": "batch", "client.id": "batch-load", **JOB}]})
    assert listed.as_mapping() == Scenario.from_mapping(copy.deepcopy(BASE)).as_mapping()


def test_a_night_is_written_back_as_a_list_of_named_jobs():
    written = Scenario.from_mapping(night()).as_mapping()
    assert [(job["name"], job.get("client.id")) for job in written["batch"]] == [("card-load", "card-load"),
                                                                                ("hourly-export", "export-1")]
    assert "dataset" not in written["batch"][0] and written["batch"][1]["dataset"]["compression"] == "gzip"


def test_a_replaced_dataset_reaches_the_jobs_without_files_of_their_own():
    import dataclasses
    scenario = Scenario.from_mapping(night())
    bigger = dataclasses.replace(scenario.dataset, sample_rows=10)
    moved = dataclasses.replace(scenario, dataset=bigger)
    assert moved.jobs[0].dataset == bigger and moved.jobs[1].dataset == scenario.jobs[1].dataset


@pytest.mark.parametrize("overrides, attribute, value", [
    (["batch[1].producer.linger.ms=25"], lambda s: s.jobs[1].producer.linger_ms, 25.0),
    (["batch.1.producer.linger.ms=25"], lambda s: s.jobs[1].producer.linger_ms, 25.0),
    (["batch.hourly-export.producer.linger.ms=30"], lambda s: s.jobs[1].producer.linger_ms, 30.0),
    (["batch.card-load.start=7s"], lambda s: s.job_start(s.jobs[0]), 7.0),
    (["batch[1].quota.producer_byte_rate=1MB/s"], lambda s: s.jobs[1].quota.producer_byte_rate, 1024.0**2),
])
def test_set_addresses_one_job_of_a_list(tmp_path, overrides, attribute, value):
    path = _write(tmp_path, night())
    scenario = Scenario.from_yaml(path, overrides)
    assert attribute(scenario) == value
    untouched = Scenario.from_yaml(path)
    assert [j for j in scenario.jobs if j not in untouched.jobs] and len(scenario.jobs) == 2


def test_set_batch_keys_of_a_list_name_how_to_address_one_job(tmp_path):
    with pytest.raises(ScenarioError) as refused:
        Scenario.from_yaml(_write(tmp_path, night()), ["batch.producer.linger.ms=25"])
    assert str(refused.value) == ("batch.producer: batch lists 2 jobs: address one as batch[0].producer.linger.ms "
                                  "or batch.card-load.producer.linger.ms")


def test_set_batch_keys_address_the_one_job_of_a_mapping(tmp_path):
    scenario = Scenario.from_yaml(_write(tmp_path, copy.deepcopy(BASE)), ["batch.producer.linger.ms=25"])
    assert scenario.batch.producer.linger_ms == 25.0


def _with_job(index, **changes) -> dict:
    raw = night()
    raw["batch"][index].update(changes)
    return raw


BAD = {
    "an empty list": (night(batch=[]), "batch", "expected at least one batch job"),
    "a job without a name": (night(batch=[JOB]), "batch[0].name", "required but missing"),
    "two jobs of one name": (_with_job(1, name="card-load"), "batch[1].name", "'card-load' is also batch[0]'s name"),
    "two jobs of one client.id": (_with_job(1, **{"client.id": "card-load"}), "batch[1].client.id",
                                  "'card-load' is also batch[0]'s client.id"),
    "a job's client.id a tenant's name": (_with_job(1, **{"client.id": "api"}), "batch[1].client.id",
                                          "'api' is also tenants[0]'s name"),
    "a start after the run's end": (_with_job(1, start="11min"), "batch[1].start", "the load would start at 660 s"),
    "a topic not in the cluster": (_with_job(1, topic="nowhere"), "batch[1].topic", "topic 'nowhere' is not in cluster.topics"),
    "a name that is no client.id": (_with_job(0, name="card load"), "batch[0].name", "is no Kafka client.id"),
    "a job that is no mapping": (night(batch=[{"name": "a", **JOB}, "b"]), "batch[1]", "expected a mapping"),
    "an unknown key of a job": (_with_job(1, lingr=5), "batch[1].lingr", "unknown key"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_night_is_refused_naming_the_field(case):
    raw, field, words = BAD[case]
    with pytest.raises(ScenarioError) as refused:
        Scenario.from_mapping(raw)
    assert refused.value.field == field and words in str(refused.value)
    assert len(str(refused.value).splitlines()) == 1


def test_the_cli_refuses_a_bad_night_in_one_line_with_exit_2(tmp_path):
    from typer.testing import CliRunner

    from quietload.cli import app
    path = _write(tmp_path, _with_job(1, **{"client.id": "card-load"}))
    result = CliRunner().invoke(app, ["simulate", str(path)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: batch[1].client.id: 'card-load' is also batch[0]'s client.id; each job has its own"]


def test_the_run_size_estimate_counts_every_job():
    one = estimate(Scenario.from_mapping({**night(), "batch": night()["batch"][:1]}))
    both = estimate(Scenario.from_mapping(night()))
    tasks = {part.field: part.amount for part in both.events if "Spark tasks" in part.why}
    assert tasks == {"dataset.files": 2 * 1, "batch[1].dataset.files": 2 * 2}   # 8 MB in one task; two gzip files
    assert sum(p.amount for p in both.memory) > sum(p.amount for p in one.memory)
    # the export's 8 MB of gzip files hold ~32 MB of CSV at 2 cores from 3 s: it ends the night's load
    assert both.seconds > one.seconds


def _write(tmp_path, raw):
    from workloads.reader import dump_yaml
    path = tmp_path / "night.yaml"
    path.write_text(dump_yaml(raw))
    return path
