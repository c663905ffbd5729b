from workloads.units import format_seeds


def test_seeds_read_as_a_range_when_consecutive_else_as_a_list():
    assert format_seeds([4]) == "seed 4"
    assert format_seeds((1, 2, 3)) == "seeds 1-3"
    assert format_seeds([3, 7]) == "seeds 3, 7"
    assert format_seeds([2, 1]) == "seeds 2, 1"       # in the order given: the order the runs were judged
