"""An Optuna study over a batch job's knobs: storage, sampler, trials in worker processes, Pareto front, pick.

The parent process asks the sampler for each trial and tells it the outcome; the trials run on
``tuner.runner``, inline or in worker processes that only run the model (CPU-bound Python:
threads would not help). Trials are told in trial-number order, however the workers finish them,
and trial n is asked once trial n - ``ahead`` is told: each is sampled from, and stopped by the
best of, the very same trials before it on any machine, at any load, with any number of workers. Only the parent touches the storage, so a SQLite file serves any
number of local workers; an RDB URL shared by several machines lets each add its trials to the
same study. Re-running a study resumes it: trials are added until ``trials`` have finished
(completed, or pruned: stopped at their verdict, ``tuner.objective.Objective.trial_outcome``).
"""
from __future__ import annotations

import copy
import functools
import warnings
from contextlib import nullcontext
from collections import deque
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from simulator.contract.files import STUDY
from simulator.evaluator import Evaluator
from tuner.objective import OBJECTIVES, Objective, Outcome, record
from tuner.identity import scenario_changes, scenario_digest, scenario_fields
from tuner.pruning import TrialTask, running_progress, stop_when
from tuner.runner import TICK_S, Execution, Runner, simulated
from tuner.storage import Kept, kept_in
from workloads import ScenarioError

SAMPLERS = ("tpe", "random")
PREFERENCES = ("requests", "duration")
IMPORTANCE_MIN_TRIALS = 10   # fewer completed trials say little about what mattered
REFUSED_IN_A_ROW = 20   # trials in a row the scenario refuses before a search that draws nothing runnable stops

# trials done, trials wanted, best feasible requests, trials pruned[, the running trial's simulated time]
Progress = Callable[..., None]


@dataclass(frozen=True)
class StudySettings:
    trials: int = 100
    workers: int = 1
    ahead: int = 2                 # trials asked and not yet told: at most this many run at once, whatever the workers
    seed: int = 1                  # the sampler's seed and every trial's model seed
    storage: str = "sqlite:///results/study.db"
    study_name: str = "quietload"
    sampler: str = "tpe"
    prefer: str = "requests"
    prune: bool = True             # stop each trial at its verdict (tuner.objective.Objective.trial_outcome)
    prune_factor: float = 3.0      # and one past this many times the requests of the best trial that held (0: never)


@dataclass(frozen=True)
class TrialRecord:
    """One completed trial as the study file keeps it."""

    number: int
    params: dict[str, Any]
    produce_requests: int
    load_seconds: float
    constraints: dict[str, float]
    figures: dict[str, Any] = field(default_factory=dict)
    overrides: list[str] = field(default_factory=list)
    pruned: str | None = None      # why it stopped at its verdict: its values and figures those so far

    @property
    def feasible(self) -> bool:
        return self.pruned is None and all(value <= 0 for value in self.constraints.values())

    @property
    def violation(self) -> float:
        return sum(value for value in self.constraints.values() if value > 0)

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "params": self.params,
                "values": {"produce_requests": self.produce_requests, "load_seconds": self.load_seconds},
                "constraints": self.constraints, "feasible": self.feasible, "figures": self.figures,
                "overrides": self.overrides, **({"pruned": self.pruned} if self.pruned else {})}


