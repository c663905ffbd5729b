"""``quietload policy`` as one library call: a scenario's night -> a policy for its batch jobs, proven on
the model, and its files.

The worst night the scenario allows (``tuner.night``: every job ``jobs_at_once`` times, all at once) is
searched with the tuner's own study (Optuna, ``tuner.study``) over the knobs a policy states: the
producer template (``linger.ms``, ``batch.size``, ``compression.type``, ``acks``) and the quota per
client (``producer_byte_rate``, ``request_percentage``), each trial the worst of ``repeat`` seeds,
every neighbour's p99 within its SLA as the constraint. The Pareto front's points, the shortest night
first (a policy should cost its jobs the least time), then run on held-out seeds no trial ran
(``tuner.held_out``); the first that holds on every one, rounded to what a person types and run again
(``tuner.recommend.rounded_pick``), is the policy. A job of the policy may batch longer and larger
than the template (its bounds are floors), which the proof takes to be no louder.

Its files: the policy (YAML, ``workloads.policy``), the ``kafka-configs.sh`` commands that set each
client.id's quota, and the proof (JSON, ``quietload report`` renders it): the worst night's figures
against each SLA with the policy and without it (the jobs' own settings), on the held-out seeds.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from simulator.contract import file_part, scenario_path
from simulator.contract.explain import sla_figure, sla_sources
from simulator.contract.files import POLICY_PROOF
from judging.margin import Margin, tenants_of
from tuner.night import POLICY_KNOBS, NightObjective, classes_of
from tuner.recommend import rounded_pick
from tuner.runner import Execution, Runner, usable_cores
from workloads.snippets import kafka_configs_lines
from tuner.space import SearchSpace, search_space
from tuner.identity import scenario_digest, scenario_fields
from tuner.study import Progress, StudySettings, closest_miss, run_study, tuning_work
from tuner.held_out import SeedRuns, judge_held_out
from workloads import Scenario, ScenarioError
from workloads.policy import JobClass, Match, Policy, Proven, Template
from workloads.quota import Quota
from workloads.settings import QUOTA
from workloads._fields import build
from workloads.reader import dump_yaml, safe_yaml
from simulator.evaluator import load_resolved
from workloads.text import one_line
from workloads.units import format_seeds

PREFER = "duration"   # among the policies that hold, the one whose night ends soonest
FILES = ("policy.yaml", "quotas.sh", "policy.json", "policy-study.db")


@dataclass(frozen=True)
class PolicyRequest:
    scenario_file: Path
    overrides: tuple[str, ...] = ()
    jobs_at_once: int = 1          # copies of every job at once on the worst night
    trials: int | None = None      # [default: the scenario's tune.trials]
    repeat: int | None = None      # model seeds per trial [default: tune.repeat]
    validate: int | None = None    # held-out seeds [default: tune.validate, 20]
    seed: int = 1
    out_dir: Path = Path("results")
    prune: bool = True             # stop each trial at its verdict (tuner.study.StudySettings)
    prune_factor: float = 1.0      # beaten on both by a trial that held (tuner.pruning): never the pick
    margin: float | None = None    # the model's error as a factor on each SLA [default: the profile's] (judging.margin)
    workers: int | None = None     # trials and held-out runs at once, each in its own process [default: the usable cores]


@dataclass(frozen=True)
class PolicyOutcome:
    policy: Policy
    held: bool
    proof: dict[str, Any]
    paths: list[Path]

    def render(self) -> str:
        return render_proof(self.proof)


def written_files(scenario_name: str) -> list[str]:
    return [scenario_path(file_part(scenario_name), what, Path()).name for what in FILES]


def policy_space(scenario: Scenario) -> SearchSpace:
    """The policy's knobs with the tuner's ranges for the scenario (its ``tune.knobs`` laid over)."""
    space = search_space(scenario, ("job", "quota"))
    return SearchSpace(tuple(r for r in space.ranges if r.name in POLICY_KNOBS))


def _until_missed(seed_runs: SeedRuns, params: dict[str, Any], seeds: tuple[int, ...]) -> tuple[Any, tuple[int, ...]]:
    """``params`` on ``seeds`` in order until one misses a constraint: the outcome of the seeds run, and those."""
    run: list[int] = []
    for seed, outcome in zip(seeds, seed_runs.outcomes_in_order(params, seeds)):
        run.append(seed)
        if not outcome.feasible:
            break
    return seed_runs.outcome_on(params, tuple(run)), tuple(run)


def _night_figures(outcome: Any, seeds: tuple[int, ...]) -> dict[str, Any]:
    """A night's figures at its worst seed, as the proof holds them, and the seeds it ran on."""
    figures = outcome.figures
    return {"seeds": list(seeds), "produce_requests": outcome.produce_requests, "load_seconds": outcome.load_seconds,
            "tenants": [{"name": name, "sla_p99_ms": t["sla_p99_ms"], "p99_ms_before": t["p99_ms_before"],
                         "p99_ms_during": t["p99_ms_during"],
                         # on every seed (an SLA relative to the p99 alone, 1.5x, is each seed's own)
                         "within_sla": outcome.constraints.get(f"sla:{name}", 0.0) <= 0}
                        for name, t in figures["tenants"].items()],
            "within_sla": outcome.feasible}


