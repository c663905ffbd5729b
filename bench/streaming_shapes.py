"""The streaming frameworks side by side on the model, in one run: end-to-end p50 and p99 of each
kind fed at the same rate with the same sink producer settings, alone and beside a small load,
and each one's latency as a multiple of Kafka Streams'.

    .venv/bin/python bench/streaming_shapes.py [rate, default 1000/s] [seed, default 1]

The scenario: one broker of the default profile, six 4-partition input topics, 512 B records,
20 us of work per record, sink linger.ms 5 for every pipeline (Kafka Streams' own default is
100); a 64 MB load of the default Spark set-up after 4 s. It measures; it asserts nothing.
"""
from __future__ import annotations

import sys

from simulator.evaluator import model_evaluator
from workloads import Scenario

PIPELINES = [
    ("spark-microbatch", {}),
    ("spark-microbatch async", {"asyncProgressTrackingEnabled": True}),
    ("spark-microbatch 500ms", {"processingTime": "500ms", "asyncProgressTrackingEnabled": True}),
    ("spark-continuous", {}),
    ("spark-realtime", {}),
    ("kafka-streams", {}),
    ("flink", {}),
]


def scenario(rate: str) -> Scenario:
    topics = [{"name": "bulk", "partitions": 8}, {"name": "out", "partitions": 4}]
    tenants = []
    for i, (label, settings) in enumerate(PIPELINES):
        topics.append({"name": f"in{i}", "partitions": 4})
        tenants.append({"name": label.replace(" ", "-"), "kind": label.split()[0], "topic": f"in{i}", "output_topic": "out",
                        "rate": rate, "record_size": "512B", "record_cost": "20us", "sla_p99": "1s",
                        "sink": {"linger.ms": 5}, **settings})
    return Scenario.from_mapping({
        "name": "streaming-shapes", "cluster": {"brokers": 1, "topics": topics},
        "dataset": {"files": [{"size": "64MB"}]},
        "batch": {"topic": "bulk", "client": {"kind": "java", "version": "3.9.0"},
                  "spark": {"spark.executor.instances": 1, "spark.executor.cores": 4}, "producer": {"linger.ms": 5}},
        "tenants": tenants, "windows": {"before": "4s", "after": "2s"}})


def main(rate: str = "1000/s", seed: str = "1") -> None:
    result = model_evaluator().evaluate(scenario(rate), int(seed))
    by_name = {t["name"]: t["latency_ms"] for t in result.tenants}
    base = by_name["kafka-streams"]
    print(f"{'pipeline':<24} {'p50 alone':>10} {'p99 alone':>10} {'p50 load':>10} {'p99 load':>10}  p50 / kafka-streams")
    for name, latency in by_name.items():
        before, during = latency["before"], latency["during"]
        print(f"{name:<24} {before['p50']:>10.1f} {before['p99']:>10.1f} {during['p50']:>10.1f} {during['p99']:>10.1f}"
              f"  {before['p50'] / base['before']['p50']:>8.1f}x")


if __name__ == "__main__":
    main(*sys.argv[1:])
