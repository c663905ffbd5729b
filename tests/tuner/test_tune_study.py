import multiprocessing

import pytest

from tuner import Objective, StudySettings, TrialRecord, closest_miss, open_storage, pareto_front, pick, run_study
from tuner import search_space
from simulator.evaluator import StopWhen
from tuner.pruning import stop_when as _stop_when
from workloads import Scenario, ScenarioError


def _trial(number, requests, load_s, p99_over=-0.1):
    return TrialRecord(number=number, params={}, produce_requests=requests, load_seconds=load_s,
                       constraints={"sla:api": p99_over})


HAND_MADE = [
    _trial(0, 5000, 9.0),
    _trial(1, 3000, 9.5),
    _trial(2, 3000, 9.2),            # beats 1: same requests, shorter
    _trial(3, 1000, 12.0),
    _trial(4, 800, 8.0, p99_over=0.3),   # best on both, but over its SLA
    _trial(5, 6000, 9.1),            # dominated by 0
]


def test_the_front_holds_the_feasible_trials_nothing_beats():
    assert [t.number for t in pareto_front(HAND_MADE)] == [3, 2, 0]


def test_the_preference_picks_from_the_front():
    assert pick(HAND_MADE, "requests").number == 3
    assert pick(HAND_MADE, "duration").number == 0
    tie = HAND_MADE + [_trial(6, 1000, 11.0)]
    assert pick(tie, "requests").number == 6           # fewest requests, then the shorter load


def test_without_a_feasible_trial_nothing_is_picked_and_the_closest_miss_is_known():
    missed = [_trial(0, 100, 1.0, p99_over=2.0), _trial(1, 900, 1.0, p99_over=0.05)]
    assert pick(missed) is None
    assert closest_miss(missed).number == 1


def test_a_trial_stopped_at_a_single_runs_limit_is_the_closest_only_when_no_verdict_is_known():
    import dataclasses
    unknown = dataclasses.replace(_trial(2, 50, 1.0), constraints={}, pruned="past the limit of a single run",
                                  figures={"verdict": "unknown"})    # nothing missed so far: a violation of 0
    missed = [_trial(0, 100, 1.0, p99_over=2.0), _trial(1, 900, 1.0, p99_over=0.05)]
    assert closest_miss([unknown, *missed]).number == 1
    assert closest_miss([unknown]).number == 2


def _objective(raw):
    return Objective(raw, search_space(Scenario.from_mapping(raw)), seed=1)


def _settings(tmp_path, **given):
    return StudySettings(**{"trials": 5, "storage": f"sqlite:///{tmp_path}/study.db", "study_name": "tiny", "prune": False, **given})


def test_a_study_is_seeded_and_reproducible(tiny, tmp_path):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    first = run_study(_objective(tiny), _settings(tmp_path / "a"))
    second = run_study(_objective(tiny), _settings(tmp_path / "b"))
    assert [t.params for t in first.trials] == [t.params for t in second.trials]
    assert [t.produce_requests for t in first.trials] == [t.produce_requests for t in second.trials]
    assert len(first.trials) == 5 and first.failed == 0
    assert first.pick is not None and first.pick.number in [t.number for t in first.front]
    assert first.pick.produce_requests == min(t.produce_requests for t in first.trials if t.feasible)


def test_rerunning_a_study_resumes_it_up_to_the_trials_asked(tiny, tmp_path):
    seen = []
    run_study(_objective(tiny), _settings(tmp_path, trials=3))
    resumed = run_study(_objective(tiny), _settings(tmp_path, trials=6), progress=lambda *p: seen.append(p))
    assert [t.number for t in resumed.trials] == [0, 1, 2, 3, 4, 5]
    assert [(done, total) for done, total, _, _ in seen] == [(4, 6), (5, 6), (6, 6)]
    assert seen[-1][2] == min(t.produce_requests for t in resumed.trials if t.feasible)
    again = run_study(_objective(tiny), _settings(tmp_path, trials=6))
    assert len(again.trials) == 6


def test_a_sqlite_study_commits_to_a_write_ahead_log_folded_back_when_it_ends(tiny, tmp_path):
    storage = open_storage(f"sqlite:///{tmp_path}/open.db")
    with storage.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 1   # NORMAL: no fsync per commit
    storage.engine.dispose()
    run_study(_objective(tiny), _settings(tmp_path, trials=2))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["open.db", "study.db"]   # no -wal or -shm file left


