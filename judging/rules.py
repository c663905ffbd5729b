"""The gate's rules: each a pure function of one RunResult and the thresholds (``check:``), giving a
verdict with its numbers; a figure the result lacks is unusable input (ResultError), a figure the
run could not measure makes its rule ``skipped``."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from simulator.contract import BrokerFigures, ResultError, RunResult
from simulator.contract import explain as words
from simulator.contract.files import VERDICT_STATUSES
from simulator.contract.judgement import over
from simulator.contract.night import blames
from workloads import Gate
from workloads.batch import job_mappings

PASS, FAIL, SKIPPED = VERDICT_STATUSES


@dataclass(frozen=True)
class Verdict:
    rule: str
    status: str  # PASS, FAIL or SKIPPED
    reason: str
    margin: str = ""        # a pass's closest figure against its limit, for the PASS line
    tightness: float = 0.0  # that figure over its limit (a floor: the limit over it); 1 is at the limit
    job: str = ""           # the job a policy rule judged, in a scenario of several jobs (judging.policy_gate)

    @property
    def failed(self) -> bool:
        return self.status == FAIL


def _figure(result: RunResult, section: str, *path: str | int) -> Any:
    """``result.<section>[path[0]][path[1]]...`` of a section that is a mapping (``windows``,
    ``timelines``), or a ResultError naming the missing field."""
    data = getattr(result, section)
    for depth, key in enumerate(path):
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            name = section + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path[:depth + 1])
            raise ResultError(f"RunResult lacks {name}") from None
    return data


def _pct(value: float) -> str:
    return f"{value:,.1f} %"


def _lacks(name: str) -> ResultError:
    return ResultError(f"RunResult lacks {name}")


def _brokers(result: RunResult) -> tuple[BrokerFigures, ...]:
    if not result.brokers:
        raise _lacks("brokers")
    return result.brokers


def _broker_figures(result: RunResult, metric: str) -> list[tuple[Any, float | None]]:
    """(broker id, the metric's mean during the load) for every broker."""
    figures = []
    for index, broker in enumerate(_brokers(result)):
        windows = getattr(broker, metric)
        if windows is None or "during" not in windows:
            raise _lacks(f"brokers[{index}].{metric}" + ("" if windows is None else ".during"))
        figures.append((index if broker.id is None else broker.id, windows["during"]))
    return figures


NO_NEIGHBOURS = "no neighbours in this scenario"
NO_RECORDS = "no neighbour sent a record during the load"
# what to do when the gate had nothing to judge, by why
_NEXT = {NO_NEIGHBOURS: "list the neighbours the load must keep quiet in the scenario's tenants: (quietload import "
                        "finds them in the cluster's metrics with --cloudwatch or --prometheus)",
         NO_RECORDS: "give the neighbours a rate at which they send during the load, or a longer load"}


def without_neighbours(scenario: str, command: str) -> str:
    """What a command that proves or plans for the neighbours' SLAs says, before any run, of a scenario
    with none: what the gate says of its run, on one line."""
    return f"NOTHING TO JUDGE {scenario}: {NO_NEIGHBOURS}, so {command} has no SLA to hold; next: {_NEXT[NO_NEIGHBOURS]}"


def neighbour_sla(result: RunResult, thresholds: Gate) -> Verdict:
    """Every neighbour's p99 latency during the load is within its own SLA."""
    tenants = result.summary.tenants
    if not tenants:
        return Verdict("neighbour_sla", SKIPPED, NO_NEIGHBOURS)
    for index, tenant in enumerate(tenants):
        if tenant.sla_p99_ms is None:
            raise _lacks(f"summary.tenants[{index}].sla_p99_ms")
    measured = [(t.name, t.p99_ms_during, t.sla_p99_ms) for t in tenants]
    unmeasured = [name for name, p99, _ in measured if p99 is None]
    measured = [m for m in measured if m[1] is not None]
    if not measured:
        return Verdict("neighbour_sla", SKIPPED, NO_RECORDS)
    reason = words.sla_reason(measured, unmeasured)
    if any(over(p99, sla) for _, p99, sla in measured):
        found = blames(result)   # a night's: which job sent most of the requests while a neighbour was over
        return Verdict("neighbour_sla", FAIL, reason + "".join(f"; {words.night_blame(b)}" for b in found))
    name, p99, sla = max(measured, key=lambda m: m[1] / m[2])
    return Verdict("neighbour_sla", PASS, reason, words.sla_margin(name, p99, sla), p99 / sla)


def handler_idle(result: RunResult, thresholds: Gate) -> Verdict:
    """Every broker's request handlers keep at least the minimum idle share during the load."""
    figures = [(b, idle) for b, idle in _broker_figures(result, "RequestHandlerAvgIdlePercent") if idle is not None]
    if not figures:
        return Verdict("handler_idle", SKIPPED, "the load lasted less than one full second of broker metrics")
    floor = thresholds.handler_idle_min
    low = [(b, idle) for b, idle in figures if idle < floor]
    if low:
        listed = ", ".join(f"broker {b} {_pct(idle)}" for b, idle in low)
        return Verdict("handler_idle", FAIL,
                       f"RequestHandlerAvgIdlePercent during the load below {floor:g} %: {listed}")
    broker, idle = min(figures, key=lambda f: f[1])
    return Verdict("handler_idle", PASS,
                   f"lowest RequestHandlerAvgIdlePercent during the load {_pct(idle)} (broker {broker}), "
                   f"at least {floor:g} % required", f"handler idle {_pct(idle)} (at least {floor:g} %)",
                   floor / idle if idle else 1.0)


def broker_cpu(result: RunResult, thresholds: Gate) -> Verdict:
    """No broker's CPU is busier than the maximum during the load."""
    figures = [(b, cpu) for b, cpu in _broker_figures(result, "cpu_percent") if cpu is not None]
    if not figures:
        return Verdict("broker_cpu", SKIPPED, "the load lasted less than one full second of broker metrics")
    ceiling = thresholds.cpu_max
    high = [(b, cpu) for b, cpu in figures if cpu > ceiling]
    if high:
        listed = ", ".join(f"broker {b} {_pct(cpu)}" for b, cpu in high)
        return Verdict("broker_cpu", FAIL, f"broker CPU during the load above {ceiling:g} %: {listed}")
    broker, cpu = max(figures, key=lambda f: f[1])
    return Verdict("broker_cpu", PASS,
                   f"highest broker CPU during the load {_pct(cpu)} (broker {broker}), at most {ceiling:g} % allowed",
                   f"CPU {_pct(cpu)} of {ceiling:g} %", cpu / ceiling if ceiling else 1.0)


def produce_request_rate(result: RunResult, thresholds: Gate) -> Verdict:
    """Produce requests per second per broker (all clients: load and neighbours), mean over the load."""
    start, end = _figure(result, "windows", "during")
    series = _figure(result, "timelines", "produce_requests_per_s")
    # The timeline's second s counts [s, s+1): only seconds wholly inside the load count,
    # as the brokers' window means do.
    # A live run's second without a pair of scrapes (a broker killed, a slow exporter) is None.
    within = [count for second, count in enumerate(series) if start <= second and second + 1 <= end]
    seconds = [count for count in within if count is not None]
    if not seconds:
        return Verdict("produce_request_rate", SKIPPED, "the load lasted less than one full second of the timeline")
    brokers = len(_brokers(result))
    cluster_rate = sum(seconds) / len(seconds)
    per_broker = cluster_rate / brokers
    ceiling = thresholds.requests_per_broker_max
    gaps = len(within) - len(seconds)
    figures = (f"produce requests {per_broker:,.0f}/s per broker during the load "
               f"({cluster_rate:,.0f}/s over {brokers} broker{'s' if brokers != 1 else ''}"
               + (f"; {gaps} of its {len(within)} seconds unmeasured" if gaps else "") + ")")
    if per_broker > ceiling:
        return Verdict("produce_request_rate", FAIL, f"{figures}, above the maximum of {ceiling:,g}/s")
    return Verdict("produce_request_rate", PASS, f"{figures}, at most {ceiling:,g}/s allowed",
                   f"{per_broker:,.0f} of {ceiling:,g} produce requests/s per broker", per_broker / ceiling if ceiling else 1.0)


def load_deadline(result: RunResult, thresholds: Gate) -> Verdict:
    """The load finishes within its deadline, when one is stated; in a night of several jobs, each
    job's load from its own start, within its own ``deadline`` or else the scenario's."""
    if len(result.jobs) > 1:
        return _job_deadlines(result, thresholds)
    load_s = result.summary.load_seconds
    if load_s is None:
        raise _lacks("summary.load_seconds")
    if thresholds.deadline is None:
        return Verdict("load_deadline", SKIPPED, f"the load took {load_s:,.1f} s; no deadline stated (--deadline)")
    if load_s > thresholds.deadline:
        return Verdict("load_deadline", FAIL,
                       f"the load took {load_s:,.1f} s, past its deadline of {thresholds.deadline:,.1f} s")
    return Verdict("load_deadline", PASS,
                   f"the load took {load_s:,.1f} s, within its deadline of {thresholds.deadline:,.1f} s",
                   f"load {load_s:,.1f} s of a {thresholds.deadline:,.1f} s deadline", load_s / thresholds.deadline)


def _job_deadlines(result: RunResult, thresholds: Gate) -> Verdict:
    own = {job.get("name"): job.get("deadline") for job in job_mappings(result.scenario)}
    judged, unstated = [], []
    for job in result.jobs:
        deadline = own.get(job.name) or thresholds.deadline
        if deadline is None:
            unstated.append(job.name)
            continue
        took = math.inf if job.load_end_s is None or job.load_start_s is None else job.load_end_s - job.load_start_s
        judged.append((job.name, took, float(deadline)))
    if not judged:
        return Verdict("load_deadline", SKIPPED, f"no deadline stated for the night's {len(unstated)} jobs (--deadline, "
                                                 "or a job's own deadline)")
    def said(name: str, took: float, deadline: float) -> str:
        return (f"{name}'s load took {_s(took)}" if math.isfinite(took) else f"{name}'s load did not end") + \
            f" ({'past' if took > deadline else 'within'} its {_s(deadline)})"
    late = [j for j in judged if j[1] > j[2]]
    reason = "; ".join(said(*j) for j in (late or judged)) + (f"; no deadline for {', '.join(unstated)}" if unstated else "")
    if late:
        return Verdict("load_deadline", FAIL, reason, job=late[0][0])
    name, took, deadline = max(judged, key=lambda j: j[1] / j[2])
    return Verdict("load_deadline", PASS, reason, f"{name}'s load {_s(took)} of a {_s(deadline)} deadline",
                   took / deadline)


def _s(seconds: float) -> str:
    """Seconds as a night's jobs are read: tenths, hundredths under 10 s."""
    return f"{seconds:,.1f} s" if seconds >= 10 else f"{seconds:.2f} s"


RULES: tuple[Callable[[RunResult, Gate], Verdict], ...] = (
    neighbour_sla, handler_idle, broker_cpu, produce_request_rate, load_deadline)
