"""One progress facility for every long step (a model run, a plan's grid, a study's trials and
their held-out validation), on stderr so that stdout stays the command's output.

On a terminal it is rich's progress bar: done of total, elapsed, and rich's estimate of the
time remaining (from the rate over the last 30 s). Elsewhere (CI logs, pipes) a redrawn bar
would be noise and silence looks hung, so a plain line with the same figures is printed every
few seconds. Either way a closing line says what the step did.
"""
from __future__ import annotations

import datetime
import sys
import time
from typing import Callable, TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

LINE_EVERY_S = 5.0   # wall seconds between plain lines without a terminal


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    return str(datetime.timedelta(seconds=max(0, round(seconds))))


class StepProgress:
    """Progress of one long step towards a ``total`` (which may grow as the step learns more);
    use it as a context manager, ``update(done)``, then ``finish(closing line)``."""

    def __init__(self, label: str, total: float, unit: str, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, every_s: float = LINE_EVERY_S) -> None:
        self.label, self.unit, self.clock, self.every_s = label, unit, clock, every_s
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                             TextColumn("{task.completed:,.0f}/{task.total:,.0f} " + unit),
                             TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                             console=Console(file=self.stream, force_terminal=self.live),
                             get_time=clock, disable=not self.live, transient=True)
        self._task = self._bar.add_task(label, total=max(total, 1e-9))
        self.started = self.last_line = 0.0
        self.done = 0.0
        self.entered = False

    def __enter__(self) -> "StepProgress":
        self.started = self.last_line = self.clock()
        self.entered = True
        self._bar.reset(self._task, total=self._bar.tasks[0].total)   # its clock starts now
        self._bar.start()
        return self

    @property
    def total(self) -> float:
        return float(self._bar.tasks[0].total or 0)

    @property
    def remaining_s(self) -> float | None:
        """Rich's estimate of the time left, None until it has a rate."""
        return self._bar.tasks[0].time_remaining

    def update(self, done: float, total: float | None = None) -> None:
        self.done = done
        self._bar.update(self._task, completed=done, total=max(total if total is not None else self.total, done))
        now = self.clock()
        if not self.live and now - self.last_line >= self.every_s:
            self.last_line = now
            self.stream.write(f"{self.label}: {done:,.0f}/{self.total:,.0f} {self.unit}, "
                              f"{_duration(now - self.started)} elapsed, ETA {_duration(self.remaining_s)}\n")
            self.stream.flush()

    @property
    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def finish(self, line: str) -> None:
        """Stop the bar and print the closing line, shown whether or not the stream is a terminal."""
        self._bar.stop()
        self.stream.write(line + "\n")
        self.stream.flush()

    def __exit__(self, *exc_info: object) -> None:
        self._bar.stop()


class SimulationProgress(StepProgress):
    """A model run's ``progress`` callback (simulated seconds reached) towards ``expected_s``,
    the scenario's simulated length as ``workloads.limits`` estimates it."""

    def __init__(self, label: str, expected_s: float, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, every_s: float = LINE_EVERY_S) -> None:
        super().__init__(f"simulating {label}", expected_s, "s simulated", stream, clock, every_s)
        self.name = label

    def __call__(self, simulated_s: float) -> None:
        self.update(simulated_s)

    def finish(self, simulated_s: float) -> None:  # type: ignore[override]
        super().finish(f"simulated {self.name}: {simulated_s:,.1f} s of cluster time in {self.elapsed_s:,.1f} s")


class PointsProgress(StepProgress):
    """A ``(done, total)`` callback for a plan's grid of runs."""

    def __init__(self, label: str, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, every_s: float = LINE_EVERY_S) -> None:
        super().__init__(f"planning {label}", 0, "points", stream, clock, every_s)
        self.name = label

    def __call__(self, done: int, total: int) -> None:
        self.update(done, total)

    def finish(self) -> None:  # type: ignore[override]
        super().finish(f"planned {self.name}: {self.done:,.0f} points in {self.elapsed_s:,.1f} s")


class StudyProgress(StepProgress):
    """A study's ``(done, total, best feasible requests)`` callback, then its held-out
    validation's lines (``note``), each after the study's closing line."""

    def __init__(self, label: str, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, every_s: float = LINE_EVERY_S) -> None:
        super().__init__(label, 0, "trials", stream, clock, every_s)
        self.best = "none feasible"
        self.closed = False
        self.validating: StepProgress | None = None

    def __call__(self, done: int, total: int, best_requests: int | None) -> None:
        if not self.entered:
            self.__enter__()
        self.best = f"best feasible {best_requests:,} requests" if best_requests is not None else "none feasible"
        self._bar.update(self._task, description=f"{self.label} ({self.best})")
        self.update(done, total)

    def finish(self) -> None:  # type: ignore[override]
        """The study's closing line, once; then the validation's, when it ran."""
        if self.entered and not self.closed:
            self.closed = True
            super().finish(f"{self.label}: trial {self.done:,.0f}/{self.total:,.0f}, {self.best}, "
                           f"{self.elapsed_s:,.1f} s")
        if self.validating is not None:
            validating, self.validating = self.validating, None
            validating.finish(f"{self.label}: {validating.done:,.0f} held-out runs in {validating.elapsed_s:,.1f} s")

    def validation(self, done: int, most: int) -> None:
        """The held-out validation's model runs: done, and the most there can be (it stops at
        the first front point that holds, so its ETA is the longest it can take)."""
        if self.validating is None:
            self.finish()
            self.validating = StepProgress(f"{self.label}: held-out validation", most, "runs at most",
                                           self.stream, self.clock, self.every_s).__enter__()
        self.validating.update(done, most)

    def note(self, text: str) -> None:
        """A line of what follows the study (the front on held-out seeds), after its closing line."""
        if not self.closed:
            self.finish()
        line = f"{self.label}: {text}"
        if self.validating is not None and self.validating.live:
            self.validating._bar.console.print(line, markup=False, highlight=False)   # above the bar
        else:
            self.stream.write(line + "\n")
            self.stream.flush()
