"""The mechanisms the model must capture (DESIGN.md), each in a tiny deterministic scenario.

Every expectation comes from the client, broker or Spark source named next to it. The base
scenario (conftest.BASE: one broker, one executor core, one 2 MB file, no jitter) is small
enough that each run takes milliseconds of wall time.
"""
from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
import yaml

from simulator._core import CompressionRatios, Random, RecordAccumulator
from simulator.model.model import ModelEvaluator
from simulator._core import BATCH_HEADER
from simulator.model.spark import max_split_bytes, plan_input_partitions, plan_writes
from workloads.profile import PROFILE_DIR

MB = 1024**2


def slow_broker_profile(directory: Path) -> dict:
    """A profile override whose I/O handlers take 3 ms per produce request (default: 60 us)."""
    raw = yaml.safe_load((PROFILE_DIR / "default.yaml").read_text())
    raw["name"] = "slow-broker"
    raw["broker"]["produce_request_us"] = 3000
    path = directory / "slow-broker.yaml"
    path.write_text(yaml.safe_dump(raw))
    return {"profile": str(path)}


def only_producer(run):
    (executor,) = run.loads[0].executors
    return executor.producer


def neighbour(kind: str, version: str, **producer) -> dict:
    """A keyed neighbour on its own 6-partition topic beside a small bulk load."""
    return {"cluster": {"topics": [{"name": "bulk", "partitions": 1}, {"name": "events", "partitions": 6}]},
            "dataset": {"files": [{"size": "200KB"}]},
            "tenants": [{"name": "neighbour", "topic": "events", "client": {"kind": kind, "version": version},
                         "rate": "2000/s", "record_size": "1KB", "keys": 50, "sla_p99": "10ms",
                         "producer": producer}]}


# ---- 1. a full batch is sent at once ----------------------------------------------------------
# RecordAccumulator.ready(): `full = deque.size() > 1 || batch.isFull()`; a full batch is
# sendable whatever linger.ms says, and KafkaProducer.doSend() wakes the sender as soon as an
# append fills a batch or opens a new one (`if (result.batchIsFull || result.newBatchCreated)
# this.sender.wakeup()`). One partition, so every batch but the flushed tail fills up; at
# 1 MB/s a 64 KB batch fills in ~62 ms, linger.ms is 1000.
LONG_LINGER = {"cluster": {"topics": [{"name": "bulk", "partitions": 1}]},
               "dataset": {"files": [{"size": "1MB"}]},
               "batch": {"spark": {"append_rate": "1MB/s"},
                         "producer": {"batch.size": "64KB", "linger.ms": 1000}}}


def test_batches_leave_full_under_a_long_linger(make_scenario, traced_run, watch_requests):
    run = traced_run(make_scenario(LONG_LINGER))
    log = watch_requests(run)
    run.execute()
    wires = [b.wire for b in log.batches(only_producer(run))]
    batch_size, record = 64 * 1024, run.bulk_record_bytes
    assert len(wires) > 20
    # uncompressed, a batch is full when the next record would not fit in batch.size
    assert all(batch_size - record < wire <= batch_size for wire in wires[:-1])
    assert math.fsum(wires[:-1]) / len(wires[:-1]) > batch_size - record
    assert wires[-1] <= batch_size


def test_a_long_linger_does_not_slow_the_load(make_scenario, evaluator):
    summary = evaluator.evaluate(make_scenario(LONG_LINGER), seed=1).summary
    appending = summary.record_bytes / MB          # seconds, at 1 MB/s
    assert summary.batches > 20
    # linger.ms x batches would be over 20 s: the load ends as its last record is appended
    assert summary.load_seconds < appending + 0.05


def test_full_batch_is_sent_without_waiting_for_linger(make_scenario, traced_run, watch_requests):
    run = traced_run(make_scenario(LONG_LINGER))
    log = watch_requests(run)
    run.execute()
    requests = log.of(only_producer(run))
    filled = [(r.t_arrive, b.closed_at) for r in requests[:-1] for b in r.batches]   # the last is the flush
    assert len(filled) > 20
    worst = max(arrived - closed for arrived, closed in filled)
    assert worst < 0.010, f"a full batch reached the broker {worst * 1e3:.0f} ms after it filled"


