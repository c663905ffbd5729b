"""Each streaming kind's pipeline on the model, registered under its name (workloads.kinds):
what starts it once ``streaming.Pipeline`` has its logs, sinks and coordinator."""
from __future__ import annotations

from typing import Callable

from simulator.model.microbatch import MicroBatch
from simulator.model.streaming import Pipeline, record_at_a_time


def micro_batches(pipeline: Pipeline) -> None:
    MicroBatch(pipeline).start()


PIPELINES: dict[str, Callable[[Pipeline], None]] = {
    "spark-microbatch": micro_batches,
    "spark-continuous": record_at_a_time,
    "spark-realtime": record_at_a_time,
    "kafka-streams": record_at_a_time,
    "flink": record_at_a_time,
}
