"""A plain producer job (``kind: producer``) on the live stack: Kafka's own
``org.apache.kafka.tools.ProducerPerformance`` (kafka-producer-perf-test) from the brokers' jars,
one process per instance, each with the job's producer properties (``--producer-props``) and
``--print-metrics``. Its report is what perf-test prints: the records' latency percentiles and the
producer's own metrics by their Kafka names (``request-total``, ``batch-size-avg`` ...), in the
shape the Spark job's report has, so the live outcome reads both alike.
"""
from __future__ import annotations

import math
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from simulator.live._process import StackError, last_error
from simulator.processes import die_with_parent
from simulator.live.clients import java_security, property_text
from simulator.live.jars import java_command, resolve_jars
from workloads import Scenario, ScenarioError

PERF_CLASS = "org.apache.kafka.tools.ProducerPerformance"
# "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P ms 50th, ..."
_TOTAL = re.compile(r"(\d+) records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+) ms avg latency, "
                    r"([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th\.")
_METRIC = re.compile(r"^producer-metrics:([a-z-]+):\{client-id=[^}]*\}\s*:\s*(\S+)\s*$")
# the producer's totals (summed over instances); the rest are averages, weighted by request-total
TOTALS = ("request-total", "record-send-total", "outgoing-byte-total", "record-error-total", "record-retry-total")
AVERAGES = ("batch-size-avg", "records-per-request-avg", "record-size-avg", "compression-rate-avg", "request-latency-avg",
            "record-queue-time-avg", "bufferpool-wait-ratio")


def check_live(scenario: Scenario, where: str = "batch") -> None:
    """What perf-test can run: random payloads without keys (its only kind), a Java client."""
    job = scenario.batch
    if job.client.kind != "java":
        raise ScenarioError(f"{where}.client.kind", "kafka-producer-perf-test runs the Java producer")
    if job.keys:
        raise ScenarioError(f"{where}.keys", "kafka-producer-perf-test sends records without a key")
    if job.values != "random":
        raise ScenarioError(f"{where}.payload", f"the live stack's kafka-producer-perf-test sends random payloads "
                                                f"only (each record its own), not {job.values}")


def perf_command(scenario: Scenario, bootstrap: str, classpath: str, security: dict[str, str]) -> list[str]:
    """One instance's command line, as a user would type kafka-producer-perf-test."""
    job = scenario.batch
    properties = job.producer.as_properties() | {"client.id": job.client_id, "bootstrap.servers": bootstrap} \
        | java_security(security)
    return [java_command(), "-Xms256m", "-Xmx512m", "-cp", classpath, PERF_CLASS, "--topic", job.topic,
            "--num-records", str(job.records), "--record-size", str(job.record_size),
            "--throughput", property_text(job.throughput) if job.throughput else "-1", "--print-metrics",
            "--producer-props", *(f"{name}={property_text(value)}" for name, value in sorted(properties.items()))]


def parse_output(text: str) -> dict:
    """perf-test's final line (records, latency percentiles in whole ms as it prints them) and its metrics."""
    totals = _TOTAL.findall(text)
    if not totals:
        raise StackError("kafka-producer-perf-test printed no final line")
    records, _, _, avg, maximum, p50, p95, p99, p999 = totals[-1]
    metrics: dict[str, float] = {}
    for line in text.splitlines():
        if (match := _METRIC.match(line.strip())) and match.group(1) in TOTALS + AVERAGES:
            try:
                value = float(match.group(2))
            except ValueError:
                continue
            if math.isfinite(value):     # NaN: nothing measured it
                metrics[match.group(1)] = value
    latency = {"count": int(records), "p50": float(p50), "p95": float(p95), "p99": float(p99), "p999": float(p999),
               "max": float(maximum), "mean": float(avg)}
    return {"latency": latency, "producer": metrics}


def combine(reports: list[dict]) -> tuple[dict, dict]:
    """The instances' metrics together (totals summed, averages weighted by requests), and their
    latency: counts summed, each percentile the worst instance's (perf-test keeps no histogram to merge)."""
    producer: dict[str, float] = {}
    requests = sum(r["producer"].get("request-total", 0.0) for r in reports)
    for name in TOTALS:
        producer[name] = sum(r["producer"].get(name, 0.0) for r in reports)
    for name in AVERAGES:
        known = [(r["producer"][name], r["producer"].get("request-total", 0.0)) for r in reports if name in r["producer"]]
        if known and requests:
            producer[name] = sum(v * w for v, w in known) / requests
    latency = {"count": sum(r["latency"]["count"] for r in reports),
               **{k: max(r["latency"][k] for r in reports) for k in ("p50", "p95", "p99", "p999", "max")}}
    return producer, latency


def run_producer_job(scenario: Scenario, bootstrap: str, security: dict[str, str] | None = None,
                     progress: Callable[[str], None] = lambda line: None, on_started: Callable[[int], None] = lambda pid: None,
                     before_load: Callable[[], None] | None = None, after_load: Callable[[], None] = lambda: None,
                     timeout_s: float = 3600.0) -> dict:
    """The job's instances at once (``before_load`` first), each to its end; the report's fields as
    the Spark job's (``GlueJobReport``) with ``record_latency_ms`` beside them."""
    job = scenario.batch
    check_live(scenario)
    command = perf_command(scenario, bootstrap, resolve_jars(progress).classpath, security or {})
    if before_load is not None:
        before_load()
    progress(f"running kafka-producer-perf-test: {job.producers} instance(s) x {job.records:,} records -> {job.topic} ...")
    with tempfile.TemporaryDirectory(prefix="quietload-perf-") as work:
        logs = [Path(work) / f"perf-{i}.log" for i in range(job.producers)]
        started = time.time()
        processes = []
        for log in logs:
            with log.open("wb") as out:
                processes.append(subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                  cwd=work, preexec_fn=die_with_parent))
            on_started(processes[-1].pid)
        try:
            codes = [p.wait(timeout=max(1.0, timeout_s - (time.time() - started))) for p in processes]
        except subprocess.TimeoutExpired:
            for p in processes:
                p.kill()
            raise StackError(f"kafka-producer-perf-test did not end within {timeout_s:.0f} s") from None
        ended = time.time()
        after_load()
        for code, log in zip(codes, logs):
            if code != 0:
                raise StackError(f"kafka-producer-perf-test exited with {code}: {last_error(log)}")
        reports = [parse_output(log.read_text(errors="replace")) for log in logs]
    producer, latency = combine(reports)
    return {"topic": job.topic, "rows": job.records * job.producers, "input_bytes": 0, "tasks": job.producers,
            "write_tasks": job.producers, "stages": 0, "cores": job.producers, "started": started, "ended": ended,
            "wall_seconds": ended - started, "producer": producer, "record_latency_ms": latency}
