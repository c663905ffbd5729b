"""The gate's recommended change: candidate changes the result's mechanism figures point to, each
run on the model before it is recommended.

A candidate comes up only when the result shows the mechanism it addresses (small batches with
linger.ms=0, uncompressed values, neighbours waiting for followers with acks=1, ...), and it
names those figures. Figures a result lacks make their candidate silent, never an error: advice
is optional, verdicts are not. A change is only ever recommended once the model ran it: a result
file is tried on the scenario file it names.

Given a way to run the scenario with changes (``Trial``), each candidate runs on the gate's seeds
and is ranked as the tuner ranks trials (``tuner.objective``): first by how far the neighbours'
p99 and the deadline are over their limits, then by produce requests. Changes are then added in
that order while each makes the prediction better, until the model predicts every rule passes;
only such a set is recommended, with what the model predicts for it. A candidate the model
predicts makes things no better is named as tried and not recommended. Each change belongs to a
lever class (the job's, the quota's, the cluster's); only the classes allowed are recommended, and
when none of their changes passes, a wider class's passing set is named as who would make it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from simulator.contract import RunResult, Summary
from simulator.contract import explain as words
from simulator.contract.judgement import over_sla, worst_p99
from simulator.contract.night import blames
from workloads import ScenarioError
from workloads.tuning import DEFAULT_LEVERS, KNOBS, LEVERS, WHO, params_changes
from workloads.batch import first_job, for_job, job_mappings
from workloads.settings import BATCH_SIZE_CONFIG, COMPRESSION_TYPE_CONFIG, LINGER_MS_CONFIG

# Batches under half of batch.size mean the sender drains faster than the tasks append.
LOW_BATCH_FILL = 0.5
# A neighbour that spends more than half its SLA waiting for followers is held up by replication.
REMOTE_SHARE_OF_SLA = 0.5
# A neighbour whose time in the brokers is mostly waiting for followers is held up by its
# replica fetchers, which also carry the load's partitions (one fetcher thread per hash bucket).
FOLLOWER_SHARE_OF_BROKER_TIME = 0.8
# A neighbour already above half its SLA without the load leaves little room for any load.
BUSY_BEFORE_SHARE_OF_SLA = 0.5

_BROKER_LOAD_RULES = {"neighbour_sla", "handler_idle", "broker_cpu", "produce_request_rate"}
LINGER_MS = 10                 # the published fix's linger.ms
MB = 1024**2

Trial = Callable[[dict[tuple[str, ...], Any]], list[RunResult]]   # the scenario with these values at their paths, on the gate's seeds
Judge = Callable[[list[RunResult]], tuple[str, ...]]   # the gate's failed rules over those runs


@dataclass(frozen=True)
class Change:
    """One change to try: its ``--set`` values (as a person repeats it), a label in Kafka's/Spark's
    names, the hint as words, the result's figures that point to it, and its knob values (the night's
    job they are for, when it is one of a night's: ``index``)."""

    label: str
    overrides: tuple[str, ...]
    action: str
    because: str
    lever: str = "job"     # who must make it (workloads.tuning.LEVERS)
    values: tuple[tuple[str, Any], ...] = ()    # (knob, value)
    index: int | None = None

    def changes(self) -> dict[tuple[str, ...], Any]:
        """Its values as a scenario file states them, at their paths."""
        return params_changes(dict(self.values), self.index)


def _change(name: str, value: object, action: str, because: str) -> Change:
    """The change that sets knob ``name`` to ``value``: its ``--set`` values, label and lever class as
    the knob registry (workloads.tuning) writes them."""
    knob = KNOBS[name]
    return Change(knob.setting(value), tuple(knob.overrides(value)), action, because, knob.lever, ((name, value),))


def _linger(producer: dict, summary: Summary) -> Change | None:
    fill, batch_size = summary.batch_fill, producer.get(BATCH_SIZE_CONFIG)
    if producer.get(LINGER_MS_CONFIG) != 0 or fill is None or fill >= LOW_BATCH_FILL or not batch_size:
        return None
    return _change(LINGER_MS_CONFIG, LINGER_MS, f"raise linger.ms (e.g. {LINGER_MS}) so batches fill",
                   words.small_batches(summary, 0, batch_size))


