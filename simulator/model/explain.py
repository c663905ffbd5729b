"""The model's numbers in words: which mechanism made the batches and the latency."""
from __future__ import annotations

from workloads.units import format_bytes


def mechanism(result) -> list[str]:
    s, spark = result.summary, result.spark
    producer = result.scenario["batch"]["producer"]
    executors = result.scenario["batch"]["spark"]["spark.executor.instances"]
    lines = [
        f"Spark ran {spark['write_tasks']} write tasks on {spark['slots']} cores "
        f"({executors} executors, {spark['waves']} wave(s)"
        + (f", after a {spark['scan_tasks']}-task shuffle stage" if spark["shuffled"] else "")
        + "); each executor's tasks share one producer.",
    ]
    if s.append_rate_bytes_per_s:
        drain = s.drain_interval_ms or 0.0
        lines.append(
            f"Each producer appended {format_bytes(s.append_rate_bytes_per_s)}/s; its sender drained every "
            f"{drain:.2f} ms on average, so with linger.ms={producer['linger.ms']:g} a batch gathered "
            f"{format_bytes(s.mean_batch_bytes)} of records ({s.batch_fill * 100:.0f} % of batch.size="
            f"{format_bytes(producer['batch.size'])} on the wire).")
    lines.append(
        f"{s.produce_requests:,} produce requests carried {s.batches:,} batches "
        f"({s.batches_per_request:.2f} per request, {s.records_per_request:.0f} records per request); "
        f"compression.type={producer['compression.type']} sent {s.compression_ratio * 100:.0f} % of the value bytes.")
    if s.handler_idle_pct_during is not None:
        lines.append(
            f"During the load the busiest broker's request handlers were {s.handler_idle_pct_during:.0f} % idle "
            f"and its CPU {s.cpu_pct_during:.0f} % busy.")
    quota = result.scenario["batch"]["quota"]
    bounds = ([f"producer_byte_rate quota of {format_bytes(quota['producer_byte_rate'])}/s"] if quota["producer_byte_rate"] else []) \
        + ([f"request_percentage quota of {quota['request_percentage']:g} % of a handler thread"] if quota.get("request_percentage") else [])
    if bounds:
        lines.append(f"The brokers held the job to its {' and '.join(bounds)} each: "
                     f"they throttled it for {s.quota_throttle_s:.1f} s in all (muting its connections), and the "
                     f"load took {s.load_seconds:.1f} s.")
    lag = s.replica_lag_bytes_max_during
    if lag > 10 * 1024**2:
        lines.append(f"With acks={producer['acks']} replication fell up to {format_bytes(lag)} behind the leaders; "
                     f"replica fetchers copied the load's partitions together with the neighbours'.")
    for tenant, detail in zip(s.tenants, result.tenants):
        before, during = tenant.p99_ms_before, tenant.p99_ms_during
        if "streaming" in detail:   # a pipeline: end to end, by part (simulator/model/streaming.py)
            from simulator.model.streaming import explain
            lines.append(explain(detail))
        if not (before and during):
            continue
        pipeline = "streaming" in detail
        line = (f"{'Pipeline' if pipeline else 'Neighbour'} {tenant.name}: {'end to end ' if pipeline else ''}"
                f"p99 {before:.1f} ms alone, {during:.1f} ms during the load "
                f"({during / before:.1f}x; SLA {tenant.sla_p99_ms:g} ms)")
        broker = tenant.broker_time_ms_p99_during
        if during > 2 * before and broker["TotalTimeMs"] is not None:
            whose = "its upstream producer's" if pipeline else "its"
            line += (f": in the brokers {whose} requests took up to "
                     f"{broker['TotalTimeMs']:.0f} ms (p99), "
                     f"{broker['RemoteTimeMs']:.0f} ms of it waiting for followers to fetch (RemoteTimeMs) and "
                     f"{broker['LocalTimeMs']:.0f} ms appending to the log (LocalTimeMs); a broker reads one request "
                     f"per connection at a time, so its next requests and records waited behind each of them")
        lines.append(line + ".")
    return lines