# ---- 2. with linger.ms=0 a slow broker makes batches bigger -----------------------------------
# Sender.sendProducerData() drains only when a connection can take another request
# (NetworkClient.ready -> InFlightRequests.canSendMore); while responses are slow, records keep
# appending to the open batches, so each drain finds more bytes (DESIGN.md, point 3).
def test_a_slow_broker_makes_linger_zero_batches_bigger(make_scenario, evaluator, tmp_path):
    fast = evaluator.evaluate(make_scenario(), seed=1).summary
    slow = evaluator.evaluate(make_scenario(slow_broker_profile(tmp_path)), seed=1).summary
    assert slow.record_bytes == pytest.approx(fast.record_bytes, rel=1e-9)
    assert slow.mean_batch_bytes > fast.mean_batch_bytes
    assert slow.produce_requests < fast.produce_requests


def test_a_long_round_trip_makes_linger_zero_batches_bigger(make_scenario, evaluator):
    near = evaluator.evaluate(make_scenario(), seed=1).summary
    far = evaluator.evaluate(make_scenario({"cluster": {"network_rtt": "20ms"}}), seed=1).summary
    assert far.mean_batch_bytes > near.mean_batch_bytes
    assert far.produce_requests < near.produce_requests


# A broker whose CPU cannot keep up with the load (here 60 ns per byte at 20 MB/s: 1.2 s of CPU
# a second on one vCPU) reads one request per connection at a time (the channel is muted until
# the response is sent), so the producer's next requests wait in its in-flight window while full
# batches of the other partitions pile up: each drain then packs many partitions into one
# request, up to max.request.size. This is how a cold or small live broker turned the same load
# into 49 requests of ~30 batches where a warm one took ~1,000 of one or two.
def test_a_saturated_broker_makes_the_producer_pack_more_batches_per_request(make_scenario, evaluator, tmp_path):
    def run(byte_ns: float) -> tuple[dict, dict]:
        raw = yaml.safe_load((PROFILE_DIR / "default.yaml").read_text())
        raw["name"] = f"byte-{byte_ns:g}"
        raw["broker"]["produce_byte_ns"] = byte_ns
        path = tmp_path / f"byte-{byte_ns:g}.yaml"
        path.write_text(yaml.safe_dump(raw))
        result = evaluator.evaluate(make_scenario({
            "profile": str(path), "cluster": {"topics": [{"name": "bulk", "partitions": 30}], "broker": {"vcpus": 1}},
            "dataset": {"files": [{"size": "8MB"}]},
            "batch": {"spark": {"append_rate": "20MB/s"}, "producer": {"linger.ms": 5, "max.request.size": "1MB"}}}), seed=1)
        return result.summary, result.producers[0]
    (quick, quick_producer), (saturated, saturated_producer) = run(0.5), run(60.0)
    assert saturated.record_bytes == pytest.approx(quick.record_bytes, rel=1e-9)
    assert quick_producer["batches_per_request"] < 2.5
    assert saturated_producer["batches_per_request"] > 4 * quick_producer["batches_per_request"]
    assert saturated.produce_requests * 4 < quick.produce_requests
    assert saturated.load_seconds > quick.load_seconds


# Records are appended whole: KafkaProducer.send() adds a record to the batch in one call, so a
# drain finds whole records only. At 100 KB/s a ~1 KB record takes ~10 ms to make and the
# sender answers in microseconds: each request carries exactly one record, never a part of one.
def test_a_drain_sends_whole_records(make_scenario, traced_run, watch_requests):
    run = traced_run(make_scenario({"dataset": {"files": [{"size": "100KB"}]},
                                    "batch": {"spark": {"append_rate": "100KB/s"}}}))
    log = watch_requests(run)
    run.execute()
    batches = log.batches(only_producer(run))
    assert len(batches) > 50
    assert all(batch.records == pytest.approx(1.0, abs=1e-6) for batch in batches[:-1])
    assert 0 < batches[-1].records <= 1 + 1e-6      # the task's end flush takes what is left