@dataclass(frozen=True)
class StudySummary:
    name: str
    storage: str
    settings: StudySettings
    space: dict[str, str]
    trials: list[TrialRecord]
    front: list[TrialRecord]
    pick: TrialRecord | None
    importances: dict[str, float] | None
    failed: int = 0
    model_seeds: tuple[int, ...] = (1,)   # each trial's model runs; the worst counts
    validation: dict[str, Any] | None = None   # the front on held-out seeds (tuner.held_out), when run
    pruned: list[TrialRecord] = field(default_factory=list)   # trials stopped at their verdict: never a pick

    def to_dict(self, scenario: dict[str, Any], baseline: dict[str, Any] | None = None,
                recommended: dict[str, Any] | None = None) -> dict[str, Any]:
        return {**STUDY.document(), "scenario": scenario, "recommended": recommended,
                "study_name": self.name, "storage": self.storage, "seed": self.settings.seed,
                "model_seeds": list(self.model_seeds),
                "sampler": self.settings.sampler, "prefer": self.settings.prefer,
                "objectives": {name: "minimize" for name in OBJECTIVES},
                "constraints": "sla:<tenant> = p99 during / SLA - 1; deadline = load / check.deadline - 1; feasible <= 0",
                "space": self.space, "baseline": baseline, "trials": [t.to_dict() for t in self.trials],
                "failed_trials": self.failed, "pruned_trials": [t.to_dict() for t in self.pruned],
                "pareto_front": [t.number for t in self.front],
                "pick": self.pick.number if self.pick else None, "validation": self.validation,
                "importances_target": "produce_requests", "importances": self.importances}

    def write_json(self, path: str | Path, scenario: dict[str, Any], baseline: dict[str, Any] | None = None,
                   recommended: dict[str, Any] | None = None) -> Path:
        """``recommended``: what tune recommends from the study (the values as a person types them), for the report."""
        return STUDY.write(self.to_dict(scenario, baseline, recommended), path)


def pareto_front(records: list[TrialRecord]) -> list[TrialRecord]:
    """The feasible trials no other feasible trial beats on both requests and duration."""
    feasible = [r for r in records if r.feasible]

    def dominates(a: TrialRecord, b: TrialRecord) -> bool:
        return (a.produce_requests <= b.produce_requests and a.load_seconds <= b.load_seconds
                and (a.produce_requests, a.load_seconds) != (b.produce_requests, b.load_seconds))
    return sorted((r for r in feasible if not any(dominates(o, r) for o in feasible)),
                  key=lambda r: (r.produce_requests, r.load_seconds, r.number))


def ranked(front: list[TrialRecord], prefer: str = "requests") -> list[TrialRecord]:
    """Trials in the order the preference ranks them (``requests``: fewest, ties by shorter load;
    ``duration``: shortest load, ties by fewer requests)."""
    if prefer == "duration":
        return sorted(front, key=lambda r: (r.load_seconds, r.produce_requests, r.number))
    return sorted(front, key=lambda r: (r.produce_requests, r.load_seconds, r.number))


def pick(records: list[TrialRecord], prefer: str = "requests") -> TrialRecord | None:
    """The front's point the preference ranks first; with no feasible trial, None."""
    front = ranked(pareto_front(records), prefer)
    return front[0] if front else None


def closest_miss(records: list[TrialRecord]) -> TrialRecord | None:
    """With no feasible trial: the one that missed its constraints by the least; a trial stopped at a
    single run's limit, its verdict unknown (none missed so far), only after every one whose is known."""
    return min(records, key=lambda r: (r.figures.get("verdict") == "unknown", r.violation, r.produce_requests, r.number),
               default=None)


def _sampler(settings: StudySettings, others_running: bool) -> Any:
    """The study's sampler. TPE's constant liar counts the trials asked and not yet told as bad
    ones; with one trial asked at a time and none left running by an earlier run there are none,
    so it samples the very same values without the liar (``_suggested`` reads the trials once)."""
    import optuna
    if settings.sampler == "random":
        return optuna.samplers.RandomSampler(seed=settings.seed)
    return optuna.samplers.TPESampler(seed=settings.seed, constant_liar=settings.ahead > 1 or others_running)


def _identity(objective: Objective, settings: StudySettings, fields: dict[str, Any]) -> dict[str, Any]:
    """What a resumed study must share with the one in storage, or its trials do not compare."""
    return {"model_seed": settings.seed, "model_repeat": objective.repeat, "sampler": settings.sampler,
            "space": {r.name: r.describe() for r in objective.space.ranges},
            "scenario_digest": scenario_digest(fields)}


