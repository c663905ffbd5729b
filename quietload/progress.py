"""One progress facility for every long step (a model run, a plan's grid, a study's trials and
their held-out validation), and for the lines of the steps that print a line each (live runs,
calibrate, validate, the live stack's services), on stderr so that stdout stays the command's
output.

On a terminal it is rich's progress bar: done of total, elapsed, and the time remaining as the
step measured it: the median time each unit (a trial, a point, a simulated second) took so far,
times the units left. A median, not a rate over the last seconds: a study's first trials run to
the end while later ones stop at their verdict, and a few slow units would otherwise set the
estimate for minutes. Elsewhere (CI logs, pipes) a redrawn bar
would be noise and silence looks hung, so a plain line with the same figures is printed every
few seconds. Either way a closing line says what the step did.
"""
from __future__ import annotations

import datetime
import statistics
import sys
import time
from typing import Any, Callable, TextIO, TypeVar

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from quietload import terminal
from quietload.terminal import printable

T = TypeVar("T")

LINE_EVERY_S = 5.0   # wall seconds between plain lines without a terminal


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    return str(datetime.timedelta(seconds=max(0, round(seconds))))


class StepProgress:
    """Progress of one long step towards a ``total`` (which may grow as the step learns more).
    ``update(done)`` starts it if no ``with`` did; ``finish`` prints its closing line,
    ``closing(self)``, once, and only if it started. A step that comes ``after`` another closes
    that one when it starts or notes a line."""

    def __init__(self, label: str, total: float, unit: str, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, every_s: float = LINE_EVERY_S,
                 closing: Callable[["StepProgress"], str] | None = None, after: "StepProgress | None" = None) -> None:
        label = printable(label, lines=False)      # a scenario's name as written, never a terminal's command
        self.label, self.unit, self.clock, self.every_s, self.after = label, unit, clock, every_s, after
        self.closing = closing or (lambda step: f"{step.label}: {step.done:,.0f} {step.unit} in {step.elapsed_s:,.1f} s")
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                             TextColumn("{task.completed:,.0f}/{task.total:,.0f} " + unit),
                             TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}"),
                             console=Console(file=self.stream, force_terminal=self.live),
                             get_time=clock, disable=not self.live, transient=True)
        self._task = self._bar.add_task(escape(label), total=max(total, 1e-9), eta=_duration(None))
        self.started = self.last_line = 0.0
        self.done = 0.0
        self.unit_s: list[float] = []     # the time each unit took, as measured
        self._mark: tuple[float, float] | None = None   # (done, time) the next unit is measured from
        self.detail: str | None = None
        self.entered = self.closed = False

    def __enter__(self) -> "StepProgress":
        if self.after is not None:
            self.after.finish()
        self.started = self.last_line = self.clock()
        self._mark = (self.done, self.started)
        self.entered = True
        self._bar.reset(self._task, total=self._bar.tasks[0].total)   # its clock starts now
        self._bar.start()
        return self

    @property
    def total(self) -> float:
        return float(self._bar.tasks[0].total or 0)

    @property
    def remaining_s(self) -> float | None:
        """The units left times the median time a unit took, None until one was measured."""
        if not self.unit_s:
            return None
        return max(0.0, self.total - self.done) * statistics.median(self.unit_s)

    def _measure(self, done: float, now: float) -> None:
        if self._mark is None:
            self._mark = (done, now)
        elif done > self._mark[0]:
            self.unit_s.append((now - self._mark[1]) / (done - self._mark[0]))
            self._mark = (done, now)

    def update(self, done: float, total: float | None = None, detail: str | None = None) -> None:
        """``done`` of ``total`` (unchanged if None); ``detail`` follows the label on the bar,
        e.g. the best result so far."""
        if not self.entered:
            self.__enter__()
            self._mark = None   # started by its first figure: the time that took is not known
        if detail is not None:   # "": none any more
            self.detail = detail or None
            self._bar.update(self._task, description=f"{self.label} ({detail})" if detail else self.label)
        now = self.clock()
        self._measure(done, now)
        self.done = done
        self._bar.update(self._task, completed=done, total=max(total if total is not None else self.total, done))
        self._bar.update(self._task, eta=_duration(self.remaining_s))
        if not self.live and now - self.last_line >= self.every_s:
            self.last_line = now
            shown = f" ({self.detail})" if self.detail else ""
            self.stream.write(f"{self.label}: {done:,.0f}/{self.total:,.0f} {self.unit}{shown}, "
                              f"{_duration(now - self.started)} elapsed, ETA {_duration(self.remaining_s)}\n")
            self.stream.flush()

    @property
    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def note(self, line: str) -> None:
        """A line beside the step (above its bar on a terminal), whether or not it runs."""
        if self.after is not None:
            self.after.finish()
        if self.live and self.entered and not self.closed:
            self._bar.console.print(printable(line, lines=False), markup=False, highlight=False)   # one line, whatever a name holds
        else:
            self.stream.write(printable(line, lines=False) + "\n")
            self.stream.flush()

    def finish(self, done: float | None = None) -> None:
        """Stop the bar and print the closing line (shown whether or not the stream is a
        terminal), once, if the step started; ``done`` is the step's final figure, if it differs
        from the last update's."""
        if not self.entered or self.closed:
            return
        self._bar.stop()
        self.closed = True
        self.done = self.done if done is None else done
        self.stream.write(printable(self.closing(self), lines=False) + "\n")
        self.stream.flush()

    def stopped(self, stop: BaseException) -> None:
        """A signal stopped the step: no closing line (it did not finish); where it was rides on
        ``stop`` for the command's one stopping line."""
        self._bar.stop()
        if self.entered and not self.closed:
            self.closed = True
            stop.add_note(f"{self.label} at {self.done:,.0f}/{self.total:,.0f} {self.unit}")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> None:
        if isinstance(error, KeyboardInterrupt):
            self.stopped(error)
        self._bar.stop()