def test_fast_appends_never_send_part_of_a_record(make_scenario, traced_run, watch_requests):
    run = traced_run(make_scenario())
    log = watch_requests(run)
    run.execute()
    records = sorted(batch.records for batch in log.batches(only_producer(run)))
    assert len(records) > 20
    assert records[1] >= 1 - 1e-6                    # only one batch, a flushed tail, may hold less


# ---- 3. flush() at a task's end sends partial batches --------------------------------------------
# KafkaWriteTask.close() calls producer.flush(); flush() makes every incomplete batch sendable
# (RecordAccumulator.beginFlush -> ready(): `flushInProgress()`), so linger.ms does not hold it.
def test_task_end_flush_sends_the_partial_batch(make_scenario, evaluator):
    result = evaluator.evaluate(make_scenario({
        "cluster": {"topics": [{"name": "bulk", "partitions": 1}]},
        "dataset": {"files": [{"size": "100KB"}]},
        "batch": {"producer": {"batch.size": "1MB", "linger.ms": 60000}}}), seed=1)
    summary, spark = result.summary, result.spark
    task_bytes = 100 * 1024 * spark["record_bytes"] / spark["csv_row_bytes"]
    assert spark["write_tasks"] == 1 and task_bytes < MB
    assert summary.load_seconds < 1.0                         # linger.ms is 60 s
    assert summary.batches == 1 and summary.produce_requests == 1
    assert summary.record_bytes == pytest.approx(task_bytes, rel=1e-6)
    assert summary.mean_batch_wire_bytes == pytest.approx(task_bytes + BATCH_HEADER, rel=1e-6)


# ---- 4. one produce request per broker: many partitions (Java), one (librdkafka) ---------------
# Java: RecordAccumulator.drainBatchesForOneNode() puts the head batch of every partition the
# ready node leads into one ProduceRequest (up to max.request.size). librdkafka: the msgset
# writer (rdkafka_msgset_writer.c) builds each ProduceRequest from one toppar's queue.
def test_java_packs_many_partitions_into_one_request(make_scenario, evaluator):
    result = evaluator.evaluate(make_scenario({
        "cluster": {"topics": [{"name": "bulk", "partitions": 12}]},
        "batch": {"key": "card_id", "producer": {"linger.ms": 100}}}), seed=1)
    (producer,) = result.producers
    # keys spread the records over all 12 partitions; a ready node drains every head batch
    assert producer["batches"] > 100
    assert producer["batches_per_request"] > 8


def test_librdkafka_sends_one_partition_per_request(make_scenario, traced_run, watch_requests):
    run = traced_run(make_scenario(neighbour("librdkafka", "2.3.0")))
    log = watch_requests(run)
    run.execute()
    producer = run.tenants[0].producer
    requests = log.of(producer)
    assert producer.requests == producer.batches_sent == len(requests) > 100
    assert all(len(r.batches) == 1 for r in requests)
    assert len({b.partition.index for r in requests for b in r.batches}) == 6


def test_java_neighbour_packs_its_partitions(make_scenario, traced_run, watch_requests):
    # the same neighbour on the Java client (linger.ms 5 like librdkafka's): the contrast
    run = traced_run(make_scenario(neighbour("java", "3.6.1", **{"linger.ms": 5})))
    log = watch_requests(run)
    run.execute()
    producer = run.tenants[0].producer
    assert producer.batches_sent > producer.requests > 100
    assert max(len(r.batches) for r in log.of(producer)) > 1


# ---- 5. max.in.flight.requests.per.connection bounds outstanding requests ----------------------
# NetworkClient.isReady -> InFlightRequests.canSendMore(node): `queue.isEmpty() ||
# (queue.peekFirst().send.completed() && queue.size() < maxInFlightRequestsPerConnection)`.
def in_flight_after_each_event(run, producer=None) -> list[int]:
    producer = producer or only_producer(run)
    seen: list[int] = []
    run.engine.observers.append(lambda action, argument: seen.append(max(producer.inflight.values())))
    run.execute()
    return seen


@pytest.mark.parametrize("limit", [1, 5])
def test_outstanding_requests_never_exceed_max_in_flight(make_scenario, traced_run, tmp_path, limit):
    run = traced_run(make_scenario(slow_broker_profile(tmp_path),
                                   {"batch": {"producer": {"max.in.flight.requests.per.connection": limit}}}))
    assert only_producer(run).max_in_flight == limit
    seen = in_flight_after_each_event(run)
    assert max(seen) == limit          # never more, and a slow broker fills the window


