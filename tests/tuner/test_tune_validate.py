from tuner import Objective, TrialRecord, search_space
from tuner.validate import Tried, validate_front
from workloads import Scenario

BASELINE = {"repartition": None, "compression.type": "none", "linger.ms": 0, "batch.size": 16384,
            "buffer.memory": 33554432, "max.in.flight.requests.per.connection": 5}
TUNED = {"repartition": 8, "compression.type": "zstd", "linger.ms": 20, "batch.size": 262144,
         "buffer.memory": 67108864, "max.in.flight.requests.per.connection": 1}
HELD_OUT = (6, 7, 8, 9)
# On seeds 6-10 of the jittered tiny job the neighbour's p99 is, linger.ms=0: 5.769, 5.762, 5.750,
# 5.773, 5.754 ms; lingering, compressed: 5.760, 5.748, 5.744, 5.742, 5.771 ms.


def _objective(tiny_with, sla_ms: float) -> Objective:
    raw = tiny_with({"jitter": {"append_rate": 0.2, "service_time": 0.2}})
    raw = tiny_with(raw, {"tenants": [{**raw["tenants"][0], "sla_p99": f"{sla_ms}ms"}]})
    return Objective(raw, search_space(Scenario.from_mapping(raw)), seed=1)


# The study's records: the baseline ranks first by its (study-seed) request count.
FRONT = [TrialRecord(number=1, params=TUNED, produce_requests=20, load_seconds=0.2, constraints={"sla:api": -0.01}),
         TrialRecord(number=0, params=BASELINE, produce_requests=10, load_seconds=0.3, constraints={"sla:api": -0.01})]


def test_the_first_front_point_in_the_preference_s_order_that_holds_on_every_held_out_seed_is_picked(tiny_with):
    validation = validate_front(_objective(tiny_with, 5.765), FRONT, "requests", HELD_OUT)
    # the baseline's runs stop at its first miss, seed 6; the lingering job holds on all four
    assert validation.tried == [Tried(0, 0, 6, 2127), Tried(1, 4, None, 29)]
    assert validation.pick is FRONT[0] and validation.closest is None
    assert validation.lines() == ["held its constraints on held-out model seeds 6-9; before it, trial 0 (2,127 requests) "
                                  "missed on seed 6"]
    assert validation.to_dict() == {"seeds": [6, 7, 8, 9], "held": True, "pick": 1, "tried": [
        {"trial": 0, "held_on": 0, "missed_on": 6, "produce_requests": 2127},
        {"trial": 1, "held_on": 4, "missed_on": None, "produce_requests": 29}]}


def test_with_no_point_holding_the_one_that_held_longest_is_the_closest(tiny_with):
    seen = []
    validation = validate_front(_objective(tiny_with, 5.765), FRONT, "requests", (7, 8, 9, 10), seen.append)
    # linger.ms=0 holds on seeds 7 and 8 and misses on 9 (5.773 ms); lingering holds on 7-9, misses on 10 (5.771)
    assert validation.tried == [Tried(0, 2, 9, 1873), Tried(1, 3, 10, 29)]
    assert validation.pick is None and validation.closest is FRONT[0]
    assert validation.missed(1) == ["over its constraints on held-out model seed 10, after holding on 3 of 4"]
    assert validation.lines() == ["no point of the front held on held-out model seeds 7-10: trial 0 (1,873 requests) "
                                  "missed on seed 9, trial 1 (29 requests) missed on seed 10"]
    assert seen == ["trial 0 on 4 held-out seeds: missed on seed 9", "trial 1 on 4 held-out seeds: missed on seed 10"]


def test_preferring_duration_tries_the_shortest_load_first(tiny_with):
    validation = validate_front(_objective(tiny_with, 5.765), FRONT, "duration", HELD_OUT)
    assert validation.tried == [Tried(1, 4, None, 29)] and validation.pick is FRONT[0]
