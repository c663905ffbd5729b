"""The event loop: a heap of events ordered by (time, sequence).

The sequence number makes same-time events run in the order they were scheduled, so a run
is deterministic. Nothing here is global: every component receives the engine it runs on.

The heap is heapq's algorithm over ``Event`` objects compared by their two fields: compiled,
a comparison reads two floats where a tuple's goes through the interpreter's rich comparison,
and an event is one object instead of a tuple, a float and an integer. Keys are unique, so
any correct heap pops the events in the same order.
"""
from __future__ import annotations

from typing import Any, Callable


class Event:
    __slots__ = ("time", "sequence", "action", "argument")

    def __init__(self, time: float, sequence: int, action: Callable[..., None], argument: object) -> None:
        self.time = time
        self.sequence = sequence
        self.action = action
        self.argument = argument


def _before(a: Event, b: Event) -> bool:
    return a.time < b.time or (a.time == b.time and a.sequence < b.sequence)


class Engine:
    __slots__ = ("now", "stop_at", "_heap", "_sequence", "events", "observers")

    def __init__(self, stop_at: float) -> None:
        self.now = 0.0
        self.stop_at = stop_at  # components may move it (the load's end decides the run's end)
        self._heap: list[Event] = []
        self._sequence = 0
        self.events = 0
        # called as observer(action, argument) after every event: for tracing and tests
        self.observers: list[Callable[[Any, Any], None]] = []

    def at(self, time: float, action: Callable[[Any], None], argument: Any = None) -> None:
        self._sequence += 1
        event = Event(time, self._sequence, action, argument)
        heap = self._heap
        heap.append(event)
        position = len(heap) - 1
        while position > 0:   # heapq's _siftdown: a later sequence never goes before an equal time
            parent_position = (position - 1) >> 1
            parent = heap[parent_position]
            if not time < parent.time:
                break
            heap[position] = parent
            position = parent_position
        heap[position] = event

    def _pop(self) -> Event:
        """heapq.heappop: the earliest event out, the last one sifted into its place."""
        heap = self._heap
        last = heap.pop()
        if not heap:
            return last
        first = heap[0]
        end = len(heap)
        position = 0
        child = 1
        while child < end:    # heapq's _siftup: down to a leaf along the earlier children
            right = child + 1
            if right < end and not _before(heap[child], heap[right]):
                child = right
            heap[position] = heap[child]
            position = child
            child = 2 * position + 1
        while position > 0:   # then up to where the last event belongs
            parent_position = (position - 1) >> 1
            parent = heap[parent_position]
            if not _before(last, parent):
                break
            heap[position] = parent
            position = parent_position
        heap[position] = last
        return first

    def run(self, progress: Callable[[float], None] | None = None) -> None:
        heap = self._heap
        next_report = 1.0
        while heap and heap[0].time <= self.stop_at:
            event = self._pop()
            time = event.time
            self.now = time
            event.action(event.argument)
            self.events += 1
            if self.observers:
                for observe in self.observers:
                    observe(event.action, event.argument)
            if progress is not None and time >= next_report:
                progress(time)
                next_report = time + 1.0
        self.now = self.stop_at if heap or self.now < self.stop_at else self.now
