import pytest
from optuna.trial import FixedTrial

from tuner import Objective, search_space
from workloads import Scenario

BASELINE = {"repartition": None, "compression.type": "none", "linger.ms": 0, "batch.size": 16384,
            "buffer.memory": 33554432, "max.in.flight.requests.per.connection": 5}
TUNED = {"repartition": 8, "compression.type": "zstd", "linger.ms": 20, "batch.size": 262144,
         "buffer.memory": 67108864, "max.in.flight.requests.per.connection": 1}


def _objective(raw):
    return Objective(raw, search_space(Scenario.from_mapping(raw)), seed=1)


def test_a_fixed_trial_runs_the_model_with_its_knob_values(tiny):
    objective = _objective(tiny)
    trial = FixedTrial(BASELINE)
    requests, load_s = objective(trial)
    # the tiny job as it is: 16 KB batches that fill to 3.7 KB with linger.ms=0
    assert requests == 1790
    assert load_s == pytest.approx(0.27164, abs=1e-5)
    figures = trial.user_attrs["figures"]
    assert figures["produce_requests"] == 1790 and figures["batches"] == 1790
    assert figures["mean_batch_bytes"] == pytest.approx(3808.04, abs=0.01)
    assert trial.user_attrs["overrides"][2] == "batch.producer.linger.ms=0"
    # the neighbour's p99 during the load over its 10 ms SLA, relative: feasible below 0
    api = figures["tenants"]["api"]
    assert trial.system_attrs["constraints:sla:api"] == pytest.approx(api["p99_ms_during"] / 10.0 - 1)
    assert trial.system_attrs["constraints:sla:api"] < 0


def test_lingering_bigger_compressed_batches_need_fewer_requests(tiny):
    requests, load_s = _objective(tiny)(FixedTrial(TUNED))
    assert requests == 28
    assert load_s == pytest.approx(0.17081, abs=1e-5)


def test_a_deadline_is_a_constraint(tiny_with):
    raw = tiny_with({"check": {"deadline": "200ms"}})
    outcome = _objective(raw).evaluate(BASELINE)
    assert outcome.constraints["deadline"] == pytest.approx(0.27164 / 0.2 - 1, abs=1e-4)
    assert not outcome.feasible
    assert _objective(raw).evaluate(TUNED).feasible       # 0.17 s: within the deadline


def test_same_knob_values_same_figures(tiny):
    first, second = _objective(tiny).evaluate(TUNED), _objective(tiny).evaluate(TUNED)
    assert first == second
