"""RunResult files (with plan, study and gate files) -> a report directory: report.md, runs.csv,
report.json, report.html and batch_sizes.csv (each run's batch-size distribution,
``reports.batch_sizes``). Runs are labelled by what differs between them (``reports.labels``); the
report opens with when and from what it was made and each run's verdict (``reports.header``).

Every figure is taken as it is from the RunResult's ``summary`` (and the HTML's plots from its
``timelines``): the report formats numbers, it never recomputes them. The Markdown rounds for
reading (and shows batch sizes in KB = bytes / 1024); the CSV and JSON carry the exact inputs.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reports.batch_sizes import (BATCH_SIZE_HEADER, MISSING_LINE, batch_size_intro, batch_size_rows, distribution,
                                  render_batch_size_csv)
from simulator.contract import WINDOWS, RunResult

if TYPE_CHECKING:
    from reports.header import Header

DEFAULT_OUT_DIR = Path("reports-out")
REPORT_SCHEMA = "quietload-report/1"

# (summary key, column title, Markdown format): the figures of one run, in table order.
SUMMARY_FIGURES: tuple[tuple[str, str, str], ...] = (
    ("produce_requests", "produce requests", "{:,.0f}"),
    ("batches_per_request", "batches / request", "{:,.2f}"),
    ("mean_batch_bytes", "mean batch (KB)", "kb"),
    ("records_per_request", "records / request", "{:,.1f}"),
    ("compression_ratio", "compression ratio", "{:,.2f}"),
    ("load_seconds", "load (s)", "{:,.1f}"),
    ("handler_idle_pct_during", "handler idle during (%)", "{:,.1f}"),
    ("cpu_pct_during", "CPU during (%)", "{:,.1f}"),
)


def format_figure(value: float | int | None, fmt: str) -> str:
    """One figure for reading: ``n/a`` when the run has none (e.g. idle % of a sub-second load)."""
    if value is None:
        return "n/a"
    if fmt == "kb":
        return f"{value / 1024:,.1f}"
    return fmt.format(value)


def format_ms(value: float | None) -> str:
    return format_figure(value, "{:,.1f}")


@dataclass(frozen=True)
class RunFigures:
    """The figures a report shows for one run, exactly as its RunResult holds them."""

    label: str
    result: RunResult

    @property
    def scenario_name(self) -> str:
        return self.result.scenario["name"]

    @property
    def summary(self) -> dict:
        return {key: getattr(self.result.summary, key) for key, _, _ in SUMMARY_FIGURES}

    @property
    def neighbours(self) -> list[dict]:
        return [{"name": n.name, "sla_p99_ms": n.sla_p99_ms, **{f"p99_ms_{w}": getattr(n, f"p99_ms_{w}") for w in WINDOWS}}
                for n in self.result.summary.tenants]

    def to_dict(self) -> dict:
        return {"label": self.label, "scenario": self.scenario_name, "evaluator": self.result.evaluator,
                "seed": self.result.seed, "summary": self.summary, "neighbours": self.neighbours,
                "batch_sizes": self.result.batch_sizes, "mechanism": list(self.result.mechanism)}


def run_figures(results: list[RunResult], sources: list[str | Path] | None = None) -> list[RunFigures]:
    """One RunFigures per result, labelled by what tells it from the others (``reports.labels``)."""
    from reports.labels import run_labels
    return [RunFigures(label, result) for label, result in zip(run_labels(results, sources), results)]


def sla_verdict(neighbour: dict) -> str:
    over = [w for w in WINDOWS if (neighbour[f"p99_ms_{w}"] or 0.0) > neighbour["sla_p99_ms"]]
    return f"over SLA ({', '.join(over)})" if over else "within SLA"


def neighbour_names(runs: list[RunFigures]) -> list[str]:
    """Every neighbour of any run, in order of first appearance."""
    names: list[str] = []
    for run in runs:
        names += [n["name"] for n in run.neighbours if n["name"] not in names]
    return names


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    def row(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
    aligns = ["---"] + ["---:"] * (len(header) - 1)
    return [row(header), "| " + " | ".join(aligns) + " |", *(row(r) for r in rows)]


def summary_rows(run: RunFigures) -> list[list[str]]:
    return [[title, format_figure(run.summary[key], fmt)] for key, title, fmt in SUMMARY_FIGURES]


def neighbour_rows(run: RunFigures) -> list[list[str]]:
    return [[n["name"], *(format_ms(n[f"p99_ms_{w}"]) for w in WINDOWS), format_ms(n["sla_p99_ms"]), sla_verdict(n)]
            for n in run.neighbours]


NEIGHBOUR_HEADER = ["neighbour", "p99 before (ms)", "p99 during (ms)", "p99 after (ms)", "SLA p99 (ms)", "verdict"]


def comparison_table(runs: list[RunFigures]) -> tuple[list[str], list[list[str]]]:
    """One row per run: its summary figures and each neighbour's p99 during the load."""
    names = neighbour_names(runs)
    header = ["run", *(title for _, title, _ in SUMMARY_FIGURES), *(f"{name} p99 during (ms)" for name in names)]
    rows = []
    for run in runs:
        during = {n["name"]: n["p99_ms_during"] for n in run.neighbours}
        rows.append([run.label, *(format_figure(run.summary[key], fmt) for key, _, fmt in SUMMARY_FIGURES),
                     *(format_ms(during[name]) if name in during else "-" for name in names)])
    return header, rows


