"""A night imported from files in the shapes of Glue's GetJobs and GetTriggers answers (LocalStack's
free edition has no Glue), read by the scenario loader as a night of several jobs: each job's
start from its trigger, its client.id, topic, key and input from its script. The input's S3
listing is botocore's Stubber (S3 runs only on the live stack)."""
import dataclasses
import json
from datetime import datetime, timezone
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

from workloads import Scenario
from workloads.imports import History, Request, build, gather, write

NIGHT = Path(__file__).parent / "data" / "night"
FRIDAY = datetime(2026, 11, 20, tzinfo=timezone.utc)
LISTINGS = {"daily-card-load": ("landing", "card-transactions/", "card-transactions/2026-11-20.csv", 2_000_000_000),
            "hourly-export": ("exports", "hourly/", "hourly/02.csv.gz", 300_000_000),
            "settlement-load": ("settlements", "daily/", "daily/settlements.csv", 500_000_000)}


def _gather(monkeypatch, history=None, pattern="[dhs]*", names=tuple(LISTINGS)):
    """The night's jobs whose names match ``pattern`` (``names``: those it matches), read as import reads them."""
    monkeypatch.chdir(NIGHT)        # the jobs' ScriptLocation: the scripts beside their JSON
    s3 = boto3.client("s3", region_name="eu-west-1")
    with Stubber(s3) as stub:
        for bucket, prefix, key, size in (LISTINGS[name] for name in names):
            stub.add_response("list_objects_v2", {"Contents": [{"Key": key, "Size": size}], "KeyCount": 1},
                              {"Bucket": bucket, "Prefix": prefix})
        imported = gather(Request(glue_job=(Path("get-jobs.json"),), glue_job_pattern=pattern,
                                  glue_triggers=(Path("get-triggers.json"),), until=FRIDAY), {"s3": s3}.__getitem__)
        stub.assert_no_pending_responses()
    return imported if history is None else dataclasses.replace(imported, history=history)


def test_the_night_of_three_jobs_starts_each_from_its_trigger(monkeypatch, tmp_path):
    imports = build(_gather(monkeypatch), "night")
    scenario = imports.scenario
    assert [(j.name, j.client_id, scenario.job_start(j), j.topic, j.key) for j in scenario.jobs] == [
        ("daily-card-load", "daily-card-load", 10.0, "card-transactions", None),
        ("hourly-export", "hourly-export", 910.0, "merchant-exports", "merchant_id"),
        ("settlement-load", "settlement-load", 10.0, "card-settlements", "card_id")]
    assert [[f.size for f in j.dataset.files] for j in scenario.jobs] == [[2_000_000_000], [300_000_000], [500_000_000]]
    assert scenario.jobs[1].dataset.compression == "gzip" and scenario.jobs[1].producer.compression_type == "gzip"
    assert (scenario.jobs[2].spark.executors, scenario.jobs[2].spark.repartition, scenario.jobs[2].client.version) == (4, 30, (3, 4, 1))
    assert scenario.windows.max_duration == 3600 + 900
    said = scenario.assumptions
    assert said[:4] == (
        "The night of 2026-11-20 begins at 02:00 UTC, the window's start: the first of the triggers that fire once a day.",
        "daily-card-load: fired at 02:00 UTC (Glue's cron, UTC).",
        "hourly-export: fired at 02:15 UTC (Glue's cron, UTC); it fires 24 times a day, and the night holds its first "
        "firing from the window's start.",
        "settlement-load: started by trigger 'settle-after-load' when daily-card-load is SUCCEEDED; daily-card-load's end "
        "is not known (no past loads of it in the metrics): assumed to start with it, the night's worst case for the "
        "neighbours.")
    assert "hourly-export: From the script: the records are keyed by the column 'merchant_id'." in said
    path = write(imports, tmp_path / "night.yaml")
    assert Scenario.from_yaml(path).jobs == scenario.jobs