def _policy(name: str, base: dict, params: dict[str, Any], request: PolicyRequest, seeds: tuple[int, ...]) -> Policy:
    """One class per job of the scenario (its client.id and its copies'), the template and quota
    ``params``; and a last class for any other client.id, held to the same, proven for none."""
    template = Template.at(params)
    quota = Quota(**{setting.attribute: float(params[setting.name]) for setting in QUOTA if setting.name in params})
    proven = Proven(jobs_at_once=request.jobs_at_once, scenario=str(request.scenario_file), seeds=seeds)
    classes = [JobClass(name=job, match=Match(client_id=(client_id, f"{client_id}-*"), topic=(topic,)),
                        producer=template, quota=quota, proven=proven,
                        description=f"{job}'s loads into {topic}; proven with {request.jobs_at_once} of them at once "
                                    f"beside every other class's")
               for job, client_id, topic in classes_of(base)]
    classes.append(JobClass(name="other-batch-jobs", match=Match(client_id=("*",)), producer=template, quota=quota,
                            description="any other batch client: held to the proven template and quota; no night was "
                                        "proven with it: give it a class of its own and derive the policy again"))
    return Policy(name=f"{name}-policy", classes=tuple(classes),
                  description=f"derived by quietload policy from {request.scenario_file}")


def derive(request: PolicyRequest, progress: Progress | None = None, line: Callable[[str], None] | None = None,
           runs: Callable[[int, int], None] | None = None) -> PolicyOutcome:
    """Search, validate on held-out seeds and write the policy, its quota commands and its proof."""
    base = load_resolved(request.scenario_file, list(request.overrides))
    scenario = Scenario.from_mapping(base, source=str(request.scenario_file))
    objective = NightObjective(base, policy_space(scenario), request.seed, request.jobs_at_once,
                               repeat=request.repeat or scenario.tune.repeat)
    name = file_part(scenario.name)
    night = objective.scenario({})
    digest = scenario_digest(scenario_fields(night))[:8]
    settings = StudySettings(trials=request.trials or scenario.tune.trials, seed=request.seed, prefer=PREFER,
                             storage=f"sqlite:///{scenario_path(name, 'policy-study.db', request.out_dir)}",
                             study_name=f"{name}-policy-{request.jobs_at_once}-{digest}",
                             prune=request.prune, prune_factor=request.prune_factor,
                             workers=min(request.workers or usable_cores(), usable_cores()))
    count = scenario.tune.validate if request.validate is None else request.validate
    if count < 1:
        raise ScenarioError("--validate", "a policy is proven on held-out seeds: give at least 1")
    held_out = tuple(range(objective.seeds[-1] + 1, objective.seeds[-1] + 1 + count))
    with Runner(functools.partial(tuning_work, objective.on(None)), objective.evaluator,
                Execution(workers=settings.workers)) as runner:
        seed_runs = SeedRuns(objective, runner, settings.workers)
        seed_runs.outcome_on({}, (request.seed,))   # the night as it is runs and is judged, or is refused in one line before any trial
        request.out_dir.mkdir(parents=True, exist_ok=True)
        summary = run_study(objective, settings, progress, line, runner)
        margin = Margin.of(scenario.profile, request.margin)
        validation = judge_held_out(objective, summary.front, PREFER, held_out, line, runs, seed_runs, margin=margin)
        chosen = validation.pick or validation.closest or closest_miss(summary.trials) or closest_miss(summary.pruned)
        if chosen is None:
            raise ScenarioError("policy", f"no trial of study {summary.name!r} completed ({summary.failed} failed)")
        held = validation.pick is not None
        params, rounding = rounded_pick(objective, chosen, held_out if held else (), seed_runs)
        for setting in QUOTA:   # a byte rate as the policy file writes it: whole bytes per second (no looser)
            if setting.unit == "byte_rate" and setting.name in params:
                params[setting.name] = float(math.floor(params[setting.name]))
        # a policy that held is proven on every held-out seed; one that did not, and the night without
        # it, are shown on the held-out seeds up to the first that misses (the seeds after it not run)
        with_policy, policy_seeds = (seed_runs.outcome_on(params, held_out), held_out) if held else \
            _until_missed(seed_runs, params, held_out)
        without, without_seeds = _until_missed(seed_runs, {}, held_out)
    held = held and with_policy.feasible
    policy = _policy(scenario.name, base, params, request, held_out)
    proof = POLICY_PROOF.document(
        scenario=scenario.name, source=str(request.scenario_file), overrides=list(request.overrides),
        jobs_at_once=request.jobs_at_once, jobs=[job.name for job in night.jobs],
        model_seeds=list(objective.seeds), held_out_seeds=list(held_out), held=held, trials=len(summary.trials), pruned=len(summary.pruned),
        trial=chosen.number, params=params, policy=policy.as_mapping(),
        notes=rounding + ([marginal] if (marginal := margin.marginal(tenants_of(with_policy.figures))) and held else [])
        + (validation.lines() if summary.front else
           [f"no trial of {_trials(summary)} met every SLA on model {format_seeds(objective.seeds)}: "
            f"trial {chosen.number}, the closest{' so far (pruned)' if chosen.pruned else ''}, is written"]),
        with_policy=_night_figures(with_policy, policy_seeds),
        without_policy=_night_figures(without, without_seeds), slas=sla_sources(base))
    paths = _write(name, policy, proof, base, request.out_dir)
    return PolicyOutcome(policy, held, proof, paths)