def _repartition(result: RunResult, summary: Summary) -> Change | None:
    """More write tasks share each executor's producer, so it appends faster and fills batches."""
    fill = summary.batch_fill
    topic = first_job(result.scenario).get("topic")
    partitions = next((t.get("partitions") for t in (result.scenario.get("cluster") or {}).get("topics", [])
                       if t.get("name") == topic), None)
    tasks = result.spark.get("write_tasks")
    if fill is None or fill >= LOW_BATCH_FILL or not partitions or not tasks or tasks >= 2 * partitions:
        return None
    return dataclasses.replace(
        _change("repartition", 2 * partitions, f"repartition the data to {2 * partitions} write tasks (twice the "
                "topic's partitions)", words.few_tasks(tasks, fill)), label=f"repartition({2 * partitions})")


def _compression(producer: dict, summary: Summary) -> Change | None:
    if producer.get(COMPRESSION_TYPE_CONFIG) != "none" or not summary.wire_bytes:
        return None
    return _change(COMPRESSION_TYPE_CONFIG, "zstd", "set compression.type=zstd", words.uncompressed(summary))


def _acks(producer: dict, summary: Summary) -> Change | None:
    if str(producer.get("acks")) not in ("0", "1"):
        return None
    waits: list[tuple[str, float, float]] = []
    for tenant in summary.tenants:
        remote = (tenant.broker_time_ms_p99_during or {}).get("RemoteTimeMs")
        sla = tenant.sla_p99_ms
        if remote is not None and sla and remote > REMOTE_SHARE_OF_SLA * sla:
            waits.append((tenant.name, remote, sla))
    if not waits:
        return None
    name, remote, sla = max(waits, key=lambda w: w[1])
    return _change("acks", "all", "use acks=all (with enable.idempotence=true) so the load cannot outrun replication",
                   words.waited_for_followers(producer["acks"], summary.replica_lag_bytes_max_during, name, remote, sla))


def _fetchers(result: RunResult, producer: dict) -> Change | None:
    if str(producer.get("acks")) != "all":
        return None   # with acks=1 the acks hint comes first
    waits: list[tuple[str, float, float]] = []
    for tenant in result.summary.tenants:
        times = tenant.broker_time_ms_p99_during or {}
        remote, total = times.get("RemoteTimeMs"), times.get("TotalTimeMs")
        if over_sla(tenant.p99_ms_during, tenant.sla_p99_ms) and remote and total and remote >= FOLLOWER_SHARE_OF_BROKER_TIME * total:
            waits.append((tenant.name, remote, total))
    if not waits:
        return None
    name, remote, total = max(waits, key=lambda w: w[1])
    fetchers = (((result.scenario.get("cluster") or {}).get("broker") or {}).get("num.replica.fetchers"))
    now = f" (now {fetchers})" if fetchers else ""
    more = 2 * fetchers if isinstance(fetchers, int) else 4   # doubled while the model says it helps
    return _change("num.replica.fetchers", more, f"give the brokers more replica fetchers, num.replica.fetchers{now}",
                   words.fetchers_busy(name, remote, total))


def _headroom(summary: Summary) -> str | None:
    """A neighbour over its SLA during the load that had little of it left before the load."""
    tight = [(t.name, t.p99_ms_before, t.sla_p99_ms) for t in summary.tenants if over_sla(t.p99_ms_during, t.sla_p99_ms)
             and t.p99_ms_before is not None and t.sla_p99_ms and t.p99_ms_before > BUSY_BEFORE_SHARE_OF_SLA * t.sla_p99_ms]
    if not tight:
        return None
    name, before, sla = max(tight, key=lambda t: t[1] / t[2])
    return words.little_headroom(name, before, sla)


