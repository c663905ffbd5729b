"""Plan files (``quietload plan``) -> a console table, a Markdown section, CSV rows of the
points and the capacity plot. Figures are taken as the plan file holds them."""
from __future__ import annotations

import csv
import io
from html import escape

from reports.kit import plot
from reports.kit.plot import LEGEND_ROW_INCHES, Plot, legend_below, legend_rows, log_axis_if_wide
from reports.kit.tables import html_table
from simulator.contract import explain as words
from workloads.units import format_seeds

DEFINITIONS = (
    "A point: concurrent loads of the job, each on its executors' cores (its ingest rate), its files' GB each. "
    "Ingest (GB/h) = GB loaded over load_seconds (first load's start to last load's end) x 3600. "
    "Within SLA: every neighbour's p99 during the load at most its SLA. Headroom: the largest ingest within SLA "
    "over the ingest of the scenario's own load on the current cluster; under 1.10x there is no room beyond the "
    "current plan (the same load at another timing): \"at the limit\" where the current plan is within SLA, else "
    "none; \">=\" where no point went over SLA.")

ROOM = 1.10    # a capacity under 10 % above the current ingest is the same load at another timing, not room


def _gbh(value: float | None) -> str:
    return "none" if value is None else f"{value:,.0f} GB/h"


def _where(point: dict | None) -> str:
    """A point as an operator sizes it: concurrent loads, each job's write cores, each load's GB."""
    if not point:
        return "-"
    loads = point["loads"]
    cores = f"{point['executors'] * point['cores']} cores" if "executors" in point else "the job's cores"
    if point.get("jobs_at_once"):   # a night's capacity: jobs of their own, each at its share of the ingest
        text = (f"{loads} job{'s' if loads != 1 else ''} at once x {cores}, {point['load_gb']:,.3g} GB each, "
                f"{point['ingest_gb_per_hour'] / loads:,.0f} GB/h each")
        return text + (f", {point['spacing_s']:g} s apart" if point["spacing_s"] else "")
    text = f"{loads} load{'s' if loads != 1 else ''} x {cores}, {point['load_gb']:,.3g} GB each"
    return text + (f", {point['spacing_s']:g} s apart" if point["spacing_s"] else "")


def _tried(option: dict, end: int) -> str:
    """The smallest (``end`` 0) or largest (1) ingest the option's points tried, when the plan says."""
    tried = option.get("ingest_tried_gb_per_hour")
    return f" ({_gbh(tried[end])})" if tried else ""


def _capacity(option: dict) -> str:
    if option["max_ingest_gb_per_hour"] is None:
        return "below the smallest point tried" + _tried(option, 0)
    return ("at least " if option.get("headroom_at_least") else "") + _gbh(option["max_ingest_gb_per_hour"])


def _breach(option: dict) -> str:
    b = option["first_breach"]
    if not b:
        return "none: the capacity is beyond the largest point tried" + _tried(option, 1)
    return f"{words.missed_sla(b['tenant'], b['p99_ms_during'], b['sla_p99_ms'])} at {_gbh(b['ingest_gb_per_hour'])} ({_where(b)})"


def _headroom(option: dict) -> str:
    if option["max_ingest_gb_per_hour"] is None or option["headroom"] is None:
        return "-"   # no point within SLA: the headroom is unknown, not zero
    if option["headroom"] < ROOM:   # no room beyond the current plan, said as the current plan's column says it
        return f"{'at the limit' if option['current_plan_feasible'] else 'none'} ({option['headroom']:.2f}x)"
    return (">= " if option.get("headroom_at_least") else "") + f"{option['headroom']:.2f}x"


OPTION_HEADER = ["cluster option", "max ingest within SLA", "reached at", "headroom", "current plan", "first breach"]


def option_rows(plan: dict) -> list[list[str]]:
    return [[o["name"], _capacity(o), _where(o["max_point"]), _headroom(o),
             "-" if o["current_plan_feasible"] is None else words.within_sla(o["current_plan_feasible"]), _breach(o)]
            for o in plan["options"]]


def bounds(plan: dict) -> list[str]:
    """Each option whose capacity the plan could not bracket, and the bound it reached."""
    return [f"{o['name']}: {o['bound']}" for o in plan["options"] if o.get("bound")]


