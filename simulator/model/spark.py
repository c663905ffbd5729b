"""Spark planning: how a CSV dataset becomes write tasks, and how tasks fill executor slots.

Follows Spark's ``FilePartition.maxSplitBytes`` / ``getFilePartitions`` and
``PartitionedFileUtil.splitFiles``: splittable files are cut into chunks of maxSplitBytes,
chunks are sorted by size and packed next-fit into partitions charging openCostInBytes per
file; a gzip file is one chunk. ``repartition(N)`` adds a shuffle: the scan stage writes the
rows and N write tasks each take an equal share (round-robin).
"""
from __future__ import annotations

from dataclasses import dataclass

from workloads import Dataset, Spark


def max_split_bytes(spark: Spark, file_sizes: list[int]) -> int:
    total = sum(size + spark.open_cost_in_bytes for size in file_sizes)
    bytes_per_core = total // spark.parallelism  # minPartitionNum defaults to defaultParallelism
    return min(spark.max_partition_bytes, max(spark.open_cost_in_bytes, bytes_per_core))


def plan_input_partitions(spark: Spark, dataset: Dataset) -> list[int]:
    """CSV bytes read by each scan task, in Spark's order."""
    split = max_split_bytes(spark, dataset.file_sizes)
    chunks: list[int] = []
    for size in dataset.file_sizes:
        if dataset.splittable:
            chunks.extend(min(split, size - offset) for offset in range(0, size, split))
        else:
            chunks.append(size)
    chunks.sort(reverse=True)
    partitions: list[int] = []
    current, current_size = 0, 0
    for chunk in chunks:
        if current and current_size + chunk > split:
            partitions.append(current)
            current, current_size = 0, 0
        current += chunk
        current_size += chunk + spark.open_cost_in_bytes
    if current:
        partitions.append(current)
    return partitions


@dataclass(frozen=True)
class WritePlan:
    """The Kafka-writing tasks of one load, and the shuffle stage before them if any."""

    max_split_bytes: int
    scan_tasks: list[int]       # CSV bytes per scan task (a shuffle-map stage when repartitioned)
    write_tasks: list[float]    # Kafka value bytes each write task appends
    shuffled: bool


def plan_writes(spark: Spark, dataset: Dataset, value_per_csv_byte: float) -> WritePlan:
    scans = plan_input_partitions(spark, dataset)
    total_value = sum(scans) * value_per_csv_byte
    if spark.repartition:
        share = total_value / spark.repartition
        return WritePlan(max_split_bytes(spark, dataset.file_sizes), scans, [share] * spark.repartition, True)
    return WritePlan(max_split_bytes(spark, dataset.file_sizes), scans,
                     [size * value_per_csv_byte for size in scans], False)


def first_wave_order(executors: int, cores: int, tasks: int, shuffled_executors: list[int]) -> list[int]:
    """Executor of each first-wave task: TaskSchedulerImpl shuffles the offers, then gives one
    task per executor per round, so a small job spreads over all executors."""
    slots = [0] * executors
    order: list[int] = []
    while len(order) < tasks:
        placed = False
        for executor in shuffled_executors:
            if len(order) < tasks and slots[executor] < cores:
                slots[executor] += 1
                order.append(executor)
                placed = True
        if not placed:
            break
    return order
