"""The night's schedule (``plan --schedule``'s file): a table of the jobs' starts and ends, what each
neighbour's p99 was against its SLA over the night, the change the schedule needed, and the timeline:
the jobs as bars above each neighbour's p99 second by second, on one time axis."""
from __future__ import annotations

import shlex
from html import escape

from reports.kit import plot
from reports.kit.plot import COLORS, Plot
from reports.kit.tables import html_table, markdown_table

JOB_HEADER = ["job", "client.id", "start (s)", "end (s)", "alone: load (s)", "alone: within SLA"]


def _seeds(schedule: dict) -> str:
    seeds = schedule["seeds"]
    return f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}, each night at its worst"


def headline(schedule: dict) -> str:
    window = schedule["window"]
    verdict = "holds every SLA" if schedule["holds"] else "does NOT hold every SLA"
    return (f"{schedule['scenario']} schedule ({schedule['evaluator']}, {_seeds(schedule)}): "
            f"{len(schedule['jobs'])} job{'s' if len(schedule['jobs']) != 1 else ''} in the window {window['open_s']:g}-{window['close_s']:g} s, "
            f"the night ends at {schedule['night_end_s']:,.1f} s and {verdict}")


def job_rows(schedule: dict) -> list[list[str]]:
    return [[job["name"], job.get("client_id") or "", f"{job['start_s']:g}", f"{job['end_s']:,.1f}",
             f"{job['alone_load_seconds']:,.1f}", "yes" if job["alone_holds"] else "no"] for job in schedule["jobs"]]


def tenant_rows(schedule: dict) -> list[list[str]]:
    return [[t["name"], "-" if t["p99_ms_during"] is None else f"{t['p99_ms_during']:,.1f}", f"{t['sla_p99_ms']:g}"]
            for t in schedule["tenants"]]


def change_lines(schedule: dict) -> list[str]:
    """The change the night needed, one line a job that breached alone."""
    lines = []
    for change in schedule.get("change") or []:
        if change["found"]:
            lines.append(f"{change['job']} breached alone: {change['setting']} ({change['who']}) holds it alone "
                         f"on the model: {' '.join('--set ' + shlex.quote(o) for o in change['overrides'])}")
        else:
            lines.append(f"{change['job']} breached alone and none of the {change['tried']} single changes tried held it")
    return lines


def render_schedule_markdown(schedule: dict) -> str:
    lines = ["", f"## Night schedule: {schedule['scenario']}", "", headline(schedule) + ".", ""]
    lines += markdown_table(JOB_HEADER, job_rows(schedule)) + [""]
    lines += markdown_table(["neighbour", "p99 during the jobs (ms)", "SLA (ms)"], tenant_rows(schedule))
    lines += [f"- {line}" for line in change_lines(schedule)]
    return "\n".join(lines) + "\n"


def timeline_plot(schedule: dict) -> Plot:
    """Top: each job a bar from its start to its end; below: each neighbour's p99 per second with its
    SLA dashed; one time axis (seconds from the run's start)."""
    timeline = schedule["timeline"]
    names = list(timeline["p99_ms"])
    plt = plot.pyplot()
    figure, axes = plt.subplots(1 + len(names), 1, sharex=True, layout="constrained",
                                figsize=(10, 1.2 + 0.45 * len(timeline["jobs"]) + 1.8 * len(names)),
                                height_ratios=[max(1, 0.4 * len(timeline["jobs"]))] + [1] * len(names))
    axes = list(axes) if names else [axes]
    bars = axes[0]
    for row, job in enumerate(timeline["jobs"]):
        bars.barh(row, job["end_s"] - job["start_s"], left=job["start_s"], color=COLORS[row % len(COLORS)], height=0.6)
        bars.text(job["start_s"], row, f" {job['name']}", va="center", fontsize="small")
    bars.set_yticks([])
    bars.invert_yaxis()
    window = schedule["window"]
    for ax in axes:
        ax.axvspan(window["open_s"], window["close_s"], color="#000000", alpha=0.04, linewidth=0)
    bars.set_title(f"The night: {schedule['scenario']} (the window shaded)")
    for ax, name in zip(axes[1:], names):
        ax.plot(timeline["second"][:len(timeline["p99_ms"][name])], timeline["p99_ms"][name], color="#333333", linewidth=1)
        ax.axhline(timeline["sla_p99_ms"][name], color="#b00020", linestyle="--", linewidth=1)
        plot.log_axis_if_wide(ax, "y", [v for v in timeline["p99_ms"][name] if v], f"{name}\np99 (ms)",
                              f"{name}\np99 (ms, log)")
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("seconds from the run's start")
    return Plot(plot.svg(figure), f"night timeline, {schedule['scenario']}",
                "The jobs as bars at their scheduled starts; under them each neighbour's p99 second by second "
                "(the first seed's night), its SLA dashed.")


