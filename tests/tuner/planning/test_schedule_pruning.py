"""A night's schedule whose runs stop once the schedule cannot be chosen, on the model: two jobs of
64 MB, each a second's load, beside a neighbour whose 6 ms SLA holds with one job at a time and not
with both (no jitter: each figure follows from the starts). The pruned search chooses what the full
one chooses, and every schedule it pruned would not have been chosen."""
import json

import pytest
import yaml

from simulator.evaluator import RunStopped, StopWhen
from simulator.model.model import ModelEvaluator
from tuner.planning.schedule import run_schedule
from workloads import Scenario

JOB = {"topic": "bulk", "client": {"kind": "java", "version": "3.7.0"},
       "spark": {"spark.executor.instances": 2, "spark.executor.cores": 4}, "producer": {"linger.ms": 0},
       "dataset": {"files": [{"size": "64MB"}]}}
NIGHT = {"name": "two-jobs", "jitter": {"append_rate": 0, "service_time": 0},
         "cluster": {"brokers": 1, "topics": [{"name": "bulk", "partitions": 4}, {"name": "events", "partitions": 2}]},
         "dataset": {"files": [{"size": "16MB"}]}, "batch": [{**JOB, "name": "a"}, {**JOB, "name": "b"}],
         "tenants": [{"name": "api", "topic": "events", "client": {"kind": "java", "version": "4.1.0"},
                      "rate": "500/s", "record_size": "1KB", "sla_p99": "6ms"}],
         "windows": {"before": "2s", "after": "2s"}}


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    path = tmp_path_factory.mktemp("night") / "two-jobs.yaml"
    path.write_text(json.dumps(NIGHT))   # JSON is YAML, with no aliases for the shared job
    return {prune: run_schedule(path, [], 20.0, repeat=2, trials=8, workers=1, prune=prune)[0]
            for prune in (True, False)}


def test_the_pruned_search_chooses_what_the_full_one_does_with_fewer_runs(searched):
    pruned, full = searched[True], searched[False]
    starts = [[job["start_s"] for job in document["jobs"]] for document in (pruned, full)]
    assert pruned["holds"] and starts == [[4.0, 3.0], [4.0, 3.0]]
    assert pruned["night_end_s"] == full["night_end_s"]
    assert (pruned["pruned"], full["pruned"]) == (6, 0)
    # 4 solo runs each; then 2 nights on 2 seeds and 1 stopped on its first (5 not run at all), against 8 on 2
    assert (pruned["runs"], full["runs"]) == (9, 20)


def test_every_pruned_schedule_would_not_have_been_chosen(searched):
    pruned, full = searched[True], searched[False]
    chosen_end = pruned["night_end_s"]
    ran = {tuple(t["starts_s"]): t for t in full["trials"]}   # TPE's first ten trials are its random start: the same
    for trial in pruned["trials"]:
        if "pruned" in trial:
            unpruned = ran[tuple(trial["starts_s"])]
            assert not unpruned["holds"] or unpruned["night_end_s"] > chosen_end
    reasons = [t["pruned"] for t in pruned["trials"] if "pruned" in t]
    assert reasons[0] == "not run: its last job starts at 15 s, after schedule 0's night, which held, ended (7.0 s)"
    assert reasons[1] == "seed 1: its loads run past the end of a night that held: 6.000 s from the first start, past 5.018 s"


def _night(**changes):
    mapping = json.loads(json.dumps(NIGHT))
    mapping["batch"][0]["start"], mapping["batch"][1]["start"] = "2s", "30s"
    for key, value in changes.items():
        if key == "deadline":
            mapping["check"] = {"deadline": value}
        else:
            mapping["batch"][1]["deadline"] = value
    return Scenario.from_mapping(mapping)


def test_a_night_stops_at_a_held_nights_end_and_not_a_moment_before():
    evaluator = ModelEvaluator()
    full = evaluator.evaluate(_night(), 1)
    load_s = full.summary.load_seconds
    at_the_end = evaluator.evaluate(_night(), 1, stop=StopWhen(beaten_by=((-1, load_s),)))
    assert at_the_end.summary == full.summary
    with pytest.raises(RunStopped) as stopped:
        evaluator.evaluate(_night(), 1, stop=StopWhen(beaten_by=((-1, load_s - 1e-9),)))
    assert stopped.value.reason == "its loads run past the end of a night that held: 29.017 s from the first start, past 29.017 s"


def test_each_job_of_a_night_is_held_to_its_own_deadline_from_its_own_start():
    evaluator = ModelEvaluator()
    full = evaluator.evaluate(_night(), 1)
    spans = [job.load_end_s - job.load_start_s for job in full.jobs]
    # the night lasts 29 s, each job about a second: a 5 s check.deadline holds each job, as check holds it
    assert max(spans) < 5.0 < full.summary.load_seconds
    assert evaluator.evaluate(_night(deadline="5s"), 1, stop=StopWhen()).summary == full.summary
    with pytest.raises(RunStopped) as stopped:
        evaluator.evaluate(_night(b_deadline="0.5s"), 1, stop=StopWhen())
    assert stopped.value.reason == "b's load still running 1 s after its start, past its deadline 0.5 s"