def test_a_study_resumed_with_another_seed_is_refused(tiny, tmp_path):
    run_study(_objective(tiny), _settings(tmp_path, trials=1))
    with pytest.raises(ScenarioError, match=r"^--study-name: study 'tiny' in sqlite:///.* was run with another model_seed \(1\)"):
        run_study(Objective(tiny, search_space(Scenario.from_mapping(tiny)), seed=2), _settings(tmp_path, trials=2, seed=2))


def test_a_study_resumed_with_another_repeat_is_refused(tiny, tmp_path):
    run_study(_objective(tiny), _settings(tmp_path, trials=1))
    with pytest.raises(ScenarioError, match=r"^--study-name: study 'tiny' in sqlite:///.* was run with another model_repeat \(1\)"):
        run_study(Objective(tiny, search_space(Scenario.from_mapping(tiny)), seed=1, repeat=2), _settings(tmp_path, trials=2))


def test_workers_run_trials_on_every_seed_asked(tiny_with, tmp_path):
    raw = tiny_with({"jitter": {"append_rate": 0.2, "service_time": 0.2}})
    objective = Objective(raw, search_space(Scenario.from_mapping(raw)), seed=1, repeat=2)
    summary = run_study(objective, _settings(tmp_path, trials=2, workers=2))
    assert summary.model_seeds == (1, 2)
    assert summary.to_dict({})["model_seeds"] == [1, 2]
    for trial in summary.trials:
        assert trial.figures["model_seeds"] == [1, 2]
        assert objective.evaluate(trial.params).produce_requests == trial.produce_requests


def test_workers_run_trials_in_processes(tiny, tmp_path):
    objective = _objective(tiny)
    summary = run_study(objective, _settings(tmp_path, trials=4, workers=2))
    assert len(summary.trials) == 4 and summary.failed == 0
    # each trial's figures are what its knob values give on the model, whichever process ran it
    for trial in summary.trials[:2]:
        assert objective.evaluate(trial.params).produce_requests == trial.produce_requests


def _open_after(barrier, url: str, outcomes) -> None:
    import optuna.storages  # noqa: F401  (imported before the start line, so both reach it at once)
    barrier.wait()
    try:
        open_storage(url)
        outcomes.put("opened")
    except ScenarioError as error:
        outcomes.put(str(error))


def test_tuners_starting_together_on_a_new_sqlite_file_both_open_it(tmp_path):
    # Both create Optuna's tables; SQLite tells the later one "table studies already exists".
    context = multiprocessing.get_context("spawn")
    outcomes = context.Queue()
    for attempt in range(6):
        barrier = context.Barrier(2)
        url = f"sqlite:///{tmp_path}/together-{attempt}.db"
        tuners = [context.Process(target=_open_after, args=(barrier, url, outcomes)) for _ in range(2)]
        for tuner in tuners:
            tuner.start()
        for tuner in tuners:
            tuner.join(60)
        assert [outcomes.get(timeout=5) for _ in tuners] == ["opened", "opened"]


BAD_STORAGE = {
    "missing directory": ("sqlite:////nonexistent/dir/x.db", "--storage: sqlite:////nonexistent/dir/x.db: directory /nonexistent/dir does not exist"),
    "driver not installed": ("postgresql+psycopg2://tuner:secret@nohost:1/x", "--storage: postgresql+psycopg2://tuner:***@nohost:1/x: needs the database driver 'psycopg2'"),
    "not a URL": ("results/study.db", "--storage: cannot open results/study.db: "),
}


@pytest.mark.parametrize("url, message", BAD_STORAGE.values(), ids=BAD_STORAGE.keys())
def test_an_unusable_storage_is_one_line(url, message):
    with pytest.raises(ScenarioError) as error:
        open_storage(url)
    assert str(error.value).startswith(message), str(error.value)
    assert "\n" not in str(error.value)