_IDENTITY_BEFORE_STORED = {"model_repeat": 1}   # studies stored before a key existed ran with this value


def _earlier(storage: Any, name: str, scenario_name: str, fields: dict[str, Any]) -> str | None:
    """What differs from the latest other study of this scenario's name in ``storage``, if any."""
    import optuna
    others = [s for s in optuna.get_all_study_summaries(storage, include_best_trial=False)
              if s.user_attrs.get("scenario_name") == scenario_name and s.study_name != name
              and "scenario_fields" in s.user_attrs]
    if not others:
        return None
    other = max(others, key=lambda s: getattr(s, "_study_id", 0))   # the latest: the one a user would have resumed
    changes = scenario_changes(other.user_attrs["scenario_fields"], fields)
    return f"new study {name!r}: the scenario differs from study {other.study_name!r}'s ({changes})"


def _load_study(objective: Objective, settings: StudySettings, kept: Kept,
                note: Callable[[str], None] | None = None) -> Any:
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = kept.optuna
    study = optuna.create_study(storage=storage, study_name=settings.study_name,
                                directions=["minimize"] * len(OBJECTIVES), sampler=_sampler(settings, True),
                                load_if_exists=True)
    if not study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        study.sampler = _sampler(settings, False)
    scenario = objective.scenario({})
    fields = scenario_fields(scenario)
    identity = _identity(objective, settings, fields)
    stored = {key: study.user_attrs[key] for key in identity if key in study.user_attrs}
    if not stored:
        for key, value in identity.items():
            study.set_user_attr(key, value)
        study.set_user_attr("scenario_fields", fields)
        study.set_user_attr("scenario_name", scenario.name)
        earlier = _earlier(storage, settings.study_name, scenario.name, fields)
        if earlier and note:
            note(earlier)
        return study
    if stored.get("scenario_digest") != identity["scenario_digest"]:
        # its trials were judged on another scenario (another SLA, cluster, job): never mix them in
        where = f"study {settings.study_name!r} in {kept.shown}"
        if "scenario_fields" not in study.user_attrs:
            raise ScenarioError("--study-name", f"{where} was stored without its scenario's digest; name a new study")
        changes = scenario_changes(study.user_attrs["scenario_fields"], fields)
        raise ScenarioError("--study-name", f"{where} ran another scenario ({changes}); name a new study "
                            "or leave --study-name out (each scenario then gets its own)")
    for key, value in identity.items():
        if stored.get(key, _IDENTITY_BEFORE_STORED.get(key)) != value:
            raise ScenarioError("--study-name", f"study {settings.study_name!r} in {kept.shown} was run "
                                f"with another {key} ({stored.get(key, _IDENTITY_BEFORE_STORED.get(key))!r}); "
                                "resume it with the same settings or name a new study")
    return study


def _trial_outcome(objective: Objective, evaluator: Evaluator, task: "TrialTask | dict[str, Any]") -> Outcome:
    """The runner's work for a study: one trial's knob values on this process's evaluator."""
    if isinstance(task, TrialTask):   # a worker's runs tell the runner's parent their simulated time
        return objective.on(evaluator).trial_outcome(task.params, task.stop, task.progress or _told)
    return objective.on(evaluator).evaluate(task)


def _told(seed: int, seconds: float) -> None:
    simulated(seconds)


def tuning_work(objective: Objective, evaluator: Evaluator, task: Any) -> Any:
    """The runner's work for a whole tune: a trial's knob values (its Outcome), or one run of
    knob values on a seed, ``(params, seed)`` (its RunResult), on this process's evaluator."""
    if isinstance(task, tuple):
        params, seed = task
        return objective.on(evaluator).run_on(params, seed)
    return _trial_outcome(objective, evaluator, task)


