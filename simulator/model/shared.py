"""A resource that flows share: TCP connections on a NIC, connections on a network processor."""
from __future__ import annotations

from typing import Any

from simulator.model.metrics import Timeline


class Shared:
    """A resource shared by flows (TCP connections on a NIC, connections on a network
    processor): each flow's work goes in order, and the capacity is split evenly among the
    flows busy when a piece of work starts (processor sharing, share fixed at the start)."""

    __slots__ = ("capacity", "flows", "until", "free_at", "used", "spread")

    def __init__(self, capacity: float, spread: bool = False):
        self.capacity = capacity
        # the flows with work in hand or done lately, and when each one's work is done: a few
        # connections at a time, so two short lists scanned beat a dictionary's hashing
        self.flows: list[Any] = []
        self.until: list[float] = []
        self.free_at = 0.0          # when every flow's work is done
        self.used = Timeline()
        self.spread = spread        # account use over time (busy %) rather than amount at start

    def busy_until(self, flow: Any) -> float:
        """When ``flow``'s work taken so far is done (0: none lately)."""
        flows = self.flows
        for i in range(len(flows)):
            if flows[i] is flow:
                return self.until[i]
        return 0.0

    def take(self, start: float, amount: float, flow: Any) -> float:
        flows, until = self.flows, self.until
        count = len(flows)
        at = -1
        begin = 0.0
        for i in range(count):
            if flows[i] is flow:
                at = i
                begin = until[i]
                break
        if begin < start:
            begin = start
        sharing = 1
        if self.free_at > begin:
            kept = 0
            at = -1
            for i in range(count):
                other, other_until = flows[i], until[i]
                if other_until > begin:
                    if other is not flow:
                        sharing += 1
                elif other_until <= start:   # done before anything asked of us now: forget it
                    continue
                if other is flow:
                    at = kept
                if kept != i:
                    flows[kept] = other
                    until[kept] = other_until
                kept += 1
            if kept < count:
                del flows[kept:]
                del until[kept:]
        end = begin + amount * sharing / self.capacity
        if at >= 0:
            until[at] = end
        else:
            flows.append(flow)
            until.append(end)
        if end > self.free_at:
            self.free_at = end
        if self.spread:
            self.used.add_interval(begin, end, 1.0 / sharing)
        else:
            self.used.add(begin, amount)
        return end
