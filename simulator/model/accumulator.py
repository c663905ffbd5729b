"""The producer's RecordAccumulator (``simulator._core.RecordAccumulator``, core/src/accumulator.rs
with its partitioner, batches and drains), built from a client's spec: its batches' sizes and
linger, ``buffer.memory``, the codec's compression curve, the partitioner of its client, and
``delivery.timeout.ms`` as the client's version has it.
"""
from __future__ import annotations

import math
from typing import Callable

from simulator._core import Random, RecordAccumulator
from simulator.model.broker import Partition
from simulator.model.client import ClientSpec
from workloads.settings import producer_setting

# a neighbour's records done: their intended send times and when the sender read the response
RecordsAcked = Callable[[list[float], float], None]
# a bulk flow's batch done: its records, appended from its creation to its close, and when
BatchAcked = Callable[[float, float, float, float], None]    # (created, closed, records, done)


def record_accumulator(spec: ClientSpec, partitions: list[Partition], rng: Random,
                       on_block_change: Callable[[], None] | None = None, on_records_acked: RecordsAcked | None = None,
                       on_batch_acked: BatchAcked | None = None) -> RecordAccumulator:
    """The appending side of one producer and its batches until the sender completes them."""
    config = spec.config
    timeout = producer_setting("delivery_timeout_ms").in_force(config.delivery_timeout_ms, spec.client)
    # keys, or round-robin without them (clients before 2.4): a flow fills every partition's batch
    keyed = spec.keyed or spec.client.partitioner == "round-robin"
    return RecordAccumulator(partitions, rng, config.batch_size, config.linger_ms / 1e3, float(config.buffer_memory),
                             config.compression_type, spec.client.kind == "librdkafka",
                             float(config.batch_num_messages or math.inf), spec.ratio_at, spec.record_bytes, keyed,
                             spec.client.partitioner, math.inf if timeout is None else timeout / 1e3,
                             on_block_change, on_records_acked, on_batch_acked)
