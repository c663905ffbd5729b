"""How often a real Java producer drains, against the model's producer, at several append rates.

One kafka-clients producer (the live stack's jars) sends to a one-broker local stack, fed by one
thread that is busy between records as a Spark task is (bench/ProducerProbe.java: linger.ms 0,
acks 1, 16 KB batches, the catalog rows' mean value size); the model runs the same producer in
the same set-up (the ``loopback`` profile, one executor core, no neighbours). Per append rate it
prints produce requests per second and records per request for both, and, from the Linux
scheduler's schedstat, the real sender thread's time on a core per request, how often it was
put on a core per request, and its wait for the core each time. The broker gets one core and
the producer's threads (the appending one, the sender, the JVM's JIT compiler) the other, as a
one-core Spark executor has it. The broker is warmed up first by 15 s of the fastest rate.

    .venv/bin/python bench/client_cadence.py [SECONDS]
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from simulator.evaluator import model_evaluator
from simulator.live.jars import java_command, resolve_jars
from simulator.live.evaluator import create_topics, pin_process
from simulator.live.kafka import KafkaCluster
from workloads import CATALOG, Scenario
from workloads.scenario import load_mapping

RATES_MB = (1, 6, 22)
WARM_UP_S = 15.0
RTT_MS = 0.1
PRODUCER = {"linger.ms": "0", "acks": "1", "batch.size": "16384", "max.request.size": "32768",
            "enable.idempotence": "false", "compression.type": "none"}
SET_UP = ["profile=loopback", "cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
          f"cluster.network_rtt={RTT_MS}ms", "cluster.broker.vcpus=1", "batch.client.version=3.9.1",
          "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1",
          "windows.before=1s", "windows.after=1s", "batch.producer.batch.size=16KB",
          "batch.producer.max.request.size=32KB", "batch.producer.linger.ms=0", "batch.producer.acks=1",
          "batch.producer.enable.idempotence=false"]


def model_scenario(rate_mb: float, seconds: float, value_per_csv_byte: float) -> Scenario:
    csv_mb = rate_mb * seconds / value_per_csv_byte
    raw = load_mapping(CATALOG / "paypay-glue-2gb.yaml",
                       SET_UP + [f"batch.spark.append_rate={rate_mb}MB/s", f"dataset.files.0.size={csv_mb:.3f}MB"])
    raw["tenants"] = []
    return Scenario.from_mapping(raw)


def compile_probe(work: Path, classpath: str) -> None:
    javac = str(Path(java_command()).with_name("javac"))
    subprocess.run([javac, "-d", str(work), "-cp", classpath, str(Path(__file__).with_name("ProducerProbe.java"))], check=True)


def run_probe(work: Path, classpath: str, bootstrap: str, seconds: float, rate: float, size: int,
              cores: list[int], producer: dict[str, str] | None = None) -> dict[str, float]:
    args = [java_command(), "-cp", f"{classpath}:{work}", "ProducerProbe", bootstrap, "card-transactions",
            str(seconds), str(rate), str(size)] + [f"{k}={v}" for k, v in (producer or PRODUCER).items()]
    out = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True,
                         preexec_fn=(lambda: os.sched_setaffinity(0, cores)) if cores else None).stdout
    return {k: float(v) for k, v in (item.split("=") for item in out.split())}


def main(seconds: float) -> None:
    evaluator = model_evaluator()
    probe_run = evaluator.evaluate(model_scenario(1, 1, 1.6), 1)
    size = round(probe_run.spark["record_bytes"])
    ratio = probe_run.spark["record_bytes"] / probe_run.spark["csv_row_bytes"]
    cores = sorted(os.sched_getaffinity(0))
    broker_cores, job_cores = (cores[:1], cores[1:2]) if len(cores) >= 2 else ([], [])
    jars = resolve_jars()
    print(f"records of {size} bytes; broker on cores {broker_cores or 'any'}, producer on {job_cores or 'any'}")
    print(f"{'MB/s':>5} {'req/s real':>10} {'model':>6} {'rec/req real':>12} {'model':>6} {'within 25%':>10} "
          f"{'request ms real':>15} {'model':>6} "
          f"{'sender on core us/req':>21} {'sender wakes/req':>16} {'sender wait for core us/wake':>28}")
    with tempfile.TemporaryDirectory(prefix="quietload-cadence-") as tmp:
        work = Path(tmp)
        compile_probe(work, jars.classpath)
        scenarios = {rate: model_scenario(rate, seconds, ratio) for rate in RATES_MB}
        with KafkaCluster(run_dir=work / "kafka", brokers=1) as cluster:
            for node in cluster.nodes():
                if node.pid and broker_cores:
                    pin_process(node.pid, broker_cores)
            create_topics(scenarios[RATES_MB[0]], cluster.bootstrap_servers, {}, 1)
            # a broker that has run for a while, as a cluster's has: its JIT compiles the produce
            # paths in the first 10-15 s of load (bench/broker_time.py), not counted here
            run_probe(work, jars.classpath, cluster.bootstrap_servers, WARM_UP_S, RATES_MB[-1] * 1024**2, size, job_cores)
            for rate in RATES_MB:
                real = run_probe(work, jars.classpath, cluster.bootstrap_servers, seconds, rate * 1024**2, size,
                                 job_cores)
                run = evaluator.evaluate(scenarios[rate], 1)
                model = run.summary
                real_rpr, model_rpr = real['records'] / real['requests'], model.records_per_request
                # the client's request latency: the broker's TotalTimeMs and the round trip
                model_latency = run.brokers[0].produce_time_ms["TotalTimeMs"]["mean"] + RTT_MS
                print(f"{rate:>5} {real['requests'] / real['seconds']:>10,.0f} "
                      f"{model.produce_requests / model.load_seconds:>6,.0f} "
                      f"{real_rpr:>12.2f} {model_rpr:>6.2f} {'yes' if abs(model_rpr / real_rpr - 1) <= 0.25 else 'no':>10} "
                      f"{real['request_latency_avg_ms']:>15.2f} {model_latency:>6.2f} "
                      f"{real['sender_run_s'] / real['requests'] * 1e6:>21,.0f} "
                      f"{real['sender_timeslices'] / real['requests']:>16.1f} "
                      f"{real['sender_runqueue_s'] / real['sender_timeslices'] * 1e6:>28,.0f}", flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 6.0)