def test_pipelining_is_not_held_back_by_the_round_trip(make_scenario, traced_run):
    # canSendMore waits for the previous request to be *written to the socket* (send.completed()),
    # not for it to reach the broker: with a 20 ms round trip and linger.ms=0 the sender has 5
    # requests of a few records each in flight within a millisecond, long before any response.
    run = traced_run(make_scenario({"cluster": {"network_rtt": "20ms"}}))
    assert only_producer(run).max_in_flight == 5
    seen = in_flight_after_each_event(run)
    assert max(seen) == 5, f"at most {max(seen)} requests were in flight"


def test_librdkafka_keeps_to_max_in_flight(make_scenario, traced_run):
    # rd_kafka_send() (rdkafka_broker.c) transmits only `while rd_kafka_bufq_cnt(&rkb->rkb_waitresps)
    # < rkb->rkb_max_inflight`; ready ProduceRequests of other partitions wait in rkb_outbufs.
    run = traced_run(make_scenario(neighbour("librdkafka", "2.3.0", **{"max.in.flight.requests.per.connection": 1})))
    producer = run.tenants[0].producer
    assert producer.max_in_flight == 1
    seen = in_flight_after_each_event(run, producer)
    assert producer.requests > 100
    assert max(seen) == 1, f"{max(seen)} requests were in flight on one connection"


# ---- 6. Spark planning: gzip is one task per file; splittable files are split and packed --------
# FilePartition.maxSplitBytes = min(maxPartitionBytes, max(openCostInBytes, bytesPerCore)),
# bytesPerCore = sum(length + openCost) / defaultParallelism (max(total cores, 2));
# PartitionedFileUtil.splitFiles cuts splittable files at maxSplitBytes; getFilePartitions packs
# the chunks next-fit decreasing, charging openCostInBytes per chunk; a gzip file is one chunk.
def three_big_files(make_scenario, compression: str, max_partition_bytes: str, executors: int, cores: int):
    s = make_scenario({
        "dataset": {"files": [{"size": "300MB", "count": 3}], "compression": compression},
        "batch": {"spark": {"spark.executor.instances": executors, "spark.executor.cores": cores,
                            "spark.sql.files.maxPartitionBytes": max_partition_bytes}}})
    return s.batch.spark, s.dataset


@pytest.mark.parametrize("max_partition_bytes", ["1MB", "128MB", "1GB"])
def test_gzip_input_is_one_task_per_file(make_scenario, max_partition_bytes):
    spark, dataset = three_big_files(make_scenario, "gzip", max_partition_bytes, 1, 2)
    # at 1 GB, maxSplitBytes = 912 MB / 2 = 456 MB, and 300 (+4) + 300 > 456: one file each
    assert plan_input_partitions(spark, dataset) == [300 * MB] * 3
    plan = plan_writes(spark, dataset, 1.5)
    assert len(plan.write_tasks) == 3 and not plan.shuffled


@pytest.mark.parametrize("executors, cores, split, partitions", [
    # parallelism 2: 912 MB / 2 = 456 MB, capped at 128 MB; a file -> 128, 128, 44; six 128 MB
    # partitions, then 44 (+4) + 44 = 92 <= 128 but + 44 more would be 140: [88], [44]
    (1, 2, 128 * MB, [128 * MB] * 6 + [88 * MB, 44 * MB]),
    # parallelism 16: 912 MB / 16 = 57 MB; a file -> 5 x 57 + 15; fifteen 57 MB partitions,
    # then 15 (+4) + 15 (+4) + 15 = 53 <= 57: the three tails share one partition
    (4, 4, 57 * MB, [57 * MB] * 15 + [45 * MB]),
])
def test_splittable_input_follows_spark_split_and_packing(make_scenario, executors, cores, split, partitions):
    spark, dataset = three_big_files(make_scenario, "none", "128MB", executors, cores)
    assert max_split_bytes(spark, dataset.file_sizes) == split
    assert plan_input_partitions(spark, dataset) == partitions
    assert len(plan_writes(spark, dataset, 1.5).write_tasks) == len(partitions)


