"""One verdict per job from the studies (``quietload tune``) and gate results (``check --json``) a
report is given, and the SLA it holds the job to.

Each file answers on the SLA it was judged with: tune's on the study's (often ``1.5x`` each
neighbour's p99 alone, resolved on each run), check's on its scenario's (``10ms``). The verdict
holds every neighbour to the strictest SLA any of the job's files used: a change shown to pass
only at a looser SLA is not shipped, and the verdict says why. So the report never shows a change
to ship beside a verdict that fails, and never a pass that another file's SLA contradicts.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from reports.sections.header import gate_outcome
from workloads.snippets import paste_lines
from workloads.errors import ScenarioError
from workloads.reader import safe_yaml
from workloads.sla import Sla, parse_sla
from workloads.tuning import KNOBS

SHIP, SHIP_AS_IS = "SHIP WITH THE CHANGES BELOW", "SHIP AS CHECKED"
DO_NOT_SHIP, NOTHING_TO_JUDGE = "DO NOT SHIP", "NOTHING TO JUDGE"


@dataclass(frozen=True)
class Answer:
    """What one file says of one job: whether it passes (as it is or with a change), on which SLA."""

    scenario: str
    by: str                        # "tune's trial 53", "check"
    passes: bool | None            # None: nothing to judge (no neighbour measured)
    says: str                      # its answer, in one sentence
    sla_ms: dict[str, float]       # each neighbour's SLA in ms as it judged (the lowest over its runs)
    sla_stated: dict[str, str]     # as stated: ``10ms``, ``1.5x`` ("" where the file does not say)
    params: dict[str, Any] = field(default_factory=dict)   # the change's knob values (none: as it is)
    paste: tuple[str, ...] = ()

    def sla_words(self) -> str:
        """``payment-api 10.0 ms, fraud-scoring 10.0 ms`` or, for a relative SLA, ``1.5x its p99 alone
        for each neighbour: payment-api 11.7 ms, ...``, as resolved on the file's run."""
        if not self.sla_ms:
            return "not in the file (written before quietload recorded it)"
        relative = {name: sla for name, sla in map(_sla, self.sla_stated.items()) if sla is not None and sla.relative}
        figures = ", ".join(f"{name} {ms:.1f} ms" for name, ms in self.sla_ms.items())
        if relative and len({str(sla) for sla in relative.values()}) == 1 and set(relative) == set(self.sla_ms):
            return f"{next(iter(relative.values())).describe()} for each neighbour: {figures}"
        return figures + "".join(f" ({name}: {sla.describe()})" for name, sla in relative.items())


def _sla(item: tuple[str, str]) -> tuple[str, Sla | None]:
    """A neighbour's SLA as a file states it (None where it does not say, or says it in no form quietload reads)."""
    name, stated = item
    try:
        return name, parse_sla(stated, name) if stated else None
    except ScenarioError:
        return name, None


def looser(answer: Answer, strictest: dict[str, float]) -> list[str]:
    """The neighbours ``answer`` held to a looser SLA than the strictest one of the job's files."""
    return [name for name, ms in answer.sla_ms.items() if ms > strictest.get(name, ms) + 1e-9]


def _typed(params: dict[str, Any]) -> dict[str, Any]:
    """A study file's knob values as the scenario holds them (a byte rate in whole bytes per second)."""
    return {name: KNOBS[name].typed(value) for name, value in params.items() if name in KNOBS}


def params_of(change: tuple[str, ...]) -> dict[str, Any]:
    """A gate file's change (its ``--set`` values, as a person repeats it) as knob values
    (``batch.producer.linger.ms=10`` -> ``{linger.ms: 10.0}``); a value a knob sets along with its own
    (enable.idempotence with acks), or a night's job's, is left out."""
    by_key = {knob.override_key: knob for knob in KNOBS.values()}
    params = {}
    for value in change:
        key, _, text = value.partition("=")
        if key in by_key:
            params[by_key[key].name] = by_key[key].parse(safe_yaml(text, key, "--set value"), key)
    return params


_SLA_OVERRIDE = re.compile(r"^tenants\.(\d+)\.sla_p99=(.+)$")


def _study_slas(study: dict, trial: dict | None) -> tuple[dict[str, float], dict[str, str]]:
    """The SLA the study held each neighbour to, as its trial's figures hold it, and as ``--set`` stated it."""
    tenants = (trial or {}).get("figures", {}).get("tenants", {})
    names = list(tenants)
    stated = {names[int(m[1])]: m[2] for o in study["scenario"].get("overrides") or [] if (m := _SLA_OVERRIDE.match(o))
              and int(m[1]) < len(names)}
    return ({name: t["sla_p99_ms"] for name, t in tenants.items() if t.get("sla_p99_ms") is not None},
            {name: stated.get(name, "") for name in names})


def _missed(trial: dict) -> str:
    over = [f"{key[4:] if key.startswith('sla:') else key} {value:+.1%} over" for key, value in
            sorted(trial["constraints"].items()) if value > 0]
    return ", ".join(over) or "the held-out seeds"


