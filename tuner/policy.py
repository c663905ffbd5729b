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

import copy
import functools
import math
import re
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
from tuner.space import SearchSpace, render_value, search_space
from tuner.tune import validated
from tuner.identity import scenario_digest, scenario_fields
from tuner.study import Progress, StudySettings, closest_miss, ranked, run_study, tuning_work
from tuner.held_out import SCREEN_SEEDS, SeedRuns
from workloads import Scenario, ScenarioError
from workloads.policy import JobClass, Match, Policy, Proven, Template
from workloads.quota import Quota
from workloads.settings import ACKS, FLOOR, ONE_OF, QUOTA, SETTINGS
from workloads.snippets import kafka_configs_lines, rounded_params
from workloads._fields import build
from workloads.reader import dump_yaml, safe_yaml
from simulator.evaluator import StopWhen, load_resolved
from tuner.pruning import RUN_EVENTS_MAX
from workloads.text import one_line
from workloads.units import format_seeds

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
    prune_factor: float = 3.0      # past this many times the requests of a trial that held (tuner.pruning), as tune
    margin: float | None = None    # the model's error as a factor on each SLA [default: the profile's] (judging.margin)
    workers: int | None = None     # trials at once, each in its own process [default: trial_workers]; held-out runs: the usable cores


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


def _until_missed(seed_runs: SeedRuns, params: dict[str, Any], seeds: tuple[int, ...]) -> tuple[Any, tuple[int, ...]]:
    """``params`` on ``seeds`` in order until one misses a constraint: the outcome of the seeds run, and those."""
    run: list[int] = []
    for seed, outcome in zip(seeds, seed_runs.outcomes_in_order(params, seeds)):
        run.append(seed)
        if not outcome.feasible:
            break
    return seed_runs.outcome_on(params, tuple(run)), tuple(run)


def proven(objective: Any, corner: dict[str, Any], seeds: tuple[int, ...],
           requests_over: int | None = None) -> tuple[Any, tuple[int, ...]]:
    """A corner of the region on ``seeds`` in order until one misses, each run stopped as a study's
    trials are: at its verdict, past ``requests_over`` produce requests (the study's --prune-factor times
    its trial's: beaten however it ends) or past a single run's limits (a corner's jobs keep their own
    settings, so a quota the pick held under may throttle them for long): the outcome and the seeds
    run. A stopped run is a miss, its reason in ``pruned``."""
    on_seeds = copy.copy(objective)
    on_seeds.seeds = seeds
    outcome = on_seeds.trial_outcome(corner, StopWhen(requests_over, events_over=RUN_EVENTS_MAX))
    if outcome.pruned is None:
        return outcome, seeds
    return outcome, seeds[:seeds.index(outcome.stopped_on) + 1] if outcome.stopped_on is not None else ()


def _night_figures(outcome: Any, seeds: tuple[int, ...]) -> dict[str, Any]:
    """A night's figures at its worst seed, as the proof holds them, and the seeds it ran on."""
    figures = outcome.figures
    return {"seeds": list(seeds), "produce_requests": outcome.produce_requests, "load_seconds": outcome.load_seconds,
            "tenants": [{"name": name, "sla_p99_ms": t["sla_p99_ms"],
                         **({"p99_ms_before": t["p99_ms_before"]} if "p99_ms_before" in t else {}),   # a stopped run's: none
                         "p99_ms_during": t["p99_ms_during"],
                         # on every seed (an SLA relative to the p99 alone, 1.5x, is each seed's own)
                         "within_sla": outcome.constraints.get(f"sla:{name}", 0.0) <= 0}
                        for name, t in figures["tenants"].items()],
            "within_sla": outcome.feasible and not outcome.pruned}


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


def trial_workers(workers: int | None, scenario: Scenario, jobs_at_once: int) -> int:
    """Trials at once: ``workers``, else one at a time where the night is the scenario's one job (tune's
    very study, as tune runs it), else the usable cores (a night no tune runs)."""
    alone = jobs_at_once == 1 and len(scenario.jobs) == 1
    return min(workers or (1 if alone else usable_cores()), usable_cores())


def region(params: dict[str, Any], scenario: Scenario) -> dict[str, Any]:
    """The policy's rules around a pick: its value of each knob a policy states (the floors and the
    codec at the pick's, acks at least the job's own, the ceilings at the pick's: a quota's byte rate
    in whole bytes no lower)."""
    rules = {name: value for name, value in params.items() if name in POLICY_KNOBS}
    if "acks" in rules and ACKS.index(rules["acks"]) < ACKS.index(scenario.batch.producer.acks):
        rules["acks"] = scenario.batch.producer.acks   # never weaker than the job's own durability
    for setting in QUOTA:   # a byte rate as the policy file writes it: whole bytes per second
        if setting.unit == "byte_rate" and setting.name in rules:
            rules[setting.name] = float(math.ceil(rules[setting.name]))
    return rules


