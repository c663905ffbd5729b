"""Glue triggers (the JSON of ``aws glue get-triggers``): when each job of the night starts.

A SCHEDULED trigger fires on a cron in Glue's form, six fields in UTC, ``cron(Minutes Hours
Day-of-month Month Day-of-week Year)`` (AWS Glue Developer Guide, "Time-based schedules for jobs
and crawlers": Minutes 0-59, Hours 0-23, Day-of-month 1-31 with ``? L W``, Month 1-12 or JAN-DEC,
Day-of-week 1-7 or SUN-SAT (1 is Sunday) with ``? L #``, Year 1970-2199; ``, - * /`` in every
field; one of the two day fields is ``?``). A CONDITIONAL trigger starts its jobs when its
predicate holds: ``Logical`` AND or ANY over ``Conditions`` naming another job and its state.
An own parser: Python's cron libraries read the five-field Unix cron (croniter, with seconds),
not Glue's six fields with ``?``, ``L``, ``W``, ``#`` and a year.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from workloads.errors import ScenarioError

_MONTHS = {name: i for i, name in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT",
                                             "NOV", "DEC"), 1)}
_DAYS = {name: i for i, name in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"), 1)}
# field: (name, lowest, highest, names)
_FIELDS: tuple[tuple[str, int, int, dict[str, int]], ...] = (("Minutes", 0, 59, {}), ("Hours", 0, 23, {}), ("Day-of-month", 1, 31, {}), ("Month", 1, 12, _MONTHS),
           ("Day-of-week", 1, 7, _DAYS), ("Year", 1970, 2199, {}))
_CRON = re.compile(r"cron\((.*)\)", re.S)
TRIGGER_TYPES = ("SCHEDULED", "CONDITIONAL", "ON_DEMAND", "EVENT")
JOB_STATES = ("STARTING", "RUNNING", "STOPPING", "STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR", "WAITING",
              "EXPIRED")


def _value(text: str, field: int) -> int:
    name, low, high, names = _FIELDS[field]
    number = names.get(text.upper()) if names else None
    if number is None:
        if not text.isascii() or not text.isdigit():
            raise ValueError(f"{name} {text!r} is not a number" + (f" or a name ({', '.join(names)})" if names else ""))
        number = int(text)
    if not low <= number <= high:
        raise ValueError(f"{name} {number} is outside {low}-{high}")
    return number


def _values(text: str, field: int) -> frozenset[int]:
    """``*``, ``a``, ``a-b``, with ``/step``, comma-separated: the field's values."""
    name, low, high, _ = _FIELDS[field]
    out: set[int] = set()
    for item in text.split(","):
        spread, slash, step_text = item.partition("/")
        if slash and (not step_text.isascii() or not step_text.isdigit() or int(step_text) < 1):
            raise ValueError(f"{name}'s step {step_text!r} is not a whole number of at least 1")
        step = int(step_text) if slash else 1
        if spread == "*":
            first, last = low, high
        elif "-" in spread:
            a, _, b = spread.partition("-")
            first, last = _value(a, field), _value(b, field)
            if first > last:
                raise ValueError(f"{name} range {spread!r} runs backwards")
        else:
            first = _value(spread, field)
            last = high if slash else first
        out.update(range(first, last + 1, step))
    return frozenset(out)


