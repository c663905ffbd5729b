import pytest
from optuna.trial import FixedTrial

from tuner import Objective, search_space
from workloads import Scenario

BASELINE = {"repartition": None, "compression.type": "none", "acks": "all", "linger.ms": 0, "batch.size": 16384,
            "buffer.memory": 33554432, "max.in.flight.requests.per.connection": 5}
TUNED = {"repartition": 8, "compression.type": "zstd", "acks": "all", "linger.ms": 20, "batch.size": 262144,
         "buffer.memory": 67108864, "max.in.flight.requests.per.connection": 1}


def _objective(raw):
    return Objective(raw, search_space(Scenario.from_mapping(raw), ("job",)), seed=1)


def test_a_fixed_trial_runs_the_model_with_its_knob_values(tiny):
    objective = _objective(tiny)
    trial = FixedTrial(BASELINE)
    requests, load_s = objective(trial)
    # the tiny job as it is: 16 KB batches that fill to 4.0 KB with linger.ms=0
    assert requests == 1669
    assert load_s == pytest.approx(0.27175, abs=1e-5)
    figures = trial.user_attrs["figures"]
    assert figures["produce_requests"] == 1669 and figures["batches"] == 1669
    assert figures["mean_batch_bytes"] == pytest.approx(4084.12, abs=0.01)
    assert trial.user_attrs["overrides"][2:5] == ["batch.producer.acks=all", "batch.producer.enable.idempotence=true",
                                                  "batch.producer.linger.ms=0"]
    # the neighbour's p99 during the load over its 10 ms SLA, relative: feasible below 0
    api = figures["tenants"]["api"]
    assert trial.system_attrs["constraints:sla:api"] == pytest.approx(api["p99_ms_during"] / 10.0 - 1)
    assert trial.system_attrs["constraints:sla:api"] < 0


def test_lingering_bigger_compressed_batches_need_fewer_requests(tiny):
    requests, load_s = _objective(tiny)(FixedTrial(TUNED))
    assert requests == 27
    assert load_s == pytest.approx(0.17145, abs=1e-5)


def test_a_deadline_is_a_constraint(tiny_with):
    raw = tiny_with({"check": {"deadline": "200ms"}})
    outcome = _objective(raw).evaluate(BASELINE)
    assert outcome.constraints["deadline"] == pytest.approx(0.27175 / 0.2 - 1, abs=1e-4)
    assert not outcome.feasible
    assert _objective(raw).evaluate(TUNED).feasible       # 0.17 s: within the deadline


def test_same_knob_values_same_figures(tiny):
    first, second = _objective(tiny).evaluate(TUNED), _objective(tiny).evaluate(TUNED)
    assert first == second


JITTERED = {"jitter": {"append_rate": 0.2, "service_time": 0.2}}


def test_a_trial_on_several_seeds_counts_the_worst_of_them(tiny_with):
    raw = tiny_with(JITTERED)
    space = search_space(Scenario.from_mapping(raw))
    alone = [Objective(raw, space, seed=seed).evaluate(BASELINE) for seed in (1, 2, 3)]
    repeated = Objective(raw, space, seed=1, repeat=3).evaluate(BASELINE)
    requests = [outcome.produce_requests for outcome in alone]
    assert len(set(requests)) == 3                    # each seed's timing gives its own count
    assert repeated.produce_requests == max(requests)
    assert repeated.load_seconds == max(outcome.load_seconds for outcome in alone)
    assert repeated.constraints == {"sla:api": max(outcome.constraints["sla:api"] for outcome in alone)}
    figures = repeated.figures
    assert figures["model_seeds"] == [1, 2, 3]
    assert figures["spread"]["produce_requests"] == [min(requests), max(requests)]
    p99s = [outcome.figures["tenants"]["api"]["p99_ms_during"] for outcome in alone]
    assert figures["tenants"]["api"]["p99_ms_during"] == max(p99s)
    assert figures["spread"]["p99_ms_during"] == {"api": [min(p99s), max(p99s)]}
    assert figures["mean_batch_bytes"] == min(outcome.figures["mean_batch_bytes"] for outcome in alone)


def test_a_setting_within_sla_on_one_seed_but_not_on_another_is_infeasible_over_both(tiny_with):
    raw = tiny_with(JITTERED)
    space = search_space(Scenario.from_mapping(raw))
    first, second = [Objective(raw, space, seed=seed).evaluate(BASELINE).figures["tenants"]["api"]["p99_ms_during"]
                     for seed in (1, 2)]
    assert first < second                             # seed 2's timing is the worse one for the neighbour
    between = tiny_with(JITTERED, {"tenants": [{**raw["tenants"][0], "sla_p99": f"{(first + second) / 2}ms"}]})
    space = search_space(Scenario.from_mapping(between))
    assert Objective(between, space, seed=1).evaluate(BASELINE).feasible
    assert not Objective(between, space, seed=1, repeat=2).evaluate(BASELINE).feasible