def corners(rules: dict[str, Any], space: SearchSpace) -> list[dict[str, Any]]:
    """The region's corners a proof runs: its rules at their bounds, and each stronger acks the floor
    allows that the study searched (acks=1 allows all, with its idempotence: proven too, or not allowed)."""
    stronger = [acks for r in space.ranges if r.name == "acks" and "acks" in rules for acks in r.choices
                if ACKS.index(acks) > ACKS.index(rules["acks"])]
    return [rules] + [{**rules, "acks": acks} for acks in stronger]


def said_rules(rules: dict[str, Any]) -> str:
    return ", ".join(f"{name}={render_value(name, value)}" for name, value in rules.items())


def derive(request: PolicyRequest, progress: Progress | None = None, line: Callable[[str], None] | None = None,
           runs: Callable[[int, int], None] | None = None) -> PolicyOutcome:
    """Tune the worst night as ``quietload tune`` tunes a scenario (its space, study settings and
    held-out validation: one job at once is the very study), take the region around its held pick as
    the policy, prove the region's corners on the held-out seeds and write the policy, its quota
    commands and its proof."""
    base = load_resolved(request.scenario_file, list(request.overrides))
    scenario = Scenario.from_mapping(base, source=str(request.scenario_file))
    objective = NightObjective(base, search_space(scenario), request.seed, request.jobs_at_once,
                               repeat=request.repeat or scenario.tune.repeat)
    name = file_part(scenario.name)
    night = objective.scenario({})
    digest = scenario_digest(scenario_fields(night))[:8]
    cores = usable_cores()
    settings = StudySettings(trials=request.trials or scenario.tune.trials, seed=request.seed, prefer=scenario.tune.prefer,
                             storage=f"sqlite:///{scenario_path(name, 'policy-study.db', request.out_dir)}",
                             study_name=f"{name}-policy-{request.jobs_at_once}-{digest}",
                             prune=request.prune, prune_factor=request.prune_factor,
                             workers=trial_workers(request.workers, scenario, request.jobs_at_once))
    count = scenario.tune.validate if request.validate is None else request.validate
    if count < 1:
        raise ScenarioError("--validate", "a policy is proven on held-out seeds: give at least 1")
    judge = objective.judged(SCREEN_SEEDS)
    held_out = tuple(range(judge.seeds[-1] + 1, judge.seeds[-1] + 1 + count))
    with Runner(functools.partial(tuning_work, objective.on(None)), objective.evaluator,
                Execution(workers=max(settings.workers, cores))) as runner:
        seed_runs = SeedRuns(objective, runner, max(settings.workers, cores))
        seed_runs.outcome_on({}, (request.seed,))   # the night as it is runs and is judged, or is refused in one line before any trial
        request.out_dir.mkdir(parents=True, exist_ok=True)
        summary = run_study(objective, settings, progress, line, runner)
        margin = Margin.of(scenario.profile, request.margin)
        summary, validation = validated(objective, judge, summary, count, line, runs, seed_runs, margin)
        judge = judge if validation is not None else objective    # the seeds the pick was judged on
        chosen = summary.pick or (validation.closest if validation else None) or closest_miss(summary.trials) \
            or closest_miss(summary.pruned)
        if chosen is None:
            raise ScenarioError("policy", f"no trial of study {summary.name!r} completed ({summary.failed} failed)")
        held = validation is not None and validation.pick is not None
        params, rounding = rounded_pick(judge, chosen, held_out if held else (), seed_runs)
        # the region around the pick first; if a corner misses, the next point of the front's, rounded as a
        # person types it (the proof runs what is written), until one holds
        bounds = {r.name: (r.low, r.high) for r in objective.space.ranges if r.knob.kind != "choice"}
        others = [(t.number, rounded_params(t.params, bounds), t.produce_requests)
                  for t in ranked(summary.front, settings.prefer) if held and t.number != chosen.number]
        factor = request.prune_factor if request.prune else 0.0
        tried: list[Region] = []
        for number, values, requests in [(chosen.number, params, chosen.produce_requests), *others]:
            rules = region(values, scenario)
            over = int(requests * factor) if factor > 0 else None
            proofs = [(corner, *proven(objective, corner, held_out, over)) for corner in corners(rules, objective.space)]
            tried.append(Region(number, values, rules, proofs))
            if tried[-1].missed is None:
                break
        without, without_seeds = _until_missed(seed_runs, {}, held_out)
    stated = tried[-1] if tried[-1].missed is None else tried[0]
    _, with_policy, policy_seeds = stated.missed or stated.proofs[0]
    held = held and stated.missed is None
    policy = _policy(scenario.name, base, stated.rules, request, held_out)
    proof = POLICY_PROOF.document(
        scenario=scenario.name, source=str(request.scenario_file), overrides=list(request.overrides),
        jobs_at_once=request.jobs_at_once, jobs=[job.name for job in night.jobs],
        model_seeds=list(judge.seeds), held_out_seeds=list(held_out), held=held, trials=len(summary.trials),
        pruned=len(summary.pruned), trial=stated.trial, params=stated.params, policy=policy.as_mapping(),
        notes=[("" if stated is tried[0] else f"tune's pick, trial {chosen.number}: ") + note for note in rounding
               + (validation.lines() if validation else
                  [f"no trial of {_trials(summary)} met every SLA on model {format_seeds(objective.seeds)}: "
                   f"trial {chosen.number}, the closest{' so far (pruned)' if chosen.pruned else ''}, is written"])]
        + region_notes(tried, stated, held_out)
        + ([marginal] if (marginal := margin.marginal(tenants_of(with_policy.figures))) and held else []),
        with_policy=_night_figures(with_policy, policy_seeds),
        without_policy=_night_figures(without, without_seeds), slas=sla_sources(base))
    paths = _write(name, policy, proof, base, request.out_dir)
    return PolicyOutcome(policy, held, proof, paths)