def _history():
    """A night's metrics: card-transactions loads 02:00-02:30 (30 points of 60 s), payment-events all along."""
    points = 120
    load = [50e6 if 30 <= k < 60 else 1e3 for k in range(points)]
    return History("payments", "cloudwatch", FRIDAY.timestamp(), 60.0,
                   {"card-transactions": load, "payment-events": [500e3] * points},
                   {"card-transactions": [v / 1000 for v in load], "payment-events": [500.0] * points},
                   {"1": {"CpuUser": [10.0] * points}}, partitions={"payment-events": 6})


def test_a_conditional_job_starts_when_its_predecessors_past_loads_ended(monkeypatch):
    imports = build(_gather(monkeypatch, _history()), "night")
    scenario = imports.scenario
    assert {j.name: scenario.job_start(j) for j in scenario.jobs} == {
        "daily-card-load": 10.0, "hourly-export": 910.0, "settlement-load": 1810.0}
    assert ("settlement-load: started by trigger 'settle-after-load' when daily-card-load is SUCCEEDED; daily-card-load's "
            "load lasts 1,800 s (the median of its past loads in the metrics).") in scenario.assumptions
    assert [t.name for t in scenario.tenants] == ["payment-events"]
    assert [(t.name, t.partitions) for t in scenario.cluster.topics][-1] == ("payment-events", 6)
    assert ("Partition counts from the cloudwatch metrics' partition dimension (the partitions they name): "
            "payment-events 6.") in scenario.assumptions


def test_one_job_of_the_night_stays_a_single_job(monkeypatch):
    imported = _gather(monkeypatch, pattern="daily-*", names=["daily-card-load"])
    scenario = build(imported, "one").scenario
    assert (len(scenario.jobs), scenario.batch.name, scenario.batch.client_id) == (1, "batch", "batch-load")
    assert scenario.assumptions[:2] == (
        "The night of 2026-11-20 begins at 02:00 UTC, the window's start: the first of the triggers that fire once a day.",
        "daily-card-load: fired at 02:00 UTC (Glue's cron, UTC).")


@pytest.mark.parametrize("pattern, names", [("*-load", ["daily-card-load", "settlement-load"]),
                                            ("hourly-*", ["hourly-export"])])
def test_a_pattern_keeps_the_jobs_it_names(monkeypatch, pattern, names):
    imported = _gather(monkeypatch, pattern=pattern, names=names)
    assert [j.name for j in imported.jobs] == (names if len(names) > 1 else [])
    assert (imported.glue.name if imported.glue else None) == (names[0] if len(names) == 1 else None)


def test_through_the_api_a_pattern_reads_get_jobs_and_get_triggers(monkeypatch):
    """GetJobs and GetTriggers through boto3 (botocore's Stubber: Glue is not in LocalStack's free edition)."""
    monkeypatch.chdir(NIGHT)
    glue = boto3.client("glue", region_name="eu-west-1")
    jobs = json.loads((NIGHT / "get-jobs.json").read_text())
    s3 = boto3.client("s3", region_name="eu-west-1")
    with Stubber(glue) as stub, Stubber(s3) as no_input:
        stub.add_response("get_jobs", jobs, {})
        stub.add_response("get_triggers", json.loads((NIGHT / "get-triggers.json").read_text()), {})
        for _ in range(2):
            no_input.add_client_error("list_objects_v2", "NoSuchBucket", "The specified bucket does not exist")
        imported = gather(Request(glue_job_pattern="*-load", until=FRIDAY), {"glue": glue, "s3": s3}.__getitem__)
        stub.assert_no_pending_responses()
        no_input.assert_no_pending_responses()
    assert [j.name for j in imported.jobs] == ["daily-card-load", "settlement-load"]
    assert imported.jobs[0].notes == ("The input's sizes were not read from S3 (input: NoSuchBucket: The specified bucket "
                                      "does not exist).",)
    assert [t.name for t in imported.triggers] == ["nightly-card-load", "hourly-export", "settle-after-load"]
    scenario = build(imported, "night").scenario
    assert {j.name: scenario.job_start(j) for j in scenario.jobs} == {"daily-card-load": 10.0, "settlement-load": 10.0}

