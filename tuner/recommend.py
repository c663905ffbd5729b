"""The recommendation: the picked knob values as scenario overrides and a scenario file, the
figures before -> after with the mechanism in words, and ready-to-paste snippets (workloads.snippets).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from simulator.contract import RunResult, scenario_path
from simulator.contract import explain as words
from simulator.contract.files import RECOMMENDATION
from workloads.snippets import property_value, render_snippets, rounded_params, snippets
from tuner.space import render_value
from workloads import Scenario, ScenarioError
from workloads.reader import dump_yaml
from workloads.scenario import apply_overrides, with_file_values
from workloads.tuning import KNOBS, LEVERS, WHO, params_changes
from workloads.units import format_seeds



def by_lever(params: dict[str, Any]) -> list[str]:
    """The knob values as who must change what: one line per lever class, cheapest first."""
    return [f"{WHO[lever]}: " + ", ".join(f"{name} = {KNOBS[name].render(value)}" for name, value in params.items()
                                          if KNOBS[name].lever == lever)
            for lever in LEVERS if any(KNOBS[name].lever == lever for name in params)]


def _changes(baseline: Scenario, params: dict[str, Any]) -> list[str]:
    changed = []
    for name, value in params.items():
        before = KNOBS[name].current(baseline)
        if before != value and not (isinstance(value, (int, float)) and before is not None
                                    and float(before) == float(value)):
            changed.append(words.changed(name, render_value(name, before), render_value(name, value)))
    return changed


def explain(baseline: RunResult, picked: RunResult, baseline_scenario: Scenario, params: dict[str, Any]) -> list[str]:
    """The change in words, by mechanism, from the two runs' own figures."""
    return words.summary_change(baseline.summary, picked.summary) + [
        words.settings_changed(_changes(baseline_scenario, params))]


@dataclass(frozen=True)
class Recommendation:
    FILES = ("recommendation.yaml", "tuned.yaml", "snippets.txt")   # what ``write`` writes, after the scenario's name

    scenario_name: str
    source: str
    seed: int
    trial: int
    feasible: bool
    params: dict[str, Any]
    overrides: list[str]          # the tune run's --set overrides, then the knobs' (as a person repeats the pick)
    before: dict[str, Any]
    after: dict[str, Any]
    explanation: list[str]
    snippets: dict[str, Any] = field(default_factory=dict)
    missed: list[str] = field(default_factory=list)
    wider: str = ""               # with no feasible trial: the cheapest lever of a class not searched that makes it pass
    model_seeds: list[int] = field(default_factory=list)   # each trial's runs (none given: seed); before/after are the first's
    validation: dict[str, Any] | None = None   # the front's points on held-out seeds, when run
    sla_sources: list[str] = field(default_factory=list)   # where each relative SLA's figure came from
    given: list[str] = field(default_factory=list)   # the tune run's own --set overrides (its command line)
    marginal: str = ""            # a pick within the model's error of an SLA: which, and the factor (judging.margin)

    @property
    def seeds(self) -> list[int]:
        return self.model_seeds or [self.seed]

    def scenario_fragment(self, out_dir: Path, base: dict[str, Any]) -> dict[str, Any]:
        """A scenario file that ``extends:`` the tuned one and states only the changed keys
        (with the whole resolved scenario when a --set override addressed a list item). ``base`` is the
        tune run's scenario (its own ``--set`` applied); the picked values are set on it as the file states them."""
        name = {"name": f"{self.scenario_name}-tuned"}
        changes = params_changes(self.params)
        whole = {**with_file_values(base, changes), **name}
        for tenant, resolved in zip(whole.get("tenants") or [], base.get("tenants") or []):
            tenant["sla_p99"] = resolved["sla_p99"]   # as the study held it: a relative SLA resolved once
        if self.sla_sources:   # the SLAs the study held the pick to, stated, not resolved again
            return whole
        try:
            fragment = with_file_values(apply_overrides({}, self.given), changes)
        except ScenarioError:
            return whole
        extends = os.path.relpath(Path(self.source).resolve(), out_dir.resolve()) if self.source else None
        return {"extends": extends, **name, **fragment} if extends else whole

    def to_dict(self) -> dict[str, Any]:
        return {**RECOMMENDATION.document(), "scenario": self.scenario_name, "source": self.source, "seed": self.seed,
                "model_seeds": self.seeds, "validation": self.validation,
                "trial": self.trial, "meets_constraints": self.feasible, "missed": self.missed,
                "params": self.params, "overrides": self.overrides, "predicted": {"before": self.before, "after": self.after},
                "explanation": self.explanation, "wider_lever": self.wider or None, "snippets": self.snippets,
                "slas": self.sla_sources, "marginal": self.marginal or None}

    def write(self, out_dir: Path, base: dict[str, Any]) -> list[Path]:
        """``<scenario>-recommendation.yaml``, ``<scenario>-tuned.yaml`` and ``<scenario>-snippets.txt``."""
        out_dir.mkdir(parents=True, exist_ok=True)
        paths = [scenario_path(self.scenario_name, kind, out_dir) for kind in self.FILES]
        RECOMMENDATION.write_yaml(self.to_dict(), paths[0])
        paths[1].write_text(dump_yaml(self.scenario_fragment(out_dir, base)))
        paths[2].write_text(self.snippet_head() + render_snippets(self.snippets))
        return paths

    def snippet_head(self) -> str:
        """Snippets of a pick that misses say so before anything can be pasted."""
        if self.feasible:
            return ""
        return "".join(f"# {line}\n" for line in
                       [f"NOT A PASSING PICK: trial {self.trial} missed {'; '.join(self.missed)} on the model"]
                       + ([self.wider] if self.wider else [])) + "\n"

    def render(self) -> str:
        head = (f"recommendation (trial {self.trial}, {seeds_label(self.seeds)})" if self.feasible else
                f"no trial met the constraints; closest (trial {self.trial}) missed: {', '.join(self.missed)}")
        return "\n".join([head] + [f"  {line}" for line in by_lever(self.params)]
                         + ([f"  {self.wider}"] if self.wider else [])
                         + [f"  {line}" for line in self.sla_sources]
                         + ([f"  {self.marginal}"] if self.marginal else [])
                         + ["", "why"] + [f"  - {line}" for line in self.explanation])


