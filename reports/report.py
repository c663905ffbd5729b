"""RunResult files (with plan, study and gate files) -> a report directory: report.md, runs.csv,
report.json, report.html and batch_sizes.csv (each run's batch-size distribution). This module
composes the report from its sections (``reports.sections``: runs, header and gate results,
overlays, batch sizes, predicted against measured, plans, studies), which draw and tabulate with
the kit (``reports.kit``); it reads files and writes files, and formats nothing itself.

Every figure is taken as it is from the RunResult's ``summary`` (and the HTML's plots from its
``timelines``): the report formats numbers, it never recomputes them. The Markdown rounds for
reading (and shows batch sizes in KB = bytes / 1024); the CSV and JSON carry the exact inputs.
The HTML is one self-contained page, its plots embedded as SVG; matplotlib loads only when a
plot is drawn.
"""
from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from pathlib import Path

from reports import DEFAULT_OUT_DIR
from reports.kit.page import page
from reports.sections.batch_sizes import batch_size_html, batch_size_markdown, distribution, render_batch_size_csv
from reports.sections.header import Header, build_header, gate_html, gate_markdown, header_html
from reports.sections.overlay import breakdown_html, breakdown_markdown, cloudwatch_html, cloudwatch_markdown, overlay_html
from reports.sections.plan import render_plan_csv, render_plan_html, render_plan_markdown
from reports.sections.policy import render_policy_html, render_policy_markdown
from reports.sections.schedule import render_schedule_html, render_schedule_markdown
from reports.sections.runs import (SUMMARY_FIGURES, RunFigures, comparison_html, comparison_markdown, mean_batch_plot,
                                   neighbour_names, run_figures, run_html, run_markdown)
from reports.sections.ship import ship_html, ship_markdown
from reports.sections.study import render_study_csv, render_study_html, render_study_markdown
from reports.sections.versus import pair_runs, render_versus_csv, render_versus_html, render_versus_markdown
from simulator.contract import RunResult
from simulator.contract.files import GATE, KINDS, PLAN, POLICY_PROOF, SCHEDULE, STUDY, read_report_input

REPORT_SCHEMA = "quietload-report/1"
REPORT_FILES = ("report.md", "runs.csv", "report.json", "report.html", "batch_sizes.csv", "versus.csv", "plans.csv",
                "trials.csv")   # every file a report may write


def render_markdown(runs: list[RunFigures], header: Header | None = None, gates: list[dict] | None = None,
                    studies: list[dict] | None = None) -> str:
    lines = ["# quietload report", "", *ship_markdown(studies or [], gates or []), *(header.markdown() if header else []),
             *comparison_markdown(runs)]
    if runs:
        lines += [*cloudwatch_markdown(runs), *breakdown_markdown(runs)]
    lines += render_versus_markdown(pair_runs(runs))
    for gate in gates or []:
        lines += gate_markdown(gate)
    for run in runs:
        lines += run_markdown(run, batch_size_markdown(run))
    return "\n".join(lines)


def render_html(runs: list[RunFigures], header: Header | None = None, gates: list[dict] | None = None,
                plans: list[dict] | None = None, studies: list[dict] | None = None,
                policies: list[dict] | None = None, schedules: list[dict] | None = None) -> str:
    """The page: the header, the runs' plots and tables, then each plan's and study's section."""
    body = [*ship_html(studies or [], gates or []), *(header_html(header) if header else []), *comparison_html(runs)]
    if runs:
        body += [*overlay_html(runs), *cloudwatch_html(runs), *breakdown_html(runs), "<h2>Batch sizes</h2>"]
        if len(runs) > 1:
            body.append(mean_batch_plot(runs).html())
        body += batch_size_html(runs)
    body += render_versus_html(pair_runs(runs))
    for gate in gates or []:
        body += gate_html(gate)
    for run in runs:
        body += run_html(run)
    body += [*map(render_plan_html, plans or []), *map(render_schedule_html, schedules or []),
             *map(render_study_html, studies or []), *map(render_policy_html, policies or [])]
    return page("quietload report", ["<h1>quietload report</h1>", *body])


