"""A tiny scenario for trials: one broker, one small file, one neighbour, no jitter, so a trial's
figures follow from its knob values alone and take a fraction of a second."""
from __future__ import annotations

from typing import Any

import pytest

from workloads.loader import merge

TINY: dict[str, Any] = {
    "name": "tiny",
    "cluster": {"brokers": 1, "topics": [{"name": "bulk", "partitions": 4}, {"name": "events", "partitions": 2}]},
    "dataset": {"files": [{"size": "4MB"}]},
    "batch": {"topic": "bulk", "client": {"kind": "java", "version": "2.8.1"},
              "spark": {"spark.executor.instances": 1, "spark.executor.cores": 2},
              "producer": {"batch.size": "16KB", "linger.ms": 0}},
    "tenants": [{"name": "api", "topic": "events", "client": {"kind": "java", "version": "4.1.0"},
                 "rate": "200/s", "record_size": "1KB", "sla_p99": "10ms"}],
    "windows": {"before": "1s", "after": "1s"},
    "jitter": {"append_rate": 0, "service_time": 0},
}


@pytest.fixture
def tiny() -> dict[str, Any]:
    return merge(TINY, {})


@pytest.fixture
def tiny_with():
    def build(*changes: dict) -> dict[str, Any]:
        raw = TINY
        for change in changes:
            raw = merge(raw, change)
        return raw
    return build
