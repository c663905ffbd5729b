"""Study files (``quietload tune``) -> a Markdown section, CSV rows of the trials, the Pareto-front
and parameter-importance plots. Figures are taken as the study file holds them: only formatted."""
from __future__ import annotations

import csv
import io
from html import escape

from reports.kit import plot
from reports.kit.plot import Plot, log_axis_if_wide
from reports.kit.tables import html_table, markdown_table
from tuner.space import render_value
from workloads.units import format_seeds

def _trials(study: dict) -> dict[int, dict]:
    return {t["number"]: t for t in study["trials"]}


def knob_names(study: dict) -> list[str]:
    """The searched knobs in the study's order (its ``space``), then any only a trial names."""
    names = list(study.get("space") or {})
    for trial in study["trials"]:
        names += [name for name in trial["params"] if name not in names]
    return names


def _requests(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def headline(study: dict) -> list[str]:
    scenario, trials = study["scenario"], study["trials"]
    feasible = sum(1 for t in trials if t["feasible"])
    overrides = scenario.get("overrides") or []
    seeds = study.get("model_seeds") or []
    repeat = f", each trial the worst of model {format_seeds(seeds)}" if len(seeds) > 1 else ""
    stopped = len(study.get("pruned_trials") or [])
    pruned = f", {stopped} more pruned (stopped at their verdict)" if stopped else ""
    lines = [f"Study {study.get('study_name', scenario['name'])} ({study.get('sampler', '?')} sampler, seed {study.get('seed', '?')}{repeat}, "
             f"prefer {study.get('prefer', 'requests')}): {len(trials)} trials, {feasible} feasible, "
             f"{study.get('failed_trials', 0)} failed{pruned}; Pareto front of {len(study['pareto_front'])} trial(s)",
             f"Scenario {scenario['name']} from {scenario.get('source') or '-'}"
             + (f" with --set {' '.join(overrides)}" if overrides else ""),
             "Objectives: produce requests and load seconds, both minimized; constraints: "
             + study.get("constraints", "each neighbour's p99 during the load within its SLA")]
    return lines


def knob_value(name: str, value: object) -> str:
    """A knob's value for reading; a quota's per broker, as Kafka holds a client to it on each broker."""
    return render_value(name, value)


def pick_knob_rows(study: dict) -> list[list[str]]:
    trial = _trials(study).get(study["pick"])
    return [] if trial is None else [[name, knob_value(name, trial["params"][name])]
                                     for name in knob_names(study) if name in trial["params"]]


def _neighbours(study: dict, figures: dict) -> list[str]:
    names = list((study.get("baseline") or {}).get("p99_ms_during") or {})
    return names + [name for name in figures.get("tenants", {}) if name not in names]


def pick_figure_rows(study: dict) -> list[list[str]]:
    """The job as it is (the study's ``baseline``) -> the pick (its trial's ``figures``)."""
    trial = _trials(study).get(study["pick"])
    if trial is None:
        return []
    before, after = study.get("baseline") or {}, trial.get("figures") or {}

    def cell(value: float | None, fmt: str) -> str:
        return "-" if value is None else fmt.format(value)
    after_kb = after["mean_batch_bytes"] / 1024 if after.get("mean_batch_bytes") is not None else None
    rows = [["produce requests", _requests(before.get("produce_requests")), _requests(trial["values"]["produce_requests"])],
            ["mean batch (KB of records)", cell(before.get("mean_batch_kb"), "{:,.1f}"), cell(after_kb, "{:,.1f}")],
            ["compression ratio", cell(before.get("compression_ratio"), "{:.3f}"), cell(after.get("compression_ratio"), "{:.3f}")],
            ["load (s)", _seconds(before.get("load_seconds")), _seconds(trial["values"]["load_seconds"])]]
    tenants = after.get("tenants", {})
    for name in _neighbours(study, after):
        sla = tenants.get(name, {}).get("sla_p99_ms")
        rows.append([f"{name} p99 during (ms)" + (f", SLA {sla:g}" if sla is not None else ""),
                     cell((before.get("p99_ms_during") or {}).get(name), "{:,.1f}"),
                     cell(tenants.get(name, {}).get("p99_ms_during"), "{:,.1f}")])
    return rows


FIGURE_HEADER = ["figure", "before (the job as it is)", "after (the pick)"]
IMPORTANCE_HEADER = ["knob", "importance"]


def front_table(study: dict) -> tuple[list[str], list[list[str]]]:
    """One row per front trial, in the file's order (fewest requests first)."""
    names, trials = knob_names(study), _trials(study)
    header = ["trial", "produce requests", "load (s)", *names]
    rows = []
    for number in study["pareto_front"]:
        trial = trials[number]
        rows.append([f"{number} (pick)" if number == study["pick"] else str(number),
                     _requests(trial["values"]["produce_requests"]), _seconds(trial["values"]["load_seconds"]),
                     *(knob_value(name, trial["params"][name]) if name in trial["params"] else "-" for name in names)])
    return header, rows


def importance_rows(study: dict) -> list[list[str]]:
    return [[name, f"{value:.4f}"] for name, value in (study["importances"] or {}).items()]


def _pick_line(study: dict) -> str:
    validation = study.get("validation")
    if validation:
        seeds = validation["seeds"]
        held_out = f"held-out {format_seeds(seeds)}"
        missed = [f"trial {t['trial']} on seed {t['missed_on']}" for t in validation["tried"] if t["missed_on"] is not None]
        missed_text = f"; missed: {'; '.join(missed)}" if missed else ""
        if validation["held"]:
            return (f"The pick: trial {study['pick']} (the first point of the front, in the order of the "
                    f"preference '{study.get('prefer', 'requests')}', that met the constraints on {held_out}{missed_text}).")
        return f"No point of the front met the constraints on {held_out}{missed_text}: no pick."
    if study["pick"] is None:
        return "No trial met the constraints: no pick."
    return f"The pick: trial {study['pick']} (the front's point the preference '{study.get('prefer', 'requests')}' picks)."


def _importance_line(study: dict) -> str:
    if not study["importances"]:
        return "No importances in the study (too few completed trials to say what mattered)."
    return (f"Each knob's share of the variation in {study.get('importances_target', 'produce_requests').replace('_', ' ')} "
            "across the trials (the shares sum to 1).")


def render_study_markdown(study: dict) -> str:
    lines = [f"## Tuning study: {study['scenario']['name']}", "", *(f"{line}." for line in headline(study)), "",
             _pick_line(study), ""]
    if study["pick"] is not None:
        lines += [*markdown_table(["knob", "value"], pick_knob_rows(study)), "", *markdown_table(FIGURE_HEADER, pick_figure_rows(study)), ""]
    lines += ["### Pareto front", ""]
    header, rows = front_table(study)
    lines += [*markdown_table(header, rows), ""] if rows else ["No feasible trial: the front is empty.", ""]
    lines += ["### Parameter importance", "", _importance_line(study), ""]
    if study["importances"]:
        lines += [*markdown_table(IMPORTANCE_HEADER, importance_rows(study)), ""]
    if pruned := pruned_rows(study):
        lines += ["### Pruned trials", "", *markdown_table(PRUNED_HEADER, pruned), ""]
    return "\n".join(lines)


PRUNED_HEADER = ["trial", "stopped at its verdict", "produce requests so far", "load so far (s)"]


def pruned_rows(study: dict) -> list[list[str]]:
    """The trials stopped at their verdict (never a pick): why, and their figures so far."""
    return [[str(t["number"]), t["pruned"], _requests(t["values"]["produce_requests"]), _seconds(t["values"]["load_seconds"])]
            for t in study.get("pruned_trials") or []]


def render_study_csv(studies: list[dict]) -> str:
    """One row per trial of every study: the exact values, knob values (``none`` for an unset
    one, empty when the study did not search it) and constraints."""
    knobs = list(dict.fromkeys(name for study in studies for name in knob_names(study)))
    constraints = list(dict.fromkeys(key for study in studies for t in study["trials"] for key in t["constraints"]))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["scenario", "study", "trial", "produce_requests", "load_seconds", "feasible", "pareto_front", "pick",
                     *(f"knob.{name}" for name in knobs), *(f"constraint.{key}" for key in constraints)])
    for study in studies:
        for t in study["trials"]:
            params = t["params"]
            writer.writerow([study["scenario"]["name"], study.get("study_name", ""), t["number"],
                             t["values"]["produce_requests"], t["values"]["load_seconds"], t["feasible"],
                             t["number"] in study["pareto_front"], t["number"] == study["pick"],
                             *(("none" if params[n] is None else params[n]) if n in params else "" for n in knobs),
                             *(t["constraints"].get(key, "") for key in constraints)])
    return out.getvalue()


