"""`quietload plan --schedule`: the start times of a night's jobs within a window."""
from __future__ import annotations

from pathlib import Path

from quietload.judging import exit_without_neighbours
from quietload.paths import check_output_file, refuse_other_run, refuse_other_scenario
from quietload.terminal import echo
from workloads import Scenario, ScenarioError
from workloads.limits import check_study_size
from workloads.units import parse_seconds

DEFAULT_REPEAT = 3      # a schedule must not pass on a lucky seed


def plan_schedule(scenario_file: Path, overrides: list[str] | None, given: dict, window: str | None, seed: int,
                  repeat: int | None, trials: int, changes: int, workers: int | None, json_file: Path | None,
                  out: Path | None, max_minutes: float = 60.0) -> None:
    from quietload.progress import schedule_progress   # the planner loads only when a schedule runs
    from reports.sections.schedule import render_schedule_text
    from tuner.planning.night_advice import schedule_night
    from tuner.planning.schedule import schedule_path, write_schedule, write_scenario
    grid = [name for name, value in given.items() if value is not None]
    if grid:
        raise ScenarioError("--schedule", f"schedules the night's jobs as the file states them; "
                                          f"--{grid[0].replace('_', '-').replace('broker-types', 'broker-type')} is the capacity plan's")
    length = parse_seconds(window, "--window") if window is not None else None
    inputs = [("SCENARIO", scenario_file)]
    scenario = Scenario.from_yaml(scenario_file, overrides)
    json_path = json_file or schedule_path(scenario.name)     # as if --json and --out had named their defaults
    out_path = out or json_path.with_suffix(".yaml")
    check_output_file(json_path, "--json", inputs=inputs, outputs=[("--out", out_path)])
    check_output_file(out_path, "--out", inputs=inputs, outputs=[("--json", json_path)])
    if json_file is None:    # as the plan's: never another scenario's, or another's --set values
        refuse_other_run(json_path, "--json", scenario_file, list(overrides or []), "schedule")
    refuse_other_scenario(out_path, "--out", f"{scenario.name}-schedule")   # a night it wrote, never another file
    exit_without_neighbours(scenario, "a schedule")
    seeds = repeat or DEFAULT_REPEAT   # each schedule a night on every seed, after every job alone on every seed
    check_study_size(scenario, trials, seeds, seeds * len(scenario.jobs), workers or min(seeds, 2), max_minutes,
                     other_runs="solo run")
    with schedule_progress(scenario_file.stem) as progress:
        document, mapping = schedule_night(scenario_file, overrides, length, seed, seeds, trials, changes,
                                           workers, lambda done, total, what: progress.update(done, total, what),
                                           lambda label: progress.update(progress.done, None, f"trying {label}"))
        progress.finish()
    path = write_schedule(document, json_path)
    written = write_scenario(mapping, out_path)
    echo(render_schedule_text(document, written) + f"\n\nwrote {path}, {written}")
