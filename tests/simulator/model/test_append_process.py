"""An append process given in place of the Spark job's (simulator/model/append.py), and the
KIP-794 partitioner's switch points it shows (``BuiltInPartitioner.updatePartitionInfo`` with
``RecordAccumulator.append``'s ``allBatchesFull``)."""
from __future__ import annotations

from simulator.model.append import AppendProcess
from simulator.model.model import ModelRun

KIP794 = {"batch": {"client": {"kind": "java", "version": "3.6.1"}}}


def test_the_partitioner_switches_at_batch_size_once_the_sender_drained_the_partition(make_scenario, evaluator):
    run = ModelRun(make_scenario(KIP794), 1, evaluator)
    accumulator = run.loads[0].executors[0].producer.accumulator
    first = accumulator.for_record(0.0)
    accumulator.sticky_add(first, 16384, 0.0)     # batch.size went to it, and its queue is empty
    assert accumulator.for_record(0.0) is accumulator.sticky_current and accumulator.produced == 0.0    # switched


def test_the_partitioner_keeps_a_partition_whose_batch_still_takes_records_up_to_twice_batch_size(make_scenario,
                                                                                                 evaluator):
    run = ModelRun(make_scenario(KIP794), 1, evaluator)
    accumulator = run.loads[0].executors[0].producer.accumulator
    first = accumulator.for_record(0.0)
    accumulator.open_batch(first, 0.0)            # a batch still open for appends
    accumulator.sticky_add(first, 16384, 0.0)
    assert accumulator.for_record(0.0) is first and accumulator.produced == 16384
    accumulator.sticky_add(first, 16383, 0.0)
    assert accumulator.produced == 32767
    accumulator.sticky_add(first, 1, 0.0)          # 2 x batch.size: switched whatever the queue holds
    assert accumulator.produced == 0.0


def test_bursts_lingering_apart_make_one_request_each_and_switch_partition_only_when_drained(make_scenario,
                                                                                            evaluator):
    # 10 records of ~1 KB every 100 ms, lingering 50 ms: each burst is one batch sent alone. The
    # partition reaches batch.size during the second burst while its batch is open (no switch),
    # and switches as the third starts (drained): bursts 1-2, 3-4 and 5 each on one partition.
    scenario = make_scenario(KIP794, {"batch": {"producer": {"linger.ms": 50}}})
    appends = AppendProcess.every(1000, 10, 0.1, 0.5)
    result = evaluator.evaluate_appends(scenario, appends, 1)
    producer = result.producers[0]
    assert (appends.records, producer["produce_requests"], producer["batches"], producer["records"]) == (50, 5, 5, 50)
    # the client's request latency holds the broker's whole time and more
    assert producer["request_latency_ms"] > result.brokers[0].produce_time_ms["TotalTimeMs"]["mean"]


def test_a_steady_flow_appends_every_record_of_the_process(make_scenario, evaluator):
    appends = AppendProcess(1000, 2000, threads=2, rate=4e6)
    result = evaluator.evaluate_appends(make_scenario(KIP794), appends, 1)
    assert round(result.producers[0]["records"]) == 2000
    assert abs(result.summary.load_seconds - 2000 * 1000 / 4e6) < 0.01    # 0.5 s of appending, then the flush
