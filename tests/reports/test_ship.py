"""The report's first screen answers what to ship (issue 25, problem 8)."""
from reports.sections.ship import ship_markdown

STUDY = {"scenario": {"name": "glue"}, "pick": 3, "pareto_front": [3], "trials": [],
         "recommended": {"trial": 3, "meets_constraints": True, "missed": [], "wider_lever": None,
                         "params": {"linger.ms": 10.0, "acks": "all", "num.replica.fetchers": 4}}}
MISSED = {**STUDY, "pick": None, "recommended": {**STUDY["recommended"], "meets_constraints": False,
                                                 "missed": ["api p99 10.4 ms > SLA 10.0 ms"],
                                                 "wider_lever": "it passes on the model with the cluster's operator setting num.replica.fetchers = 4"}}


def test_a_passing_pick_comes_first_as_who_changes_what_with_its_lines_to_paste():
    lines = ship_markdown([STUDY], [])
    assert lines[:3] == ["## What to ship", "",
                         "**Ship trial 3 of the study of glue, as tune recommends it (every constraint met on the model).**"]
    assert "- the job's owner: linger.ms = 10 ms, acks = all" in lines
    assert "- the cluster's operator: num.replica.fetchers = 4" in lines
    assert '.option("kafka.enable.idempotence", "true")' in lines and "num.replica.fetchers=4  # MSK configuration" in lines


def test_with_no_pick_the_closest_with_its_miss_and_the_wider_lever_and_nothing_to_paste():
    lines = ship_markdown([MISSED], [])
    assert lines[2] == ("**Nothing of the study of glue passes: the closest, trial 3, missed api p99 10.4 ms > SLA 10.0 ms; "
                        "it passes on the model with the cluster's operator setting num.replica.fetchers = 4.**")
    assert "```" not in lines


def test_a_gate_result_that_fails_ships_with_its_tested_change():
    gate = {"scenario": "glue", "passed": False, "outcome": "fail", "verdicts": [{"rule": "neighbour_sla", "status": "fail"}],
            "recommendations": ["linger.ms=10 (the job's owner): ...", "so: --set batch.producer.linger.ms=10"],
            "paste": ['.option("kafka.linger.ms", "10")']}
    lines = ship_markdown([], [gate])
    assert lines[2] == "**glue fails the gate; ship it with the tested change (so: --set batch.producer.linger.ms=10).**"
    assert '.option("kafka.linger.ms", "10")' in lines
