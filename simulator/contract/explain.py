"""The words of a result: every sentence quietload writes about a run's mechanism, a neighbour's
p99 against its SLA, and a change before -> after, from the typed figures (``Summary``,
``TenantFigures``) and what else a RunResult holds.

The evaluators' ``mechanism`` lines (``simulator.model.explain``, ``simulator.live.outcome``; a
pipeline's parts from the figures ``simulator.model.streaming`` keeps), the gate's verdicts and
advice (``judging.gate``, ``judging.advice``), the tuner's recommendation (``tuner.recommend``) and
what differs from a scenario's earlier study (``tuner.study``),
the verdicts of a run's summary and report (``reports.summary``, ``reports.sections.runs``,
``reports.sections.header``) and of a plan (``reports.sections.plan``, ``tuner.planning.capacity``)
word through here: a phrase ("drained every 0.25 ms", "10.04 ms > SLA 10.00 ms", "OVER SLA",
"produce requests 2,520 -> 128") is written once, so two outputs never word one figure two ways.
The callers decide which sentences a result calls for; this module only words them.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from simulator.contract.figures import Summary, TenantFigures
from simulator.contract.phrases import (  # noqa: F401  (their words are explain's: callers word through it)
    TOO_FEW_RECORDS, against_sla, appended, before_after, changed, drained_every, kb, missed_sla, ms, ms_against,
    p99_of_sla, share_of_batch_size, sla, sla_figure, sla_margin, sla_reason, sla_sources, sla_verdict,
    sla_verdict_by_window, within_sla, worst_neighbour)
from workloads.units import format_bytes


# --- a run's mechanism ----------------------------------------------------------------------------

def spark_tasks(spark: Mapping[str, Any], executors: Any) -> str:
    return (f"Spark ran {spark['write_tasks']} write tasks on {spark['slots']} cores "
            f"({executors} executors, {spark['waves']} wave(s)"
            + (f", after a {spark['scan_tasks']}-task shuffle stage" if spark["shuffled"] else "")
            + "); each executor's tasks share one producer.")


def producer_job(job: Mapping[str, Any]) -> str:
    """A plain producer job (``kind: producer``) as kafka-producer-perf-test would be run."""
    instances = job.get("producers", 1)
    throughput = job.get("throughput")
    pace = f"at {throughput:,.0f} records/s each (perf-test's throttle: bursts)" if throughput else \
        "as fast as send() returns (unthrottled)"
    size = f"{format_bytes(job['record_size'])} records" if job.get("record_size") else "the dataset's rows"
    return (f"{instances} producer instance(s), each on a host of its own with one thread calling send() into one "
            f"producer, sent {job['records']:,} {size} {pace}.")


def record_latency(latency: Mapping[str, Any]) -> str:
    """The batch job's own records, send() to acknowledgement, as perf-test prints them."""
    return (f"The job's {latency['count']:,} records took {ms(latency['p50'], 2)} at p50, {ms(latency['p95'], 2)} "
            f"at p95, {ms(latency['p99'], 2)} at p99, {ms(latency['p999'], 2)} at p99.9 and {ms(latency['max'], 2)} "
            f"at most from send() to acknowledgement.")


def batching(s: Summary, linger_ms: float, batch_size: float) -> str:
    """How the producers' append rate and their senders' drain interval made the batches."""
    return (f"Each producer {appended(s.append_rate_bytes_per_s or 0.0)}; its sender "
            f"{drained_every(s.drain_interval_ms or 0.0)} on average, so with linger.ms={linger_ms:g} a batch gathered "
            f"{format_bytes(s.mean_batch_bytes)} of records ({share_of_batch_size(s.batch_fill, batch_size)} on the wire).")


def requests_and_batches(s: Summary, compression: str) -> str:
    return (f"{s.produce_requests:,} produce requests carried {s.batches:,} batches "
            f"({s.batches_per_request:.2f} per request, {s.records_per_request:.0f} records per request); "
            f"compression.type={compression} sent {s.compression_ratio * 100:.0f} % of the value bytes.")


def broker_load(s: Summary, cores: float | None = None) -> str:
    """The busiest broker during the load; live, its CPU as a share of the ``cores`` its JVM may use."""
    cpu = (f"its CPU {s.cpu_pct_during:.0f} % busy" if cores is None
           else f"its JVM used {s.cpu_pct_during or 0:.0f} % of its {cores} core(s)")
    return f"During the load the busiest broker's request handlers were {s.handler_idle_pct_during:.0f} % idle and {cpu}."


