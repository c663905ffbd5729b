"""The model replaying a cluster's past loads (``replay``): each past load runs on the model, with the
scenario's dataset sized so the load carries the bytes the load topic took in (``history.sized_like``),
over several seeds; per load the model's interval and the observed figure for handler idle, CPU,
produce TotalTime (mean) and bytes in, averaged over the same whole periods the metrics hold, and
the error, in the live validation's table."""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from simulator.contract import RunResult
from simulator.evaluator import Evaluator, model_evaluator
from tuner.calibration.history import cpu_series, sized_like
from workloads import Scenario, ScenarioError
from workloads.imports import History, Window, find_loads

REPLAY_FIGURES = (("handler idle (%)", "{:,.1f}"), ("CPU (%)", "{:,.1f}"), ("produce TotalTime mean (ms)", "{:,.2f}"),
                  ("bytes in (MB)", "{:,.1f}"))


@dataclass(frozen=True)
class Replayed:
    load: str
    figures: list[tuple[str, list[float], float | None, str]]     # title, model per seed, observed, format


def _observed(history: History, window: Window) -> dict[str, float | None]:
    span = range(window.first, window.last + 1)

    def over_brokers(name: str, pick: Callable[[list[float]], float]) -> float | None:
        values = []
        for k in span:
            present = [v for f in history.brokers.values() if (s := f.get(name)) is not None and (v := s[k]) is not None]
            if present:
                values.append(pick(present))
        return statistics.mean(values) if values else None

    cpu = {b: cpu_series(f) for b, f in history.brokers.items()}
    cpu_max = [max(v) for k in span if (v := [x for c in cpu.values() if k < len(c) and (x := c[k]) is not None])]
    return {"handler idle (%)": over_brokers("RequestHandlerAvgIdlePercent", min),
            "CPU (%)": statistics.mean(cpu_max) if cpu_max else None,
            "produce TotalTime mean (ms)": over_brokers("ProduceTotalTimeMsMean", max),
            "bytes in (MB)": window.bytes / 1e6}


def _predicted(result: RunResult, window: Window, period: float) -> dict[str, float | None]:
    """The run's figures over the load's whole periods from its start; seconds past the run's end at its quiet level."""
    lines, start = result.timelines, int(result.windows["during"][0])
    before = max(1, int(result.windows["before"][1]))
    seconds = int(round((window.last - window.first + 1) * period))

    def average(name: str) -> float | None:
        series = [v for v in lines.get(name, []) if v is not None]
        if not series:
            return None
        quiet = statistics.mean(series[:before])
        return statistics.mean([(lines[name][s] if s < len(lines[name]) and lines[name][s] is not None else quiet)
                                for s in range(start, start + seconds)])
    totals = [(b.produce_time_ms or {}).get("TotalTimeMs", {}).get("mean") for b in result.brokers]
    return {"handler idle (%)": average("handler_idle_pct_min"), "CPU (%)": average("cpu_pct_max"),
            "produce TotalTime mean (ms)": max([t for t in totals if t is not None], default=None),
            "bytes in (MB)": result.summary.wire_bytes / 1e6}


def replay(history: History, scenario: Scenario, seeds: int, evaluator: Evaluator, last: int | None = None,
           say: Callable[[str], None] = lambda line: None) -> list[Replayed]:
    """Each past load (the ``last`` ones) on the model with ``seeds`` seeds, beside what the metrics observed."""
    loads = find_loads(history, scenario.batch.topic)
    if not loads:
        raise ScenarioError("--history", f"no past load on {scenario.batch.topic!r} in the history")
    out = []
    for window in loads[-last:] if last else loads:
        label = datetime.fromtimestamp(window.start, timezone.utc).strftime("%Y-%m-%d %H:%M")
        say(f"replaying the load of {label} UTC ({window.bytes / 1e6:,.0f} MB) on {seeds} model seeds")
        sized = sized_like(scenario, window.bytes, evaluator)
        predicted = [_predicted(evaluator.evaluate(sized, seed), window, history.period) for seed in range(1, seeds + 1)]
        observed = _observed(history, window)
        out.append(Replayed(label, [(title, [v for p in predicted if (v := p[title]) is not None], observed[title], fmt)
                                    for title, fmt in REPLAY_FIGURES]))
    return out


def validate_history(history_path: Path, scenario_path: Path | None, seeds: int, say: Callable[[str], None],
                     last: int | None = None) -> list[Replayed]:
    """``quietload validate --history``: the past loads replayed on the model (``reports.fidelity.render_replay``
    puts them in a table)."""
    if scenario_path is None:
        raise ScenarioError("--history", "replays the loads of an imported scenario: give --scenario FILE too")
    return replay(History.read(history_path), Scenario.from_yaml(scenario_path), seeds, model_evaluator(), last, say)