def summary_figures(result: RunResult) -> dict[str, Any]:
    s = result.summary
    return {"produce_requests": s.produce_requests, "mean_batch_kb": round(s.mean_batch_bytes / 1024, 1),
            "compression_ratio": round(s.compression_ratio, 3), "load_seconds": round(s.load_seconds, 2),
            "p99_ms_during": {t.name: round(t.p99_ms_during, 1) for t in s.tenants},
            "p99_ms_before": {t.name: round(t.p99_ms_before, 1) for t in s.tenants}}


def missed_constraints(constraints: dict[str, float], figures: dict[str, Any]) -> list[str]:
    """The constraints a trial missed, in words, from its figures (over several seeds: the worst)."""
    missed = []
    for key, value in sorted(constraints.items()):
        if value <= 0:
            continue
        if key.startswith("sla:"):
            tenant = figures["tenants"][key[4:]]
            missed.append(words.missed_sla(key[4:], tenant["p99_ms_during"], tenant["sla_p99_ms"]))
        else:
            missed.append(f"load {figures['load_seconds']:.1f} s > deadline ({value:+.0%})")
    return missed


def seeds_label(seeds: list[int]) -> str:
    return f"model {format_seeds(seeds)}"


def spread_lines(figures: dict[str, Any]) -> list[str]:
    """A trial run on several seeds: how far its figures moved between them."""
    spread = figures.get("spread")
    if not spread:
        return []
    p99 = ", ".join(f"{name} p99 during {low:,.1f}-{high:,.1f} ms" for name, (low, high) in spread["p99_ms_during"].items())
    return [f"over {seeds_label(figures['model_seeds'])}, each counted at its worst: produce requests "
            f"{spread['produce_requests'][0]:,}-{spread['produce_requests'][1]:,}, load "
            f"{spread['load_seconds'][0]:.1f}-{spread['load_seconds'][1]:.1f} s, {p99}"]


def rounded_pick(objective: Any, chosen: Any, held_out: tuple[int, ...] = (),
                 seed_runs: Any = None) -> tuple[dict[str, Any], list[str]]:
    """The pick's knob values rounded to what a person types, run again on the model on the
    study's seeds and ``held_out``: the rounded values when they meet the constraints wherever
    the exact ones did (or the exact ones missed anyway), else the exact values; and the line
    saying which, and what the model predicts for the rounded ones. ``seed_runs``
    (tuner.held_out.SeedRuns) runs the seeds side by side."""
    bounds = {r.name: (r.low, r.high) for r in objective.space.ranges if r.knob.kind != "choice"}
    rounded = rounded_params(chosen.params, bounds)
    changed = [words.changed(name, property_value(name, chosen.params[name]), property_value(name, value))
               for name, value in rounded.items() if value != chosen.params[name]]
    if not changed:
        return dict(chosen.params), []
    seeds = tuple(objective.seeds) + tuple(held_out)
    outcome = seed_runs.outcome_on(rounded, seeds) if seed_runs else objective.evaluate_on(rounded, seeds)
    figures = outcome.figures
    p99 = ", ".join(words.p99_of_sla(name, t["p99_ms_during"], t["sla_p99_ms"]) for name, t in figures["tenants"].items())
    predicted = (f"on {seeds_label(list(seeds))} the model predicts, at the worst seed, "
                 f"{outcome.produce_requests:,} produce requests, load {outcome.load_seconds:.1f} s, {p99}")
    if outcome.feasible or not chosen.feasible:
        return rounded, [f"rounded to what a person types ({', '.join(changed)}): {predicted}"]
    return dict(chosen.params), [f"not rounded ({', '.join(changed)} would miss: "
                                 f"{'; '.join(missed_constraints(outcome.constraints, figures))}): {predicted} for the rounded values"]
