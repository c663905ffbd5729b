"""The batch load's batch-size distribution (RunResult.batch_sizes): log2 buckets of the batches
the bulk producers sent, counted exactly, neighbours left out."""
from __future__ import annotations

import math
import random

import pytest

from simulator._core import BATCH_HEADER
from simulator.contract.histograms import SizeHistogram
from simulator.model.outcome import build
from simulator.contract import RunResult
from test_mechanisms import LONG_LINGER

KB = 1024


def bucket(size: float) -> int:
    """Bucket 0 holds sizes up to 1 KiB, bucket i those in (2^(i-1), 2^i] KiB."""
    return max(0, math.ceil(math.log2(size / KB))) if size > 0 else 0


def counts(sizes: list[float]) -> list[int]:
    found = [0] * (max(map(bucket, sizes)) + 1)
    for size in sizes:
        found[bucket(size)] += 1
    return found


def test_a_bucket_holds_sizes_above_the_previous_bound_up_to_its_own():
    histogram = SizeHistogram()
    for size in (0.0, 1.0, 1024.0, 1024.5, 2048.0, 65535.0, 65536.0, 65537.0):
        histogram.record(size)
    #                          <=1K 1-2K 2-4K 4-8K 8-16K 16-32K 32-64K 64-128K
    assert histogram.counts == [3, 2, 0, 0, 0, 0, 2, 1]


def doubling_bucket(size: float) -> int:
    """The bucket by doubling the bound until it reaches the size: exact at every bound."""
    index, bound = 0, float(KB)
    while size > bound:
        bound += bound
        index += 1
    return index


def recorded_bucket(size: float) -> int:
    histogram = SizeHistogram()
    histogram.record(size)
    return histogram.counts.index(1)


def test_a_bucket_read_off_the_exponent_is_the_one_doubling_finds():
    edges = [float(KB << i) for i in range(40)]
    sizes = [0.0, -1.0, 0.5, 1.0, 1023.0, *edges, *(math.nextafter(edge, math.inf) for edge in edges),
             *(math.nextafter(edge, 0.0) for edge in edges), *(edge - 1.0 for edge in edges), *(edge + 1.0 for edge in edges)]
    sizes += [float(size) for size in range(0, 300_000, 7)]
    generator = random.Random(17)
    sizes += [generator.uniform(0.0, 2.0 ** 30) for _ in range(50_000)]
    sizes += [2.0 ** generator.uniform(0.0, 50.0) for _ in range(50_000)]
    assert [recorded_bucket(size) for size in (*sizes, math.nan)] == [doubling_bucket(size) for size in (*sizes, math.nan)]


def test_histograms_add_bucket_by_bucket():
    short, long = SizeHistogram(), SizeHistogram()
    short.record(100.0)
    long.record(3000.0)
    long.record(100.0)
    short.add(long)
    assert short.counts == [2, 0, 1]


# LONG_LINGER: one partition, linger.ms far above the time a 64 KB batch takes to fill: every
# batch leaves full (RecordAccumulator.ready: a full batch is sendable at once) except the task's
# last, which the task-end flush() sends with what it holds.
def test_full_batches_count_in_the_batch_size_bucket(make_scenario, traced_run, watch_requests):
    run = traced_run(make_scenario(LONG_LINGER))
    log = watch_requests(run)
    run.execute()
    result = build(run)
    record = run.bulk_record_bytes
    capacity = math.floor((64 * KB - BATCH_HEADER) / record) * record   # the whole records that fit in batch.size
    full, tail = divmod(result.summary.record_bytes, capacity)
    assert (full, bucket(tail + BATCH_HEADER)) == (26, 5)
    sizes = result.batch_sizes
    # 26 full batches in the batch.size bucket (32-64 KB), the flushed tail in the 16-32 KB one
    assert sizes.bucket_upper_bytes == (1024, 2048, 4096, 8192, 16384, 32768, 65536)
    assert sizes.wire_bytes == sizes.record_bytes == (0, 0, 0, 0, 0, 1, 26)
    assert sizes.batches == result.summary.batches == 27
    assert sizes.records == pytest.approx(result.summary.record_bytes / record, rel=1e-9)
    assert sizes.source == "model"
    (executor,) = run.loads[0].executors
    sent = log.batches(executor.producer)
    assert list(sizes.wire_bytes) == counts([b.wire for b in sent])


# linger.ms 60 s, batch.size 1 MB: no batch fills; each of the 4 write tasks (repartition(4) on
# one core) ends with flush(), which sends its task's records as one partial batch.
FLUSHED_BATCHES = {"cluster": {"topics": [{"name": "bulk", "partitions": 1}]},
                   "dataset": {"files": [{"size": "100KB"}]},
                   "batch": {"spark": {"repartition": 4},
                             "producer": {"batch.size": "1MB", "linger.ms": 60000}}}


def test_task_end_flushes_count_partial_batches_far_below_batch_size(make_scenario, evaluator):
    result = evaluator.evaluate(make_scenario(FLUSHED_BATCHES), seed=1)
    task_bytes = result.summary.record_bytes / 4
    assert result.spark["write_tasks"] == 4 and bucket(task_bytes + BATCH_HEADER) == 6
    sizes = result.batch_sizes
    # four batches of a quarter of the records each (32-64 KB); the 0.5-1 MB batch.size bucket is empty
    assert sizes.wire_bytes == sizes.record_bytes == (0, 0, 0, 0, 0, 0, 4)
    assert sizes.batches == result.summary.batches == 4
    assert bucket(1024 * KB) == 10 > len(sizes.wire_bytes) - 1


def test_compressed_batches_are_smaller_on_the_wire(make_scenario, evaluator):
    result = evaluator.evaluate(make_scenario(FLUSHED_BATCHES, {"batch": {"producer": {"compression.type": "zstd"}}}),
                                seed=1)
    sizes = result.batch_sizes
    assert sizes.record_bytes == (0, 0, 0, 0, 0, 0, 4)
    wire = result.summary.wire_bytes / 4
    assert sizes.wire_bytes[bucket(wire)] == 4 and bucket(wire) < 6


def test_neighbour_batches_are_not_counted(make_scenario, traced_run):
    run = traced_run(make_scenario({
        "cluster": {"topics": [{"name": "bulk", "partitions": 1}, {"name": "events", "partitions": 6}]},
        "dataset": {"files": [{"size": "200KB"}]},
        "tenants": [{"name": "neighbour", "topic": "events", "client": {"kind": "java", "version": "3.6.1"},
                     "rate": "2000/s", "record_size": "1KB", "keys": 50, "sla_p99": "10ms"}]}))
    run.execute()
    result = build(run)
    assert run.tenants[0].producer.batches_sent > 100
    assert result.batch_sizes.batches == result.summary.batches == sum(result.batch_sizes.wire_bytes)


def test_a_result_without_batch_sizes_still_reads(make_scenario, evaluator):
    data = evaluator.evaluate(make_scenario(FLUSHED_BATCHES), seed=1).to_dict()
    del data["batch_sizes"]
    assert RunResult.from_dict(data).batch_sizes is None