def render_markdown(runs: list[RunFigures], header: "Header | None" = None, gates: list[dict] | None = None) -> str:
    from reports.overlay import (BREAKDOWN_HEADER, BREAKDOWN_NOTE, CLOUDWATCH_HEADER, CLOUDWATCH_NOTE, breakdown_rows,
                                 cloudwatch_rows)
    from reports.versus import pair_runs, render_versus_markdown
    lines = ["# quietload report", "", *(header.markdown() if header else [])]
    if len(runs) > 1:
        lines += ["## Comparison", "", *_table(*comparison_table(runs)), ""]
    if runs:
        lines += ["## The brokers under their CloudWatch names", "", CLOUDWATCH_NOTE, "",
                  *_table(CLOUDWATCH_HEADER, cloudwatch_rows(runs)), ""]
        if rows := breakdown_rows(runs):
            lines += ["## What the neighbours' latency is made of", "", BREAKDOWN_NOTE, "",
                      *_table(BREAKDOWN_HEADER, rows), ""]
    lines += render_versus_markdown(pair_runs(runs))
    for gate in gates or []:
        lines += render_gate_markdown(gate)
    for run in runs:
        lines += [f"## {run.label}", "",
                  f"Scenario: {run.scenario_name}; evaluator: {run.result.evaluator}; seed: {run.result.seed}.", "",
                  *_table(["figure", "value"], summary_rows(run)), ""]
        lines += (_table(NEIGHBOUR_HEADER, neighbour_rows(run)) if run.neighbours
                  else ["No neighbours in this scenario."]) + [""]
        sizes = distribution(run)
        lines += ([batch_size_intro(sizes), "", *_table(BATCH_SIZE_HEADER, batch_size_rows(sizes))] if sizes
                  else [MISSING_LINE.format(what="this result")]) + [""]
        lines += ["Mechanism:", "", *(f"- {sentence}" for sentence in run.result.mechanism), ""]
    return "\n".join(lines)


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


def render_gate_markdown(gate: dict) -> list[str]:
    """A gate result (``check --json``) as it was judged: its verdicts and the change it recommended."""
    from reports.header import gate_seeds
    from workloads.units import format_seeds
    outcome = "PASS" if gate["passed"] else "FAIL"
    lines = [f"## Gate result: {gate['scenario']}", "",
             f"{outcome} ({gate['evaluator']}, {format_seeds(gate_seeds(gate))}).", "",
             *_table(["rule", "status", "reason"], [[v["rule"], v["status"], v.get("reason", "")] for v in gate["verdicts"]]), ""]
    if gate.get("recommendations"):
        lines += ["Recommended change:", "", *(f"- {advice}" for advice in gate["recommendations"]), ""]
    return lines


