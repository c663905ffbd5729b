"""A run's verdict before its end: checked at the run's 1-second progress reports, so the event
loop pays nothing per event, and raised as ``RunStopped`` with the figures so far.

A neighbour's p99 during the load is over its SLA beyond doubt once more of its records are over
the SLA than any end of the load can outnumber. The p99 of N records is the bucket of the record
ranked ceil(0.99 N) (``LatencyHistogram.percentile``), so at most N - ceil(0.99 N) = floor(N / 100)
records lie above it: with k records already in buckets wholly above the SLA and k > floor(N / 100),
the ranked record is in one of those buckets and the p99 is over the SLA, for every N up to the
most the window can hold. The window is the records meant to be sent from the load's start to its
end, at the neighbour's fixed rate; its end is at most ``windows.max_duration`` (a load that runs
past it fails the run), and with a ``check.deadline`` at most the deadline after the start (a load
that ends later misses the deadline: over a constraint all the same); in a night of several jobs,
each held to its own deadline from its own start as ``check`` holds it, the latest of those. An SLA relative to the
neighbour's p99 alone is known once every record meant to be sent before the load has been
acknowledged: the window alone is then complete.
"""
from __future__ import annotations

import math
from typing import Any

from simulator.contract.figures import TenantFigures
from simulator.contract.histograms import LatencyHistogram
from simulator.stopping import RunStopped, StopWhen
from simulator.model.metrics import Latencies


def most_records(rate: float, start: float, end: float) -> int:
    """The most records a neighbour sending every 1/``rate`` s means to send in [start, end): one
    more than whole intervals fit, and one for the rounding of its send times as they add up."""
    return max(0, math.floor((end - start) * rate)) + 2


def first_bucket_over(sla_ms: float) -> int:
    """The first latency bucket every latency of which is over ``sla_ms`` (its lower edge above
    the SLA, with room for the rounding of the logarithm that picks a latency's bucket)."""
    step = LatencyHistogram.STEP
    bucket = int(math.log(sla_ms * 1e3 * (1 + 1e-9)) / step) + 1
    while math.exp((bucket - 1) * step) <= sla_ms * 1e3 * (1 + 1e-9):
        bucket += 1
    return bucket


def over_beyond_doubt(over: int, most: int) -> bool:
    """Whether ``over`` records over the SLA put the p99 of any window of at most ``most`` records over it."""
    return over > most // 100


def least_window_s(over: int, rate: float) -> float:
    """The shortest load whose window can hold ``over`` records over the SLA with its p99 within it:
    ``over_beyond_doubt`` false, at most ``most_records`` meant to be sent."""
    return max(0.0, (100 * over - 2) / rate - 1e-9)   # a nanosecond short: never longer for a rounding


def deadlines(run: Any) -> list[tuple[Any, float, float | None]]:
    """Each job of the run with its start and its deadline, as ``check`` holds them: one job's load
    within ``check.deadline`` from the load's start; in a night of several, each job's from its own
    start within its own ``deadline``, else the scenario's."""
    scenario = run.scenario
    if len(run.jobs) == 1:
        return [(run.jobs[0], run.night_start, scenario.check.deadline)]
    return [(job, scenario.job_start(job.job),
             job.job.deadline if job.job.deadline is not None else scenario.check.deadline) for job in run.jobs]


def window_end(run: Any) -> float:
    """The latest the load can end: its end once known, else the run's cap or, when every job has one,
    the latest of its jobs' deadlines."""
    if not math.isnan(run.load_end):
        return run.load_end
    cap = run.scenario.windows.max_duration
    ends = [start + deadline for _, start, deadline in deadlines(run) if deadline is not None]
    return cap if len(ends) < len(run.jobs) else min(cap, max(ends))


def load_requests(run: Any) -> int:
    return sum(executor.producer.requests for load in run.loads for executor in load.executors)


def sends_before(first: float, rate: float, end: float) -> int:
    """The records meant to be sent before ``end``: from ``first`` on, every 1 / ``rate`` s, the
    send times added up as the neighbour's producer adds them."""
    interval, sent, at = 1.0 / rate, 0, first
    while at < end:
        sent += 1
        at += interval
    return sent