def quota_hold(s: Summary, producer_byte_rate: float | None, request_percentage: float | None) -> str | None:
    bounds = ([f"producer_byte_rate quota of {format_bytes(producer_byte_rate)}/s"] if producer_byte_rate else []) \
        + ([f"request_percentage quota of {request_percentage:g} % of a handler thread"] if request_percentage else [])
    if not bounds:
        return None
    return (f"The brokers held the job to its {' and '.join(bounds)} on each broker: they throttled it for "
            f"{s.quota_throttle_s:.1f} s in all (muting its connections), and the load took {s.load_seconds:.1f} s.")


def replication_lag(lag_bytes: float, acks: Any) -> str:
    return (f"With acks={acks} replication fell up to {format_bytes(lag_bytes)} behind the leaders; "
            f"replica fetchers copied the load's partitions together with the neighbours'.")


def neighbour_p99(tenant: TenantFigures, pipeline: bool = False) -> str:
    """``Neighbour payment-api: p99 8.6 ms before the load, 69.9 ms during it (8.1x; SLA 10 ms)``, without its period
    (the run's own window before the load: a relative SLA's p99 alone is resolved once, ``sla_sources``)."""
    before, during = tenant.p99_ms_before, tenant.p99_ms_during
    return (f"{'Pipeline' if pipeline else 'Neighbour'} {tenant.name}: {'end to end ' if pipeline else ''}"
            f"p99 {before:.1f} ms before the load, {during:.1f} ms during it "
            f"({during / before:.1f}x; {sla(tenant.sla_p99_ms)})")


PIPELINE_PARTS = {"to_pipeline": "reaching the pipeline", "in_pipeline": "in it", "to_output": "reaching its output"}


def pipeline_parts(tenant: Mapping[str, Any]) -> str:
    """What made a pipeline's end to end latency, and what the load added to each part, from its
    result entry's ``streaming`` figures (``workloads.streaming`` names the shape)."""
    streaming = tenant["streaming"]
    before, during = streaming["parts_ms"]["before"], streaming["parts_ms"]["during"]
    if before["to_pipeline"] is None:
        return f"Pipeline {tenant['name']} ({tenant['kind']}) delivered no record before the load."
    largest = max(PIPELINE_PARTS, key=lambda k: before[k] or 0.0)
    text = (f"Pipeline {tenant['name']} ({tenant['kind']}): alone a record spent on average "
            + ", ".join(f"{before[k]:.1f} ms {PIPELINE_PARTS[k]}" for k in PIPELINE_PARTS)
            + f"; most of it {PIPELINE_PARTS[largest]}")
    why = {"to_output": (f" (the sink producer's batches wait up to linger.ms={streaming['sink_linger_ms']:g}"
                         + (", and its records are visible only once their transaction commits)"
                            if streaming["exactly_once"] else ")")),
           "in_pipeline": " (each record waits for the ones polled before it)"}
    text += why.get(largest, "")
    batches = streaming.get("batches", {}).get("before")
    if batches and batches["count"]:
        text += micro_batch(batches)
    if during["to_pipeline"] is not None:
        text += "; during the load " + ", ".join(f"{during[k] - before[k]:+.1f} ms {PIPELINE_PARTS[k]}" for k in PIPELINE_PARTS)
        upstream_before, upstream_during = (tenant["upstream_latency_ms"][w]["p99"] for w in ("before", "during"))
        if upstream_before and upstream_during:
            text += f" (its upstream producer's p99 {before_after(f'{upstream_before:.1f}', f'{upstream_during:.1f}')} ms)"
    return text + "."


def micro_batch(batch: Mapping[str, Any]) -> str:
    """What a Spark micro-batch took, part by part (mean ms)."""
    return (f" (a micro-batch took {batch['batch_ms']:.0f} ms: latest offsets {batch['offsets_ms']:.1f}, "
            f"offset log {batch['offset_log_ms']:.0f}, planning {batch['planning_ms']:.0f}, tasks "
            f"{batch['tasks_ms']:.1f}, state {batch['state_ms']:.0f}, commit log {batch['commit_log_ms']:.0f} ms; "
            "a record first waits for the trigger)")


def broker_wait(times: Mapping[str, float | None], pipeline: bool = False) -> str:
    """Where a neighbour's requests waited in the brokers (Kafka's produce request time parts), to follow ``neighbour_p99``."""
    whose = "its upstream producer's" if pipeline else "its"
    return (f": in the brokers {whose} requests took up to {times['TotalTimeMs']:.0f} ms (p99), "
            f"{times['RemoteTimeMs']:.0f} ms of it waiting for followers to fetch (RemoteTimeMs) and "
            f"{times['LocalTimeMs']:.0f} ms appending to the log (LocalTimeMs); a broker reads one request "
            f"per connection at a time, so its next requests and records waited behind each of them")


def job_wrote(rows: int, s: Summary, writer: str = "The Spark job") -> str:
    return (f"{writer} wrote {rows:,} rows in {s.load_seconds:.1f} s; its producer sent "
            f"{s.producer_request_total:,} requests by its own count (request-total), mean batch "
            f"{kb(s.mean_batch_wire_bytes)} on the wire, {s.records_per_request:.0f} records per request.")