# The steps of the commands, each a StepProgress with its label, unit and closing line.

def simulation_progress(name: str, expected_s: float, **options: Any) -> StepProgress:
    """A model run: simulated seconds towards ``expected_s``, the scenario's simulated length as
    ``workloads.limits`` estimates it (``finish`` with the run's simulated seconds)."""
    return StepProgress(f"simulating {name}", expected_s, "s simulated", **options, closing=lambda step: (
        f"simulated {name}: {step.done:,.1f} s of cluster time in {step.elapsed_s:,.1f} s"))


def plan_progress(name: str, **options: Any) -> StepProgress:
    """A plan's grid of runs: points done of the points in all."""
    return StepProgress(f"planning {name}", 0, "points", **options,
                        closing=lambda step: f"planned {name}: {step.done:,.0f} points in {step.elapsed_s:,.1f} s")


def schedule_progress(name: str, **options: Any) -> StepProgress:
    """A night's schedule: nights run (each on every seed) of the most the search may run."""
    return StepProgress(f"scheduling {name}", 0, "runs at most", **options,
                        closing=lambda step: f"scheduled {name}: {step.done:,.0f} runs in {step.elapsed_s:,.1f} s")


def study_progress(label: str, **options: Any) -> tuple[StepProgress, StepProgress]:
    """A study's trials (``update(done, total, best_feasible(requests, pruned))``, started by its first
    trial), then its held-out validation's model runs: done, and the most there can be (it stops
    at the first front point that holds, so its ETA is the longest it can take); the lines of
    what follows the study (``note``) come after the study's closing line."""
    trials = StepProgress(label, 0, "trials", **options, closing=lambda step: (
        f"{label}: trial {step.done:,.0f}/{step.total:,.0f}, {step.detail or 'none feasible'}, {step.elapsed_s:,.1f} s"))
    return trials, StepProgress(f"{label}: held-out validation", 0, "runs at most", **options, after=trials,
                                closing=lambda step: f"{label}: {step.done:,.0f} held-out runs in {step.elapsed_s:,.1f} s")


def with_study_progress(label: str, run: Callable[..., T]) -> T:
    """``run(progress, note, held_out_progress)`` (tune's and policy's study, then its held-out
    seeds) with the study's progress lines, closed however it ends."""
    study, held_out = study_progress(label)
    try:
        return run(lambda done, total, best, pruned=0, running=None: study.update(done, total, best_feasible(best, pruned, running)),
                   lambda line: held_out.note(f"{label}: {line}"), held_out.update)
    except KeyboardInterrupt as stop:
        held_out.stopped(stop)
        study.stopped(stop)
        raise
    finally:
        study.finish()
        held_out.finish()


def best_feasible(requests: int | None, pruned: int = 0, running: str | None = None) -> str:
    """The study's detail: its best feasible trial, the trials pruned, and the running trial's
    simulated time (``trial 12, seed 2: 41 s simulated``), so that a slow trial shows."""
    best = f"best feasible {requests:,} requests" if requests is not None else "none feasible"
    return ", ".join([best] + ([f"{pruned:,} pruned"] if pruned else []) + ([running] if running else []))


def say(line: str) -> None:
    """A timestamped line on stderr: the per-step lines of live runs, calibrate and validate,
    whose runs log what the stack does between their steps."""
    terminal.echo(f"[{time.strftime('%H:%M:%S')}] {line}", err=True)


def echo(line: str) -> None:
    """A line on stderr, escaped: what a service of the live stack says while it starts."""
    terminal.echo(line, err=True)