def _quota(result: RunResult, because: str, summary: Summary) -> Change | None:
    """A producer_byte_rate quota at half the load's bytes per broker per second, whole MB/s."""
    brokers = len(result.brokers or []) or ((result.scenario.get("cluster") or {}).get("brokers"))
    wire, load_s = summary.wire_bytes, summary.load_seconds
    if not wire or not load_s or not brokers:
        return None
    rate = max(1, round(wire / load_s / brokers / 2 / MB)) * MB
    return _change("producer_byte_rate", rate,
                   "isolate the load with a producer_byte_rate quota on the batch client (or revisit the SLA)",
                   because or words.load_per_broker(wire / load_s / brokers / MB))


def _waves(result: RunResult) -> Change | None:
    spark = result.spark
    waves, tasks, slots = spark.get("waves"), spark.get("write_tasks"), spark.get("slots")
    executors = ((first_job(result.scenario).get("spark") or {}).get("spark.executor.instances"))
    if not waves or waves <= 1 or not slots:
        return None
    because = words.waves(tasks, waves, slots)
    if not isinstance(executors, int):     # no count to multiply: the hint alone
        return Change("more executor cores", (), "give the job more executor cores", because)
    return _change("spark.executor.instances", executors * waves, "give the job more executor cores", because)


def candidates(result: RunResult, failed_rules: set[str]) -> list[Change]:
    """The changes the failed rules and the result's figures point to, in the order the published fix
    applied them; on a night, the changes of the job that sent most of the requests while
    neighbours were over their SLAs, read from its own figures and addressed to it (batch[i]...)."""
    night = _night_job(result)
    index = night[0] if night else 0
    producer = (job_mappings(result.scenario)[index] if night else first_job(result.scenario)).get("producer") or {}
    summary = _job_summary(result, night[1]) if night else result.summary
    first = index == 0    # the result's spark section is the first job's
    found: list[Change | None] = []
    if failed_rules & _BROKER_LOAD_RULES:
        found += [_linger(producer, summary), _repartition(result, summary) if first else None,
                  _compression(producer, summary), _acks(producer, summary), _fetchers(result, producer)]
    if "neighbour_sla" in failed_rules:
        headroom = _headroom(summary)
        if headroom or not any(found):   # a quota isolates the load when no setting of the job explains the breach
            found.append(_quota(result, headroom or "", summary))
    if "load_deadline" in failed_rules and first:
        found.append(_waves(result))
    changes = [change for change in found if change]
    return [_for_job(change, *night) for change in changes] if night else changes


def _night_job(result: RunResult) -> tuple[int, str] | None:
    """A night's job the advice changes (its index and name): the largest share of the produce
    requests in the seconds the neighbours were over their SLAs, weighted by those seconds."""
    if len(result.jobs) < 2:
        return None
    weight: dict[str, float] = {}
    for blame in blames(result):
        for name, share in blame.shares:
            weight[name] = weight.get(name, 0.0) + share * blame.seconds_over
    if not weight:
        return None
    name = max(weight, key=lambda job: weight[job])
    index = next(i for i, job in enumerate(job_mappings(result.scenario)) if job.get("name") == name)
    return index, name


def _job_summary(result: RunResult, name: str) -> Summary:
    """The night's summary with the job's own figures where it has them (batching, bytes, its load's seconds)."""
    job = next(j for j in result.jobs if j.name == name)
    own = {f.name: getattr(job, f.name) for f in dataclasses.fields(job)
           if f.name in {g.name for g in dataclasses.fields(Summary)} and getattr(job, f.name) is not None}
    if job.load_start_s is not None and job.load_end_s is not None:
        own["load_seconds"] = job.load_end_s - job.load_start_s
    return dataclasses.replace(result.summary, **own)


def _for_job(change: Change, index: int, name: str) -> Change:
    """``change`` addressed to the night's job ``index`` (batch[i]...; the cluster's settings stay the cluster's)."""
    overrides = tuple(for_job(change.overrides, index))
    return dataclasses.replace(change, overrides=overrides, index=index if change.lever != "cluster" else None,
                               label=f"{name}: {change.label}" if overrides != change.overrides else change.label)


