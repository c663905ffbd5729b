"""The load's steady part: the figures of a RunResult over the whole seconds of its load at the
job's full pace: from the first to the last whole second of the load whose records reach
``STEADY_SHARE`` of the busiest whole second's, so that the job's warm-up (a fresh JVM compiling
its hot code, the first S3 reads: live, a 12 MB load's first 2-3 s run at a tenth of its pace)
and the partial seconds at its ends are left out.

Model and live runs carry the same lines (``timelines``): ``job.NAME.produce_requests_per_s`` (the
brokers' count of the job's client.id: the model's brokers, the live brokers' request log) and
``job.NAME.records_per_s`` (the records of those requests: the model's brokers; live, the records
acknowledged to the job's producers, from its append trace). Second ``s`` of a line is [s, s + 1)
from the run's start, and ``windows["during"]`` is the load; so the steady part is read from the
result itself, and says which seconds it took (``first_s`` to ``last_s``, both included).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from simulator.contract.lines import JOB_RECORDS, JOB_REQUESTS, TENANT_P99, job_line, named, tenant_line

STEADY_SHARE = 0.5    # of the busiest whole second's records: a second at the job's full pace


@dataclass(frozen=True)
class SteadyMiddle:
    first_s: int                     # the first second taken, from the run's start
    last_s: int                      # the last second taken (included)
    produce_requests: float          # the job's, over those seconds
    records: float
    neighbour_p99_ms: dict[str, float | None]   # each neighbour's worst one-second p99 over them

    @property
    def seconds(self) -> int:
        return self.last_s - self.first_s + 1

    @property
    def requests_per_s(self) -> float:
        return self.produce_requests / self.seconds

    @property
    def records_per_request(self) -> float | None:
        return None if not self.produce_requests else self.records / self.produce_requests


def middle_seconds(start: float, end: float, records: list[float]) -> tuple[int, int] | None:
    """From the first to the last whole second inside [start, end] whose ``records`` reach
    ``STEADY_SHARE`` of the busiest whole second's (both included), or None if there is none."""
    whole = range(math.ceil(start), min(math.floor(end), len(records)))
    busiest = max((records[s] for s in whole), default=0.0)
    full = [s for s in whole if busiest > 0 and records[s] >= STEADY_SHARE * busiest]
    return (full[0], full[-1]) if full else None


def steady_middle(result: Any, job: str | None = None) -> SteadyMiddle | None:
    """``result``'s figures over its load's steady part (``job``: a night's job by name, default the
    first job line); None when the load holds no whole second or the run has no job lines (a file
    written before them)."""
    lines = result.timelines or {}
    names = named(lines, "job", JOB_REQUESTS)
    name = job if job is not None else (names[0] if names else None)
    during = (result.windows or {}).get("during")
    records = lines.get(job_line(name, JOB_RECORDS)) if name is not None else None
    if name is None or name not in names or not during or records is None:
        return None
    span = middle_seconds(float(during[0]), float(during[1]), records)
    if span is None:
        return None
    first, last = span
    requests = lines[job_line(name, JOB_REQUESTS)]
    p99 = {tenant: max((v for v in lines[tenant_line(tenant)][first:last + 1] if v is not None), default=None)
           for tenant in named(lines, "tenant", TENANT_P99)}
    return SteadyMiddle(first, last, float(sum(requests[first:last + 1])), float(sum(records[first:last + 1])), p99)
