"""Grid points done on stderr while a plan runs, as ``quietload.progress`` shows a run: one line
redrawn in place on a terminal; otherwise only the closing line."""
from __future__ import annotations

from quietload.progress import _REDRAW_EVERY_S, SimulationProgress


class PointsProgress(SimulationProgress):
    """A ``(done, total)`` callback for a grid of runs; use it as a context manager."""

    done = total = 0

    def __call__(self, done: int, total: int) -> None:  # type: ignore[override]
        self.done, self.total = done, total
        now = self.clock()
        if self.live and (now - self.last_drawn >= _REDRAW_EVERY_S or done == total):
            self.last_drawn = now
            self.stream.write(f"\r\x1b[Kplanning {self.label}: {done:,} of {total:,} points, {now - self.started:,.1f} s elapsed")
            self.stream.flush()

    def finish(self) -> None:  # type: ignore[override]
        """The closing line, shown whether or not the stream is a terminal."""
        self._clear()
        self.stream.write(f"planned {self.label}: {self.done:,} points in {self.clock() - self.started:,.1f} s\n")
        self.stream.flush()
