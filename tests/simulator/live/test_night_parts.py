"""The live night's parts without a stack: the drivers' gate (all warm, then each load from its own
start), a driver that fails calling the night off, the merged report, the jobs' request lines."""
import threading
import time
from pathlib import Path

import pytest

from simulator.live._process import StackError
from simulator.contract import RunResult, Summary
from simulator.live.night import check_night, job_lines, job_timelines, job_view, merged, run_jobs
from tests.workloads.test_appendtrace import encode, write
from workloads import Scenario, ScenarioError, appendtrace
from workloads.reader import read_yaml

FILE = Path(__file__).resolve().parents[2] / "data" / "live-night.yaml"
NIGHT = Scenario.from_yaml(FILE)


def test_each_job_is_the_one_job_of_its_view():
    views = [job_view(NIGHT, job) for job in NIGHT.jobs]
    assert [(v.batch.name, v.batch.client_id, v.dataset.compression, len(v.jobs)) for v in views] == [
        ("card-load", "card-load", "none", 1), ("hourly-export", "export-1", "gzip", 1)]


def test_two_jobs_on_one_topic_are_refused_for_the_live_stack():
    raw = read_yaml(FILE, "scenario")
    raw["batch"][1]["topic"] = "bulk"
    with pytest.raises(ScenarioError, match=r"^batch\[1\]\.topic: 'bulk' is also batch\[0\]'s topic"):
        check_night(Scenario.from_mapping(raw))


def test_every_driver_waits_for_all_then_loads_from_its_own_start():
    said, lock = [], threading.Lock()

    def run_one(view, before_load):
        time.sleep(0.05 if view.batch.name == "card-load" else 0.0)   # the drivers get warm at different times
        before_load()
        with lock:
            said.append((view.batch.name, time.monotonic()))
        return {"name": view.batch.name}

    started = []
    reports = run_jobs(NIGHT, run_one, lambda: started.append(time.monotonic()))
    assert reports == [{"name": "card-load"}, {"name": "hourly-export"}] and len(started) == 1
    loads = dict(said)
    assert loads["card-load"] >= started[0] and loads["hourly-export"] - loads["card-load"] >= 0.9   # start: 3s vs 2s


def test_a_driver_that_fails_calls_the_night_off():
    def run_one(view, before_load):
        if view.batch.name == "hourly-export":
            raise StackError("the Glue job failed: boom")
        before_load()

    with pytest.raises(StackError, match="boom"):
        run_jobs(NIGHT, run_one, lambda: None)


def test_the_merged_report_sums_the_jobs_and_spans_their_loads():
    one = {"topic": "bulk", "rows": 10, "input_bytes": 100, "tasks": 2, "write_tasks": 1, "stages": 1, "cores": 1,
           "started": 5.0, "ended": 9.0, "wall_seconds": 4.0, "warm_up": {"rows": 1, "request-total": 3},
           "producer": {"request-total": 30, "record-send-total": 10, "outgoing-byte-total": 1000, "batch-size-avg": 100.0}}
    two = {**one, "rows": 20, "started": 6.0, "ended": 12.0,
           "producer": {"request-total": 10, "record-send-total": 20, "outgoing-byte-total": 500, "batch-size-avg": 300.0}}
    report = merged([one, two])
    assert (report["rows"], report["started"], report["ended"], report["wall_seconds"]) == (30, 5.0, 12.0, 7.0)
    assert report["producer"]["request-total"] == 40 and report["producer"]["batch-size-avg"] == 150.0   # weighted by requests
    assert report["warm_up"] == {"request-total": 6, "rows": 2}


def test_the_jobs_request_lines_count_the_brokers_log_by_client_id():
    logged = {"card-load": [100.2, 100.7, 102.5], "export-1": [101.1], "quietload-warm-up": [99.0]}
    assert job_timelines(NIGHT, logged, 100.0, 4) == {"job.card-load.produce_requests_per_s": [2.0, 0.0, 1.0, 0.0],
                                                      "job.hourly-export.produce_requests_per_s": [0.0, 1.0, 0.0, 0.0]}


def test_a_one_job_run_gets_its_request_line_from_the_log_and_its_records_line_from_the_acks(tmp_path):
    one = job_view(NIGHT, NIGHT.jobs[0])
    origin = 1_700_000_000.0 - 1.0             # the trace's anchor is 1.7e9: one second into the run
    acks = [(appendtrace.ACK, ns, producer, 0, -1, 100) for ns, producer in
            ((200_000_000, 1), (300_000_000, 0), (900_000_000, 1), (1_500_000_000, 1))]   # producer 0: the warm-up
    trace = write(tmp_path, encode(["quietload-warm-up", "card-load"], [(7, acks)]))
    logged = {"card-load": [origin + 1.2, origin + 2.5], "payment-api": [origin + 1.1]}
    result = RunResult(evaluator="live", scenario={}, seed=1, summary=Summary(), timelines={"second": [0, 1, 2, 3]})
    lines = job_lines(result, one, logged, str(trace), origin).timelines
    assert lines == {"second": [0, 1, 2, 3], "job.card-load.produce_requests_per_s": [0.0, 1.0, 1.0, 0.0],
                     "job.card-load.records_per_s": [0.0, 2.0, 1.0, 0.0]}
