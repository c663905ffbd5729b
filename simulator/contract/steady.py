"""The load's steady middle: the figures of a RunResult over the whole seconds of its load that lie
past the load's first and before its last ``TRIM_SHARE`` (at least ``TRIM_MIN_S`` each side), so
that the job's warm-up (a fresh JVM compiling its hot code, the first S3 reads) and the tail of its
last tasks are left out.

Model and live runs carry the same lines (``timelines``): ``job.NAME.produce_requests_per_s`` (the
brokers' count of the job's client.id: the model's brokers, the live brokers' request log) and
``job.NAME.records_per_s`` (the records of those requests: the model's brokers; live, the records
acknowledged to the job's producers, from its append trace). Second ``s`` of a line is [s, s + 1)
from the run's start, and ``windows["during"]`` is the load; so the middle is read from the result
itself, and says which seconds it took (``first_s`` to ``last_s``, both included).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

TRIM_SHARE = 0.2      # of the load, left out at its start and at its end
TRIM_MIN_S = 1.0      # at least this much each side


@dataclass(frozen=True)
class SteadyMiddle:
    first_s: int                     # the first second taken, from the run's start
    last_s: int                      # the last second taken (included)
    produce_requests: float          # the job's, over those seconds
    records: float | None            # None: the run has no records line
    neighbour_p99_ms: dict[str, float | None]   # each neighbour's worst one-second p99 over them

    @property
    def seconds(self) -> int:
        return self.last_s - self.first_s + 1

    @property
    def requests_per_s(self) -> float:
        return self.produce_requests / self.seconds

    @property
    def records_per_request(self) -> float | None:
        return None if self.records is None or not self.produce_requests else self.records / self.produce_requests


def middle_seconds(start: float, end: float) -> tuple[int, int] | None:
    """The whole seconds inside [start + trim, end - trim] (first, last included), or None if none is."""
    trim = max(TRIM_MIN_S, TRIM_SHARE * (end - start))
    first, last = math.ceil(start + trim), math.floor(end - trim) - 1
    return (first, last) if last >= first else None


def steady_middle(result: Any, job: str | None = None) -> SteadyMiddle | None:
    """``result``'s figures over its load's steady middle (``job``: a night's job by name, default the
    first job line); None when the load is too short for a whole second past both trims or the run
    has no job line (a file written before the lines)."""
    lines = result.timelines or {}
    names = [key[len("job."):-len(".produce_requests_per_s")] for key in lines
             if key.startswith("job.") and key.endswith(".produce_requests_per_s")]
    name = job if job is not None else (names[0] if names else None)
    during = (result.windows or {}).get("during")
    if name is None or name not in names or not during:
        return None
    span = middle_seconds(float(during[0]), float(during[1]))
    requests = lines[f"job.{name}.produce_requests_per_s"]
    if span is None or span[1] >= len(requests):
        return None
    first, last = span
    records = lines.get(f"job.{name}.records_per_s")
    p99 = {key[len("tenant."):-len(".p99_ms")]: max((v for v in line[first:last + 1] if v is not None), default=None)
           for key, line in lines.items() if key.startswith("tenant.") and key.endswith(".p99_ms")}
    return SteadyMiddle(first, last, float(sum(requests[first:last + 1])),
                        None if records is None else float(sum(records[first:last + 1])), p99)