def _records(study: Any, pruned: bool = False) -> list[TrialRecord]:
    """The completed trials (``pruned``: the pruned ones, with their values so far)."""
    from optuna.trial import TrialState
    return [TrialRecord(number=t.number, params=dict(t.params), produce_requests=int(values[0]),
                        load_seconds=float(values[1]), constraints=dict(t.constraints),
                        figures=t.user_attrs.get("figures", {}), overrides=t.user_attrs.get("overrides", []),
                        pruned=t.user_attrs.get("pruned"))
            for t in study.get_trials(deepcopy=False, states=(TrialState.PRUNED if pruned else TrialState.COMPLETE,))
            for values in [t.user_attrs.get("values_so_far", [0, 0.0]) if pruned else t.values]]


def _best_requests(records: list[TrialRecord]) -> int | None:
    return min((r.produce_requests for r in records if r.feasible), default=None)


def run_study(objective: Objective, settings: StudySettings, progress: Progress | None = None,
              note: Callable[[str], None] | None = None, runner: Runner | None = None) -> StudySummary:
    """Run (or resume) the study until ``settings.trials`` trials have completed or been pruned; return its summary.
    ``note`` hears of a new study beside an earlier one of the same scenario name, and what differs.
    ``runner`` (its work ``tuning_work``) runs the trials; by default one is started and stopped here."""
    with kept_in(settings.storage) as kept:
        study = _load_study(objective, settings, kept, note)
        asked: list[Any] = []   # the trials this run asks for, whatever else shares the storage
        asking = study.ask

        def ask(*args: Any, **kwargs: Any) -> Any:
            asked.append(trial := asking(*args, **kwargs))
            return trial
        study.ask = ask
        try:
            return _run_trials(study, objective, settings, kept.shown, progress, runner)
        except KeyboardInterrupt as stop:
            _stopped(study, settings, kept.shown, asked, stop)
            raise


def _stopped(study: Any, settings: StudySettings, shown: str, asked: list[Any], stop: KeyboardInterrupt) -> None:
    """A stop signal came: each trial this run asked for and left running (the signal came between
    asking for it and handing it to a worker, or while its outcome was told) is failed, as the ones
    the workers were running are; the completed ones stay, and ``stop`` says so."""
    from optuna.trial import TrialState
    running = {t.number for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))}
    for trial in asked:
        if trial.number in running:
            study.tell(trial, state=TrialState.FAIL)
    done = len(_records(study))
    stop.add_note(f"study {settings.study_name!r} keeps its {done} completed trial{'s' if done != 1 else ''} in "
                  f"{shown}: the same command resumes it")