@dataclass(frozen=True)
class Region:
    """The rules around one point of the study's front and its corners' proofs: (corner, outcome, seeds run)."""

    trial: int
    params: dict[str, Any]
    rules: dict[str, Any]
    proofs: list[tuple[dict[str, Any], Any, tuple[int, ...]]]

    @property
    def missed(self) -> tuple[dict[str, Any], Any, tuple[int, ...]] | None:
        return next((proof for proof in self.proofs if not proof[1].feasible or proof[1].pruned), None)

    def others(self) -> str:
        """The point's settings a policy does not state: the jobs' own in the proof."""
        others = {name: value for name, value in self.params.items() if name not in self.rules}
        return f"; the jobs' other settings their own (trial {self.trial}'s {said_rules(others)} no rule)" if others else ""

    def miss(self) -> str:
        """Which corner missed, on which seed, by how much."""
        assert self.missed is not None
        corner, outcome, seeds = self.missed
        over = "; ".join(f"{tenant} p99 {figures['p99_ms_during']:,.2f} ms > SLA {figures['sla_p99_ms']:,.2f} ms"
                         for tenant, figures in outcome.figures["tenants"].items()
                         if outcome.constraints.get(f"sla:{tenant}", 0.0) > 0) \
            or re.sub(r"^seed \d+: ", "", outcome.pruned or "") or "over its constraints"
        which = (f"acks={corner['acks']}, which its floor acks={self.rules['acks']} allows," if corner is not self.proofs[0][0]
                 else f"the region around it ({said_rules(corner)}{self.others()})")
        return f"{which} missed on held-out {format_seeds(seeds[-1:]) if seeds else 'seeds: not run'}: {over}"


def breaks(params: dict[str, Any], rules: dict[str, Any]) -> list[str]:
    """The rules a point's values break, as ``check --policy`` words them: ``linger.ms=91 ms, at least 95 ms``."""
    broken = []
    for name, bound in rules.items():
        setting = SETTINGS[name]
        if name in params and not setting.keeps(params[name], (bound,) if setting.rule == ONE_OF else bound):
            broken.append(f"{name}={render_value(name, params[name])} where the policy allows "
                          f"{'only' if setting.rule == ONE_OF else 'at least' if setting.rule == FLOOR else 'at most'} "
                          f"{render_value(name, bound)}")
    return broken


def region_notes(tried: list[Region], stated: Region, held_out: tuple[int, ...]) -> list[str]:
    """What the policy states around which point, and why not around tune's pick when it is another's."""
    seeds = f"held-out model {format_seeds(held_out)}"
    lines = [f"the policy is the region around trial {stated.trial}: {said_rules(stated.rules)} at their bounds{stated.others()}"]
    if len(stated.proofs) > 1 and stated.missed is None:
        lines.append(f"with {', '.join(said_rules({'acks': c['acks']}) for c, _, _ in stated.proofs[1:])} too, which its floor "
                     f"acks={stated.rules['acks']} allows: held on {seeds}")
    pick = tried[0]
    if pick.params.get("acks") and pick.rules.get("acks") != pick.params["acks"]:
        lines.append(f"trial {pick.trial}'s acks={pick.params['acks']} is weaker than the job's own acks={pick.rules['acks']}, "
                     "which no policy weakens")
    if stated is not pick:
        lines.append(f"tune's pick, trial {pick.trial}, held on {seeds}, but {pick.miss()}; so it breaks this policy: "
                     + "; ".join(breaks(pick.params, stated.rules)))
        lines += [f"trial {region.trial}'s region: {region.miss()}" for region in tried[1:-1]]
    elif stated.missed is not None:
        lines.append(f"trial {pick.trial}: {pick.miss()}"
                     + (f"; nor did the front's other {len(tried) - 1} trials' regions hold" if len(tried) > 1 else ""))
    return lines


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
