"""`quietload live` on a night of two jobs at once: one broker, LocalStack S3, two Glue drivers (each
its own files, topic, client.id and start), one neighbour. The night runs once for the module."""
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from stack_probes import processes_using

NIGHT = Path(__file__).parent.parent.parent / "data" / "live-night.yaml"


@pytest.fixture(scope="module")
def live_night(tmp_path_factory):
    base = tmp_path_factory.mktemp("live-night")
    result_file, run_dir = base / "result.json", base / "stack"
    outcome = CliRunner().invoke(app, ["live", str(NIGHT), "--json", str(result_file), "--run-dir", str(run_dir)])
    return outcome, json.loads(result_file.read_text()) if result_file.exists() else None, run_dir


@pytest.mark.live
def test_every_row_of_both_jobs_arrives_exactly_once(live_night):
    outcome, result, _ = live_night
    assert outcome.exit_code == 0, outcome.output
    assert result["summary"]["integrity_ok"] is True
    for name in ("card-load", "hourly-export"):
        assert any(line.startswith(f"Job {name}: integrity: ") and line.endswith("every row exactly once.")
                   for line in result["mechanism"]), name


@pytest.mark.live
def test_the_brokers_count_each_job_s_requests_by_its_client_id(live_night):
    _, result, _ = live_night
    jobs = {job["name"]: job for job in result["jobs"]}
    assert [(job["name"], job["client_id"], job["topic"]) for job in result["jobs"]] == [
        ("card-load", "card-load", "bulk"), ("hourly-export", "export-1", "export")]
    for job in jobs.values():
        # the brokers' Produce count of its client.id against its producer's request-total, which also
        # counts the producer's few metadata and version requests
        assert 0.95 * job["produce_requests"] <= job["broker_produce_requests"] <= job["produce_requests"]
        assert sum(result["timelines"][f"job.{job['name']}.produce_requests_per_s"]) == job["broker_produce_requests"]
    # each job loaded from its own start: the export one second after the card load
    assert jobs["card-load"]["load_start_s"] + 0.9 < jobs["hourly-export"]["load_start_s"]


@pytest.mark.live
def test_nothing_of_the_night_is_left_running_or_on_disk(live_night):
    _, _, run_dir = live_night
    assert processes_using(run_dir) == []
    assert not run_dir.exists() or not any(run_dir.rglob("*.properties"))