def _run_trials(study: Any, objective: Objective, settings: StudySettings, shown: str, progress: Progress | None,
                runner: Runner | None) -> StudySummary:
    from optuna.trial import TrialState

    def finished_trials() -> tuple[int, int]:
        """The study's completed and pruned trials as the storage holds them, another machine's
        too (the cached storage reads the new or unfinished ones only), and of them the pruned."""
        finished = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
        return len(finished), sum(1 for t in finished if t.state == TrialState.PRUNED)

    done = _records(study)
    (completed, pruned), best, refused = finished_trials(), _best_requests(done), 0
    held = [(r.produce_requests, r.load_seconds) for r in done if r.feasible]   # what beats a trial (tuner.pruning)

    asked: deque[tuple[Any, Future]] = deque()   # asked, not yet told: told from the front, in trial-number order
    work = functools.partial(_trial_outcome, objective.on(None))   # each process runs it on its own evaluator
    started = runner is None
    runner = runner or Runner(work, objective.evaluator, Execution(workers=settings.workers))
    with runner if started else nullcontext(runner):
        try:
            while True:
                while len(asked) < settings.ahead and completed + len(asked) < settings.trials:
                    trial = study.ask()
                    params = _suggested(study, trial, objective.space)
                    running = running_progress(progress, trial.number, completed, settings.trials, best, pruned) \
                        if runner.execution.inline else None   # a worker process's runs are not heard
                    asked.append((trial, runner.submit(TrialTask(params, stop_when(settings, held), running))))
                if not asked:
                    break
                trial, future = asked[0]
                if not wait([future], timeout=TICK_S).done:   # the oldest still runs: the later ones wait for it
                    if progress and not runner.execution.inline:   # a worker's runs, heard through the runner
                        numbers = ", ".join(str(t.number) for t, _ in asked)
                        state = runner.running()
                        progress(completed, settings.trials, best, pruned,
                                 f"trial{'s' if len(asked) > 1 else ''} {numbers}" + (f": {state}" if state else ""))
                    continue
                asked.popleft()
                error = future.exception()
                if isinstance(error, ScenarioError):   # a combination the producer refuses
                    trial.set_user_attr("error", str(error))
                    study.tell(trial, state=TrialState.FAIL)
                    refused += 1
                    if refused >= max(REFUSED_IN_A_ROW, settings.trials):   # nothing the space draws runs
                        raise ScenarioError(error.field, f"{refused} trials in a row refused, the last: {error.problem}")
                    continue
                refused = 0
                if error is not None:
                    raise error
                outcome = future.result()
                record(trial, outcome)
                if outcome.pruned:   # its constraints, where known, tell the sampler how far it missed
                    trial.set_user_attr("pruned", outcome.pruned)
                    trial.set_user_attr("values_so_far", list(outcome.values))
                    study.tell(trial, state=TrialState.PRUNED)
                else:
                    study.tell(trial, list(outcome.values))
                completed, pruned = finished_trials()
                if outcome.feasible and not outcome.pruned:
                    held.append((outcome.produce_requests, outcome.load_seconds))
                    best = min(best if best is not None else outcome.produce_requests, outcome.produce_requests)
                if progress:
                    progress(completed, settings.trials, best, pruned)
        finally:
            for trial, _ in asked:
                study.tell(trial, state=TrialState.FAIL)
    return _summary(study, objective, settings, shown, _records(study))


def _suggested(study: Any, trial: Any, space: Any) -> dict[str, Any]:
    """The trial's knob values, its sampler reading the study's trials once. TPE's constant liar reads
    every trial again for each knob (the unfinished ones from the storage, ~10 ms on SQLite), yet
    between two knobs only this trial's parameters change, which TPE leaves out: the same values."""
    trials = study.get_trials(deepcopy=False)

    def read(deepcopy: bool = True, states: Any = None, use_cache: bool = False) -> list[Any]:
        chosen = [t for t in trials if states is None or t.state in states]
        return copy.deepcopy(chosen) if deepcopy else chosen
    study._get_trials = read   # what Optuna's samplers read the trials with
    try:
        return space.suggest(trial)
    finally:
        del study._get_trials


def _importances(study: Any, records: list[TrialRecord]) -> dict[str, float] | None:
    if len(records) < IMPORTANCE_MIN_TRIALS:
        return None
    import optuna
    try:
        with warnings.catch_warnings():   # its reminder that low target values are the goal: they are
            warnings.simplefilter("ignore", UserWarning)
            found = optuna.importance.get_param_importances(study, target=lambda t: t.values[0])
    except (RuntimeError, ValueError):   # e.g. every trial had the same value of every knob
        return None
    return {name: round(float(value), 4) for name, value in found.items()}


def _summary(study: Any, objective: Objective, settings: StudySettings, shown: str,
             records: list[TrialRecord]) -> StudySummary:
    from optuna.trial import TrialState
    failed = len(study.get_trials(deepcopy=False, states=(TrialState.FAIL,)))
    return StudySummary(name=settings.study_name, storage=shown, settings=settings,
                        space={r.name: r.describe() for r in objective.space.ranges}, trials=records,
                        front=pareto_front(records), pick=pick(records, settings.prefer),
                        importances=_importances(study, records), failed=failed, model_seeds=objective.seeds,
                        pruned=_records(study, pruned=True))
