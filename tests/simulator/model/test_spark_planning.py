"""Spark planning against figures worked out by hand from Spark's own rules.

FilePartition.maxSplitBytes = min(maxPartitionBytes, max(openCostInBytes,
(sum of file sizes + openCostInBytes each) // defaultParallelism)); splitFiles cuts a
splittable file into maxSplitBytes chunks, a gzip file stays one chunk; getFilePartitions
sorts the chunks by size, descending, and packs them next-fit, charging openCostInBytes per
chunk and closing a partition when the next chunk would take it past maxSplitBytes.
"""
import pytest

from simulator.model.spark import first_wave_order, max_split_bytes, plan_input_partitions, plan_writes
from workloads import Dataset, FileGroup, Spark

MB = 1024**2
GB = 1024**3


def _spark(executors: int, cores: int = 4, **settings) -> Spark:
    return Spark(executors=executors, executor_cores=cores, **settings)


def _files(*groups: tuple[int, int], compression: str = "none") -> Dataset:
    """Files as (size, count) groups, in the order they are listed."""
    return Dataset(files=tuple(FileGroup(size=size, count=count) for size, count in groups), compression=compression)


def test_published_case_2gb_on_16_cores_makes_16_tasks_of_128mb():
    spark, dataset = _spark(4), _files((2 * GB, 1))
    # (2 GB + 4 MB) // 16 = 128.25 MB, above maxPartitionBytes: the 128 MB cap decides
    assert max_split_bytes(spark, dataset.file_sizes) == 128 * MB
    assert plan_input_partitions(spark, dataset) == [128 * MB] * 16


def test_36_cores_cut_2gb_into_smaller_splits():
    spark, dataset = _spark(9), _files((2 * GB, 1))
    # (2 GB + 4 MB) // 36 = 2,151,677,952 // 36 = 59,768,832 bytes = exactly 57 MB
    assert max_split_bytes(spark, dataset.file_sizes) == 57 * MB
    # 2048 MB = 35 x 57 MB + 53 MB; 57 + 4 (open cost) + any chunk exceeds 57 MB: one chunk each
    assert plan_input_partitions(spark, dataset) == [57 * MB] * 35 + [53 * MB]


def test_lower_max_partition_bytes_caps_the_split():
    spark = _spark(4, max_partition_bytes=64 * MB)
    assert plan_input_partitions(spark, _files((2 * GB, 1))) == [64 * MB] * 32


def test_split_never_drops_below_open_cost():
    spark, dataset = _spark(4), _files((2 * MB, 1))
    # (2 MB + 4 MB) // 16 = 384 KB, raised to openCostInBytes
    assert max_split_bytes(spark, dataset.file_sizes) == 4 * MB
    assert plan_input_partitions(spark, dataset) == [2 * MB]


def test_default_parallelism_setting_overrides_the_core_count():
    spark = _spark(4, default_parallelism=64)
    # (2 GB + 4 MB) // 64 = 2,151,677,952 // 64 = 33,619,968 bytes, not // 16
    assert max_split_bytes(spark, [2 * GB]) == 33_619_968
    # 2 GB = 63 x 33,619,968 + 29,425,664
    assert plan_input_partitions(spark, _files((2 * GB, 1))) == [33_619_968] * 63 + [29_425_664]


def test_many_small_files_are_packed_together_paying_open_cost_each():
    spark, dataset = _spark(4), _files((1 * MB, 100))
    # 100 x (1 MB + 4 MB) // 16 = 32,768,000 bytes (31.25 MB)
    assert max_split_bytes(spark, dataset.file_sizes) == 32_768_000
    # after 6 files a partition has been charged 30 MB; a 7th fits (31 MB), an 8th would not
    assert plan_input_partitions(spark, dataset) == [7 * MB] * 14 + [2 * MB]


