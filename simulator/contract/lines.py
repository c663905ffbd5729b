"""The names of a RunResult's per-second lines (``timelines``) that belong to one tenant or one
job, spelled here once: the model and the live run write them, the judge, the blame, the
schedule and the report read them."""
from __future__ import annotations

from typing import Iterable

JOB_REQUESTS = "produce_requests_per_s"   # the job's produce requests as the brokers counted its client.id's
JOB_RECORDS = "records_per_s"             # the job's records: the brokers' count, or its acks in the append trace
TENANT_P99 = "p99_ms"                     # a neighbour's p99 latency in each second


def job_line(name: str, figure: str) -> str:
    """A job's line: ``job.NAME.FIGURE``."""
    return f"job.{name}.{figure}"


def tenant_line(name: str, figure: str = TENANT_P99) -> str:
    """A neighbour's line: ``tenant.NAME.FIGURE``."""
    return f"tenant.{name}.{figure}"


def named(keys: Iterable[str], kind: str, figure: str) -> list[str]:
    """The names in ``keys`` of the form ``KIND.NAME.FIGURE`` (``kind``: job or tenant), in order."""
    head, tail = f"{kind}.", f".{figure}"
    return [key[len(head):-len(tail)] for key in keys if key.startswith(head) and key.endswith(tail)]