def render_schedule_html(schedule: dict) -> str:
    return "\n".join([f"<h2>Night schedule: {escape(schedule['scenario'])}</h2>", f"<p>{escape(headline(schedule))}.</p>",
                      html_table(JOB_HEADER, job_rows(schedule)),
                      html_table(["neighbour", "p99 during the jobs (ms)", "SLA (ms)"], tenant_rows(schedule)),
                      *(f"<p>{escape(line)}</p>" for line in change_lines(schedule)), timeline_plot(schedule).html()])


def paste_lines(schedule: dict) -> list[str]:
    """Each job's start as ``--set`` values (a night's job by its index), its own change's too, each
    quoted for a shell: ``batch[0]`` is a glob pattern to ``sh``."""
    starts = [f"batch[{i}].start={job['start_s']:g}s" for i, job in enumerate(schedule["jobs"])]
    lines = [f"--set {shlex.quote(start)}" for start in starts]
    for change in schedule.get("change") or []:
        lines += [f"--set {shlex.quote(line)}" for line in change.get("overrides", [])]
    return lines


def render_schedule_text(schedule: dict, scenario_file: object) -> str:
    """What ``plan --schedule`` prints: the headline, the jobs and neighbours, the change, what to paste."""
    width = max(len(job["name"]) for job in schedule["jobs"])
    lines = [headline(schedule), "", f"{'job':<{width}}  {'start':>9}  {'end':>9}  alone on the model"]
    changed = {change["job"] for change in schedule.get("change") or [] if change["found"]}
    for job in schedule["jobs"]:
        alone = f"{job['alone_load_seconds']:,.1f} s load, {'within SLA' if job['alone_holds'] else 'OVER SLA'}"
        alone += " before the change" if job["name"] in changed else ""
        lines.append(f"{job['name']:<{width}}  {job['start_s']:>7g} s  {job['end_s']:>7,.1f} s  {alone}")
    lines += ["", "neighbour p99 during the jobs (ms)"]
    lines += [f"  {t['name']}: {'-' if t['p99_ms_during'] is None else format(t['p99_ms_during'], ',.1f')} "
              f"(SLA {t['sla_p99_ms']:g}){'  OVER SLA' if t['p99_ms_during'] and t['p99_ms_during'] > t['sla_p99_ms'] else ''}"
              for t in schedule["tenants"]]
    lines += [f"change: {line}" for line in change_lines(schedule)]
    if schedule.get("pruned"):
        lines.append(f"{schedule['pruned']} of the {schedule['search']['trials']} schedules tried stopped at their "
                     "verdict (pruned, never chosen): over an SLA or a deadline, or their night past the end of one "
                     "that held")
    if not schedule["holds"]:
        lines.append(f"no schedule of the {schedule['search']['trials']} tried holds: the closest is shown")
        need = schedule.get("back_to_back_window_s")
        if need and need > schedule["window"]["length_s"] and all(job["alone_holds"] for job in schedule["jobs"]):
            lines.append(f"  every job holds alone: back to back they need --window {need:g}s")
        else:
            lines.append("  try more --trials, or the change above")
    lines += ["", f"to paste (each job's start, from the run's start; {scenario_file} has them)"]
    return "\n".join(lines + [f"  {line}" for line in paste_lines(schedule)])
