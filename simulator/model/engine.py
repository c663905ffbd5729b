"""The event loop: a heap of (time, sequence, action, argument).

The sequence number makes same-time events run in the order they were scheduled, so a run
is deterministic. Nothing here is global: every component receives the engine it runs on.
"""
from __future__ import annotations

import heapq
from typing import Any, Callable, Final

# module constants compile to C statics: a call needs no lookup in the module's globals
heappush: Final = heapq.heappush
heappop: Final = heapq.heappop


class Engine:
    __slots__ = ("now", "stop_at", "_heap", "_sequence", "events", "observers")

    def __init__(self, stop_at: float) -> None:
        self.now = 0.0
        self.stop_at = stop_at  # components may move it (the load's end decides the run's end)
        self._heap: list = []
        self._sequence = 0
        self.events = 0
        # called as observer(action, argument) after every event: for tracing and tests
        self.observers: list[Callable[[Any, Any], None]] = []

    def at(self, time: float, action: Callable[[Any], None], argument: Any = None) -> None:
        self._sequence += 1
        heappush(self._heap, (time, self._sequence, action, argument))

    def run(self, progress: Callable[[float], None] | None = None) -> None:
        heap = self._heap
        next_report = 1.0
        while heap and heap[0][0] <= self.stop_at:
            time, _, action, argument = heappop(heap)
            self.now = time
            action(argument)
            self.events += 1
            if self.observers:
                for observe in self.observers:
                    observe(action, argument)
            if progress is not None and time >= next_report:
                progress(time)
                next_report = time + 1.0
        self.now = self.stop_at if heap or self.now < self.stop_at else self.now
