"""The report's first screen: what to ship. From each study (``quietload tune``), its pick as who
must change what, with the lines to paste; with no pick, the closest trial and what it missed.
From each gate result (``check --json``), its verdict and the tested change with its lines to
paste. The evidence (runs, plots, tables) follows below it."""
from __future__ import annotations

from html import escape
from typing import Any

from reports.sections.header import gate_outcome
from tuner.snippets import paste_lines
from tuner.recommend import by_lever
from workloads.tuning import KNOBS


def _missed(trial: dict) -> str:
    over = [f"{key[4:] if key.startswith('sla:') else key} {value:+.1%} over" for key, value in
            sorted(trial["constraints"].items()) if value > 0]
    return ", ".join(over) or "the held-out seeds"


def _overrides(params: dict[str, Any]) -> tuple[str, ...]:
    return tuple(o for name, value in params.items() if name in KNOBS for o in KNOBS[name].overrides(value))


def _recommended(study: dict, name: str) -> tuple[str, list[str], list[str]]:
    """What tune recommended from the study, the values rounded as a person types them."""
    given = study["recommended"]
    params = given["params"]
    if given["meets_constraints"]:
        return (f"Ship trial {given['trial']} of the study of {name}, as tune recommends it (every constraint met on "
                "the model)", by_lever(params), list(paste_lines(_overrides(params))))
    wider = given.get("wider_lever")
    return (f"Nothing of the study of {name} passes: the closest, trial {given['trial']}, missed "
            f"{'; '.join(given['missed'])}" + (f"; {wider}" if wider else ""), by_lever(params), [])


def _study(study: dict) -> tuple[str, list[str], list[str]]:
    """A study's bottom line, its knob values by lever, and its lines to paste (none when nothing passed)."""
    trials = {t["number"]: t for t in study["trials"]}
    name = study["scenario"]["name"]
    if study.get("recommended"):
        return _recommended(study, name)
    pick = trials.get(study["pick"]) if study.get("pick") is not None else None
    if pick is not None:
        overrides = tuple(pick.get("overrides") or ())
        return (f"Ship trial {pick['number']} of the study of {name}: {pick['values']['produce_requests']:,} produce "
                f"requests, load {pick['values']['load_seconds']:.1f} s, every constraint met"
                + (" on the held-out seeds too" if (study.get("validation") or {}).get("held") else ""),
                by_lever(pick["params"]), list(paste_lines(overrides)))
    closest = min(study["trials"], key=lambda t: (sum(v for v in t["constraints"].values() if v > 0),
                                                   t["values"]["produce_requests"]), default=None)
    if closest is None:
        return f"Nothing to ship from the study of {name}: no trial completed", [], []
    return (f"Nothing of the study of {name} passes: the closest, trial {closest['number']}, missed ({_missed(closest)}); "
            "its recommendation file names the lever of a wider class that makes it pass", by_lever(closest["params"]), [])


def _gate(gate: dict) -> tuple[str, list[str], list[str]]:
    outcome = gate_outcome(gate)
    so = next((line for line in gate.get("recommendations") or [] if line.startswith("so: ")), None)
    if outcome == "PASS":
        return f"Ship {gate['scenario']} as checked: the gate passes", [], []
    if so:
        return f"{gate['scenario']} fails the gate; ship it with the tested change ({so})", [], list(gate.get("paste") or [])
    advice = (gate.get("recommendations") or ["no change recommended"])[0]
    return f"{gate['scenario']}: {outcome}; {advice}", [], list(gate.get("paste") or [])


def _answers(studies: list[dict], gates: list[dict]) -> list[tuple[str, list[str], list[str]]]:
    return [*map(_study, studies), *map(_gate, gates)]


def ship_markdown(studies: list[dict], gates: list[dict]) -> list[str]:
    answers = _answers(studies, gates)
    if not answers:
        return []
    lines = ["## What to ship", ""]
    for head, levers, paste in answers:
        lines += [f"**{head}.**", "", *(f"- {line}" for line in levers)]
        lines += (["", "```", *paste, "```"] if paste else []) + [""]
    return lines


def ship_html(studies: list[dict], gates: list[dict]) -> list[str]:
    answers = _answers(studies, gates)
    if not answers:
        return []
    parts = ["<h2>What to ship</h2>"]
    for head, levers, paste in answers:
        parts += [f"<p><b>{escape(head)}.</b></p>"]
        parts += ["<ul>", *(f"<li>{escape(line)}</li>" for line in levers), "</ul>"] if levers else []
        parts += [f"<pre>{escape(chr(10).join(paste))}</pre>"] if paste else []
    return parts