ROUNDS = 5    # changes added one at a time, each round re-reading the mechanism figures of the runs so far


@dataclass(frozen=True)
class Prediction:
    """What the model predicts for a set of changes, over the gate's seeds (each figure at its worst)."""

    changes: tuple[Change, ...]
    failed: tuple[str, ...]
    tenants: tuple[tuple[str, float | None, float], ...]   # name, p99 during, SLA (ms)
    produce_requests: int
    excess: float        # the tuner's constraints (tuner.objective): how far p99s and the deadline are over, summed
    source: RunResult    # the run whose figures point to the next change

    @property
    def passed(self) -> bool:
        return not self.failed

    def rank(self) -> tuple:
        return (not self.passed, round(self.excess, 9), self.produce_requests)

    def describe(self, before: "Prediction") -> str:
        return words.predicted(self.failed, self.tenants, self.produce_requests, before.produce_requests)


def predict(changes: tuple[Change, ...], runs: list[RunResult], judge: Judge, deadline_s: float | None) -> Prediction:
    tenants: list[tuple[str, float | None, float]] = []
    for index, tenant in enumerate(runs[0].summary.tenants):
        if tenant.sla_p99_ms is None:     # a neighbour without an SLA is held to none
            continue
        tenants.append((tenant.name, worst_p99(run.summary.tenants[index].p99_ms_during for run in runs), tenant.sla_p99_ms))
    excess = sum(max(0.0, p99 / sla - 1.0) for _, p99, sla in tenants if p99 is not None and sla)
    loads = [load for run in runs if (load := run.summary.load_seconds) is not None]
    if deadline_s and loads:
        excess += max(0.0, max(loads) / deadline_s - 1.0)
    failed = judge(runs)
    source = next((run for run in runs if judge([run])), runs[0])
    return Prediction(changes, failed, tuple(tenants), max(int(run.summary.produce_requests or 0) for run in runs),
                      excess, source)


def _set(changes: tuple[Change, ...]) -> str:
    return words.settings(value for change in changes for value in change.overrides)


def _knobs(change: Change) -> frozenset[tuple[int | None, str]]:
    return frozenset((change.index, name) for name, _ in change.values)


def _on(changes: tuple[Change, ...], change: Change) -> tuple[Change, ...]:
    """``changes`` with ``change`` added, replacing an earlier change of the same settings."""
    return (*(c for c in changes if not _knobs(c) & _knobs(change)), change)


@dataclass(frozen=True)
class Advice:
    """The recommended change in words, and the set that passes (none: nothing passes): its changes,
    and their ``--set`` values as a person repeats them."""

    lines: tuple[str, ...]
    changes: tuple[Change, ...] = ()
    needs: str = ""          # a passing set of a wider lever class: who else must agree to it

    @property
    def passing(self) -> tuple[str, ...]:
        return tuple(value for change in self.changes for value in change.overrides)

    def params(self) -> dict[str, Any]:
        """The knob values of the set that passes for the scenario's job (a night's job's are its own)."""
        return {name: KNOBS[name].typed(value) for change in self.changes if change.index is None
                for name, value in change.values}

    def unlisted(self) -> tuple[str, ...]:
        """The ``--set`` values of the set's changes to one of a night's jobs (no snippet writes them)."""
        return tuple(value for change in self.changes if change.index is not None for value in change.overrides)