def next_step(plan: dict) -> str:
    """What to try next, from the plan's own verdicts: a what-if that holds a plan the cluster
    cannot, the room the cluster has, or where to look when no option tried holds the load."""
    options = {o["name"]: o for o in plan["options"]}
    current = options.get("current")
    holding = [o for o in plan["options"] if o["name"] != "current" and o["current_plan_feasible"]]
    best = max((o for o in plan["options"] if o["max_ingest_gb_per_hour"] is not None),
               key=lambda o: o["max_ingest_gb_per_hour"], default=None)
    if current is None:
        return "nothing planned on the current cluster"
    if not plan["current_plan"]["feasible"]:
        if holding:   # each what-if was tried alone: alternatives, not one change
            named = [o["name"] + (" (see its caveat)" if o.get("caveat") else "") for o in holding]
            if len(named) == 1:
                return f"{named[0]} keeps the current plan within SLA: make that change, or run less at once"
            return (f"each of {', '.join(named[:-1])} or {named[-1]} keeps the current plan within SLA on its own: "
                    "make one of those changes, or run less at once")
        if current["max_point"]:
            return (f"the current cluster holds {_where(current['max_point'])} ({_gbh(current['max_ingest_gb_per_hour'])}): "
                    "run no more at once, or change the job's settings (quietload check SCENARIO)")
        return ("no option tried holds even the smallest load: change the job's settings (quietload check SCENARIO) "
                "or try larger what-ifs (--brokers, --broker-type)")
    if current["headroom"] is not None and current["headroom"] >= ROOM:
        return (f"room on the current cluster up to {_where(current['max_point'])} "
                f"({current['headroom']:.2f}x the current ingest)" + ("" if not current.get("bound") else
                                                                      ", and perhaps beyond: --extend tries further"))
    if best is not None and best is not current and best["headroom"] is not None and best["headroom"] >= ROOM:
        return (f"no room beyond the current plan on the current cluster; {best['name']} takes up to "
                f"{_where(best['max_point'])} ({best['headroom']:.2f}x)")
    return "no room beyond the current plan on any option tried: try larger what-ifs (--brokers, --broker-type)"


def _seeds(plan: dict) -> list[int]:
    """The seeds each point ran on (plans written before ``seeds`` existed: their one seed)."""
    return plan.get("seeds") or [plan["seed"]]


def _headline(plan: dict) -> list[str]:
    cur = plan["current_plan"]
    runs = len(plan["points"])
    seeds = _seeds(plan)
    runs_of = format_seeds(seeds) + (", each point at its worst" if len(seeds) > 1 else
                                     "; --repeat N judges each point on N seeds")
    refined = sum(1 for p in plan["points"] if p.get("refined"))
    bisected = f", {refined} of them bisecting capacities between grid points" if refined else ""
    return [f"{plan['scenario']} plan ({plan['evaluator']}, {runs_of}): {len(plan['options'])} cluster option(s), "
            f"{runs * len(seeds)} runs{bisected}",
            f"current plan: {_where(cur)}: {_gbh(cur['ingest_gb_per_hour'])} on the current cluster, "
            f"{words.within_sla(cur['feasible'])}", *plan.get("slas", [])]


def _after_table(plan: dict) -> list[str]:
    found = bounds(plan)
    caveats = [f"{o['name']}: {o['caveat']}" for o in plan["options"] if o.get("caveat")]
    return [*(["not bracketed:", *(f"  {line}" for line in found)] if found else []),
            *(["caveat:", *(f"  {line}" for line in caveats)] if caveats else []), f"next: {next_step(plan)}"]


def render_plan_table(plan: dict) -> str:
    """The plan for a terminal: the headline, then one aligned row per cluster option."""
    rows = [OPTION_HEADER, *option_rows(plan)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(OPTION_HEADER) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1] for row in rows]
    return "\n".join([*_headline(plan), "", *lines, "", *_after_table(plan)])


