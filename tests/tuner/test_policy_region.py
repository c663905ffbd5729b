"""A policy's rules are the region around a pick: floors and the codec at the pick's, ceilings at its
quota (whole bytes, no lower), acks a durability floor never weaker than the job's own, and the
stronger acks the floor allows proven as a corner of its own."""
import copy

from tuner.policy import breaks, corners, region
from tuner.space import search_space
from workloads import CATALOG, Scenario
from workloads.policy import Template
from workloads.scenario import load_mapping
from workloads.settings import SETTINGS

BASE = load_mapping(CATALOG / "paypay-glue-2gb.yaml", [])   # kafka-clients 2.8.1: acks=1
PICK = {"repartition": 90, "compression.type": "zstd", "acks": "1", "linger.ms": 91, "batch.size": 1042519,
        "buffer.memory": 42636878, "max.in.flight.requests.per.connection": 1,
        "producer_byte_rate": 8204170.87, "request_percentage": 182.584}


def _with_acks(acks):
    base = copy.deepcopy(BASE)
    base["batch"]["producer"]["acks"] = acks
    return Scenario.from_mapping(base)


def test_the_region_states_the_picks_policy_settings_and_leaves_the_rest_to_the_job():
    rules = region(PICK, Scenario.from_mapping(BASE))
    assert rules == {"compression.type": "zstd", "acks": "1", "linger.ms": 91, "batch.size": 1042519,
                     "max.in.flight.requests.per.connection": 1, "producer_byte_rate": 8204171.0,
                     "request_percentage": 182.584}
    assert breaks(PICK, rules) == []


def test_acks_is_a_floor_that_allows_the_stronger_and_a_study_never_searches_weaker_than_the_jobs():
    acks = SETTINGS["acks"]
    assert [acks.keeps(value, "1") for value in ("0", "1", "all")] == [False, True, True]
    assert SETTINGS["enable.idempotence"].keeps(True, False) and not SETTINGS["enable.idempotence"].keeps(False, True)
    assert next(r.choices for r in search_space(Scenario.from_mapping(BASE)).ranges if r.name == "acks") == ("1", "all")
    assert next(r.choices for r in search_space(_with_acks("all")).ranges if r.name == "acks") == ("all",)
    # a pick weaker than the job's own is raised to it: a rule the pick breaks, named
    rules = region(PICK, _with_acks("all"))
    assert rules["acks"] == "all"
    assert breaks(PICK, rules) == ["acks=1 where the policy allows at least all"]
    assert Template.at({"acks": "all"}).enable_idempotence is True and Template.at({"acks": "1"}).enable_idempotence is None


def test_a_floor_of_acks_1_is_proven_with_acks_all_too():
    scenario = Scenario.from_mapping(BASE)
    rules = region(PICK, scenario)
    assert [corner["acks"] for corner in corners(rules, search_space(scenario))] == ["1", "all"]
    assert [corner["acks"] for corner in corners({**rules, "acks": "all"}, search_space(scenario))] == ["all"]