@dataclass(frozen=True)
class Cron:
    """A Glue schedule: the minutes and hours it fires at, on the days its day fields allow (UTC)."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    day_of_month: str         # as written, "?" when the day of the week decides
    months: frozenset[int]
    day_of_week: str          # as written, "?" when the day of the month decides
    years: frozenset[int]

    def times(self) -> list[int]:
        """The seconds after midnight (UTC) it fires at, on a day it fires."""
        return sorted(h * 3600 + m * 60 for h in self.hours for m in self.minutes)

    def fires_on(self, day: date) -> bool:
        if day.year not in self.years or day.month not in self.months:
            return False
        if self.day_of_month != "?":
            return any(_dom_item(item, day) for item in self.day_of_month.split(","))
        return any(_dow_item(item, day) for item in self.day_of_week.split(","))


def _weekday(day: date) -> int:
    return day.isoweekday() % 7 + 1          # Glue's: 1 Sunday .. 7 Saturday


def _dom_item(item: str, day: date) -> bool:
    last = calendar.monthrange(day.year, day.month)[1]
    if item == "L":
        return day.day == last
    if item.endswith("W"):                   # the weekday nearest the day, within the month
        target = last if item == "LW" else int(item[:-1])
        nearest = date(day.year, day.month, min(target, last))
        if nearest.weekday() == 5:
            nearest = nearest - timedelta(days=1) if nearest.day > 1 else nearest + timedelta(days=2)
        elif nearest.weekday() == 6:
            nearest = nearest + timedelta(days=1) if nearest.day < last else nearest - timedelta(days=2)
        return day == nearest
    return day.day in _values(item, 2)


def _dow_item(item: str, day: date) -> bool:
    last = calendar.monthrange(day.year, day.month)[1]
    if item == "L":
        return _weekday(day) == 7
    if item.endswith("L"):                   # the month's last such weekday
        return _weekday(day) == _value(item[:-1], 4) and day.day + 7 > last
    if "#" in item:                          # the month's n-th such weekday
        weekday, _, nth = item.partition("#")
        return _weekday(day) == _value(weekday, 4) and (day.day - 1) // 7 + 1 == int(nth)
    return _weekday(day) in _values(item, 4)


def _check_day_field(text: str, field: int) -> None:
    for item in text.split(","):
        if field == 2 and (item in ("L", "LW") or re.fullmatch(r"[0-9]{1,2}W", item)):
            if item not in ("L", "LW"):
                _value(item[:-1], 2)
        elif field == 4 and re.fullmatch(r"[0-9A-Za-z]{1,3}L|L", item):
            if item != "L":
                _value(item[:-1], 4)
        elif field == 4 and "#" in item:
            weekday, _, nth = item.partition("#")
            _value(weekday, 4)
            if nth not in ("1", "2", "3", "4", "5"):
                raise ValueError(f"Day-of-week's #{nth}: a weekday's 1st to 5th in the month")
        else:
            _values(item, field)


def parse_cron(text: Any, where: str) -> Cron:
    """A Glue ``Schedule``: ``cron(0 2 * * ? *)``; anything else one line naming ``where``."""
    shown = repr(text) if len(repr(text)) <= 40 else repr(text)[:40] + "..."
    match = _CRON.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ScenarioError(where, f"expected Glue's cron(Minutes Hours Day-of-month Month Day-of-week Year), got {shown}")
    fields = match.group(1).split()
    if len(fields) != 6:
        raise ScenarioError(where, f"Glue's cron has 6 fields (Minutes Hours Day-of-month Month Day-of-week Year), "
                                   f"got {len(fields)} in {shown}")
    minute, hour, dom, month, dow, year = fields
    if (dom == "?") == (dow == "?"):
        raise ScenarioError(where, f"one of Day-of-month and Day-of-week is ?, the other a value or * (Glue's rule), got {shown}")
    try:
        for text_, field in ((dom, 2), (dow, 4)):
            if text_ != "?":
                _check_day_field(text_, field)
        return Cron(text.strip(), _values(minute, 0), _values(hour, 1), dom, _values(month, 3), dow.upper(), _values(year, 5))
    except ValueError as error:
        raise ScenarioError(where, f"{error} in {shown}") from None


@dataclass(frozen=True)
class Trigger:
    name: str
    kind: str                         # SCHEDULED, CONDITIONAL, ON_DEMAND or EVENT
    jobs: tuple[str, ...]             # the jobs its actions start
    schedule: Cron | None = None
    after: tuple[tuple[str, str], ...] = ()     # (job, state) its predicate waits for
    logical: str = "AND"              # all conditions, or ANY one
    crawlers: tuple[str, ...] = ()    # crawlers its predicate waits for (not jobs: their end is not known)
    enabled: bool = True


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ScenarioError(where, f"expected a name, got {value!r}"[:120])
    return value


def read_trigger(raw: Any, where: str) -> Trigger:
    if not isinstance(raw, dict):
        raise ScenarioError(where, "expected a trigger object")
    name = _text(raw.get("Name"), f"{where}.Name")
    where = f"{where} ({name!r})"
    kind = raw.get("Type")
    if kind not in TRIGGER_TYPES:
        raise ScenarioError(f"{where}.Type", f"expected one of {', '.join(TRIGGER_TYPES)}, got {kind!r}")
    actions = raw.get("Actions")
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        raise ScenarioError(f"{where}.Actions", "expected a list of actions")
    jobs = tuple(_text(a["JobName"], f"{where}.Actions[{i}].JobName") for i, a in enumerate(actions) if "JobName" in a)
    schedule = parse_cron(raw.get("Schedule"), f"{where}.Schedule") if kind == "SCHEDULED" else None
    after: list[tuple[str, str]] = []
    crawlers: list[str] = []
    logical = "AND"
    if kind == "CONDITIONAL":
        predicate = raw.get("Predicate")
        if not isinstance(predicate, dict) or not isinstance(predicate.get("Conditions"), list) or not predicate["Conditions"]:
            raise ScenarioError(f"{where}.Predicate", "a conditional trigger needs a Predicate with Conditions")
        logical = predicate.get("Logical", "AND")
        if logical not in ("AND", "ANY"):
            raise ScenarioError(f"{where}.Predicate.Logical", f"expected AND or ANY, got {logical!r}")
        for i, condition in enumerate(predicate["Conditions"]):
            at = f"{where}.Predicate.Conditions[{i}]"
            if not isinstance(condition, dict):
                raise ScenarioError(at, "expected a condition object")
            if "CrawlerName" in condition:
                crawlers.append(_text(condition["CrawlerName"], f"{at}.CrawlerName"))
                continue
            job = _text(condition.get("JobName"), f"{at}.JobName")
            state = condition.get("State")
            if state not in JOB_STATES:
                raise ScenarioError(f"{at}.State", f"expected a job run state ({', '.join(JOB_STATES)}), got {state!r}")
            if condition.get("LogicalOperator", "EQUALS") != "EQUALS":
                raise ScenarioError(f"{at}.LogicalOperator", f"Glue knows EQUALS, got {condition.get('LogicalOperator')!r}")
            after.append((job, state))
    return Trigger(name, kind, jobs, schedule, tuple(after), logical, tuple(crawlers),
                   raw.get("State", "ACTIVATED") not in ("DEACTIVATED", "DEACTIVATING"))


def read_triggers(document: Any, where: str = "--glue-triggers") -> list[Trigger]:
    """The triggers of a ``get-triggers`` answer (``{"Triggers": [...]}``) or a ``get-trigger`` one."""
    if isinstance(document, dict) and isinstance(document.get("Trigger"), dict):
        return [read_trigger(document["Trigger"], f"{where}: Trigger")]
    if not isinstance(document, dict) or not isinstance(document.get("Triggers"), list):
        raise ScenarioError(where, 'not the JSON of `aws glue get-triggers`: no "Triggers" list')
    triggers = [read_trigger(raw, f"{where}: Triggers[{i}]") for i, raw in enumerate(document["Triggers"])]
    names = [t.name for t in triggers]
    for i, name in enumerate(names):
        if names.index(name) != i:
            raise ScenarioError(f"{where}: Triggers[{i}].Name", f"trigger {name!r} is given twice")
    return triggers


def fetch_triggers(client: Any) -> dict:
    """``get-triggers`` through boto3's Glue client, every page."""
    triggers: list = []
    for page in client.get_paginator("get_triggers").paginate():
        triggers += page.get("Triggers", [])
    return {"Triggers": triggers}
