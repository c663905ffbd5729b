"""Simulated seconds on stderr while a run goes, so a long run does not look hung.

On a terminal one line is redrawn in place; otherwise (CI logs, pipes) nothing is shown until
the single closing line.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

_REDRAW_EVERY_S = 0.1  # wall seconds: redrawing on every event would cost more than the run


class SimulationProgress:
    """A progress callback for ``Evaluator.evaluate``; use it as a context manager."""

    def __init__(self, label: str, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.clock = clock
        self.live = self.stream.isatty()
        self.started = self.last_drawn = 0.0

    def __enter__(self) -> "SimulationProgress":
        self.started = self.clock()
        return self

    def __call__(self, simulated_s: float) -> None:
        now = self.clock()
        if self.live and now - self.last_drawn >= _REDRAW_EVERY_S:
            self.last_drawn = now
            self.stream.write(f"\r\x1b[Ksimulating {self.label}: {simulated_s:,.0f} s simulated, "
                              f"{now - self.started:,.1f} s elapsed")
            self.stream.flush()

    def finish(self, simulated_s: float) -> None:
        """The closing line, shown whether or not the stream is a terminal."""
        self._clear()
        wall_s = self.clock() - self.started
        self.stream.write(f"simulated {self.label}: {simulated_s:,.1f} s of cluster time in {wall_s:,.1f} s\n")
        self.stream.flush()

    def __exit__(self, *exc_info: object) -> None:
        self._clear()

    def _clear(self) -> None:
        if self.live and self.last_drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.last_drawn = 0.0
