"""Where a produce request's time goes on the live broker, request by request part.

One kafka-clients producer fed by a thread that is busy between records, as a Spark task is
(bench/ProducerProbe.java, the catalog rows' value size, 30 partitions, null keys), sends to a
one-broker local stack held to a CPU budget as `quietload live` holds it (a cgroup v1 cpu quota
over a 5 ms period, in a cpuset of one core; the producer on the other core). Per producer
configuration it prints, side by side:

- the producer's own figures: requests, records per request, batch-size-avg,
  request-latency-avg and -max;
- the broker's Produce request time split into Kafka's parts (RequestQueueTimeMs, LocalTimeMs,
  RemoteTimeMs, ResponseQueueTimeMs, ResponseSendTimeMs, TotalTimeMs): the mean over exactly the
  probe's requests, as the difference of two scrapes of each histogram's Count and Mean;
- the broker's CPU seconds per request, handler and network-processor idle over the probe, and
  how long the broker's cgroup was throttled (cpu.stat).

The request latency the client sees less the broker's TotalTimeMs is the time the request spends
outside the broker's accounting: in the client's socket and the broker's socket buffer before
the network thread has read all of it (a muted connection is not read at all).

    flock /tmp/quietload-live.lock .venv/bin/python bench/broker_time.py [SECONDS] [BROKER_VCPUS] [ROUNDS]

ROUNDS > 1 runs every configuration that many times on the same broker, to show how its costs
fall as its JVM compiles its hot paths (a live run's broker is a JVM started for that run).
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from simulator.live.jars import resolve_jars
from simulator.live.budget import Budget, CpuBudgets
from simulator.live.evaluator import create_topics
from simulator.live.kafka import KafkaCluster
from workloads import CATALOG, Scenario
from workloads.scenario import load_mapping

from _lib import PARTS, compile_probe, produce_sums, run_probe, thread_cpu  # the same probe and scrape

RATE_MB = 21          # loopback-calibrated's measured spark.append_rate
RECORD_BYTES = 1122   # the catalog rows' mean value (a live run's record-size-avg)
BASE = {"acks": "1", "batch.size": "16384", "max.request.size": "1048576", "enable.idempotence": "false",
        "compression.type": "none", "max.in.flight.requests.per.connection": "5"}
CASES = {
    "linger-5": {"linger.ms": "5"},
    "linger-0": {"linger.ms": "0"},
    "linger-0 in-flight 1": {"linger.ms": "0", "max.in.flight.requests.per.connection": "1"},
}


def main(seconds: float, broker_vcpus: float, rounds: int) -> None:
    cores = sorted(os.sched_getaffinity(0))
    broker_core, job_core = cores[:1], cores[1:2] or cores[:1]
    raw = load_mapping(CATALOG / "paypay-glue-2gb.yaml", ["cluster.brokers=1", "cluster.replication.factor=1",
                                                          "cluster.min.insync.replicas=1"])
    raw["tenants"] = []
    scenario = Scenario.from_mapping(raw)
    jars = resolve_jars()
    print(f"{RATE_MB} MB/s of {RECORD_BYTES}-byte records into 30 partitions for {seconds:g} s; broker "
          f"{broker_vcpus:g} vCPU on core {broker_core[0]}, producer on core {job_core[0]}")
    with tempfile.TemporaryDirectory(prefix="quietload-broker-time-") as tmp, \
            CpuBudgets([Budget("broker-0", broker_vcpus, tuple(broker_core))]) as budgets:
        work = Path(tmp)
        compile_probe(work, jars.classpath)
        with KafkaCluster(run_dir=work / "kafka", brokers=1) as cluster:
            broker_pid = next(node.pid for node in cluster.nodes() if node.role == "broker")
            budgets.place("broker-0", broker_pid)
            create_topics(scenario, cluster.bootstrap_servers, {}, 1)
            head = (f"{'configuration':<22} {'requests':>8} {'rec/req':>7} {'batch KB':>8} {'latency ms avg/max':>18} | "
                    + " ".join(f"{p.removesuffix('TimeMs'):>13}" for p in PARTS)
                    + f" | {'CPU ms/req':>10} {'handler idle':>12} {'net idle':>8} {'throttled ms':>12}")
            print(head)
            for name, overrides in [(f"{n} #{r + 1}" if rounds > 1 else n, o) for r in range(rounds)
                                    for n, o in CASES.items()]:
                metrics0 = cluster.scrape()
                before, cpu0, throttled0, at0 = (produce_sums(metrics0), metrics0["process_cpu_seconds_total"],
                                                 budgets.throttled().get("broker-0", 0.0), time.time())
                threads0 = thread_cpu(broker_pid)
                idle0 = metrics0.get("kafka_server_RequestHandlerAvgIdleNanos_total", 0.0)
                real = run_probe(work, jars.classpath, cluster.bootstrap_servers, seconds, RATE_MB * 1024**2, RECORD_BYTES,
                                 job_core, {**BASE, **overrides})
                metrics, at1 = cluster.scrape(), time.time()
                after = produce_sums(metrics)
                threads = {k: v - threads0.get(k, 0.0) for k, v in thread_cpu(broker_pid).items()}
                requests = after["TotalTimeMs"][0] - before["TotalTimeMs"][0]
                means = {p: (after[p][1] - before[p][1]) / max(1.0, after[p][0] - before[p][0]) for p in PARTS}
                cpu = (metrics["process_cpu_seconds_total"] - cpu0) / max(1.0, requests) * 1e3
                idle = 100 * (metrics.get("kafka_server_RequestHandlerAvgIdleNanos_total", 0.0) - idle0) / ((at1 - at0) * 1e9)
                throttled = (budgets.throttled().get("broker-0", 0.0) - throttled0) * 1e3
                print(f"{name:<22} {real['requests']:>8,.0f} {real['records_per_request_avg']:>7.1f} "
                      f"{real['batch_size_avg'] / 1024:>8.1f} "
                      f"{real['request_latency_avg_ms']:>8.2f}/{real['request_latency_max_ms']:>9.1f} | "
                      + " ".join(f"{means[p]:>13.2f}" for p in PARTS)
                      + f" | {cpu:>10.2f} {min(100.0, idle):>11.1f}% "
                      f"{100 * metrics.get('kafka_network_NetworkProcessorAvgIdlePercent_Value', 0.0):>7.1f}% "
                      f"{throttled:>12.1f}", flush=True)
                print(f"{'':<22} broker requests {requests:,.0f}; sender on core "
                      f"{real['sender_run_s'] / real['requests'] * 1e6:,.0f} us/request, "
                      f"{real['sender_timeslices'] / real['requests']:.1f} wakes/request, waits "
                      f"{real['sender_runqueue_s'] / max(1, real['sender_timeslices']) * 1e6:,.0f} us/wake; broker CPU ms "
                      "per request by thread: " + ", ".join(f"{k} {v / max(1.0, requests) * 1e3:.2f}"
                                                          for k, v in sorted(threads.items())), flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 6.0, float(sys.argv[2]) if len(sys.argv) > 2 else 1.0,
         int(sys.argv[3]) if len(sys.argv) > 3 else 1)