def test_chunks_are_sorted_descending_before_next_fit_packing():
    spark = _spark(1, default_parallelism=2)
    dataset = _files((10 * MB, 1), (30 * MB, 1), (200 * MB, 1))
    # (240 MB + 3 x 4 MB) // 2 = 126 MB; chunks 126, 74, 30, 10 MB after sorting
    assert max_split_bytes(spark, dataset.file_sizes) == 126 * MB
    # 126 alone; then 74 (charged 78) + 30 (112) + 10 (122 <= 126): file order would give 40, 126, 74
    assert plan_input_partitions(spark, dataset) == [126 * MB, 114 * MB]


def test_gzip_files_are_one_task_each_whatever_their_size():
    spark, dataset = _spark(4), _files((150 * MB, 24), compression="gzip")
    assert not dataset.splittable
    # 24 x 154 MB // 16 = 231 MB, capped at 128 MB; a 150 MB gzip file is still not cut
    assert max_split_bytes(spark, dataset.file_sizes) == 128 * MB
    assert plan_input_partitions(spark, dataset) == [150 * MB] * 24


def test_gzip_files_larger_than_the_split_are_not_cut_where_plain_ones_are():
    spark = _spark(4)
    # 10 x (10 MB + 4 MB) // 16 = 9,175,040 bytes (8.75 MB)
    assert max_split_bytes(spark, [10 * MB] * 10) == 9_175_040
    assert plan_input_partitions(spark, _files((10 * MB, 10), compression="gzip")) == [10 * MB] * 10
    # plain CSV: 10 chunks of 8.75 MB alone, then the 1.25 MB tails two to a partition
    # (5.25 MB charged + 1.25 MB fits, 10.5 MB charged + 1.25 MB does not)
    assert plan_input_partitions(spark, _files((10 * MB, 10))) == [9_175_040] * 10 + [2 * 1_310_720] * 5


def test_small_gzip_files_are_still_packed_together():
    spark, dataset = _spark(4), _files((1 * MB, 40), compression="gzip")
    # 40 x 5 MB // 16 = 12.5 MB; charged 5 MB per file: 3 files per partition (10 + 1 <= 12.5, 15 + 1 > 12.5)
    assert max_split_bytes(spark, dataset.file_sizes) == 13_107_200
    assert plan_input_partitions(spark, dataset) == [3 * MB] * 13 + [1 * MB]


def test_without_repartition_each_scan_task_writes_its_own_rows():
    plan = plan_writes(_spark(4), _files((2 * GB, 1)), value_per_csv_byte=1.5)
    assert not plan.shuffled
    assert plan.max_split_bytes == 128 * MB
    assert plan.scan_tasks == [128 * MB] * 16
    assert plan.write_tasks == [128 * MB * 1.5] * 16


def test_repartition_60_gives_60_equal_write_tasks_after_a_shuffle():
    plan = plan_writes(_spark(4, repartition=60), _files((2 * GB, 1)), value_per_csv_byte=1.5)
    assert plan.shuffled
    assert plan.scan_tasks == [128 * MB] * 16  # the shuffle-map stage still scans as before
    assert len(plan.write_tasks) == 60
    assert plan.write_tasks == [pytest.approx(2 * GB * 1.5 / 60)] * 60


def test_repartition_below_the_scan_count_merges_scans():
    plan = plan_writes(_spark(4, repartition=4), _files((150 * MB, 24), compression="gzip"), value_per_csv_byte=2.0)
    assert plan.scan_tasks == [150 * MB] * 24
    assert plan.write_tasks == [pytest.approx(24 * 150 * MB * 2.0 / 4)] * 4


def test_first_wave_gives_one_task_per_executor_per_pass_in_the_given_order():
    assert first_wave_order(4, 4, 6, [2, 0, 3, 1]) == [2, 0, 3, 1, 2, 0]
    assert first_wave_order(4, 4, 16, [2, 0, 3, 1]) == [2, 0, 3, 1] * 4


def test_first_wave_never_exceeds_the_cores_of_an_executor():
    assert first_wave_order(2, 2, 10, [1, 0]) == [1, 0, 1, 0]
    assert first_wave_order(1, 4, 3, [0]) == [0, 0, 0]
    order = first_wave_order(3, 8, 30, [1, 2, 0])
    assert order == [1, 2, 0] * 8
    assert all(order.count(executor) == 8 for executor in range(3))
