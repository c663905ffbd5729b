"""The model's numbers in words: which mechanism made the batches and the latency.

This module picks the sentences a model run calls for; ``simulator.contract.explain`` words them.
"""
from __future__ import annotations

from simulator.contract import RunResult
from simulator.contract import explain as words
from simulator.contract.night import night_lines
from workloads.batch import first_job
from workloads.settings import BATCH_SIZE_CONFIG, COMPRESSION_TYPE_CONFIG, LINGER_MS_CONFIG


def mechanism(result: RunResult) -> list[str]:
    s = result.summary
    job = first_job(result.scenario)
    producer = job["producer"]
    lines = []
    if len(result.jobs) < 2:   # a night's jobs each have their own lines (``night``)
        lines.append(words.producer_job(job) if job.get("kind") == "producer" else
                     words.spark_tasks(result.spark, job["spark"]["spark.executor.instances"]))
        if s.append_rate_bytes_per_s:
            lines.append(words.batching(s, producer[LINGER_MS_CONFIG], producer[BATCH_SIZE_CONFIG]))
        lines.append(words.requests_and_batches(s, producer[COMPRESSION_TYPE_CONFIG]))
        if s.record_latency_ms and s.record_latency_ms.get("count"):
            lines.append(words.record_latency(s.record_latency_ms))
    if s.handler_idle_pct_during is not None:
        lines.append(words.broker_load(s))
    quota = job["quota"]
    held = words.quota_hold(s, quota["producer_byte_rate"], quota.get("request_percentage")) if len(result.jobs) < 2 else None
    if held:
        lines.append(held)
    if s.replica_lag_bytes_max_during > 10 * 1024**2:
        lines.append(words.replication_lag(s.replica_lag_bytes_max_during, producer["acks"]))
    for tenant, detail in zip(s.tenants, result.tenants):
        pipeline = "streaming" in detail
        if pipeline:   # a pipeline: end to end, by part (simulator/model/streaming.py's figures)
            lines.append(words.pipeline_parts(detail))
        before, during = tenant.p99_ms_before, tenant.p99_ms_during
        if not (before and during):
            continue
        line = words.neighbour_p99(tenant, pipeline)
        broker = tenant.broker_time_ms_p99_during
        if during > 2 * before and broker["TotalTimeMs"] is not None:
            line += words.broker_wait(broker, pipeline)
        lines.append(line + ".")
    return lines + night_lines(result)
