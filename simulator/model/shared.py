"""A resource that flows share: TCP connections on a NIC, connections on a network processor."""
from __future__ import annotations

from typing import Any

from simulator.model.metrics import Timeline


class Shared:
    """A resource shared by flows (TCP connections on a NIC, connections on a network
    processor): each flow's work goes in order, and the capacity is split evenly among the
    flows busy when a piece of work starts (processor sharing, share fixed at the start)."""

    __slots__ = ("capacity", "busy_until", "free_at", "used", "spread")

    def __init__(self, capacity: float, spread: bool = False):
        self.capacity = capacity
        self.busy_until: dict[Any, float] = {}
        self.free_at = 0.0          # when every flow's work is done
        self.used = Timeline()
        self.spread = spread        # account use over time (busy %) rather than amount at start

    def take(self, start: float, amount: float, flow) -> float:
        busy = self.busy_until
        begin = busy.get(flow, 0.0)
        if begin < start:
            begin = start
        sharing = 1
        if self.free_at > begin:
            stale = []
            for other, until in busy.items():
                if until > begin:
                    if other is not flow:
                        sharing += 1
                elif until <= start:   # done before anything asked of us now: forget it
                    stale.append(other)
            for other in stale:
                del busy[other]
        end = begin + amount * sharing / self.capacity
        busy[flow] = end
        if end > self.free_at:
            self.free_at = end
        if self.spread:
            self.used.add_interval(begin, end, 1.0 / sharing)
        else:
            self.used.add(begin, amount)
        return end