def render_csv(runs: list[RunFigures]) -> str:
    """One row per run: the exact summary figures, then each neighbour's p99 during (empty if absent)."""
    names = neighbour_names(runs)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "scenario", "evaluator", "seed", *(key for key, _, _ in SUMMARY_FIGURES),
                     *(f"p99_ms_during.{name}" for name in names)])
    for run in runs:
        during = {n["name"]: n["p99_ms_during"] for n in run.neighbours}
        writer.writerow([run.label, run.scenario_name, run.result.evaluator, run.result.seed,
                         *("" if run.summary[key] is None else run.summary[key] for key, _, _ in SUMMARY_FIGURES),
                         *("" if during.get(name) is None else during[name] for name in names)])
    return out.getvalue()


def render_json(runs: list[RunFigures], header: Header | None = None, plans: list[dict] | None = None,
                studies: list[dict] | None = None, gates: list[dict] | None = None,
                policies: list[dict] | None = None, schedules: list[dict] | None = None) -> str:
    """The runs' figures, and the plans, schedules, studies, gate results and policy proofs given, each as its file holds it."""
    report = {"schema": REPORT_SCHEMA, **({"header": header.to_dict()} if header else {}),
              "runs": [run.to_dict() for run in runs], "plans": plans or [], "studies": studies or [], "gates": gates or [],
              **({"policies": policies} if policies else {}), **({"schedules": schedules} if schedules else {})}
    return json.dumps(report, indent=1) + "\n"


def report_files(paths: list[Path], out_dir: str | Path = DEFAULT_OUT_DIR, now: datetime | None = None) -> list[Path]:
    """``quietload report``: read every file, then write the report (``write_report``)."""
    read = [(str(path), *read_report_input(path)) for path in paths]
    inputs = [(path, item) for path, _, item in read]
    kinds: dict[str, list] = {"run": [], **{kind.kind: [] for kind in KINDS}}
    for path, kind, item in read:
        kinds["run" if kind is None else kind.kind].append((path, item))
    return write_report([r for _, r in kinds["run"]], out_dir, [p for _, p in kinds[PLAN.kind]],
                        [s for _, s in kinds[STUDY.kind]], [g for _, g in kinds[GATE.kind]], inputs=inputs,
                        sources=[path for path, _ in kinds["run"]], now=now,
                        policies=[p for _, p in kinds[POLICY_PROOF.kind]], schedules=[s for _, s in kinds[SCHEDULE.kind]])


def write_report(results: list[RunResult], out_dir: str | Path = DEFAULT_OUT_DIR, plans: list[dict] | None = None,
                 studies: list[dict] | None = None, gates: list[dict] | None = None, *,
                 inputs: list[tuple[str, RunResult | dict]] | None = None, sources: list[str | Path] | None = None,
                 now: datetime | None = None, policies: list[dict] | None = None,
                 schedules: list[dict] | None = None) -> list[Path]:
    """Render everything first, then write the four files into ``out_dir`` (and ``batch_sizes.csv``
    when a run has a batch-size distribution, ``plans.csv`` with plan files, ``trials.csv`` with study
    files: their sections follow the runs'), removing an earlier report's others; returns their paths."""
    runs, plans, studies, gates = run_figures(results, sources), plans or [], studies or [], gates or []
    policies, schedules = policies or [], schedules or []
    if inputs is None:
        inputs = [("(not read from a file)", item) for item in [*results, *plans, *schedules, *studies, *gates, *policies]]
    header = build_header([run.label for run in runs], results, inputs, gates, now)
    contents = {"report.md": "\n".join([render_markdown(runs, header, gates, studies), *map(render_plan_markdown, plans),
                                        *map(render_schedule_markdown, schedules), *map(render_study_markdown, studies),
                                        *map(render_policy_markdown, policies)]),
                "runs.csv": render_csv(runs), "report.json": render_json(runs, header, plans, studies, gates, policies, schedules),
                "report.html": render_html(runs, header, gates, plans, studies, policies, schedules)}
    if any(distribution(run) for run in runs):
        contents["batch_sizes.csv"] = render_batch_size_csv(runs)
    if pairs := pair_runs(runs):
        contents["versus.csv"] = render_versus_csv(pairs)
    if plans:
        contents["plans.csv"] = render_plan_csv(plans)
    if studies:
        contents["trials.csv"] = render_study_csv(studies)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in contents.items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    for name in REPORT_FILES:   # an earlier report's file this one has none of would read as part of it
        if name not in contents:
            (out_dir / name).unlink(missing_ok=True)
    return paths