def render_plan_markdown(plan: dict) -> str:
    def row(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
    lines = [f"## Capacity plan: {plan['scenario']}", "", *(f"{line}." for line in _headline(plan)), "", DEFINITIONS, "",
             row(OPTION_HEADER), "| --- | ---: | --- | ---: | --- | --- |", *(row(r) for r in option_rows(plan)), "",
             *(f"{line}  " for line in _after_table(plan)), ""]
    return "\n".join(lines)


def tenant_names(plans: list[dict]) -> list[str]:
    names: list[str] = []
    for plan in plans:
        for point in plan["points"]:
            names += [t["name"] for t in point["tenants"] if t["name"] not in names]
    return names


POINT_COLUMNS = ("option", "load_gb", "loads", "spacing_s", "executors", "cores", "current_plan", "ingest_gb_per_hour",
                 "produce_requests", "load_seconds", "feasible")


def render_plan_csv(plans: list[dict]) -> str:
    """One row per point of every plan: its seed (``first-last`` when each point ran on several, at
    its worst), the exact figures, then each neighbour's p99 during and SLA."""
    names = tenant_names(plans)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["scenario", "seed", *POINT_COLUMNS, *(f"{k}.{n}" for n in names for k in ("p99_ms_during", "sla_p99_ms"))])
    for plan in plans:
        seeds = _seeds(plan)
        seed = seeds[0] if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
        for point in plan["points"]:
            tenants = {t["name"]: t for t in point["tenants"]}
            cells = [("" if tenants.get(n, {}).get(k) is None else tenants[n][k]) for n in names for k in ("p99_ms_during", "sla_p99_ms")]
            writer.writerow([plan["scenario"], seed, *(point.get(c, "") for c in POINT_COLUMNS), *cells])
    return out.getvalue()


def worst_p99(point: dict) -> float | None:
    values = [t["p99_ms_during"] for t in point["tenants"] if t["p99_ms_during"] is not None]
    return max(values) if values else None


def capacity_plot(plan: dict) -> Plot:
    """x: ingest (GB/h); y: worst neighbour p99 during the load (ms); one color per cluster option,
    dots within SLA, crosses over it; each SLA a dashed line. Points are not joined: grid points
    differ in load size, load count and spacing, so two of them next to each other in ingest are
    not steps along one curve."""
    plt = plot.pyplot()
    slas = sorted({t["sla_p99_ms"] for p in plan["points"] for t in p["tenants"]})
    entries = len(plan["options"]) + len(slas)
    figure, axes = plt.subplots(figsize=(10, 4.2 + LEGEND_ROW_INCHES * legend_rows(entries)), layout="constrained")
    values = []
    for option in plan["options"]:
        points = [p for p in plan["points"] if p["option"] == option["name"] and worst_p99(p) is not None]
        if not points:
            continue
        values += [worst_p99(p) for p in points]
        color = axes.plot([], [], "o", label=option["name"])[0].get_color()
        for feasible, marker in ((True, "o"), (False, "x")):
            chosen = [p for p in points if p["feasible"] == feasible]
            axes.plot([p["ingest_gb_per_hour"] for p in chosen], [worst_p99(p) for p in chosen], marker,
                      linestyle="none", color=color)
    for sla in slas:
        axes.axhline(sla, color="#b00020", linestyle="--", linewidth=1, label=f"SLA p99 {sla:g} ms")
    log_axis_if_wide(axes, "y", values, "worst neighbour p99 during the load (ms)",
                     "worst neighbour p99 during the load (ms, log scale)")
    axes.set_xlabel("batch ingest (GB/hour)")
    axes.set_title(f"Capacity: worst neighbour p99 against batch ingest, {plan['scenario']}")
    axes.grid(alpha=0.3)
    legend_below(figure, entries)
    return Plot(plot.svg(figure), f"capacity plot, {plan['scenario']}",
                "Each cluster option's worst neighbour p99 against the batch ingest of each grid point (dots within "
                "every neighbour's SLA, crosses over it; points are not joined, as they differ in load size, count "
                "and spacing): an option's capacity is its rightmost dot.")


def render_plan_html(plan: dict) -> str:
    return "\n".join([f"<h2>Capacity plan: {escape(plan['scenario'])}</h2>",
                      *(f"<p>{escape(line)}.</p>" for line in _headline(plan)), f"<p>{escape(DEFINITIONS)}</p>",
                      html_table(OPTION_HEADER, option_rows(plan)),
                      *(f"<p>{escape(line)}</p>" for line in _after_table(plan)), capacity_plot(plan).html()])