def test_gzip_files_run_one_task_each_in_a_load(make_scenario, evaluator):
    # 3 x 2 MB with maxPartitionBytes 1 MB: the splittable files give 6 tasks, gzip files 3
    three_files = {"dataset": {"files": [{"size": "2MB", "count": 3}]},
                   "batch": {"spark": {"spark.executor.instances": 2, "spark.executor.cores": 2,
                                       "spark.sql.files.maxPartitionBytes": "1MB"}}}
    split = evaluator.evaluate(make_scenario(three_files), seed=1)
    gzip = evaluator.evaluate(make_scenario(three_files, {"dataset": {"compression": "gzip"}}), seed=1)
    assert (split.spark["scan_tasks"], split.spark["write_tasks"]) == (6, 6)
    assert (gzip.spark["scan_tasks"], gzip.spark["write_tasks"]) == (3, 3)
    assert sum(p["tasks"] for p in gzip.producers) == 3


# ---- 7. repartition(N): a round-robin shuffle, then exactly N write tasks -----------------------
# Dataset.repartition(N) -> RoundRobinPartitioning(N): the ShuffleExchange has N reduce
# partitions, and the write stage starts when the shuffle-map (CSV scan) stage has finished.
@pytest.mark.parametrize("n", [7, 60])
def test_repartition_gives_n_write_tasks_after_a_shuffle(make_scenario, evaluator, n):
    result = evaluator.evaluate(make_scenario({"batch": {"spark": {
        "spark.executor.instances": 2, "spark.executor.cores": 2, "repartition": n}}}), seed=1)
    spark = result.spark
    assert spark["write_tasks"] == n and spark["shuffled"] is True
    assert spark["scan_tasks"] == 1
    assert sum(p["tasks"] for p in result.producers) == n
    # one 2 MB scan task at the profile's csv_scan_rate of 60 MB/s, from the load's start (1 s)
    load_start = result.windows["during"][0]
    assert load_start == 1.0
    assert spark["write_stage_start_s"] == pytest.approx(load_start + 2 / 60, rel=1e-9)


def test_repartition_shares_the_rows_equally(make_scenario):
    s = make_scenario({"batch": {"spark": {"repartition": 7}}})
    plan = plan_writes(s.batch.spark, s.dataset, 1.6)
    assert plan.write_tasks == pytest.approx([2 * MB * 1.6 / 7] * 7, rel=1e-12)


# ---- 8. acks=all waits for the followers ------------------------------------------------------
# ReplicaManager.appendRecords: acks=-1 parks the produce in DelayedProduce until the high
# watermark passes its offsets (the followers' fetches move it); acks=1 answers after the local
# append. RemoteTimeMs is the time in purgatory, so it is 0 for acks=1.
def replicated(tenant_acks: str) -> dict:
    return {"cluster": {"brokers": 3, "replication.factor": 3, "min.insync.replicas": 2,
                        "topics": [{"name": "bulk", "partitions": 3}, {"name": "events", "partitions": 3}]},
            "dataset": {"files": [{"size": "500KB"}]},
            "windows": {"before": "2s", "after": "1s"},
            "tenants": [{"name": "neighbour", "topic": "events", "client": {"kind": "java", "version": "3.6.1"},
                         "rate": "200/s", "record_size": "1KB", "sla_p99": "10ms",
                         "producer": {"acks": tenant_acks}}]}


def test_acks_all_waits_longer_than_acks_one(make_scenario, evaluator):
    one = evaluator.evaluate(make_scenario(replicated("1")), seed=1).tenants[0]["latency_ms"]["before"]
    every = evaluator.evaluate(make_scenario(replicated("all")), seed=1).tenants[0]["latency_ms"]["before"]
    assert one["count"] > 300 and every["count"] > 300
    assert every["p50"] > one["p50"]


def test_remote_time_only_for_acks_all(make_scenario, traced_run, watch_requests):
    run = traced_run(make_scenario(replicated("all")))     # the bulk load keeps acks=1
    log = watch_requests(run)
    run.execute()
    remote: dict[str, list[float]] = {"1": [], "all": []}
    for request in log.requests:
        remote[request.acks].append(request.t_complete - request.t_local)
    assert len(remote["1"]) > 10 and len(remote["all"]) > 300
    assert all(t == 0.0 for t in remote["1"])
    assert all(t > 0.0 for t in remote["all"])


