"""Glue triggers read from GetTriggers' shape: Glue's six-field cron (exact firings, days and refusals)
and conditional starts; each job's start in the night from them."""
import json
from datetime import date
from pathlib import Path

import pytest

from workloads import ScenarioError
from workloads.imports.night import schedule
from workloads.imports.triggers import parse_cron, read_triggers

NIGHT = Path(__file__).parent / "data" / "night"
FRIDAY = date(2026, 11, 20)


def test_a_nightly_cron_fires_at_two_every_day():
    cron = parse_cron("cron(0 2 * * ? *)", "s")
    assert cron.times() == [7200] and all(cron.fires_on(date(2026, 11, d)) for d in range(1, 31))


def test_steps_ranges_names_and_the_day_fields():
    weekdays = parse_cron("cron(15 */6 ? * MON-FRI *)", "s")
    assert weekdays.times() == [900, 22500, 44100, 65700]
    assert (weekdays.fires_on(FRIDAY), weekdays.fires_on(date(2026, 11, 21))) == (True, False)
    assert [d for d in range(1, 31) if parse_cron("cron(0 3 L * ? *)", "s").fires_on(date(2026, 11, d))] == [30]
    assert [d for d in range(1, 31) if parse_cron("cron(0 3 ? * 6#3 *)", "s").fires_on(date(2026, 11, d))] == [20]
    assert [d for d in range(1, 31) if parse_cron("cron(0 3 ? * 2L *)", "s").fires_on(date(2026, 11, d))] == [30]
    assert [d for d in range(1, 32) if parse_cron("cron(0 3 1W * ? *)", "s").fires_on(date(2026, 8, d))] == [3]   # Sat 1st
    assert not parse_cron("cron(0 3 * JAN,FEB ? 2027-2028)", "s").fires_on(FRIDAY)


@pytest.mark.parametrize("text, problem", [
    ("0 2 * * ? *", "expected Glue's cron(Minutes Hours Day-of-month Month Day-of-week Year), got '0 2 * * ? *'"),
    ("cron(0 2 * * *)", "Glue's cron has 6 fields"),
    ("cron(0 2 * * * *)", "one of Day-of-month and Day-of-week is ?"),
    ("cron(0 2 ? * ? *)", "one of Day-of-month and Day-of-week is ?"),
    ("cron(0 24 * * ? *)", "Hours 24 is outside 0-23"),
    ("cron(60 2 * * ? *)", "Minutes 60 is outside 0-59"),
    ("cron(0 2 * 13 ? *)", "Month 13 is outside 1-12"),
    ("cron(0 2 ? * 0 *)", "Day-of-week 0 is outside 1-7"),
    ("cron(0 2 * * ? 1969)", "Year 1969 is outside 1970-2199"),
    ("cron(0 2 * * ? *) ", None),
    ("cron(*/0 2 * * ? *)", "Minutes's step '0' is not a whole number of at least 1"),
    ("cron(0 6-2 * * ? *)", "Hours range '6-2' runs backwards"),
    ("cron(0 two * * ? *)", "Hours 'two' is not a number"),
    ("rate(1 hour)", "expected Glue's cron"),
    (7200, "expected Glue's cron"),
])
def test_what_is_not_glues_cron_is_one_line(text, problem):
    if problem is None:
        assert parse_cron(text, "w").times() == [7200]
        return
    with pytest.raises(ScenarioError) as error:
        parse_cron(text, "--glue-triggers t.json: Triggers[0] ('nightly').Schedule")
    assert str(error.value).startswith("--glue-triggers t.json: Triggers[0] ('nightly').Schedule: ")
    assert problem in str(error.value) and "\n" not in str(error.value)


def test_get_triggers_scheduled_and_conditional():
    triggers = read_triggers(json.loads((NIGHT / "get-triggers.json").read_text()))
    assert [(t.name, t.kind, t.jobs, t.after) for t in triggers] == [
        ("nightly-card-load", "SCHEDULED", ("daily-card-load",), ()),
        ("hourly-export", "SCHEDULED", ("hourly-export",), ()),
        ("settle-after-load", "CONDITIONAL", ("settlement-load",), (("daily-card-load", "SUCCEEDED"),))]


