"""The mechanisms the model must capture (DESIGN.md), each in a tiny deterministic scenario.

Every expectation comes from the client, broker or Spark source named next to it; the
scenarios (conftest.BASE: one broker, one executor core, one small file, no jitter) are small
enough that each run takes milliseconds of wall time.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from simulator.model.producer import BATCH_HEADER
from simulator.model.spark import max_split_bytes, plan_input_partitions, plan_writes
from workloads import Scenario
from workloads.profile import PROFILE_DIR

MB = 1024**2


def slow_broker_profile(directory: Path, produce_request_us: float = 3000.0) -> str:
    """The default profile with an I/O handler that takes milliseconds per produce request."""
    raw = yaml.safe_load((PROFILE_DIR / "default.yaml").read_text())
    raw["name"] = "slow-broker"
    raw["broker"]["produce_request_us"] = produce_request_us
    path = directory / "slow-broker.yaml"
    path.write_text(yaml.safe_dump(raw))
    return str(path)


def only_producer(run):
    (executor,) = run.loads[0].executors
    return executor.producer


# ---- 1. a full batch is sent at once --------------------------------------------------------
# RecordAccumulator.ready(): `full = deque.size() > 1 || batch.isFull()`, and a full batch is
# sendable whatever linger.ms says; KafkaProducer.doSend() wakes the sender as soon as an
# append fills a batch or creates a new one (`if (result.batchIsFull || result.newBatchCreated)
# this.sender.wakeup()`). One partition, so every batch but the flushed tail fills up.
LONG_LINGER = {"cluster": {"topics": [{"name": "bulk", "partitions": 1}]},
               "dataset": {"files": [{"size": "1MB"}]},
               "batch": {"spark": {"append_rate": "1MB/s"},
                         "producer": {"batch.size": "64KB", "linger.ms": 1000}}}


def test_batches_leave_full_under_a_long_linger(traced_run):
    run = traced_run(scenario(LONG_LINGER))
    log = watch_requests(run)
    batch_size = 64 * 1024
    run.execute()
    wires = [b.wire for b in log.batches(only_producer(run))]
    record = run.bulk_record_bytes
    # uncompressed: a batch is full when the next record would not fit in batch.size
    assert all(batch_size - record < wire <= batch_size for wire in wires[:-1])
    assert wires[-1] <= batch_size and len(wires) >= 20
    assert math.fsum(wires[:-1]) / len(wires[:-1]) > batch_size - record


def test_a_long_linger_does_not_slow_the_load(evaluator):
    result = evaluator.evaluate(scenario(LONG_LINGER), seed=1)
    summary = result.summary
    appending = summary["value_bytes"] / MB            # seconds at 1 MB/s
    assert summary["batches"] >= 20
    # linger.ms x batches would be 20+ s; full batches go at once and the last is flushed
    assert summary["load_seconds"] < appending + 0.05
    assert summary["load_seconds"] < 1.0 * summary["batches"] / 10


def test_full_batch_is_sent_without_waiting_for_linger(traced_run):
    run = traced_run(scenario(LONG_LINGER))
    log = watch_requests(run)
    run.execute()
    requests = log.of(only_producer(run))
    full = [(r.t_arrive, b.closed_at) for r in requests for b in r.batches[:1] if r is not requests[-1]]
    assert full
    # at 1 MB/s a 64 KB batch fills in ~62 ms; the broker has it well before linger.ms (1 s)
    worst = max(arrived - closed for arrived, closed in full)
    assert worst < 0.010, f"a full batch reached the broker {worst * 1e3:.0f} ms after it filled"


# ---- 2. with linger.ms=0 a slow broker makes batches bigger -----------------------------
# Sender.sendProducerData() drains only when a connection can take another request
# (NetworkClient.ready -> InFlightRequests.canSendMore); while responses are slow the records
# keep appending to the open batches, so each drain finds more bytes (DESIGN.md point 3).
def test_a_slow_broker_makes_linger_zero_batches_bigger(evaluator, tmp_path):
    fast = evaluator.evaluate(scenario(), seed=1).summary
    slow = evaluator.evaluate(scenario({"profile": slow_broker_profile(tmp_path)}), seed=1).summary
    assert slow["mean_batch_bytes"] > fast["mean_batch_bytes"]
    assert slow["produce_requests"] < fast["produce_requests"]
    assert slow["value_bytes"] == pytest.approx(fast["value_bytes"], rel=1e-9)


def test_a_long_round_trip_makes_linger_zero_batches_bigger(evaluator):
    near = evaluator.evaluate(scenario(), seed=1).summary
    far = evaluator.evaluate(scenario({"cluster": {"network_rtt": "20ms"}}), seed=1).summary
    assert far["mean_batch_bytes"] > near["mean_batch_bytes"]
    assert far["produce_requests"] < near["produce_requests"]


# ---- 3. flush() at a task's end sends partial batches -------------------------------------
# KafkaWriteTask.close() calls producer.flush(); flush() marks every incomplete batch sendable
# (RecordAccumulator.beginFlush -> ready(): `flushInProgress()`), so linger.ms does not hold it.
def test_task_end_flush_sends_the_partial_batch(evaluator):
    small_task = {"cluster": {"topics": [{"name": "bulk", "partitions": 1}]},
                  "dataset": {"files": [{"size": "100KB"}]},
                  "batch": {"producer": {"batch.size": "1MB", "linger.ms": 60000}}}
    result = evaluator.evaluate(scenario(small_task), seed=1)
    summary = result.summary
    assert result.spark["write_tasks"] == 1
    assert summary["load_seconds"] < 1.0                      # linger.ms is 60 s
    assert summary["batches"] == 1 and summary["produce_requests"] == 1
    assert 0 < summary["mean_batch_wire_bytes"] < 1 * MB
    assert summary["value_bytes"] == pytest.approx(100 * 1024 * result.spark["record_bytes"]
                                                   / result.spark["csv_row_bytes"], rel=1e-6)


# ---- 4. one produce request per broker: many partitions (Java), one (librdkafka) ----------
# Java: RecordAccumulator.drainBatchesForOneNode() takes the head batch of every partition the
# ready node leads into one ProduceRequest (up to max.request.size). librdkafka:
# rd_kafka_msgset_writer (rdkafka_msgset_writer.c) builds a ProduceRequest for a single
# topic-partition's message set.
def test_java_packs_many_partitions_into_one_request(evaluator):
    keyed = {"cluster": {"topics": [{"name": "bulk", "partitions": 12}]},
             "batch": {"key": "card_id", "producer": {"linger.ms": 100}}}
    result = evaluator.evaluate(scenario(keyed), seed=1)
    (producer,) = result.producers
    # keys spread every batch over the 12 partitions; a ready node drains all their heads
    assert producer["batches_per_request"] > 8
    assert producer["batches"] > producer["produce_requests"] * 8


def _neighbour(kind: str, version: str) -> dict:
    return merged(BASE, {
        "cluster": {"topics": [{"name": "bulk", "partitions": 1}, {"name": "events", "partitions": 6}]},
        "dataset": {"files": [{"size": "200KB"}]},
        "tenants": [{"name": "neighbour", "topic": "events", "client": {"kind": kind, "version": version},
                     "rate": "2000/s", "record_size": "1KB", "keys": 50, "sla_p99": "10ms",
                     "producer": {"linger.ms": 5}}],
    })


def test_librdkafka_sends_one_partition_per_request(traced_run):
    run = traced_run(Scenario.from_mapping(_neighbour("librdkafka", "2.3.0")))
    log = watch_requests(run)
    run.execute()
    (tenant,) = run.tenants
    producer = tenant.producer
    requests = log.of(producer)
    assert producer.requests == producer.batches_sent > 100
    assert all(len(r.batches) == 1 for r in requests)
    assert len({b.partition.index for r in requests for b in r.batches}) == 6


def test_java_neighbour_packs_its_partitions(traced_run):
    # the same neighbour on the Java client: contrast for the test above
    run = traced_run(Scenario.from_mapping(_neighbour("java", "3.6.1")))
    log = watch_requests(run)
    run.execute()
    producer = run.tenants[0].producer
    assert producer.batches_sent > producer.requests > 0
    assert max(len(r.batches) for r in log.of(producer)) > 1


# ---- 5. max.in.flight.requests.per.connection bounds outstanding requests -------------------
# NetworkClient.isReady -> InFlightRequests.canSendMore(node): `queue.isEmpty() ||
# (queue.peekFirst().send.completed() && queue.size() < maxInFlightRequestsPerConnection)`.
def _max_in_flight_seen(traced_run, changes: dict) -> tuple[int, list[int]]:
    run = traced_run(scenario(changes))
    producer = only_producer(run)
    seen: list[int] = []
    run.engine.observers.append(lambda action, argument: seen.append(max(producer.inflight.values())))
    run.execute()
    return producer.max_in_flight, seen


@pytest.mark.parametrize("limit", [1, 5])
def test_outstanding_requests_never_exceed_max_in_flight(traced_run, tmp_path, limit):
    bound, seen = _max_in_flight_seen(traced_run, {
        "profile": slow_broker_profile(tmp_path),
        "batch": {"producer": {"max.in.flight.requests.per.connection": limit}}})
    assert bound == limit
    assert max(seen) == limit      # never more, and a slow broker fills the window


def test_pipelining_is_not_limited_by_the_round_trip(traced_run):
    # canSendMore waits for the previous request to be *written to the socket*, not to reach
    # the broker: with a 20 ms round trip and linger.ms=0 the sender has 5 requests in flight
    # within a millisecond of the first append, long before the first response.
    bound, seen = _max_in_flight_seen(traced_run, {"cluster": {"network_rtt": "20ms"}})
    assert bound == 5
    assert max(seen) == 5, f"at most {max(seen)} requests were in flight"


# ---- 6. Spark planning: gzip is one task per file; splittable files are split and packed ------
# FilePartition.maxSplitBytes = min(maxPartitionBytes, max(openCostInBytes, bytesPerCore)),
# bytesPerCore = sum(len + openCost) / defaultParallelism; PartitionedFileUtil.splitFiles cuts
# splittable files at maxSplitBytes; getFilePartitions packs the chunks next-fit decreasing,
# charging openCostInBytes per chunk. A gzip file is not splittable: one chunk.
def _plan(max_partition_bytes: str, compression: str, executors: int, cores: int):
    s = scenario({"dataset": {"files": [{"size": "300MB", "count": 3}], "compression": compression},
                  "batch": {"spark": {"spark.executor.instances": executors, "spark.executor.cores": cores,
                                      "spark.sql.files.maxPartitionBytes": max_partition_bytes}}})
    return s.batch.spark, s.dataset


@pytest.mark.parametrize("max_partition_bytes", ["1MB", "128MB", "1GB"])
def test_gzip_input_is_one_task_per_file(max_partition_bytes):
    spark, dataset = _plan(max_partition_bytes, "gzip", 1, 2)
    # 1 GB: maxSplitBytes = 912 MB / 2 = 456 MB, and 300 + 4 + 300 > 456: still one file each
    assert plan_input_partitions(spark, dataset) == [300 * MB] * 3
    plan = plan_writes(spark, dataset, 1.5)
    assert len(plan.write_tasks) == 3 and not plan.shuffled


@pytest.mark.parametrize("executors, cores, split, partitions", [
    # parallelism 2: 912 MB / 2 = 456 MB, capped at 128 MB; each file -> 128, 128, 44;
    # six 128 MB partitions, then 44 (+4) + 44 = 92 <= 128, + 44 would be 140: [88], [44]
    (1, 2, 128 * MB, [128 * MB] * 6 + [88 * MB, 44 * MB]),
    # parallelism 16: 912 MB / 16 = 57 MB; each file -> 5 x 57 + 15; fifteen 57 MB partitions,
    # then 15 (+4) + 15 (+4) + 15 = 53 <= 57: the three tails share one partition
    (4, 4, 57 * MB, [57 * MB] * 15 + [45 * MB]),
])
def test_splittable_input_follows_spark_split_and_packing(executors, cores, split, partitions):
    spark, dataset = _plan("128MB", "none", executors, cores)
    assert max_split_bytes(spark, dataset.file_sizes) == split
    assert plan_input_partitions(spark, dataset) == partitions
    assert len(plan_writes(spark, dataset, 1.5).write_tasks) == len(partitions)


def test_gzip_files_run_one_task_each_in_a_load(evaluator):
    # 3 x 2 MB with maxPartitionBytes 1 MB: split files give 6 tasks, gzip files 3
    three_files = {"dataset": {"files": [{"size": "2MB", "count": 3}]},
                   "batch": {"spark": {"spark.executor.instances": 2, "spark.executor.cores": 2,
                                       "spark.sql.files.maxPartitionBytes": "1MB"}}}
    split = evaluator.evaluate(scenario(three_files), seed=1)
    gzip = evaluator.evaluate(scenario(merged(three_files, {"dataset": {"compression": "gzip"}})), seed=1)
    assert (split.spark["scan_tasks"], split.spark["write_tasks"]) == (6, 6)
    assert (gzip.spark["scan_tasks"], gzip.spark["write_tasks"]) == (3, 3)
    assert sum(p["tasks"] for p in gzip.producers) == 3
    assert gzip.summary["value_bytes"] == pytest.approx(split.summary["value_bytes"], rel=1e-6)


# ---- 7. repartition(N): a round-robin shuffle, then exactly N write tasks ---------------------
# Dataset.repartition(N) -> RoundRobinPartitioning(N): ShuffleExchangeExec has N reduce
# partitions, and the write stage starts only when the shuffle-map stage has finished.
@pytest.mark.parametrize("n", [7, 60])
def test_repartition_gives_n_write_tasks_after_a_shuffle(evaluator, n):
    result = evaluator.evaluate(scenario({"batch": {"spark": {
        "spark.executor.instances": 2, "spark.executor.cores": 2, "repartition": n}}}), seed=1)
    spark = result.spark
    assert spark["write_tasks"] == n and spark["shuffled"] is True
    assert spark["scan_tasks"] == 1
    assert sum(p["tasks"] for p in result.producers) == n
    # one 2 MB scan task at the profile's csv_scan_rate of 60 MB/s
    load_start = result.windows["during"][0]
    assert spark["write_stage_start_s"] == pytest.approx(load_start + 2 / 60, rel=1e-6)


def test_repartition_shares_the_rows_equally(evaluator):
    s = scenario({"batch": {"spark": {"repartition": 7}}})
    plan = plan_writes(s.batch.spark, s.dataset, 1.6)
    assert len(plan.write_tasks) == 7
    assert plan.write_tasks == pytest.approx([2 * MB * 1.6 / 7] * 7, rel=1e-12)


# ---- 8. acks=all waits for the followers ----------------------------------------------------
# ReplicaManager.appendRecords: acks=-1 parks the produce in DelayedProduce until the high
# watermark passes the appended offsets (followers' fetches); acks=1 answers after the local
# append. RemoteTimeMs is the time in purgatory, so it is 0 for acks=1.
def _replicated(tenant_acks: str) -> Scenario:
    return Scenario.from_mapping(merged(BASE, {
        "cluster": {"brokers": 3, "replication.factor": 3, "min.insync.replicas": 2,
                    "topics": [{"name": "bulk", "partitions": 3}, {"name": "events", "partitions": 3}]},
        "dataset": {"files": [{"size": "500KB"}]},
        "windows": {"before": "2s", "after": "1s"},
        "tenants": [{"name": "neighbour", "topic": "events", "client": {"kind": "java", "version": "3.6.1"},
                     "rate": "200/s", "record_size": "1KB", "sla_p99": "10ms",
                     "producer": {"acks": tenant_acks}}],
    }))


def test_acks_all_waits_longer_than_acks_one(evaluator):
    one = evaluator.evaluate(_replicated("1"), seed=1).tenants[0]["latency_ms"]["before"]
    everyone = evaluator.evaluate(_replicated("all"), seed=1).tenants[0]["latency_ms"]["before"]
    assert one["count"] > 300 and everyone["count"] > 300
    assert everyone["p50"] > one["p50"]


def test_remote_time_only_for_acks_all(traced_run):
    run = traced_run(_replicated("all"))     # the neighbour: acks=all; the bulk load: acks=1
    log = watch_requests(run)
    run.execute()
    remote = {"1": [], "all": []}
    for request in log.requests:
        remote[request.acks].append(request.t_complete - request.t_local)
    assert len(remote["1"]) > 10 and len(remote["all"]) > 300
    assert all(t == 0.0 for t in remote["1"])
    assert all(t > 0.0 for t in remote["all"])


# ---- 9. determinism ---------------------------------------------------------------------------
def _noisy() -> Scenario:
    # the default jitter and a neighbour: seeds change append rates, service times, partitions
    raw = merged(_neighbour("java", "3.6.1"), {"jitter": {"append_rate": 0.05, "service_time": 0.05}})
    return Scenario.from_mapping(raw)


def test_same_seed_gives_the_same_bytes(evaluator):
    from simulator.model.model import ModelEvaluator
    first = evaluator.evaluate(_noisy(), seed=7).to_json()
    assert first == evaluator.evaluate(_noisy(), seed=7).to_json()
    assert first == ModelEvaluator().evaluate(_noisy(), seed=7).to_json()


def test_another_seed_gives_other_figures(evaluator):
    seven = evaluator.evaluate(_noisy(), seed=7).to_dict()
    eight = evaluator.evaluate(_noisy(), seed=8).to_dict()
    seven.pop("seed"), eight.pop("seed")
    assert seven != eight
    assert seven["summary"] != eight["summary"]


# ---- 10. buffer.memory: a full buffer blocks send(), nothing is lost ---------------------------
# KafkaProducer.send -> RecordAccumulator.append -> BufferPool.allocate blocks (up to
# max.block.ms) while all of buffer.memory is held by unacknowledged batches.
def test_full_buffer_blocks_the_appender_and_loses_nothing(evaluator, tmp_path):
    result = evaluator.evaluate(scenario({
        "profile": slow_broker_profile(tmp_path),
        "batch": {"producer": {"buffer.memory": "32KB"}}}), seed=1)
    (producer,) = result.producers
    assert producer["buffer_blocked_s"] > 0
    rows = 2 * MB / result.spark["csv_row_bytes"]
    assert producer["records"] == pytest.approx(rows, rel=0.01)
    assert result.summary["value_bytes"] == pytest.approx(rows * result.spark["record_bytes"], rel=0.01)


def test_blocking_stretches_the_load(evaluator, tmp_path):
    profile = {"profile": slow_broker_profile(tmp_path)}
    roomy = evaluator.evaluate(scenario(profile), seed=1)
    tight = evaluator.evaluate(scenario(merged(profile, {"batch": {"producer": {"buffer.memory": "32KB"}}})), seed=1)
    assert roomy.producers[0]["buffer_blocked_s"] == 0
    assert tight.summary["load_seconds"] > roomy.summary["load_seconds"]


# ---- 11. sticky partitioning ----------------------------------------------------------------
def _batches_in_creation_order(traced_run, version: str, changes: dict | None = None) -> tuple[list, object]:
    run = traced_run(scenario(merged({"batch": {"client": {"version": version}}}, changes or {})))
    log = watch_requests(run)
    run.execute()
    producer = only_producer(run)
    return sorted(log.batches(producer), key=lambda b: b.created), producer


def test_kip480_switches_partition_on_every_new_batch(traced_run):
    # 2.4-3.2 DefaultPartitioner.onNewBatch -> StickyPartitionCache.nextPartition: a new batch
    # moves the sticky partition to a different one (the loop redraws while newPart == oldPart).
    batches, producer = _batches_in_creation_order(traced_run, "2.8.1")
    assert producer.partitioner == "kip480" and len(batches) > 50
    partitions = [b.partition.index for b in batches]
    assert all(a != b for a, b in zip(partitions, partitions[1:]))


def test_kip794_fills_a_partition_before_switching(traced_run):
    # 3.3+ BuiltInPartitioner.updatePartitionInfo: switch once producedBytes >= batch.size
    # and the last batch is full, or producedBytes >= 2 x batch.size (KAFKA-14156).
    batches, producer = _batches_in_creation_order(traced_run, "3.6.1")
    assert producer.partitioner == "kip794" and len(batches) > 50
    runs: list[list] = []
    for batch in batches:
        if runs and runs[-1][0] is batch.partition:
            runs[-1][1] += batch.bytes + BATCH_HEADER
        else:
            runs.append([batch.partition, batch.bytes + BATCH_HEADER])
    assert len(runs) > 5
    assert all(total >= 16 * 1024 for _, total in runs[:-1])


# ---- 12. compression: the ratio estimate starts at 1.0 and improves slowly -------------------
# CompressionRatioEstimator: estimation starts at 1.0; after a batch closes, a better observed
# ratio lowers it by at most COMPRESSION_RATIO_IMPROVING_STEP = 0.005.
def test_compression_estimate_improves_by_at_most_half_a_percent_per_batch(traced_run):
    run = traced_run(scenario({"batch": {"producer": {"compression.type": "zstd", "batch.size": "64KB",
                                                      "linger.ms": 5}}}))
    log = watch_requests(run)
    producer = only_producer(run)
    assert producer.ratio_estimate == 1.0
    estimates = [(0.0, 1.0)]
    run.engine.observers.append(lambda action, argument: estimates.append((run.engine.now, producer.ratio_estimate)))
    run.execute()
    closed = sorted(b.closed_at for b in log.batches(producer))
    assert len(closed) > 20

    def closed_between(start: float, end: float) -> int:
        return sum(1 for t in closed if start <= t <= end)

    for (t0, before), (t1, after) in zip(estimates, estimates[1:]):
        assert after >= before - 0.005 * closed_between(t0, t1) - 1e-12
    final = estimates[-1][1]
    assert final < 1.0
    assert final >= 1.0 - 0.005 * len(closed) - 1e-12


def test_zstd_halves_card_rows_on_the_wire(evaluator):
    result = evaluator.evaluate(scenario({"batch": {"producer": {"compression.type": "zstd",
                                                                 "batch.size": "128KB", "linger.ms": 10}}}), seed=1)
    summary = result.summary
    assert summary["wire_bytes"] < 0.6 * summary["value_bytes"]
    assert summary["compression_ratio"] < 0.6
