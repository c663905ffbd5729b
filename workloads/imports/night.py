"""When each imported job starts in the night: its Glue triggers read as start times on one time axis.

The night is a day on which every scheduled trigger fires (the first from the reference date;
Glue's crons are UTC). It begins at the first firing of a trigger that fires once that day (a
nightly load; triggers firing every hour would otherwise set it at midnight), else at the first
firing of all, and that moment is the scenario's window start (``windows.before``). A scheduled
job starts at its first firing from there on (the next day's when none is left that day); a
job started by a conditional trigger starts when its predecessors' loads are expected to end
(AND: the last of them; ANY: the first), their durations from the metrics' past loads on their
topics; when none is known, it starts with its predecessor, and that is said. A job no trigger
starts begins at the window's start, said too.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from workloads.errors import ScenarioError
from workloads.imports.triggers import Trigger

DAYS_SEARCHED = 8 * 366     # a cron limited to some years still finds its day


@dataclass(frozen=True)
class Night:
    starts: dict[str, float]       # job name -> seconds after the night's first firing
    notes: tuple[str, ...]


def _clock(seconds: float) -> str:
    day, rest = divmod(int(seconds), 86400)
    return f"{rest // 3600:02d}:{rest % 3600 // 60:02d} UTC" + (" the next day" if day else "")


def check_predicates(triggers: list[Trigger], jobs: list[str]) -> None:
    """Every conditional trigger of the imported jobs waits for imported jobs only."""
    for trigger in triggers:
        for job, _ in trigger.after:
            if job not in jobs and any(j in jobs for j in trigger.jobs):
                raise ScenarioError(f"--glue-triggers: trigger {trigger.name!r}: Predicate", f"waits for job {job!r}, "
                                    f"which is not imported (imported: {', '.join(jobs)}); import it too, or leave the trigger out")


def _day(scheduled: list[Trigger], reference: date) -> tuple[date, list[str]]:
    """The first day from ``reference`` on which every scheduled trigger fires, else the one most fire on."""
    best, best_count = reference, -1
    for offset in range(DAYS_SEARCHED):
        day = reference + timedelta(days=offset)
        count = sum(1 for t in scheduled if t.schedule and t.schedule.fires_on(day))
        if count == len(scheduled):
            return day, []
        if count > best_count:
            best, best_count = day, count
    silent = [t.name for t in scheduled if t.schedule and not t.schedule.fires_on(best)]
    return best, [f"No day has all the scheduled triggers fire: the night is {best.isoformat()}, on which "
                  f"{', '.join(silent)} do not fire; their jobs are placed by their time of day."]


def schedule(jobs: list[str], triggers: list[Trigger], durations: dict[str, float | None],
             reference: date | None = None) -> Night:
    """Every job's start in seconds from the night's first firing; ``durations`` holds each job's expected
    load time in seconds (None: not known)."""
    check_predicates(triggers, jobs)
    active = [t for t in triggers if t.enabled and any(j in jobs for j in t.jobs)]
    notes = [f"Trigger {t.name!r} is deactivated: it starts nothing in the night." for t in triggers
             if not t.enabled and any(j in jobs for j in t.jobs)]
    scheduled = [t for t in active if t.kind == "SCHEDULED"]
    reference = reference or datetime.now(timezone.utc).date()
    day, said = _day(scheduled, reference) if scheduled else (reference, [])
    notes += said
    firings: dict[str, list[int]] = {}        # job -> the seconds after the day's midnight it is fired at
    for trigger in scheduled:
        assert trigger.schedule is not None
        times = trigger.schedule.times()
        for job in trigger.jobs:
            if job in jobs:
                firings.setdefault(job, []).extend([*times, *(t + 86400 for t in times)])
    starts: dict[str, float] = {}
    if firings:
        once = [min(t for t in times if t < 86400) for times in firings.values() if sum(t < 86400 for t in times) == 1]
        anchor = min(once) if once else min(min(times) for times in firings.values())
        notes.append(f"The night of {day.isoformat()} begins at {_clock(anchor)}, the window's start: "
                     + ("the first of the triggers that fire once a day." if once else
                        "the first firing (every trigger fires more than once a day)."))
        for job, times in firings.items():
            starts[job] = min(t for t in times if t >= anchor) - anchor
            many = sum(t < 86400 for t in times)
            notes.append(f"{job}: fired at {_clock(anchor + starts[job])} (Glue's cron, UTC)"
                         + (f"; it fires {many} times a day, and the night holds its first firing from the window's start."
                            if many > 1 else "."))
    conditional = {job: t for t in active if t.kind == "CONDITIONAL" for job in t.jobs if job in jobs and job not in starts}
    resolving: list[str] = []

    def start_of(job: str) -> float:
        if job in starts:
            return starts[job]
        if job in resolving:
            cycle = resolving[resolving.index(job):] + [job]
            raise ScenarioError(f"--glue-triggers: trigger {conditional[job].name!r}: Predicate",
                                f"the jobs wait for one another: {' after '.join(cycle)}")
        trigger = conditional.get(job)
        if trigger is None:
            starts[job] = 0.0
            notes.append(f"{job}: no trigger starts it (on demand): assumed at the window's start.")
            return 0.0
        resolving.append(job)
        ends = []
        for before, state in trigger.after:
            begun, lasts = start_of(before), durations.get(before)
            ends.append(begun + (lasts or 0.0))
            notes.append(f"{job}: started by trigger {trigger.name!r} when {before} is {state}; "
                         + (f"{before}'s load lasts {lasts:,.0f} s (the median of its past loads in the metrics)."
                            if lasts else f"{before}'s end is not known (no past loads of it in the metrics): "
                                          f"assumed to start with it, the night's worst case for the neighbours."))
        if trigger.crawlers:
            notes.append(f"{job}: its trigger also waits for crawler(s) {', '.join(trigger.crawlers)}, whose ends are "
                         "not known: not waited for.")
        resolving.pop()
        starts[job] = (max(ends) if trigger.logical == "AND" else min(ends)) if ends else 0.0
        return starts[job]

    for job in jobs:
        start_of(job)
    return Night({job: starts[job] for job in jobs}, tuple(notes))