def broker_count(s: Summary) -> str:
    return (f"The brokers counted {s.broker_produce_requests:,.0f} produce requests, "
            f"{s.neighbour_produce_requests:,} of them the neighbours'; the job's {s.produce_requests:,} are the rest.")


def integrity(counts: Mapping[str, Any]) -> str:
    return (f"Integrity: {counts.get('rows_arrived', 0):,} of {counts.get('rows_expected', 0):,} rows arrived, "
            f"{counts.get('missing', 0):,} missing, {counts.get('duplicated', 0):,} duplicated: "
            + ("every row exactly once." if counts.get("ok") else "ROWS LOST OR DUPLICATED."))


def fault(fault: Mapping[str, Any]) -> str:
    return f"Fault: {fault['kind']} (broker {fault['broker']}) at {fault['at_s']:.1f} s."


def incomplete(figure: str, why: str) -> str:
    return f"Incomplete: {figure}: {why}."


def core_waits(waits: Mapping[str, Mapping[str, Any]]) -> str:
    """Each thread group's wait for a core over the load, as a share of its window."""
    def one(name: str, w: Mapping[str, Any]) -> str:
        if "foreign_pct" in w:     # not a group's wait: what else its cores ran
            return f"the brokers' cores ran other work {w['foreign_pct']:.2f} % ({w['foreign_s']:.2f} s)"
        return f"{name} {w['wait_pct']:.2f} % ({w['wait_s']:.2f} s over {w['threads']:.0f} threads, ran {w['run_s']:.1f} s)"
    return "Waits for a core during the load: " + "; ".join(one(name, w) for name, w in waits.items()) + "."


def noise(reason: str) -> str:
    return f"NOISE: {reason}; its latency figures measure the machine, not the cluster."


# --- a change, before -> after --------------------------------------------------------------------

def requests(before: float, after: float) -> str:
    return before_after(f"produce requests {before:,}", f"{after:,}")


def summary_change(b: Summary, a: Summary) -> list[str]:
    """The tuner's pick against the job as it is, by mechanism, from the two runs' summaries."""
    lines = [
        f"{requests(b.produce_requests, a.produce_requests)} because batches fill to "
        f"{kb(a.mean_batch_bytes)} of records instead of {kb(b.mean_batch_bytes)} "
        f"({a.batches_per_request:.2f} batches per request instead of {b.batches_per_request:.2f}): "
        f"each producer {appended(a.append_rate_bytes_per_s)} (was {format_bytes(b.append_rate_bytes_per_s)}/s) "
        f"and its sender {drained_every(a.drain_interval_ms)} (was {ms(b.drain_interval_ms, 2)})",
        f"on the wire {before_after(format_bytes(b.wire_bytes), format_bytes(a.wire_bytes))} "
        f"(compression ratio {before_after(f'{b.compression_ratio:.2f}', f'{a.compression_ratio:.2f}')})",
        f"load {before_after(f'{b.load_seconds:.1f} s', f'{a.load_seconds:.1f} s')}",
    ]
    for before, after in zip(b.tenants, a.tenants):
        lines.append(f"{after.name} p99 during the load "
                     f"{before_after(f'{before.p99_ms_during:,.1f}', f'{after.p99_ms_during:,.1f}')} ms "
                     f"(before it {after.p99_ms_before:.1f} ms, {sla(after.sla_p99_ms)}: "
                     f"{sla_verdict(after.p99_ms_during, after.sla_p99_ms)})")
    return lines


def settings_changed(changes: list[str]) -> str:
    return "changed: " + (", ".join(changes) if changes else "nothing (the scenario's settings are the pick)")


def predicted(failed: Iterable[str], tenants: Iterable[tuple[str, float | None, float]], produce_requests: int,
              now_produce_requests: int) -> str:
    """What the model predicts for a change: the rules still failing, each neighbour's p99 against its
    SLA, and the produce requests against those of the job as it is."""
    failed = list(failed)
    shown = ", ".join(missed_sla(name, p99, sla_ms) for name, p99, sla_ms in tenants if p99 is not None)
    verdict = "every rule passes" if not failed else f"{', '.join(failed)} still fail{'s' if len(failed) == 1 else ''}"
    return f"{verdict}; {shown + '; ' if shown else ''}{requests(now_produce_requests, produce_requests)}"


def settings(overrides: Iterable[str]) -> str:
    """The ``--set`` options that make a change, as a user types them."""
    return " ".join(f"--set {value}" for value in overrides)


def so(overrides: Iterable[str]) -> str:
    """The line that closes a recommended change: what to run."""
    return f"so: {settings(overrides)}"


