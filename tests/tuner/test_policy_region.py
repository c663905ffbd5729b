"""A policy's rules are the region around a pick: floors and the codec at the pick's, ceilings at its
quota (whole bytes, no lower), acks a durability floor never weaker than the job's own, and the
stronger acks the floor allows proven as a corner of its own."""
import copy

from tuner.policy import Region, region_notes, said_rules, breaks, corners, region
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


class _Night:
    """A night's outcome as the proof reads it: within its SLA or over it by the figures given."""

    def __init__(self, p99_ms=None):
        self.feasible, self.pruned = p99_ms is None, None
        self.constraints = {"sla:payment-api": 0.0 if p99_ms is None else p99_ms / 12.09 - 1}
        self.figures = {"tenants": {"payment-api": {"p99_ms_during": p99_ms or 11.0, "sla_p99_ms": 12.09}}}


def test_when_the_picks_region_misses_the_policy_names_the_rules_the_pick_breaks_and_why():
    scenario = Scenario.from_mapping(BASE)
    pick = {**PICK, "acks": "all"}
    other = {**pick, "repartition": None, "compression.type": "gzip", "linger.ms": 95, "request_percentage": 18.0}
    picks, others = region(pick, scenario), region(other, scenario)
    tried = [Region(47, pick, picks, [(picks, _Night(12.13), (4, 5, 6, 7, 8, 9))]),
             Region(99, other, others, [(others, _Night(), (4, 5, 6, 7, 8, 9, 10))])]
    assert tried[0].missed is not None and tried[1].missed is None
    notes = region_notes(tried, tried[1], tuple(range(4, 11)))
    assert notes[0].startswith("the policy is the region around trial 99: compression.type=gzip, acks=all, linger.ms=95 ms, ")
    assert notes[1] == (
        "tune's pick, trial 47, held on held-out model seeds 4-10, but the region around it (" + said_rules(picks)
        + "; the jobs' other settings their own (trial 47's repartition=90, buffer.memory=40.7 MB no rule)) missed on "
        "held-out seed 9: payment-api p99 12.13 ms > SLA 12.09 ms; so it breaks this policy: compression.type=zstd where "
        "the policy allows only gzip; linger.ms=91 ms where the policy allows at least 95 ms; request_percentage=182.584 % "
        "per broker where the policy allows at most 18 % per broker")


def test_a_nights_study_never_searches_an_acks_weaker_than_its_most_durable_jobs():
    base = copy.deepcopy(BASE)
    first = {**base["batch"], "name": "daily-card-load"}
    second = {**copy.deepcopy(base["batch"]), "name": "hourly-export", "client.id": "export-client", "start": "9s"}
    second["producer"]["acks"] = "all"
    night = Scenario.from_mapping({**base, "batch": [first, second]})
    assert [job.producer.acks for job in night.jobs] == ["1", "all"]
    assert next(r.choices for r in search_space(night).ranges if r.name == "acks") == ("all",)


class _StopsOn:
    """A night whose corner stops on one seed (None: not run at all), its reason worded as it may be."""

    def __init__(self, seed):
        self.seed = seed

    def trial_outcome(self, params, stop):
        from tuner.objective import Outcome
        return Outcome(params, [], 10, 1.0, {"sla:payment-api": 0.5}, pruned="over payment-api beyond doubt",
                       stopped_on=self.seed)


def test_a_stopped_corner_counts_the_seeds_up_to_the_one_it_stopped_on():
    from tuner.policy import proven
    assert proven(_StopsOn(5), {}, (4, 5, 6))[1] == (4, 5)
    assert proven(_StopsOn(None), {}, (4, 5, 6))[1] == ()