def limit_ms(tenant: Any, start: float) -> float | None:
    """The neighbour's SLA in ms; a relative one once its window alone is complete (else None)."""
    sla, latencies = tenant.spec.sla, tenant.latencies
    if not sla.relative:
        return sla.ms
    if latencies.undecided or latencies.before.count < sends_before(tenant.first_send, tenant.spec.rate, start):
        return None
    return sla.limit_ms(latencies.before.percentile(0.99))


def figures_so_far(run: Any) -> dict[str, Any]:
    tenants = {}
    for tenant in run.tenants:
        if isinstance(tenant.latencies, Latencies) and tenant.latencies.during.count:
            limit = limit_ms(tenant, run.night_start)
            figures = TenantFigures(name=tenant.spec.name, p99_ms_during=tenant.latencies.during.percentile(0.99),
                                    sla_p99_ms=limit)
            tenants[tenant.spec.name] = figures.as_row(("p99_ms_during", "sla_p99_ms"), unset=False)
    load_end = run.engine.now if math.isnan(run.load_end) else run.load_end
    return {"simulated_s": round(run.engine.now, 3), "load_s": round(load_end - run.night_start, 3),
            "produce_requests": load_requests(run), "tenants": tenants}


def check(run: Any, stop: StopWhen) -> None:
    """Raise ``RunStopped`` when the run's verdict is known: a constraint missed beyond doubt, more
    produce requests than ``stop.requests_over``, or more requests and a longer load than a point of
    ``stop.beaten_by``."""
    now, start = run.engine.now, run.night_start
    if now <= start:
        return
    if stop.events_over is not None and run.engine.events > stop.events_over:
        raise RunStopped(f"past the limit of a single run, its verdict unknown: {run.engine.events:,} events by "
                         f"{now:,.0f} s simulated, more than {stop.events_over:,}",
                         {**figures_so_far(run), "verdict": "unknown"})
    requests = load_requests(run) if stop.requests_over is not None else 0
    if stop.requests_over is not None and requests > stop.requests_over:
        raise RunStopped(f"{requests:,} produce requests by {now - start:,.0f} s after the load's start, past "
                         f"{stop.requests_over:,}", figures_so_far(run))
    for job, job_start, deadline in deadlines(run):
        running = math.isnan(run.load_end if len(run.jobs) == 1 else job.ended)
        if deadline is not None and running and now - job_start > deadline:
            whose = "the load" if len(run.jobs) == 1 else f"{job.job.name}'s load"
            field = "check.deadline" if len(run.jobs) == 1 or job.job.deadline is None else "its deadline"
            raise RunStopped(f"{whose} still running {now - job_start:,.0f} s after its start, past {field} "
                             f"{deadline:g} s", figures_so_far(run))
    end = window_end(run)
    load_s = (now if math.isnan(run.load_end) else run.load_end) - start
    holding_s = load_s   # the least the load lasts were every neighbour to hold: long enough to outnumber its records over
    for tenant in run.tenants:
        if not isinstance(tenant.latencies, Latencies):   # a streaming pipeline's: judged at the run's end
            continue
        limit = limit_ms(tenant, start)
        if limit is None:
            continue
        first = first_bucket_over(limit)
        over = tenant.latencies.during.count_from(first)
        most = most_records(tenant.spec.rate, start, end)
        if over_beyond_doubt(over, most):
            raise RunStopped(f"{tenant.spec.name}'s p99 during the load over its SLA of {limit:.3g} ms beyond doubt: "
                             f"{over:,} records over it, more than 1 % of the {most:,} the load can hold",
                             figures_so_far(run))
        holding_s = max(holding_s, least_window_s(over, tenant.spec.rate))
    for most, longest in stop.beaten_by:
        requests = requests or load_requests(run)
        if requests > most and holding_s > longest:
            held = f"{load_s:,.0f} s" if holding_s == load_s else f"at least {holding_s:,.0f} s were it to hold"
            if most < 0:   # a point of no requests: beaten on the load's end alone (a night's schedule)
                raise RunStopped(f"its loads run past the end of a night that held: {load_s:,.3f} s from the first "
                                 f"start, past {longest:,.3f} s", figures_so_far(run))
            raise RunStopped(f"beaten by a trial that held: {requests:,} produce requests, past {most:,}, and a load of "
                             f"{held}, past {longest:,.1f} s", figures_so_far(run))
