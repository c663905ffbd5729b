"""A study gives the same trials, pick and files with any number of workers, whatever order they finish
trials in: each trial is told in trial-number order, and asked once the one ``ahead`` of it is told."""
import functools
import json
import threading
from concurrent.futures import Future

import yaml

from tuner import Objective, StudySettings, run_study, search_space
from tuner.pruning import TrialTask
from tuner.runner import Execution, Runner
from tuner.study import _trial_outcome
from workloads import Scenario

LONELY_S = 0.5   # a trial with no later one to finish before it is handed back after this long


class _LaterFirst(Runner):
    """A runner whose trials finish in reverse order: each runs in this process when handed over, and its
    result is handed back only once the next trial's is (with none to come, after ``LONELY_S``); other
    tasks (a held-out seed's run) at once. A double, not a pool: which of a pool's processes finishes
    first depends on the machine's load, which a test cannot set."""

    def __init__(self, work, evaluator, execution=Execution(workers=2)):
        super().__init__(work, evaluator, execution)
        self.held: tuple[int, Future, Future] | None = None
        self.finished: list[int] = []   # the trials, in the order they were handed over, as their results came back
        self.submitted = 0
        self.lock = threading.Lock()

    def submit(self, task):
        ran = _ran(self.work, self.evaluator, task)
        if not isinstance(task, TrialTask):
            return ran
        future = Future()
        with self.lock:
            number, self.submitted = self.submitted, self.submitted + 1
            earlier, self.held = self.held, None if self.held else (number, ran, future)
        if earlier is None:
            threading.Timer(LONELY_S, self._lonely, (future,)).start()
            return future
        self._hand_back(number, ran, future)
        self._hand_back(*earlier)
        return future

    def _hand_back(self, number, ran, future):
        with self.lock:
            if future.done():
                return
            self.finished.append(number)
            if ran.exception() is not None:
                future.set_exception(ran.exception())
            else:
                future.set_result(ran.result())

    def _lonely(self, future):
        with self.lock:
            held, self.held = (self.held, None) if self.held and self.held[2] is future else (None, self.held)
        if held:
            self._hand_back(*held)


def _ran(work, evaluator, task) -> Future:
    future = Future()
    try:
        future.set_result(work(evaluator, task))
    except Exception as error:   # handed back through the future, as a pool would
        future.set_exception(error)
    return future


def _trials(summary) -> list[tuple]:
    """What a study file holds of each trial: its number, knob values, state and values."""
    return [(t.number, t.params, t.pruned is None, t.produce_requests, t.load_seconds, t.constraints)
            for t in sorted(summary.trials + summary.pruned, key=lambda t: t.number)]


def test_a_study_writes_the_same_trials_with_one_worker_two_or_trials_finishing_later_first(tiny, tmp_path):
    objective = Objective(tiny, search_space(Scenario.from_mapping(tiny)), seed=1)
    studies, later_first = [], None
    for name, workers in (("one", 1), ("two", 2), ("reversed", 2)):
        settings = StudySettings(trials=12, workers=workers, storage=f"sqlite:///{tmp_path}/{name}.db", study_name="tiny",
                                 prune_factor=1.2)   # past 10 trials TPE samples from those told; the factor stops some
        if name == "reversed":
            later_first = _LaterFirst(functools.partial(_trial_outcome, objective.on(None)), objective.evaluator)
        studies.append(run_study(objective, settings, runner=later_first))
    assert later_first.finished[:4] == [1, 0, 3, 2]
    assert len(studies[0].trials) + len(studies[0].pruned) == 12
    assert _trials(studies[1]) == _trials(studies[0]) and _trials(studies[2]) == _trials(studies[0])
    assert studies[1].pick.number == studies[0].pick.number == studies[2].pick.number


def _scenario_file(tiny, tmp_path):
    scenario_file = tmp_path / "tiny.yaml"
    scenario_file.write_text(yaml.safe_dump(tiny))
    return scenario_file


def _written(path, *keys):
    found = json.loads(path.read_text())
    return {key: found[key] for key in keys}


def _three_ways(module, run, tmp_path, monkeypatch) -> list:
    """``run(out_dir, workers)`` with one worker, with two, and with two whose trials finish later first:
    the three output directories."""
    outs = [tmp_path / name for name in ("one", "two", "reversed")]
    for out, workers in zip(outs, (1, 2, 2)):
        if out.name == "reversed":
            monkeypatch.setattr(module, "Runner", _LaterFirst)
        run(out, workers)
    return outs


def test_tune_writes_the_same_study_and_recommendation_with_one_worker_two_or_trials_finishing_later_first(
        tiny, tmp_path, monkeypatch):
    import tuner.tune
    from tuner.tune import TuneRequest, tune
    scenario_file = _scenario_file(tiny, tmp_path)
    outs = _three_ways(tuner.tune, lambda out, workers: tune(TuneRequest(scenario_file, trials=4, validate=2, workers=workers,
                                                                         out_dir=out)), tmp_path, monkeypatch)
    studies = [_written(out / "tiny-study.json", "trials", "pruned_trials", "pareto_front", "pick", "recommended")
               for out in outs]
    assert studies[1] == studies[0] and studies[2] == studies[0]
    assert sorted(t["number"] for t in studies[0]["trials"] + studies[0]["pruned_trials"]) == [0, 1, 2, 3]
    assert len({(out / "tiny-recommendation.yaml").read_text() for out in outs}) == 1


def test_policy_writes_the_same_policy_and_proof_with_one_worker_two_or_trials_finishing_later_first(
        tiny, tmp_path, monkeypatch):
    import tuner.policy
    from tuner.policy import PolicyRequest, derive
    scenario_file = _scenario_file(tiny, tmp_path)
    outs = _three_ways(tuner.policy, lambda out, workers: derive(PolicyRequest(
        scenario_file, trials=4, repeat=1, validate=2, workers=workers, out_dir=out)), tmp_path, monkeypatch)
    for name in ("tiny-policy.yaml", "tiny-policy.json", "tiny-quotas.sh"):
        assert len({(out / name).read_text() for out in outs}) == 1, name
