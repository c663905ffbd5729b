from tuner import Objective, TrialRecord, search_space
from tuner.held_out import Tried, judge_held_out
from workloads import Scenario

BASELINE = {"repartition": None, "compression.type": "none", "linger.ms": 0, "batch.size": 16384,
            "buffer.memory": 33554432, "max.in.flight.requests.per.connection": 5}
TUNED = {"repartition": 8, "compression.type": "zstd", "linger.ms": 20, "batch.size": 262144,
         "buffer.memory": 67108864, "max.in.flight.requests.per.connection": 1}
HELD_OUT = (12, 13, 14, 15)
# On seeds 12-15 of the jittered tiny job the neighbour's p99 is, linger.ms=0: 5.801, 5.797, 5.784,
# 5.793 ms; lingering, compressed: 5.798, 5.774, 5.773, 5.783 ms. On seeds 17-20, linger.ms=0:
# 5.781, 5.779, 5.795, 5.792 ms; lingering, compressed: 5.783, 5.789, 5.785, 5.791 ms.


def _objective(tiny_with, sla_ms: float) -> Objective:
    raw = tiny_with({"jitter": {"append_rate": 0.2, "service_time": 0.2}})
    raw = tiny_with(raw, {"tenants": [{**raw["tenants"][0], "sla_p99": f"{sla_ms}ms"}]})
    return Objective(raw, search_space(Scenario.from_mapping(raw)), seed=1)


# The study's records: the baseline ranks first by its (study-seed) request count.
FRONT = [TrialRecord(number=1, params=TUNED, produce_requests=20, load_seconds=0.2, constraints={"sla:api": -0.01}),
         TrialRecord(number=0, params=BASELINE, produce_requests=10, load_seconds=0.3, constraints={"sla:api": -0.01})]


def test_the_first_front_point_in_the_preference_s_order_that_holds_on_every_held_out_seed_is_picked(tiny_with):
    validation = judge_held_out(_objective(tiny_with, 5.799), FRONT, "requests", HELD_OUT)
    # the baseline's runs stop at its first miss, seed 12; the lingering job holds on all four
    assert validation.tried == [Tried(0, 0, 12, 1799), Tried(1, 4, None, 29)]
    assert validation.pick is FRONT[0] and validation.closest is None
    assert validation.lines() == ["held its constraints on held-out model seeds 12-15; before it, trial 0 (1,799 requests) "
                                  "missed on seed 12"]
    assert validation.to_dict() == {"seeds": [12, 13, 14, 15], "held": True, "pick": 1, "tried": [
        {"trial": 0, "held_on": 0, "missed_on": 12, "produce_requests": 1799},
        {"trial": 1, "held_on": 4, "missed_on": None, "produce_requests": 29}]}


def test_with_no_point_holding_the_one_that_held_longest_is_the_closest(tiny_with):
    seen = []
    validation = judge_held_out(_objective(tiny_with, 5.790), FRONT, "requests", (17, 18, 19, 20), seen.append)
    # linger.ms=0 holds on seeds 17 and 18 and misses on 19 (5.795 ms); lingering holds on 17-19, misses on 20 (5.791)
    assert validation.tried == [Tried(0, 2, 19, 2255), Tried(1, 3, 20, 30)]
    assert validation.pick is None and validation.closest is FRONT[0]
    assert validation.missed(1) == ["over its constraints on held-out model seed 20, after holding on 3 of 4"]
    assert validation.lines() == ["no point of the front held on held-out model seeds 17-20: trial 0 (2,255 requests) "
                                  "missed on seed 19, trial 1 (30 requests) missed on seed 20"]
    assert seen == ["trial 0 on 4 held-out seeds: missed on seed 19", "trial 1 on 4 held-out seeds: missed on seed 20"]


def test_preferring_duration_tries_the_shortest_load_first(tiny_with):
    validation = judge_held_out(_objective(tiny_with, 5.799), FRONT, "duration", HELD_OUT)
    assert validation.tried == [Tried(1, 4, None, 29)] and validation.pick is FRONT[0]


def test_a_point_that_held_with_the_margin_is_tried_before_one_the_preference_ranks_first(tiny_with):
    from judging.margin import Margin
    front = [FRONT[0], TrialRecord(number=0, params=BASELINE, produce_requests=10, load_seconds=0.3,
                                   constraints={"sla:api": -0.6})]   # its p99 at 0.4 of its SLA: holds with 2x
    unmargined = judge_held_out(_objective(tiny_with, 5.799), front, "duration", HELD_OUT)
    assert [t.trial for t in unmargined.tried] == [1]    # the shortest load first, and it holds
    validation = judge_held_out(_objective(tiny_with, 5.799), front, "duration", HELD_OUT, margin=Margin(2.0, "--margin"))
    assert validation.tried[0].trial == 0
