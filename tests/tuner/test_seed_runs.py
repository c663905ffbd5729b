"""Worker processes run a tune's held-out seeds and rounded pick side by side, with the
outcomes of the same runs in this process, and never run one knob setting on one seed twice."""
import functools

from test_held_out import FRONT, HELD_OUT, TUNED, _objective
from tuner.recommend import rounded_pick
from tuner.runner import Execution, Runner
from tuner.study import TrialRecord, tuning_work
from tuner.held_out import SeedRuns, judge_held_out


def _pool(objective):
    return Runner(functools.partial(tuning_work, objective.on(None)), objective.evaluator, Execution(workers=2))


def test_the_front_validated_in_two_processes_is_validated_as_in_one(tiny_with):
    for sla_ms, seeds in ((5.799, HELD_OUT), (5.790, (17, 18, 19, 20))):
        objective = _objective(tiny_with, sla_ms)
        lines, runs = [], []
        alone = judge_held_out(objective, FRONT, "requests", seeds)
        with _pool(objective) as runner:
            side_by_side = judge_held_out(objective, FRONT, "requests", seeds, lines.append,
                                          lambda done, most: runs.append((done, most)), SeedRuns(objective, runner, 2))
        assert side_by_side.to_dict() == alone.to_dict()
        assert side_by_side.tried == alone.tried and side_by_side.pick == alone.pick
        # runs are counted as judged, in order, however many ran ahead
        judged = sum(t.held_on + (t.missed_on is not None) for t in alone.tried)
        assert runs == [(done, 2 * len(seeds)) for done in range(1, judged + 1)]
        assert len(lines) == len(alone.tried)


def test_outcomes_in_order_are_each_seed_s_own_and_stop_where_the_caller_stops(tiny_with):
    objective = _objective(tiny_with, 5.799)
    with _pool(objective) as runner:
        seed_runs = SeedRuns(objective, runner, 2)
        outcomes = seed_runs.outcomes_in_order(TUNED, HELD_OUT)
        first = next(outcomes)
        outcomes.close()
        assert first == objective.evaluate_on(TUNED, HELD_OUT[:1])
        # the first seed and the two running ahead of it while it was judged: no more
        assert sorted(seed for _, seed in seed_runs._runs) == list(HELD_OUT[:3])


def test_a_run_asked_for_twice_is_run_once():
    calls = []

    class Counting:
        def run_on(self, params, seed):
            calls.append((dict(params), seed))
            return f"run of {params} on {seed}"

    seed_runs = SeedRuns(Counting())
    assert seed_runs.submit({"linger.ms": 5}, 3) is seed_runs.submit({"linger.ms": 5}, 3)
    assert seed_runs.result({"linger.ms": 5}, 4) == "run of {'linger.ms': 5} on 4"
    assert calls == [({"linger.ms": 5}, 3), ({"linger.ms": 5}, 4)]


def test_the_rounded_pick_checked_in_two_processes_is_checked_as_in_one(tiny_with):
    objective = _objective(tiny_with, 5.799)
    chosen = TrialRecord(number=1, params={**TUNED, "batch.size": 250_000, "linger.ms": 19},
                         produce_requests=20, load_seconds=0.2, constraints={"sla:api": -0.01})
    alone = rounded_pick(objective, chosen, HELD_OUT)
    with _pool(objective) as runner:
        assert rounded_pick(objective, chosen, HELD_OUT, SeedRuns(objective, runner, 2)) == alone
    assert alone[1] and "rounded" in alone[1][0]