def render_json(runs: list[RunFigures], header: "Header | None" = None, plans: list[dict] | None = None,
                studies: list[dict] | None = None, gates: list[dict] | None = None) -> str:
    """The runs' figures, and the plans, studies and gate results given, each as its file holds it."""
    report = {"schema": REPORT_SCHEMA, **({"header": header.to_dict()} if header else {}),
              "runs": [run.to_dict() for run in runs], "plans": plans or [], "studies": studies or [], "gates": gates or []}
    return json.dumps(report, indent=1) + "\n"


def read_inputs(paths: list[Path]) -> list[tuple[str, RunResult | dict]]:
    """Each file as what it holds: a plan, a study, a gate result or (else) a RunResult; a file
    that is none of them is one ResultError naming it."""
    from simulator.contract.files import is_gate_file, is_plan_file, is_study_file, read_gate, read_plan, read_study
    inputs: list[tuple[str, RunResult | dict]] = []
    for path in paths:
        if is_plan_file(path):
            inputs.append((str(path), read_plan(path)))
        elif is_study_file(path):
            inputs.append((str(path), read_study(path)))
        elif is_gate_file(path):
            inputs.append((str(path), read_gate(path)))
        else:
            inputs.append((str(path), RunResult.read(path)))
    return inputs


def report_files(paths: list[Path], out_dir: str | Path = DEFAULT_OUT_DIR, now: datetime | None = None) -> list[Path]:
    """``quietload report``: read every file, then write the report (``write_report``)."""
    inputs = read_inputs(paths)
    kinds: dict[str, list] = {"run": [], "plan": [], "study": [], "gate": []}
    for path, item in inputs:
        kind = ("run" if isinstance(item, RunResult) else "gate" if "gate" in item
                else "study" if "pareto_front" in item else "plan")
        kinds[kind].append((path, item))
    return write_report([r for _, r in kinds["run"]], out_dir, [p for _, p in kinds["plan"]],
                        [s for _, s in kinds["study"]], [g for _, g in kinds["gate"]], inputs=inputs,
                        sources=[path for path, _ in kinds["run"]], now=now)


def write_report(results: list[RunResult], out_dir: str | Path = DEFAULT_OUT_DIR, plans: list[dict] | None = None,
                 studies: list[dict] | None = None, gates: list[dict] | None = None, *,
                 inputs: list[tuple[str, RunResult | dict]] | None = None, sources: list[str | Path] | None = None,
                 now: datetime | None = None) -> list[Path]:
    """Render everything first, then write the four files into ``out_dir`` (and ``batch_sizes.csv``
    when a run has a batch-size distribution, ``plans.csv`` with plan files, ``trials.csv`` with study
    files: their sections follow the runs'); returns their paths."""
    from reports.header import build_header
    from reports.plan_report import render_plan_csv, render_plan_html, render_plan_markdown
    from reports.report_html import render_html  # matplotlib loads only when a report is written
    from reports.study_report import render_study_csv, render_study_html, render_study_markdown
    from reports.versus import pair_runs, render_versus_csv

    runs, plans, studies, gates = run_figures(results, sources), plans or [], studies or [], gates or []
    if inputs is None:
        inputs = [("(not read from a file)", item) for item in [*results, *plans, *studies, *gates]]
    header = build_header([run.label for run in runs], results, inputs, gates, now)
    contents = {"report.md": "\n".join([render_markdown(runs, header, gates), *map(render_plan_markdown, plans),
                                        *map(render_study_markdown, studies)]),
                "runs.csv": render_csv(runs), "report.json": render_json(runs, header, plans, studies, gates),
                "report.html": render_html(runs, header, gates).replace("</body></html>", "\n".join(
                    [*map(render_plan_html, plans), *map(render_study_html, studies), "</body></html>"]))}
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
    return paths
