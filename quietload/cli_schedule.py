"""`quietload plan --schedule`: the start times of a night's jobs within a window."""
from __future__ import annotations

from pathlib import Path

from quietload.paths import check_output_file
from quietload.terminal import echo
from workloads import ScenarioError
from workloads.units import parse_seconds

DEFAULT_REPEAT = 3      # a schedule must not pass on a lucky seed


def plan_schedule(scenario_file: Path, overrides: list[str] | None, given: dict, window: str | None, seed: int,
                  repeat: int | None, trials: int, changes: int, workers: int | None, json_file: Path | None,
                  out: Path | None) -> None:
    from quietload.progress import schedule_progress   # the planner loads only when a schedule runs
    from reports.sections.schedule import render_schedule_text
    from reports.night_advice import schedule_night
    from tuner.planning.schedule import schedule_path, write_schedule, write_scenario
    grid = [name for name, value in given.items() if value is not None]
    if grid:
        raise ScenarioError("--schedule", f"schedules the night's jobs as the file states them; "
                                          f"--{grid[0].replace('_', '-').replace('broker-types', 'broker-type')} is the capacity plan's")
    length = parse_seconds(window, "--window") if window is not None else None
    inputs = [("SCENARIO", scenario_file)]
    check_output_file(json_file, "--json", inputs=inputs)
    check_output_file(out, "--out", inputs=inputs)
    with schedule_progress(scenario_file.stem) as progress:
        document, mapping = schedule_night(scenario_file, overrides, length, seed, repeat or DEFAULT_REPEAT, trials, changes,
                                           workers, lambda done, total, what: progress.update(done, total, what),
                                           lambda label: progress.update(progress.done, None, f"trying {label}"))
        progress.finish()
    path = write_schedule(document, json_file or schedule_path(document["scenario"]))
    scenario = write_scenario(mapping, out or path.with_suffix(".yaml"))
    echo(render_schedule_text(document, scenario) + f"\n\nwrote {path}, {scenario}")