def _triggers():
    return read_triggers(json.loads((NIGHT / "get-triggers.json").read_text()))


JOBS = ["daily-card-load", "hourly-export", "settlement-load"]


def test_the_night_starts_at_the_nightly_trigger_and_the_conditional_job_after_its_predecessor():
    night = schedule(JOBS, _triggers(), {"daily-card-load": 1500.0}, FRIDAY)
    assert night.starts == {"daily-card-load": 0, "hourly-export": 900, "settlement-load": 1500.0}
    assert night.notes[0] == ("The night of 2026-11-20 begins at 02:00 UTC, the window's start: the first of the triggers "
                              "that fire once a day.")


def test_an_unknown_end_starts_the_conditional_job_with_its_predecessor_and_says_so():
    night = schedule(JOBS, _triggers(), {}, FRIDAY)
    assert night.starts["settlement-load"] == 0
    assert ("settlement-load: started by trigger 'settle-after-load' when daily-card-load is SUCCEEDED; daily-card-load's "
            "end is not known (no past loads of it in the metrics): assumed to start with it, the night's worst case for "
            "the neighbours.") in night.notes


def test_a_night_on_a_day_every_trigger_fires():
    triggers = read_triggers({"Triggers": [
        {"Name": "a", "Type": "SCHEDULED", "Schedule": "cron(30 1 ? * SAT *)", "Actions": [{"JobName": "x"}]},
        {"Name": "b", "Type": "SCHEDULED", "Schedule": "cron(0 1 L * ? *)", "Actions": [{"JobName": "y"}]},
        {"Name": "c", "Type": "ON_DEMAND", "Actions": [{"JobName": "z"}]}]})
    night = schedule(["x", "y", "z"], triggers, {}, FRIDAY)
    assert night.starts == {"x": 1800, "y": 0, "z": 0.0}        # 2027-07-31: the first Saturday that ends a month
    assert night.notes[0].startswith("The night of 2027-07-31 begins at 01:00 UTC")


def test_predicates_on_jobs_not_imported_and_cycles_are_refused():
    with pytest.raises(ScenarioError, match=r"^--glue-triggers: trigger 'settle-after-load': Predicate: waits for job "
                                            r"'daily-card-load', which is not imported \(imported: hourly-export, "
                                            r"settlement-load\)"):
        schedule(["hourly-export", "settlement-load"], _triggers(), {}, FRIDAY)
    loop = read_triggers({"Triggers": [
        {"Name": "a", "Type": "CONDITIONAL", "Predicate": {"Conditions": [{"JobName": "y", "State": "SUCCEEDED"}]},
         "Actions": [{"JobName": "x"}]},
        {"Name": "b", "Type": "CONDITIONAL", "Predicate": {"Conditions": [{"JobName": "x", "State": "SUCCEEDED"}]},
         "Actions": [{"JobName": "y"}]}]})
    with pytest.raises(ScenarioError, match="the jobs wait for one another: x after y after x"):
        schedule(["x", "y"], loop, {}, FRIDAY)


def test_a_trigger_given_twice_and_a_bad_state_are_refused():
    raw = json.loads((NIGHT / "get-triggers.json").read_text())
    with pytest.raises(ScenarioError, match=r"Triggers\[1\]\.Name: trigger 'nightly-card-load' is given twice"):
        read_triggers({"Triggers": [raw["Triggers"][0], raw["Triggers"][0]]})
    raw["Triggers"][2]["Predicate"]["Conditions"][0]["State"] = "DONE"
    with pytest.raises(ScenarioError, match=r"Triggers\[2\] \('settle-after-load'\)\.Predicate\.Conditions\[0\]\.State: "
                                            "expected a job run state"):
        read_triggers(raw)