def quota_commands(policy: Policy, base: dict) -> list[str]:
    """One ``kafka-configs.sh`` line per client.id of the scenario's jobs: its class's quota."""
    lines = []
    for _, client_id, topic in classes_of(base):
        job_class = policy.class_of(client_id, topic)
        if job_class is not None:
            lines += kafka_configs_lines(job_class.quota.settings(), client_id)
    return lines


def quota_script(policy: Policy, proof: dict, base: dict) -> str:
    """The quotas as a script for ``sh``: each line a command, every value it did not write itself
    quoted (``kafka_configs_lines``), the names a comment tells of on one line."""
    return ("#!/bin/sh\n# the client quotas of policy " + one_line(policy.name) + ", one line per client.id of "
            f"{one_line(proof['source'])}'s jobs;\n# BOOTSTRAP_SERVERS holds the brokers' host:port list, client.properties "
            "your admin client's security settings\nset -e\n" + "\n".join(quota_commands(policy, base)) + "\n")


def _write(name: str, policy: Policy, proof: dict, base: dict, out_dir: Path) -> list[Path]:
    policy_file = scenario_path(name, "policy.yaml", out_dir)
    header = (f"# quietload policy {one_line(proof['source'])} --jobs-at-once {proof['jobs_at_once']}: "
              f"{'held' if proof['held'] else 'did NOT hold'} on held-out model {format_seeds(proof['held_out_seeds'])}\n")
    text = header + dump_yaml(policy.as_mapping())
    if build(Policy, safe_yaml(text, "policy", "the policy"), "") != policy:   # it reads back as every job's CI reads it
        raise ValueError(f"policy {policy.name} does not read back as written")
    policy_file.write_text(text)
    quotas = scenario_path(name, "quotas.sh", out_dir)
    quotas.write_text(quota_script(policy, proof, base))
    return [policy_file, quotas, POLICY_PROOF.write(proof, scenario_path(name, "policy.json", out_dir))]


def _trials(summary: Any) -> str:
    """The study's trials as the proof's note counts them: ``100 (97 pruned)``."""
    done = len(summary.trials) + len(summary.pruned)
    return f"{done:,}" + (f" ({len(summary.pruned):,} pruned)" if summary.pruned else "")


def _jobs(count: int) -> str:
    return f"{count} job{'s' if count != 1 else ''}"


def render_proof(proof: dict[str, Any]) -> str:
    """The policy's proof in a few lines: the worst night with and without it, each neighbour against its SLA."""
    seeds = format_seeds(proof["held_out_seeds"])
    verdict = "holds" if proof["held"] else "does NOT hold"
    lines = [f"policy for {proof['scenario']}: {verdict} every SLA on the worst night ({_jobs(len(proof['jobs']))} at once: "
             f"{', '.join(proof['jobs'])}) on held-out model {seeds}",
             f"  {'neighbour':<22} {'SLA':>9} {'with policy':>12} {'without':>12}"]
    without = {t["name"]: t for t in proof["without_policy"]["tenants"]}
    for tenant in proof["with_policy"]["tenants"]:
        other = without.get(tenant["name"], {})
        lines.append(f"  {tenant['name']:<22} {sla_figure(tenant['sla_p99_ms']):>6} ms {tenant['p99_ms_during']:>9.1f} ms "
                     f"{other.get('p99_ms_during', float('nan')):>9.1f} ms")
    lines.append(f"  night's load {proof['with_policy']['load_seconds']:,.1f} s with the policy, "
                 f"{proof['without_policy']['load_seconds']:,.1f} s without; produce requests "
                 f"{proof['with_policy']['produce_requests']:,} against {proof['without_policy']['produce_requests']:,}")
    for name, night in (("the policy", proof["with_policy"]), ("the night without it", proof["without_policy"])):
        if len(night.get("seeds", proof["held_out_seeds"])) < len(proof["held_out_seeds"]):
            lines.append(f"  {name} missed on held-out {format_seeds(night['seeds'][-1:])}: the seeds after it not run")
    lines += [f"  {line}" for line in proof.get("slas", [])]
    lines += [f"  - {note}" for note in proof["notes"]]
    return "\n".join(lines)
