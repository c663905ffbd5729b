"""The event loop: a heap of events ordered by (time, sequence), in the event core (``core/src/engine.rs``).

The sequence number makes same-time events run in the order they were scheduled, so a run
is deterministic. Nothing here is global: every component receives the engine it runs on.
``engine.at(time, action, argument)`` runs ``action(argument)`` at ``time``; ``run(progress)``
runs the events up to ``stop_at`` (which components may move) and calls ``progress(time)`` at
most once a simulated second; ``observers`` are called as ``observer(action, argument)`` after
every event, for tracing and tests.
"""
from __future__ import annotations

from simulator._core import Engine

__all__ = ["Engine"]