# --- what a run's figures show, as the reason for a change -------------------------------------------

def small_batches(s: Summary, linger_ms: Any, batch_size: float) -> str:
    drained = f"the sender {drained_every(s.drain_interval_ms)} and " if s.drain_interval_ms else ""
    return (f"with linger.ms={linger_ms} {drained}batches reached {share_of_batch_size(s.batch_fill, batch_size)} "
            f"({format_bytes(s.mean_batch_bytes or 0.0)} of records)")


def few_tasks(tasks: int, fill: float) -> str:
    return f"{tasks} write tasks filled batches to {share_of_batch_size(fill)}"


def uncompressed(s: Summary) -> str:
    return f"the load sent {format_bytes(s.wire_bytes)} to the brokers uncompressed"


def waited_for_followers(acks: Any, lag_bytes: float | None, name: str, remote_ms: float, sla_ms: float) -> str:
    behind = f"replication fell {format_bytes(lag_bytes)} behind and " if lag_bytes else ""
    return (f"with acks={acks} {behind}{name}'s requests waited {remote_ms:,.1f} ms for followers "
            f"(RemoteTimeMs p99) against an SLA of {sla_ms:,.1f} ms")


def fetchers_busy(name: str, remote_ms: float, total_ms: float) -> str:
    return (f"{name}'s requests spent {remote_ms:,.1f} of their {total_ms:,.1f} ms in the brokers waiting for "
            f"followers (RemoteTimeMs p99), whose fetches also carry the load's partitions")


def little_headroom(name: str, before_ms: float, sla_ms: float) -> str:
    return (f"{name} already had a p99 of {before_ms:,.1f} ms before the load ({before_ms / sla_ms * 100:.0f} % of its "
            f"{sla_ms:,.1f} ms SLA), leaving the load {sla_ms - before_ms:,.1f} ms")


def load_per_broker(mb_per_s: float) -> str:
    return f"the load sent {mb_per_s:,.1f} MB/s per broker; the quota halves it"


def waves(tasks: Any, count: int, slots: int) -> str:
    return f"its {tasks} write tasks ran in {count} waves on {slots} cores"


# --- a night's jobs --------------------------------------------------------------------------------

def job_mechanism(job: Any, linger_ms: Any, batch_size: float, compression: str) -> str:
    """One job of a night: what its producers sent, how they batched (where the run saw it), and its load's span."""
    span = f"{job.load_start_s:,.1f}-{job.load_end_s:,.1f} s" if job.load_end_s is not None else f"from {job.load_start_s:,.1f} s, unfinished"
    line = f"Job {job.name} (client.id {job.client_id}, {span}): {job.produce_requests or 0:,.0f} produce requests"
    if job.batches:
        per_request = job.batches / job.produce_requests if job.produce_requests else 0.0
        line += f" carried {job.batches:,.0f} batches ({per_request:.2f} per request)"
    if job.drain_interval_ms is None:   # a live run: the producer's metrics do not time its sender's drains
        return line + f" with linger.ms={linger_ms:g} and compression.type={compression}."
    return (line + f"; each producer {appended(job.append_rate_bytes_per_s or 0.0)} and its sender "
            f"{drained_every(job.drain_interval_ms)}, so with linger.ms={linger_ms:g} and compression.type={compression} "
            f"a batch was {share_of_batch_size(job.batch_fill or 0.0, batch_size)} on the wire.")


def job_blame(blame: Any, job: Any, night_share: float, linger_ms: Any) -> str:
    """``hourly-export sent 61 % of the jobs' produce requests in payment-api's 14 s over its SLA ...``."""
    sender = (f"its sender {drained_every(job.drain_interval_ms)} with batches {share_of_batch_size(job.batch_fill or 0.0)} "
              f"(linger.ms={linger_ms:g})" if job.drain_interval_ms is not None else f"its producers ran with linger.ms={linger_ms:g}")
    return (f"{night_blame(blame)} of {blame.sla_ms:g} ms ({night_share * 100:.0f} % over the whole night): {sender}, and "
            f"the brokers handled its requests in the same request queue and handler threads as the neighbour's"
            + (f"; its quota throttled it {job.quota_throttle_s:,.1f} s" if job.quota_throttle_s else "") + ".")


def night_blame(blame: Any) -> str:
    """``hourly-export sent 61 % of the produce requests in payment-api's 14 s over its SLA``."""
    return (f"{blame.job} sent {blame.shares[0][1] * 100:.0f} % of the jobs' produce requests in {blame.neighbour}'s "
            f"{blame.seconds_over} s over its SLA")


def night_within(shares: Iterable[tuple[str, float]]) -> str:
    return ("No neighbour went over its SLA in any second of the night; the jobs' shares of the produce requests: "
            + ", ".join(f"{name} {share * 100:.0f} %" for name, share in shares) + ".")
