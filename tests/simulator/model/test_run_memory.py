"""A run's objects go once it is done: a tuner's worker runs trial after trial in one process."""
from __future__ import annotations

import gc

from simulator._core import Batch, BrokerServer, Engine, Fetcher, Partition, RecordAccumulator, Request, Sender
from simulator.model.broker import Broker
from simulator.model.model import ModelRun

KINDS = (Engine, Broker, BrokerServer, Fetcher, Partition, Request, RecordAccumulator, Batch, Sender)


def alive() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, KINDS))


def test_a_run_with_followers_and_parked_fetches_leaves_nothing_behind(make_scenario, evaluator):
    # three brokers, every partition followed twice (acks=all): requests wait on partitions and
    # fetches park in purgatory, each holding the other, batches hold their partitions, the cores
    # hold their components and an accumulator its sender's and producer's callbacks
    scenario = make_scenario({"cluster": {"brokers": 3, "topics": [{"name": "bulk", "partitions": 4,
                                                                    "replication.factor": 3}]},
                              "batch": {"producer": {"acks": "all"}}})
    gc.collect()
    before = alive()
    for _ in range(2):
        run = ModelRun(scenario, 1, evaluator)
        run.execute()
        assert run.engine.native_events > 0 and alive() > before
        del run
    gc.collect()
    assert alive() == before