# ---- 9. determinism -------------------------------------------------------------------------------
# With jitter and a neighbour, the seed moves append rates, service times, sticky partitions
# and the neighbour's send times: equal seeds must give equal bytes, other seeds other figures.
NOISY = {"jitter": {"append_rate": 0.05, "service_time": 0.05}}


def test_same_seed_gives_the_same_bytes(make_scenario, evaluator):
    first = evaluator.evaluate(make_scenario(neighbour("java", "3.6.1"), NOISY), seed=7).to_json()
    assert first == evaluator.evaluate(make_scenario(neighbour("java", "3.6.1"), NOISY), seed=7).to_json()
    assert first == ModelEvaluator().evaluate(make_scenario(neighbour("java", "3.6.1"), NOISY), seed=7).to_json()


def test_another_seed_gives_other_figures(make_scenario, evaluator):
    seven = evaluator.evaluate(make_scenario(neighbour("java", "3.6.1"), NOISY), seed=7).to_dict()
    eight = evaluator.evaluate(make_scenario(neighbour("java", "3.6.1"), NOISY), seed=8).to_dict()
    assert (seven.pop("seed"), eight.pop("seed")) == (7, 8)
    assert seven["summary"] != eight["summary"]
    assert seven != eight


# ---- 10. buffer.memory: a full buffer blocks send(), nothing is lost -------------------------------
# RecordAccumulator.append -> BufferPool.allocate() blocks (up to max.block.ms) while all of
# buffer.memory is held by batches not yet acknowledged; the records wait, none is dropped.
def test_full_buffer_blocks_the_appender_and_loses_nothing(make_scenario, evaluator, tmp_path):
    result = evaluator.evaluate(make_scenario(slow_broker_profile(tmp_path),
                                              {"batch": {"producer": {"buffer.memory": "32KB"}}}), seed=1)
    (producer,) = result.producers
    assert producer["buffer_blocked_s"] > 0
    rows = 2 * MB / result.spark["csv_row_bytes"]
    assert producer["records"] == pytest.approx(rows, rel=0.01)
    assert result.summary.record_bytes == pytest.approx(rows * result.spark["record_bytes"], rel=0.01)


def test_a_blocked_producer_appends_its_whole_task(make_scenario, evaluator, tmp_path):
    # send() blocks, it never drops: every byte the plan gives the task is appended and sent,
    # to float precision (records are a flow of bytes here, so the 1 % above is only rounding room)
    result = evaluator.evaluate(make_scenario(slow_broker_profile(tmp_path),
                                              {"batch": {"producer": {"buffer.memory": "32KB"}}}), seed=1)
    assert result.producers[0]["buffer_blocked_s"] > 0
    task = 2 * MB * result.spark["record_bytes"] / result.spark["csv_row_bytes"]
    assert result.summary.record_bytes == pytest.approx(task, rel=1e-6)


def test_a_roomy_buffer_does_not_block(make_scenario, evaluator, tmp_path):
    roomy = evaluator.evaluate(make_scenario(slow_broker_profile(tmp_path)), seed=1)
    tight = evaluator.evaluate(make_scenario(slow_broker_profile(tmp_path),
                                             {"batch": {"producer": {"buffer.memory": "32KB"}}}), seed=1)
    assert roomy.producers[0]["buffer_blocked_s"] == 0
    assert tight.summary.load_seconds > roomy.summary.load_seconds


# ---- 11. sticky partitioning -----------------------------------------------------------------------
def batches_in_creation_order(make_scenario, traced_run, watch_requests, version: str):
    run = traced_run(make_scenario({"batch": {"client": {"version": version}}}))
    log = watch_requests(run)
    run.execute()
    producer = only_producer(run)
    return sorted(log.batches(producer), key=lambda b: b.created), producer


