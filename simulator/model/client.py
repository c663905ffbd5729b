"""What one producer client is built from: its application's configuration, nothing of the run.

A load's executors share one spec (one ``client.id``, as Spark's ``kafka.client.id`` option
gives them); each neighbour application and each streaming sink has its own.
"""
from __future__ import annotations

from dataclasses import dataclass
from simulator._core import CompressionRatios

from workloads.producer import Client, ProducerConfig
from workloads.profile import ClientCosts


@dataclass(frozen=True)
class ClientSpec:
    """A producer client: library, ``client.id``, properties, CPU costs and its records."""

    client_id: str                        # client.id: brokers meter quotas and log requests by it
    client: Client                        # library and version: partitioner, batching behaviour
    config: ProducerConfig                # batch.size, linger.ms, acks, ...
    costs: ClientCosts                    # the sender thread's CPU per request, batch, byte, response
    ratio_at: CompressionRatios    # compressed / uncompressed bytes of a batch of that size
    record_bytes: float                   # one record's bytes in a batch (value, key, overhead)
    keyed: bool                           # records carry a key: they spread over every partition
    rtt: float                            # network round trip to the brokers, seconds