def test_the_scenario_digest_covers_what_trials_run_on_and_nothing_else():
    from tuner.identity import scenario_changes, scenario_digest, scenario_fields
    from workloads import CATALOG, Scenario

    def fields(*overrides):
        return scenario_fields(Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", list(overrides)))
    base = fields()
    # labels, the study's own length, plans and gate thresholds other than the deadline: the same study
    for same in (["name=other"], ["tune.trials=500"], ["plan.brokers=[6]"], ["check.cpu_max=90"],
                 ["description=another description"]):
        assert scenario_digest(fields(*same)) == scenario_digest(base), same
    for changed, line in ((["cluster.broker.num.io.threads=16"], "cluster.broker.num.io.threads 8 -> 16"),
                          (["check.deadline=10min"], "check.deadline None -> 600"),
                          (["profile=default", "batch.spark.append_rate=48MB/s"], "batch.spark.append_rate")):
        other = fields(*changed)
        assert scenario_digest(other) != scenario_digest(base)
        assert scenario_changes(base, other).startswith(line), scenario_changes(base, other)


def test_one_trial_asked_at_a_time_samples_without_the_constant_liar_the_very_same_trials():
    """With nothing else asked and not told, TPE's constant liar has nothing to count: the same values."""
    import random

    import optuna

    from tuner.study import _sampler

    def tried(sampler) -> list:
        study = optuna.create_study(directions=["minimize"] * 2, sampler=sampler)
        draw, values = random.Random(0), []
        for number in range(40):
            trial = study.ask()
            values.append((trial.suggest_int("repartition", 1, 120), trial.suggest_categorical("codec", ["none", "zstd", "lz4"]),
                           trial.suggest_float("linger", 0.0, 100.0), trial.suggest_int("batch", 16384, 1048576, log=True)))
            trial.set_constraint("sla:api", draw.uniform(-1, 1))
            if number % 13 == 5:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(trial, [draw.randrange(1000, 30000), draw.uniform(10, 60)])
        return values

    settings = StudySettings(ahead=1, seed=3)
    assert _sampler(settings, False)._constant_liar is False and _sampler(settings, True)._constant_liar is True
    assert tried(_sampler(settings, False)) == tried(_sampler(settings, True))
    assert _sampler(StudySettings(ahead=2, workers=1), False)._constant_liar is True   # whatever the workers


class _Refusing:
    """An evaluator that refuses every run, as a scenario refuses every combination a space draws."""

    name = "refusing"

    def evaluate(self, scenario, seed, progress=None):
        raise ScenarioError("batch.producer.batch.size", "larger than buffer.memory")


def test_a_search_whose_every_trial_is_refused_stops_in_one_line(tiny, tmp_path):
    objective = Objective(tiny, search_space(Scenario.from_mapping(tiny)), seed=1, evaluator=_Refusing())
    with pytest.raises(ScenarioError) as refused:
        run_study(objective, _settings(tmp_path, trials=3))
    assert str(refused.value) == "batch.producer.batch.size: 20 trials in a row refused, the last: larger than buffer.memory"


TINY_TENANT = {"name": "api", "topic": "events", "client": {"kind": "java", "version": "4.1.0"}, "rate": "200/s",
               "record_size": "1KB"}


class _Counting:
    """The model, counting the runs it starts."""

    name, stops_early = "model", True

    def __init__(self):
        from simulator.model.model import ModelEvaluator
        self.model, self.seeds = ModelEvaluator(), []

    def evaluate(self, scenario, seed, progress=None, stop=None):
        self.seeds.append(seed)
        return self.model.evaluate(scenario, seed, progress, stop)


def test_a_trial_that_misses_on_a_seed_leaves_the_seeds_after_it_unrun(tiny_with):
    raw = tiny_with({"tenants": [{**TINY_TENANT, "sla_p99": "1us"}]})    # no setting holds it
    counting = _Counting()
    objective = Objective(raw, search_space(Scenario.from_mapping(raw)), seed=1, evaluator=counting, repeat=3)
    outcome = objective.trial_outcome({}, StopWhen())
    assert counting.seeds == [1] and outcome.pruned.startswith("seed 1: ") and not outcome.feasible
    assert outcome.stopped_on == 1    # the seed a policy's proof counts to (tuner.policy.proven)
    assert outcome.constraints["sla:api"] > 0
    unstopped = objective.evaluate({})
    assert counting.seeds == [1, 1, 2, 3] and unstopped.pruned is None and unstopped.constraints["sla:api"] > 0


def test_a_trial_past_the_limits_of_a_single_run_is_pruned_before_it_runs(tiny_with):
    raw = tiny_with({"dataset": {"files": [{"size": "50GB"}]}})
    counting = _Counting()
    objective = Objective(raw, search_space(Scenario.from_mapping(raw)), seed=1, evaluator=counting)
    outcome = objective.trial_outcome({"batch.size": 1024}, StopWhen())   # 52 million batches of 1 KB at the least
    assert counting.seeds == [] and outcome.pruned.endswith("; the trial is not run") and outcome.stopped_on is None
    assert "52,428,800 produce batches of at most batch.size" in outcome.pruned
    assert (outcome.produce_requests, outcome.load_seconds, outcome.constraints) == (0, 0.0, {})


def test_pruned_trials_are_kept_apart_never_picked_and_counted_in_the_progress(tiny_with, tmp_path):
    raw = tiny_with({"tenants": [{**TINY_TENANT, "sla_p99": "1us"}]})
    seen = []
    summary = run_study(_objective(raw), _settings(tmp_path, trials=3, prune=True), progress=lambda *p: seen.append(p))
    assert summary.trials == [] and summary.pick is None and summary.front == []
    assert [t.number for t in summary.pruned] == [0, 1, 2] and all("api" in t.pruned for t in summary.pruned)
    assert [(p[0], p[3]) for p in seen if len(p) == 4] == [(1, 1), (2, 2), (3, 3)]    # each trial's end
    running = [p[4] for p in seen if len(p) == 5]     # each simulated second of the running trial
    assert running and running[0] == "trial 0, seed 1: 1 s simulated"
    written = summary.to_dict({"name": "tiny"})
    assert [t["number"] for t in written["pruned_trials"]] == [0, 1, 2] and written["trials"] == []
    assert closest_miss(summary.pruned) is not None and all(not t.feasible for t in summary.pruned)


def test_the_requests_factor_stops_a_trial_past_that_many_times_the_best_that_held():
    settings = StudySettings(prune_factor=3.0)
    assert _stop_when(settings, []) == StopWhen(events_over=36_000_000)    # 10 minutes at 60,000 events a second
    assert _stop_when(settings, [(2_000, 10.0), (1_000, 30.0)]) == StopWhen(requests_over=3_000, events_over=36_000_000)
    assert _stop_when(StudySettings(prune_factor=0.0), [(1_000, 30.0)]) == StopWhen(events_over=36_000_000)
    assert _stop_when(StudySettings(prune=False), [(1_000, 30.0)]) is None


def test_preferring_the_shorter_load_a_trial_stops_only_beaten_on_both_by_the_front_of_those_that_held():
    settings = StudySettings(prefer="duration", prune_factor=1.0)
    held = [(2_000, 10.0), (1_000, 30.0), (3_000, 40.0), (1_000, 30.0)]    # (3,000, 40 s) is beaten by both others
    assert _stop_when(settings, held).beaten_by == ((1_000, 30.0), (2_000, 10.0))
    assert _stop_when(StudySettings(prefer="duration", prune_factor=2.0), held[:1]).beaten_by == ((4_000, 10.0),)


def test_a_trial_sampled_from_one_read_of_the_trials_takes_the_values_the_liar_reads_knob_by_knob(tmp_path):
    """Trials asked two ahead (one running while the next is sampled), on SQLite: TPE's constant liar
    reads the trials again for each knob, ``_suggested`` once; the knob values are the same."""
    import random

    import optuna

    from tuner.study import _sampler, _suggested

    class Space:
        def suggest(self, trial):
            return (trial.suggest_int("repartition", 1, 120), trial.suggest_categorical("codec", ["none", "zstd", "lz4"]),
                    trial.suggest_float("linger", 0.0, 100.0), trial.suggest_int("batch", 16384, 1048576, log=True))

    def tried(name, suggest) -> list:
        study = optuna.create_study(storage=f"sqlite:///{tmp_path}/{name}.db", directions=["minimize"] * 2,
                                    sampler=_sampler(StudySettings(ahead=2, seed=3), True))
        draw, values, running = random.Random(0), [], []
        for number in range(30):
            trial = study.ask()
            values.append(suggest(study, trial))
            running.append(trial)
            if len(running) == 2:   # the older one told while the newer one runs
                told = running.pop(0)
                told.set_constraint("sla:api", draw.uniform(-1, 1))
                study.tell(told, [draw.randrange(1000, 30000), draw.uniform(10, 60)])
        assert "_get_trials" not in vars(study)   # Optuna's own again
        return values

    assert tried("per-knob", lambda study, trial: Space().suggest(trial)) == tried("once", lambda study, trial: _suggested(study, trial, Space()))