def test_kip480_switches_partition_on_every_new_batch(make_scenario, traced_run, watch_requests):
    # 2.4-3.2 DefaultPartitioner.onNewBatch -> StickyPartitionCache.nextPartition: a new batch
    # moves the sticky partition to another one (it redraws while newPart == oldPart)
    batches, producer = batches_in_creation_order(make_scenario, traced_run, watch_requests, "2.8.1")
    assert producer.partitioner == "kip480" and len(batches) > 50
    partitions = [b.partition.index for b in batches]
    assert all(a != b for a, b in zip(partitions, partitions[1:]))


def test_clients_before_2_4_send_null_keys_round_robin_so_every_partition_fills_at_a_share(
        make_scenario, traced_run, watch_requests):
    # 2.3 DefaultPartitioner: a counter per topic, each record the next partition, so a flow's
    # records reach all 4 partitions' batches at once and each batch fills at a quarter of the rate
    batches, producer = batches_in_creation_order(make_scenario, traced_run, watch_requests, "2.3.1")
    sticky, _ = batches_in_creation_order(make_scenario, traced_run, watch_requests, "2.8.1")
    assert producer.partitioner == "round-robin"
    counts = [sum(b.partition.index == p for b in batches) for p in range(4)]
    assert max(counts) - min(counts) <= 1
    # the drain interval is the same; a batch gathers a quarter of what one sticky partition does
    mean = sum(b.bytes for b in batches) / len(batches)
    sticky_mean = sum(b.bytes for b in sticky) / len(sticky)
    assert mean < 0.5 * sticky_mean and len(batches) > 2 * len(sticky)


def test_round_robin_gives_each_record_the_next_partition_from_a_random_start(make_scenario, traced_run):
    partitions = traced_run(make_scenario()).partitions["bulk"]     # 4 partitions
    partitioner = RecordAccumulator(partitions, Random.seeded(3), 16384, 0.0, 32 * 2**20, "none", False, math.inf,
                                    CompressionRatios([(1.0, 1.0)]), 1000.0, True, "round-robin", math.inf)
    first = random.Random(3).randrange(4)
    assert [partitioner.for_record(0.0).index for _ in range(7)] == [(first + i) % 4 for i in range(7)]


# KIP-794's switch points (batch.size once the sender drained the partition, else 2 x batch.size)
# are asserted on the partitioner itself in test_append_process.py: a partition can be left with a
# batch still taking records and be returned to later, so its stays cannot be read off the
# batches in creation order.


# ---- 12. compression: the ratio estimate starts at 1.0 and improves slowly ----------------------
# CompressionRatioEstimator: the estimate starts at 1.0; when a batch closes with a better ratio
# it falls by at most COMPRESSION_RATIO_IMPROVING_STEP = 0.005 (never below the observed ratio).
def test_compression_estimate_improves_by_at_most_half_a_percent_per_batch(make_scenario, traced_run,
                                                                           watch_requests):
    run = traced_run(make_scenario({"batch": {"producer": {
        "compression.type": "zstd", "batch.size": "64KB", "linger.ms": 5}}}))
    log = watch_requests(run)
    producer = only_producer(run)
    assert producer.ratio_estimate == 1.0
    estimates = [(0.0, 1.0)]
    run.engine.observers.append(lambda action, argument: estimates.append((run.engine.now, producer.ratio_estimate)))
    run.execute()
    batches = log.batches(producer)
    closed = sorted(b.closed_at for b in batches)
    assert len(closed) > 20

    def closed_between(start: float, end: float) -> int:
        return sum(1 for t in closed if start <= t <= end)

    # a batch closes at the appending flow's time, which may precede the event that moved the
    # estimate: bound each estimate by the batches closed up to it
    for t, estimate in estimates:
        assert estimate >= 1.0 - 0.005 * closed_between(0.0, t) - 1e-12
    final = estimates[-1][1]
    observed = min((b.wire - BATCH_HEADER) / b.bytes for b in batches)
    assert observed <= final < 1.0
    assert final >= 1.0 - 0.005 * len(closed) - 1e-12


def test_zstd_halves_card_rows_on_the_wire(make_scenario, evaluator):
    summary = evaluator.evaluate(make_scenario({"batch": {"producer": {
        "compression.type": "zstd", "batch.size": "128KB", "linger.ms": 10}}}), seed=1).summary
    assert summary.wire_bytes < 0.6 * summary.record_bytes
    assert summary.compression_ratio < 0.6