PARETO_CAPTION = ("Every trial's produce requests against its load time (dots met every constraint, faint crosses missed "
                  "one): the line is the feasible Pareto front, the star the pick, the diamond the job as it is; lower left is better.")
IMPORTANCE_CAPTION = ("How much of the variation in produce requests across the trials each knob accounts for: "
                      "the long bars are the knobs to set with care, the short ones barely moved the count.")


def pareto_plot(study: dict) -> Plot:
    """x: produce requests; y: load (s); all trials faint, the front as a line, the pick and the job as it is marked."""
    plt = plot.pyplot()
    figure, axes = plt.subplots(figsize=(10, 4.6), layout="constrained")
    trials, name = _trials(study), study["scenario"]["name"]

    def xy(group: list[dict]) -> tuple[list[int], list[float]]:
        return [t["values"]["produce_requests"] for t in group], [t["values"]["load_seconds"] for t in group]
    axes.plot(*xy([t for t in study["trials"] if not t["feasible"]]), "x", color="#777777", alpha=0.45, label="trial, missed a constraint")
    axes.plot(*xy([t for t in study["trials"] if t["feasible"]]), "o", color="#1f77b4", alpha=0.45, label="trial, feasible")
    if study["pareto_front"]:
        axes.plot(*xy([trials[n] for n in study["pareto_front"]]), "-o", color="#1f77b4", linewidth=1.5, label="Pareto front")
    if study["pick"] is not None:
        axes.plot(*xy([trials[study["pick"]]]), "*", color="#d62728", markersize=16, label=f"pick (trial {study['pick']})")
    baseline = study.get("baseline") or {}
    if baseline.get("produce_requests") is not None and baseline.get("load_seconds") is not None:
        axes.plot([baseline["produce_requests"]], [baseline["load_seconds"]], "D", color="black", label="the job as it is")
    requests = [t["values"]["produce_requests"] for t in study["trials"]] + [baseline.get("produce_requests") or 0]
    if log_axis_if_wide(axes, "x", [r for r in requests if r > 0], "produce requests during the load",
                        "produce requests during the load (log scale)"):
        axes.xaxis.set_major_locator(plt.LogLocator(subs=(1.0, 2.0, 5.0)))   # 1-2-5 steps: labels within a decade too
        axes.xaxis.set_minor_formatter(plt.NullFormatter())   # one number format on the axis
    axes.set_ylabel("load duration (s)")
    axes.set_title(f"Tuning study, Pareto front: {name}")
    axes.grid(alpha=0.3)
    figure.legend(loc="outside lower center", ncol=3, frameon=False, fontsize="small")   # off the trials
    return Plot(plot.svg(figure), f"Pareto front, {name}", PARETO_CAPTION)


