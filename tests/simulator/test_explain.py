"""The words of a result (simulator.contract.explain): each phrase exactly as every output shows it."""
from simulator.contract import explain as words


def _pipeline(before: dict, during: dict, batches: dict | None = None, exactly_once: bool = False) -> dict:
    streaming = {"parts_ms": {"before": before, "during": during}, "sink_linger_ms": 5.0, "exactly_once": exactly_once}
    if batches is not None:
        streaming["batches"] = {"before": batches}
    return {"name": "fraud", "kind": "spark-microbatch", "streaming": streaming,
            "upstream_latency_ms": {"before": {"p99": 8.84}, "during": {"p99": 5736.31}}}


def test_a_pipeline_is_explained_part_by_part_and_by_what_the_load_added():
    before = {"to_pipeline": 337.14, "in_pipeline": 8.4, "to_output": 43.0}
    during = {"to_pipeline": 2493.24, "in_pipeline": 53.1, "to_output": 769.7}
    batch = {"count": 3, "batch_ms": 125.2, "offsets_ms": 1.24, "offset_log_ms": 0.0, "planning_ms": 80.0,
             "tasks_ms": 44.04, "state_ms": 0.0, "commit_log_ms": 0.0}
    assert words.pipeline_parts(_pipeline(before, during, batch)) == (
        "Pipeline fraud (spark-microbatch): alone a record spent on average 337.1 ms reaching the pipeline, 8.4 ms in it, "
        "43.0 ms reaching its output; most of it reaching the pipeline (a micro-batch took 125 ms: latest offsets 1.2, "
        "offset log 0, planning 80, tasks 44.0, state 0, commit log 0 ms; a record first waits for the trigger); "
        "during the load +2156.1 ms reaching the pipeline, +44.7 ms in it, +726.7 ms reaching its output "
        "(its upstream producer's p99 8.8 -> 5736.3 ms).")


def test_a_pipeline_names_why_its_largest_part_is_largest():
    before = {"to_pipeline": 6.0, "in_pipeline": 0.1, "to_output": 6.4}
    empty = dict.fromkeys(before)
    assert words.pipeline_parts(_pipeline(before, empty, exactly_once=True)) == (
        "Pipeline fraud (spark-microbatch): alone a record spent on average 6.0 ms reaching the pipeline, 0.1 ms in it, "
        "6.4 ms reaching its output; most of it reaching its output (the sink producer's batches wait up to "
        "linger.ms=5, and its records are visible only once their transaction commits).")
    assert words.pipeline_parts(_pipeline(empty, empty)) == (
        "Pipeline fraud (spark-microbatch) delivered no record before the load.")


def test_one_verdict_of_a_p99_against_its_sla_at_the_sla_is_within():
    assert words.sla_verdict(10.0, 10.0) == "within SLA" and words.sla_verdict(10.04, 10.0) == "OVER SLA"
    assert words.within_sla(True) == "within SLA" and words.within_sla(False) == "OVER SLA"
    by_window = {"before": 4.0, "during": 1234.6, "after": 12.0}
    assert words.sla_verdict_by_window(by_window, 10.0) == "OVER SLA (during, after)"
    assert words.sla_verdict_by_window({"before": 4.0, "during": 9.5, "after": None}, 10.0) == "within SLA"


def test_a_neighbour_without_a_record_during_the_load_is_too_few_to_judge_not_within_its_sla():
    assert words.sla_verdict_by_window({"before": None, "during": None, "after": None}, 20.0) == "too few records to judge"
    assert words.sla_verdict_by_window({"before": 4.0, "during": None, "after": 3.0}, 20.0) == "too few records to judge"
    assert words.sla_verdict_by_window({"before": 40.0, "during": None, "after": None}, 20.0) == "OVER SLA (before)"


def test_a_p99_against_its_sla_shows_the_decimal_that_tells_them_apart():
    assert words.missed_sla("api", 10.04, 10.0) == "api p99 10.04 ms > SLA 10.00 ms"
    assert words.missed_sla("api", 4256.2, 10.0) == "api p99 4,256.2 ms > SLA 10.0 ms"
    assert words.worst_neighbour("fraud", 9.0, 20.0) == "worst neighbour fraud p99 9.0 ms <= SLA 20.0 ms during the load"