def tried_advice(results: list[RunResult], source: RunResult, failed_rules: set[str], trial: Trial, judge: Judge,
                 deadline_s: float | None = None, tried: Callable[[str], None] | None = None,
                 levers: tuple[str, ...] = DEFAULT_LEVERS) -> Advice:
    """The recommended change with the lever classes allowed; when none passes, the changes of wider
    classes tried too, and the first set that passes named as who would have to make it. A set of
    changes runs once: the wider search starts over the narrower one's sets, which it reads again."""
    run = _once(trial, tried)
    advice = _tried(results, source, failed_rules, run, judge, deadline_s, levers)
    if advice.passing or set(levers) == set(LEVERS):
        return advice
    wider = _tried(results, source, failed_rules, run, judge, deadline_s, LEVERS)
    if not wider.passing:
        return advice
    needs = sorted({change.lever for change in wider.changes if change.overrides} - set(levers), key=LEVERS.index)
    return Advice(advice.lines + (f"with {' and '.join(WHO[lever] for lever in needs)} too, the model predicts it passes "
                                  f"({words.settings(wider.passing)}; --levers {','.join(LEVERS)} tries it)",),
                  wider.changes, " and ".join(WHO[lever] for lever in needs))


def _once(trial: Trial, tried: Callable[[str], None] | None) -> Callable[[tuple[Change, ...]], list[RunResult]]:
    """``trial`` of a set of changes, run (and said, with ``tried``) the first time that set is asked for."""
    runs: dict[tuple, list[RunResult] | ScenarioError] = {}

    def run(changes: tuple[Change, ...]) -> list[RunResult]:
        values: dict[tuple[str, ...], Any] = {}
        for change in changes:
            values.update(change.changes())
        key = tuple(values.items())
        if key not in runs:
            if tried:
                tried(", ".join(c.label for c in changes))
            try:
                runs[key] = trial(values)
            except ScenarioError as refused:   # a combination the scenario refuses (e.g. with another of its settings)
                runs[key] = refused
        found = runs[key]
        if isinstance(found, ScenarioError):
            raise found
        return found
    return run


def _tried(results: list[RunResult], source: RunResult, failed_rules: set[str],
           run: Callable[[tuple[Change, ...]], list[RunResult]], judge: Judge, deadline_s: float | None,
           levers: tuple[str, ...]) -> Advice:
    """The recommended change for ``results`` (the gate's runs), found as the module's notes say:
    each round runs every candidate the latest runs' figures point to on top of the changes kept
    so far, and keeps the one the model ranks best while it improves the prediction."""
    now = best = predict((), results, judge, deadline_s)
    best = dataclasses.replace(best, source=source)
    steps: list[Prediction] = []
    rejected: list[Prediction] = []
    for _ in range(ROUNDS):
        if best.passed:
            break
        applied = {(c.index, *value) for c in best.changes for value in c.values}
        found = [c for c in candidates(best.source, set(best.failed) or failed_rules)
                 if c.values and not {(c.index, *value) for value in c.values} <= applied and c.lever in levers]
        tried_now = []
        for change in found:
            changes = _on(best.changes, change)
            try:
                runs = run(changes)
            except ScenarioError:   # a combination the scenario refuses
                continue
            tried_now.append(predict(changes, runs, judge, deadline_s))
        better = sorted((p for p in tried_now if p.rank() < best.rank()), key=Prediction.rank)
        rejected = [p for p in tried_now if p.rank() >= best.rank()]
        if not better:
            break
        best = better[0]
        steps.append(best)
    if not steps:
        return Advice(tuple([f"no {' or '.join(levers)} change the figures point to improves the model's prediction"]
                            + _rejected(rejected, now)))
    if not best.passed:
        return Advice(tuple([f"no {' or '.join(levers)} change tried passes on the model; the closest, "
                             f"{_set(best.changes)}, predicts {best.describe(now)}"] + _rejected(rejected, now)))
    lines = [f"{step.changes[-1].label} ({WHO[step.changes[-1].lever]}): "
             + (f"in the run with {', '.join(c.label for c in step.changes[:-1])}, " if step.changes[:-1] else "")
             + f"{step.changes[-1].because}; with it the model predicts {step.describe(now)}" for step in steps]
    return Advice(tuple(lines + [words.so(Advice((), best.changes).passing)]), best.changes)


def _rejected(predictions: list[Prediction], now: Prediction) -> list[str]:
    return [f"tried, not recommended: {p.changes[-1].label} ({p.changes[-1].because}): the model predicts "
            f"{p.describe(now)}" for p in predictions]