def importance_plot(study: dict) -> Plot | None:
    """Horizontal bars of the study's importances, most important on top; None without any."""
    if not study["importances"]:
        return None
    names, values = list(study["importances"]), list(study["importances"].values())
    figure, axes = plot.pyplot().subplots(figsize=(10, 0.8 + 0.45 * len(names)), layout="constrained")
    bars = axes.barh(names, values, color="#1f77b4")
    axes.bar_label(bars, labels=[f"{value:.4f}" for value in values], padding=3)
    axes.invert_yaxis()
    axes.set_xlabel("importance for produce requests (share of the variation, sums to 1)")
    axes.set_ylabel("knob")
    axes.set_title(f"Parameter importance: {study['scenario']['name']}")
    axes.margins(x=0.15)
    return Plot(plot.svg(figure), f"parameter importance, {study['scenario']['name']}", IMPORTANCE_CAPTION)


def render_study_html(study: dict) -> str:
    parts = [f"<h2>Tuning study: {escape(study['scenario']['name'])}</h2>",
             *(f"<p>{escape(line)}.</p>" for line in headline(study)), f"<p>{escape(_pick_line(study))}</p>"]
    if study["pick"] is not None:
        parts += [html_table(["knob", "value"], pick_knob_rows(study)), html_table(FIGURE_HEADER, pick_figure_rows(study))]
    header, rows = front_table(study)
    parts += ["<h3>Pareto front</h3>", html_table(header, rows) if rows else "<p>No feasible trial: the front is empty.</p>",
              pareto_plot(study).html(), "<h3>Parameter importance</h3>", f"<p>{escape(_importance_line(study))}</p>"]
    drawn = importance_plot(study)
    if drawn is not None:
        parts += [html_table(IMPORTANCE_HEADER, importance_rows(study)), drawn.html()]
    if pruned := pruned_rows(study):
        parts += ["<h3>Pruned trials</h3>", html_table(PRUNED_HEADER, pruned)]
    return "\n".join(parts)
