"""The gate's recommended change: short rule-based hints, each tied to figures of the result.

A hint is given only when the result shows the mechanism it addresses (small batches with
linger.ms=0, uncompressed values, neighbours waiting for followers with acks=1, ...), and it
names those figures. Figures a result lacks make their hint silent, never an error: advice is
optional, verdicts are not.
"""
from __future__ import annotations

from simulator.result import RunResult
from workloads.units import format_bytes

# Batches under half of batch.size mean the sender drains faster than the tasks append.
LOW_BATCH_FILL = 0.5
# A neighbour that spends more than half its SLA waiting for followers is held up by replication.
REMOTE_SHARE_OF_SLA = 0.5
# A neighbour whose time in the brokers is mostly waiting for followers is held up by its
# replica fetchers, which also carry the load's partitions (one fetcher thread per hash bucket).
FOLLOWER_SHARE_OF_BROKER_TIME = 0.8
# A neighbour already above half its SLA without the load leaves little room for any load.
BUSY_BEFORE_SHARE_OF_SLA = 0.5

_BROKER_LOAD_RULES = {"neighbour_sla", "handler_idle", "broker_cpu", "produce_request_rate"}


def _linger(producer: dict, summary: dict) -> str | None:
    fill, batch_size = summary.get("batch_fill"), producer.get("batch.size")
    if producer.get("linger.ms") != 0 or fill is None or fill >= LOW_BATCH_FILL or not batch_size:
        return None
    drain = summary.get("drain_interval_ms")
    drained = f"the sender drained every {drain:,.2f} ms and " if drain else ""
    return (f"raise linger.ms (e.g. 10) so batches fill: with linger.ms=0 {drained}batches reached "
            f"{fill * 100:.0f} % of batch.size={format_bytes(batch_size)} "
            f"({format_bytes(summary.get('mean_batch_bytes', 0.0))} of records)")


def _compression(producer: dict, summary: dict) -> str | None:
    if producer.get("compression.type") != "none" or not summary.get("wire_bytes"):
        return None
    return (f"set compression.type=zstd: the load sent {format_bytes(summary['wire_bytes'])} "
            f"to the brokers uncompressed")


def _acks(producer: dict, summary: dict) -> str | None:
    if str(producer.get("acks")) not in ("0", "1"):
        return None
    waits: list[tuple[str, float, float]] = []
    for tenant in summary.get("tenants", []):
        remote = (tenant.get("broker_time_ms_p99_during") or {}).get("RemoteTimeMs")
        sla = tenant.get("sla_p99_ms")
        if remote is not None and sla and remote > REMOTE_SHARE_OF_SLA * sla:
            waits.append((tenant["name"], remote, sla))
    if not waits:
        return None
    name, remote, sla = max(waits, key=lambda w: w[1])
    lag = summary.get("replica_lag_bytes_max_during")
    behind = f"replication fell {format_bytes(lag)} behind and " if lag else ""
    return (f"use acks=all (with enable.idempotence=true) so the load cannot outrun replication: "
            f"with acks={producer['acks']} {behind}{name}'s requests waited {remote:,.1f} ms for followers "
            f"(RemoteTimeMs p99) against an SLA of {sla:,.1f} ms")


def _fetchers(result: RunResult) -> str | None:
    producer = (result.scenario.get("batch") or {}).get("producer") or {}
    if str(producer.get("acks")) != "all":
        return None   # with acks=1 the acks hint comes first
    waits: list[tuple[str, float, float]] = []
    for tenant in result.summary.get("tenants", []):
        times = tenant.get("broker_time_ms_p99_during") or {}
        remote, total = times.get("RemoteTimeMs"), times.get("TotalTimeMs")
        over = (tenant.get("p99_ms_during") or 0.0) > (tenant.get("sla_p99_ms") or float("inf"))
        if over and remote and total and remote >= FOLLOWER_SHARE_OF_BROKER_TIME * total:
            waits.append((tenant["name"], remote, total))
    if not waits:
        return None
    name, remote, total = max(waits, key=lambda w: w[1])
    fetchers = (((result.scenario.get("cluster") or {}).get("broker") or {}).get("num.replica.fetchers"))
    now = f" (now {fetchers})" if fetchers else ""
    return (f"give the brokers more replica fetchers, num.replica.fetchers{now}: {name}'s requests spent "
            f"{remote:,.1f} of their {total:,.1f} ms in the brokers waiting for followers (RemoteTimeMs p99), "
            f"whose fetches also carry the load's partitions")


def _headroom(summary: dict) -> str | None:
    """A neighbour over its SLA during the load that had little of it left before the load."""
    tight = [(t["name"], t.get("p99_ms_before"), t.get("sla_p99_ms")) for t in summary.get("tenants", [])
             if (t.get("p99_ms_during") or 0.0) > (t.get("sla_p99_ms") or float("inf"))]
    tight = [(name, before, sla) for name, before, sla in tight
             if before is not None and sla and before > BUSY_BEFORE_SHARE_OF_SLA * sla]
    if not tight:
        return None
    name, before, sla = max(tight, key=lambda t: t[1] / t[2])
    return (f"{name} already had a p99 of {before:,.1f} ms before the load ({before / sla * 100:.0f} % of its "
            f"{sla:,.1f} ms SLA), leaving the load {sla - before:,.1f} ms: isolate the load (a "
            f"producer_byte_rate quota on the batch client) or revisit the SLA")


def _waves(spark: dict) -> str | None:
    waves, tasks, slots = spark.get("waves"), spark.get("write_tasks"), spark.get("slots")
    if not waves or waves <= 1 or not slots:
        return None
    return f"give the job more executor cores: its {tasks} write tasks ran in {waves} waves on {slots} cores"


def recommend(result: RunResult, failed_rules: set[str]) -> list[str]:
    """Hints for the failed rules, in the order the published fix applied them."""
    producer = (result.scenario.get("batch") or {}).get("producer") or {}
    summary = result.summary
    hints: list[str | None] = []
    if failed_rules & _BROKER_LOAD_RULES:
        hints += [_linger(producer, summary), _compression(producer, summary), _acks(producer, summary),
                  _fetchers(result)]
    if "neighbour_sla" in failed_rules and not any(hints):
        # Only when no setting of the job explains the breach: then the SLA's headroom is the news.
        hints.append(_headroom(summary))
    if "load_deadline" in failed_rules:
        hints.append(_waves(result.spark))
    advice = [hint for hint in hints if hint]
    return advice or ["no rule-based hint fits this result's figures; its mechanism section explains the run"]
