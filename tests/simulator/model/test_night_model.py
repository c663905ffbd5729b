"""A night's jobs on the model: one job in a list runs as the same job as a mapping."""
import json

import pytest

from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG
from workloads.reader import dump_yaml, read_yaml

SMALL = ["--set", "dataset.files.0.size=64MB", "--set", "windows.before=1s", "--set", "windows.after=1s", "--seed", "3"]


def _simulate(path, out) -> str:
    result = CliRunner().invoke(app, ["simulate", str(path), *SMALL, "--json", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_text()


def _as_list(tmp_path, **names) -> "Path":
    raw = read_yaml(CATALOG / "paypay-glue-2gb.yaml", "scenario")
    raw["batch"] = [{**names, **raw["batch"]}]
    path = tmp_path / "listed.yaml"
    path.write_text(dump_yaml(raw))
    return path


def test_one_job_in_a_list_named_batch_gives_the_bytes_of_the_mapping(tmp_path):
    mapping = _simulate(CATALOG / "paypay-glue-2gb.yaml", tmp_path / "mapping.json")
    listed = _simulate(_as_list(tmp_path, name="batch", **{"client.id": "batch-load"}), tmp_path / "listed.json")
    assert json.loads(listed)["scenario"]["source"] != json.loads(mapping)["scenario"]["source"]
    assert listed.replace(str(tmp_path / "listed.yaml"), "SOURCE") == \
        mapping.replace(str(CATALOG / "paypay-glue-2gb.yaml"), "SOURCE")


def test_one_named_job_in_a_list_gives_the_figures_of_the_mapping(tmp_path):
    mapping = json.loads(_simulate(CATALOG / "paypay-glue-2gb.yaml", tmp_path / "mapping.json"))
    named = json.loads(_simulate(_as_list(tmp_path, name="daily-card-load"), tmp_path / "named.json"))
    # the job's own lines are under its name (job.NAME...): the mapping's job is named batch
    named["timelines"] = {key.replace("job.daily-card-load.", "job.batch."): line for key, line in named["timelines"].items()}
    for section in ("summary", "producers", "brokers", "tenants", "timelines", "spark", "batch_sizes"):
        assert named[section] == mapping[section], section
    assert named["scenario"]["batch"][0]["client.id"] == "daily-card-load"


NIGHT = """\
name: small-night
cluster:
  brokers: 1
  topics:
    - {name: bulk, partitions: 4}
    - {name: export, partitions: 2}
    - {name: api, partitions: 2}
dataset: {files: [{size: 8MB}]}
batch:
  - name: card-load
    topic: bulk
    client: {kind: java, version: 3.9.0}
    spark: {spark.executor.instances: 1, spark.executor.cores: 2}
    producer: {batch.size: 64KB, linger.ms: 5}
  - name: hourly-export
    client.id: export-1
    topic: export
    start: 2s
    dataset: {files: [{size: 2MB, count: 2}], compression: gzip}
    client: {kind: java, version: 3.9.0}
    spark: {spark.executor.instances: 1, spark.executor.cores: 2}
    producer: {batch.size: 16KB, linger.ms: 0, compression.type: gzip}
tenants:
  - {name: api, topic: api, rate: 100/s, record_size: 1KB, sla_p99: 20ms}
windows: {before: 1s, after: 1s}
"""


def _night(tmp_path, overrides=()):
    from simulator.model.model import ModelEvaluator, ModelRun
    from simulator.model.outcome import build
    from workloads import Scenario
    path = tmp_path / "night.yaml"
    path.write_text(NIGHT)
    run = ModelRun(Scenario.from_yaml(path, list(overrides)), 1, ModelEvaluator(row_cache=None))
    run.execute()
    return run, build(run)


def test_each_job_of_a_night_runs_its_own_producers_under_its_client_id(tmp_path):
    run, result = _night(tmp_path)
    card, export = result.jobs
    assert [(j.name, j.client_id, j.topic, j.load_start_s) for j in result.jobs] == [
        ("card-load", "card-load", "bulk", 1.0), ("hourly-export", "export-1", "export", 2.0)]
    # seed 1's exact counts: the export's linger.ms=0 and 16 KB batches send seven times the requests
    assert (card.produce_requests, export.produce_requests) == (212, 1588)
    assert [p["name"] for p in result.producers] == ["card-load-load0-executor0", "hourly-export-load0-executor0"]
    for job, job_run in zip(result.jobs, run.jobs):
        # every request of the job's producers was counted by the brokers under its client.id, and no other
        assert job.broker_produce_requests == job.produce_requests
        assert sum(result.timelines[f"job.{job.name}.produce_requests_per_s"]) == job.produce_requests
        # every record of the job's files was sent: its write tasks' value bytes over its record size
        assert job.records == pytest.approx(sum(job_run.plan.write_tasks) / job_run.record_bytes, rel=1e-9)
        assert job.load_start_s < job.load_end_s and set(job.neighbour_p99_ms) == {"api"}
    assert result.summary.produce_requests == card.produce_requests + export.produce_requests
    assert export.wire_bytes < 0.6 * export.record_bytes and card.wire_bytes > card.record_bytes   # gzip vs none
    # the night's load runs from the first job's start to the last job's end
    assert result.windows["during"] == [1.0, max(card.load_end_s, export.load_end_s)]


def test_a_quota_holds_its_own_client_id_only(tmp_path):
    _, result = _night(tmp_path, ["batch.hourly-export.quota.producer_byte_rate=100KB/s"])
    card, export = result.jobs
    assert export.quota_throttle_s > 0 and card.quota_throttle_s == 0
    _, free = _night(tmp_path)
    assert export.load_end_s > free.jobs[1].load_end_s


def test_the_catalog_s_night_breaches_with_all_three_jobs_at_once():
    from simulator.contract.night import blames
    from simulator.model.model import ModelEvaluator
    from workloads import Scenario
    result = ModelEvaluator().evaluate(Scenario.from_yaml(CATALOG / "night-three-jobs.yaml"), 1)
    assert [(j.name, j.load_start_s) for j in result.jobs] == [
        ("daily-card-load", 5.0), ("hourly-export", 5.0), ("settlement-load", 5.0)]
    # seed 1's exact counts, the brokers' count of each client.id's requests the same
    assert [j.produce_requests for j in result.jobs] == [34_918, 6_892, 7_421]
    assert [j.broker_produce_requests for j in result.jobs] == [34_918, 6_892, 7_421]
    for tenant in result.summary.tenants:
        assert tenant.p99_ms_before < tenant.sla_p99_ms < tenant.p99_ms_during, tenant.name
        for job in result.jobs:   # each neighbour is over its SLA during every job's load
            assert job.neighbour_p99_ms[tenant.name] > tenant.sla_p99_ms, (job.name, tenant.name)
    # the published job's linger.ms=0 sends most of the requests while the neighbours are over
    assert {b.neighbour: b.job for b in blames(result)} == {
        "payment-api": "daily-card-load", "fraud-scoring": "daily-card-load", "card-enrichment": "daily-card-load"}


def test_a_night_s_result_file_reads_back_its_jobs_and_refuses_a_bad_figure(tmp_path):
    from simulator.contract import ResultError, RunResult
    _, result = _night(tmp_path)
    path = result.write(tmp_path / "night.json")
    assert RunResult.read(path).jobs == RunResult.from_dict(json.loads(result.to_json())).jobs
    assert [job.name for job in RunResult.read(path).jobs] == ["card-load", "hourly-export"]
    data = json.loads(path.read_text())
    data["jobs"][1]["produce_requests"] = -3
    path.write_text(json.dumps(data))
    with pytest.raises(ResultError, match=r"jobs\[1\]\.produce_requests must be at least 0, got -3"):
        RunResult.read(path)
    data["jobs"][1]["produce_requests"], data["jobs"][0]["neighbour_p99_ms"]["api"] = 1, 0
    path.write_text(json.dumps(data))
    with pytest.raises(ResultError, match=r"jobs\[0\]\.neighbour_p99_ms\.api must be greater than 0"):
        RunResult.read(path)
