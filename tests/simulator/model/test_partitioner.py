"""The sticky partitioner draws its partitions as ``random.Random.randrange`` would: the same
numbers from the same state, so a run's bytes do not depend on how the draw is made."""
from __future__ import annotations

import math
import random
from types import SimpleNamespace

from simulator._core import CompressionRatios, Random, RecordAccumulator, murmur2


def accumulator(kind: str, count: int, rng: Random) -> RecordAccumulator:
    """An accumulator over ``count`` partitions of one leader, its partitioner ``kind``."""
    leader = SimpleNamespace(id=1)
    partitions = [SimpleNamespace(index=i, leader=leader) for i in range(count)]
    return RecordAccumulator(partitions, rng, 16384, 0.0, 32 * 2**20, "none", False, math.inf, CompressionRatios([(1.0, 1.0)]),
                             1000.0, False, kind, math.inf)


def test_a_partition_is_drawn_as_randrange_draws_it():
    sizes = [n for n in range(1, 130)] * 3
    reference, rng = random.Random(7), Random.seeded(7)
    drawn = []
    for n in sizes:   # librdkafka's partitioner draws a partition every sticky.partitioning.linger.ms
        sticky = accumulator("librdkafka-sticky", n, rng)
        drawn.append(sticky.for_record(0.0).index)
    assert drawn == [reference.randrange(n) for n in sizes]
    assert rng.random() == reference.random()   # and the generator is left in the same state


def test_a_key_hashes_as_kafkas_murmur2():
    assert [murmur2(bytes(range(n))) for n in range(9)] == [275646681, 375494588, 35139669, 51419311, 1916244640,
                                                            230989574, 1749926848, 659314828, 970650281]
    assert murmur2(b"key-1") == 193331640
