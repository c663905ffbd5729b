"""Which job of a night hurt whom: for each neighbour, the seconds its p99 was over its SLA, and
each job's share of the produce requests the brokers counted (by client.id) in those seconds.
From a RunResult alone (its ``jobs``, its per-second ``tenant.NAME.p99_ms`` and
``job.NAME.produce_requests_per_s`` lines), so a model run and a live run are read alike."""
from __future__ import annotations

from dataclasses import dataclass

from simulator.contract import explain as words
from simulator.contract import lines
from simulator.contract.result import RunResult
from workloads.batch import job_mappings
from workloads.settings import BATCH_SIZE_CONFIG, COMPRESSION_TYPE_CONFIG, LINGER_MS_CONFIG


@dataclass(frozen=True)
class Blame:
    """A neighbour over its SLA during a night, and the jobs' shares of the requests meanwhile."""

    neighbour: str
    sla_ms: float
    seconds_over: int                  # seconds whose p99 was over the SLA
    shares: tuple[tuple[str, float], ...]   # (job, share of the produce requests then), largest first

    @property
    def job(self) -> str:
        return self.shares[0][0]


def job_line(result: RunResult, name: str) -> list[float]:
    return [v or 0.0 for v in result.timelines.get(lines.job_line(name, lines.JOB_REQUESTS)) or []]


def request_shares(result: RunResult, seconds: list[int] | None = None) -> tuple[tuple[str, float], ...]:
    """Each job's share of the jobs' produce requests (in ``seconds``, else over the run), largest first."""
    counts = {}
    for job in result.jobs:
        line = job_line(result, job.name)
        counts[job.name] = sum(line[s] for s in seconds if s < len(line)) if seconds is not None else sum(line)
    total = sum(counts.values())
    if not total:
        return ()
    return tuple(sorted(((name, count / total) for name, count in counts.items()), key=lambda pair: -pair[1]))


def blames(result: RunResult) -> list[Blame]:
    """For each neighbour with an SLA whose p99 was over it in some second of the night's load,
    the jobs' shares of the produce requests in those seconds (several jobs only)."""
    if len(result.jobs) < 2:
        return []
    start, end = (result.windows.get("during") or [0.0, 0.0])[:2]
    found = []
    for tenant in result.summary.tenants:
        line = result.timelines.get(lines.tenant_line(tenant.name)) or []
        if tenant.sla_p99_ms is None:
            continue
        over = [s for s, p99 in enumerate(line) if p99 is not None and p99 > tenant.sla_p99_ms
                and int(start) <= s < (end if end is not None else len(line))]
        shares = request_shares(result, over)
        if over and shares:
            found.append(Blame(tenant.name, tenant.sla_p99_ms, len(over), shares))
    return found


def night_lines(result: RunResult) -> list[str]:
    """A night's jobs, one line each, then which job hurt whom (several jobs only)."""
    if len(result.jobs) < 2:
        return []
    settings = {job.get("name"): job.get("producer") or {} for job in job_mappings(result.scenario)}
    lines = [words.job_mechanism(job, settings[job.name][LINGER_MS_CONFIG], settings[job.name][BATCH_SIZE_CONFIG],
                                 settings[job.name][COMPRESSION_TYPE_CONFIG]) for job in result.jobs]
    by_name = {job.name: job for job in result.jobs}
    found = blames(result)
    shares = dict(request_shares(result))
    lines += [words.job_blame(b, by_name[b.job], shares.get(b.job, 0.0), settings[b.job][LINGER_MS_CONFIG]) for b in found]
    if not found:
        lines.append(words.night_within(shares.items()))
    return lines
