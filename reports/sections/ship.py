"""The report's first screen: one verdict per job (``reports.sections.verdict``), the SLA each file
used and the one the verdict holds, who makes each change, and the lines to paste, one block per
kind (the job's PySpark, the brokers' configuration, shell commands), each labelled with where it
goes and who pastes it. Nothing on it is wider than a page: a long command is continued over lines
a shell reads as one. The evidence (runs, plots, tables) follows below it."""
from __future__ import annotations

from html import escape
from typing import Any

from reports.kit.shell import continued
from reports.sections.verdict import SHIP, SHIP_AS_IS, Answer, Verdict, verdicts
from workloads.snippets import paste_blocks
from workloads.tuning import KNOBS, LEVERS, WHO

# where a kind of line goes, the lever class whose owner pastes it, its code fence's language
BLOCKS = {"pyspark": ("PySpark, in the job's write", "job", "python"),
          "client_quota": ("Shell, the quota for the job's client.id, held on each broker", "quota", "sh"),
          "msk_configuration": ("Amazon MSK configuration (a new revision) or server.properties", "cluster", "properties"),
          "cluster_commands": ("Shell, the same at once on every broker, without a new revision", "cluster", "sh"),
          "no_snippet": ("quietload --set values with no snippet", "job", "text")}


def owner(lever: str) -> str:
    """``the cluster's owner``: who makes a lever class's change, without how."""
    return WHO[lever].partition(",")[0]


def who(lever: str) -> str:
    """Who makes a lever class's change: the job's owner, or another who must agree to it."""
    return WHO[lever] + ("" if lever == "job" else ", if they agree")


def _value(name: str, value: Any) -> str:
    return KNOBS[name].render(value)    # a quota's per broker: Kafka holds a client to it on each broker


def changes(params: dict[str, Any]) -> list[str]:
    """The change as who makes what, one line per lever class, cheapest first."""
    return [f"{who(lever)}: " + ", ".join(f"{name} = {_value(name, value)}" for name, value in params.items()
                                          if KNOBS[name].lever == lever)
            for lever in LEVERS if any(KNOBS[name].lever == lever for name in params)]


def headline(verdict: Verdict) -> str:
    shipped = verdict.shipped
    others = sorted({KNOBS[n].lever for n in shipped.params} - {"job"}, key=LEVERS.index) if shipped else []
    agree = f", if {' and '.join(map(owner, others))} agree{'s' if len(others) == 1 else ''}" if others else ""
    return f"{verdict.scenario}: {verdict.word}{agree}"


def reasons(verdict: Verdict) -> list[str]:
    """What the verdict rests on: the answer shipped first, then every file's answer that passes nothing."""
    shipped = [f"{verdict.shipped.says}."] if verdict.shipped is not None else []
    return shipped + [f"{answer.says}." for answer in verdict.others if not answer.passes]


def sla_line(verdict: Verdict) -> str:
    """The SLA each file used, and the one the verdict holds the job to (the strictest)."""
    answers = [a for a in (verdict.shipped, *verdict.others) if a is not None]
    used = "; ".join(f"{a.by}: {a.sla_words()}" for a in answers)
    if not verdict.strictest or len(answers) == 1:
        return f"SLA (each neighbour's p99 during the load) used by {used}."
    held = ", ".join(f"{name} {ms:.1f} ms" for name, ms in verdict.strictest.items())
    return f"SLA (each neighbour's p99 during the load) used by {used}. The verdict holds each to the strictest: {held}."


def not_shipped(verdict: Verdict) -> list[str]:
    return [f"Not shipped: {a.by}: {verdict.why_not(a)}." for a in verdict.others if a.passes]


def blocks(answer: Answer | None) -> list[tuple[str, str, list[str]]]:
    """(label, language, lines) per kind of line to paste; shell commands continued to fit a page."""
    out = []
    for kind, lines in paste_blocks(answer.paste if answer else ()):
        label, lever, language = BLOCKS[kind]
        shown = [part for line in lines for part in continued(line)] if language == "sh" else lines
        out.append((f"{label} ({owner(lever)}{'' if lever == 'job' else ', if they agree'})", language, shown))
    return out


def ship_markdown(studies: list[dict], gates: list[dict]) -> list[str]:
    found = verdicts(studies, gates)
    if not found:
        return []
    lines = ["## What to ship", ""]
    for verdict in found:
        lines += [f"**{headline(verdict)}.**", "", *reasons(verdict), "", sla_line(verdict), ""]
        if verdict.shipped and verdict.shipped.params:
            lines += [*(f"- {line}" for line in changes(verdict.shipped.params)), ""]
        for label, language, code in blocks(verdict.shipped):
            lines += [f"{label}:", "", f"```{language}", *code, "```", ""]
        lines += [*not_shipped(verdict), ""] if not_shipped(verdict) else []
    return lines


def ship_html(studies: list[dict], gates: list[dict]) -> list[str]:
    found = verdicts(studies, gates)
    if not found:
        return []
    parts = ['<section class="ship">', "<h2>What to ship</h2>"]
    for verdict in found:
        mark = "pass" if verdict.word in (SHIP, SHIP_AS_IS) else "over"
        parts += [f'<p class="verdict"><span class="{mark}">{escape(headline(verdict))}.</span></p>',
                  *(f'<p class="why">{escape(line)}</p>' for line in reasons(verdict)),
                  f'<p class="sla">{escape(sla_line(verdict))}</p>']
        if verdict.shipped and verdict.shipped.params:
            parts += ['<ul class="changes">', *(f"<li>{escape(line)}</li>" for line in changes(verdict.shipped.params)),
                      "</ul>"]
        for label, language, code in blocks(verdict.shipped):
            parts += [f'<p class="code-label">{escape(label)}:</p>',
                      f'<pre class="code" data-kind="{language}"><code>{escape(chr(10).join(code))}</code></pre>']
        parts += [f'<p class="meta">{escape(line)}</p>' for line in not_shipped(verdict)]
    return [*parts, "</section>"]