def study_answer(study: dict) -> Answer:
    """A study's answer: its pick (tune's recommendation, values rounded as a person types them), or the closest trial."""
    trials = {t["number"]: t for t in study["trials"]}
    name = study["scenario"]["name"]
    given = study.get("recommended")
    if given is None and study.get("pick") is not None:
        pick = trials[study["pick"]]
        given = {"trial": pick["number"], "meets_constraints": True, "params": pick["params"]}
    if given is None:
        closest = min(study["trials"], key=lambda t: (sum(v for v in t["constraints"].values() if v > 0),
                                                       t["values"]["produce_requests"]), default=None)
        if closest is None:
            return Answer(name, "tune", False, "no trial of tune's study completed", {}, {})
        return Answer(name, f"tune's trial {closest['number']}", False,
                      f"nothing tune tried passes; the closest, trial {closest['number']}, missed ({_missed(closest)})",
                      *_study_slas(study, closest))
    trial = trials.get(given["trial"])
    by = f"tune's trial {given['trial']}"
    if given["meets_constraints"]:
        params = given["params"]
        held = " and on the held-out seeds" if (study.get("validation") or {}).get("held") else ""
        return Answer(name, by, True, f"{by} meets every constraint on the model{held}", *_study_slas(study, trial),
                      params=params, paste=paste_lines(_typed(params)))
    wider = given.get("wider_lever")
    return Answer(name, by, False, f"nothing tune tried passes; the closest, trial {given['trial']}, missed "
                  f"{'; '.join(given['missed'])}" + (f"; {wider}" if wider else ""), *_study_slas(study, trial))


def _so(gate: dict) -> tuple[str, ...]:
    """The tested change's --set values from its ``so:`` line, for a gate result written before ``change``."""
    so = next((line for line in gate.get("recommendations") or [] if line.startswith("so: ")), "so: ")
    words = shlex.split(so[4:])
    return tuple(value for option, value in zip(words, words[1:]) if option == "--set")


def gate_answer(gate: dict) -> Answer:
    """A gate result's answer: a pass, a fail with the change the model predicts passes, or a fail."""
    slas = gate.get("slas") or []
    sla_ms = {s["name"]: min(s["sla_p99_ms"]) for s in slas if s.get("sla_p99_ms")}
    stated = {s["name"]: s.get("sla_p99", "") for s in slas}
    outcome, name = gate_outcome(gate), gate["scenario"]
    failed = ", ".join(v["rule"] for v in gate["verdicts"] if v["status"] == "fail")
    if outcome == "PASS":
        return Answer(name, "check", True, "check passes it as checked", sla_ms, stated)
    if outcome != "FAIL":
        return Answer(name, "check", None, "check had nothing to judge: no neighbour was measured during the load",
                      sla_ms, stated)
    if change := tuple(gate.get("change") or _so(gate)):
        needs = gate.get("paste_needs") or ""
        return Answer(name, "check", True, f"check fails it as it is ({failed}); with the change below "
                      + (f"({needs}'s too) " if needs else "") + "the model predicts every rule passes",
                      sla_ms, stated, params_of(change), tuple(gate.get("paste") or ()))
    advice = (gate.get("recommendations") or ["no change recommended"])[0]
    return Answer(name, "check", False, f"check fails it ({failed}); {advice}", sla_ms, stated)


@dataclass(frozen=True)
class Verdict:
    """The one verdict for a job, the SLA it holds it to, the answer it ships (if any) and the others."""

    scenario: str
    word: str
    strictest: dict[str, float]
    shipped: Answer | None
    others: tuple[Answer, ...]

    def why_not(self, answer: Answer) -> str:
        """Why an answer that passes is not the one shipped."""
        over = looser(answer, self.strictest)
        if over:
            held = ', '.join(f'{n} {self.strictest[n]:.1f} ms' for n in over)
            return (f"it passed at a looser SLA ({answer.sla_words()}) than the strictest of this report's files "
                    f"({held}); run it against {held} before shipping it")
        return "it passes too; the change above comes first"


def verdicts(studies: list[dict], gates: list[dict]) -> list[Verdict]:
    """One verdict per job (scenario name), in the order the files came."""
    answers = [*map(study_answer, studies), *map(gate_answer, gates)]
    out = []
    for scenario in dict.fromkeys(a.scenario for a in answers):
        mine = [a for a in answers if a.scenario == scenario]
        strictest: dict[str, float] = {}
        for answer in mine:
            for name, ms in answer.sla_ms.items():
                strictest[name] = min(ms, strictest.get(name, ms))
        shippable = [a for a in mine if a.passes and not looser(a, strictest)]
        shipped = shippable[0] if shippable else None
        if shipped is not None:
            word = SHIP if shipped.params else SHIP_AS_IS
        else:
            word = DO_NOT_SHIP if any(a.passes is not None for a in mine) else NOTHING_TO_JUDGE
        out.append(Verdict(scenario, word, strictest, shipped, tuple(a for a in mine if a is not shipped)))
    return out
