"""The sticky partitioner draws its partitions as ``random.Random.randrange`` would: the same
numbers from the same state, so a run's bytes do not depend on how the draw is made."""
from __future__ import annotations

import random

from simulator._core import Random
from simulator.model.partitioner import StickyPartitioner


def test_a_partition_is_drawn_as_randrange_draws_it():
    sizes = [n for n in range(1, 130)] * 20 + [1000, 2**31 - 1, 2**40 + 3]
    reference = random.Random(7)
    partitioner = StickyPartitioner("kip480", [], {}, [], Random.seeded(7), 16384)
    assert [partitioner.randrange(n) for n in sizes] == [reference.randrange(n) for n in sizes]
    assert partitioner.rng.random() == reference.random()   # and the generator is left in the same state
