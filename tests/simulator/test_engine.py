"""The event loop in the event core: heapq's order of (time, sequence), the clock, progress and observers."""
from __future__ import annotations

import gc
import random
import weakref

import pytest

from simulator._core import Engine


def test_events_run_in_time_order_and_same_times_in_scheduling_order() -> None:
    draw = random.Random(7)
    engine = Engine(stop_at=1e9)
    scheduled: list[tuple[float, int]] = []   # (time, how many were scheduled before it)
    ran: list[tuple[float, int]] = []

    def at(time: float) -> None:
        key = (time, len(scheduled))
        scheduled.append(key)
        engine.at(time, event, key)

    def event(key: tuple[float, int]) -> None:
        assert engine.now == key[0]
        ran.append(key)
        if len(scheduled) < 4000:   # some at the time that runs now, never before it
            at(engine.now + draw.choice((0.0, 0.5, 1.0, draw.random())))
    for _ in range(1000):
        at(float(draw.randrange(50)))
    engine.run()
    assert ran == sorted(scheduled) and engine.events == len(ran) == 4000


def test_a_tie_runs_first_scheduled_first() -> None:
    engine = Engine(stop_at=10.0)
    ran: list[str] = []
    for name in "abcdef":
        engine.at(2.0, ran.append, name)
    engine.at(1.0, lambda _: engine.at(2.0, ran.append, "g"))
    engine.run()
    assert ran == list("abcdefg")


def test_the_run_ends_at_stop_at_which_events_may_move() -> None:
    engine = Engine(stop_at=5.0)
    ran: list[float] = []
    engine.at(3.0, lambda _: setattr(engine, "stop_at", 8.0))
    for time in (1.0, 6.0, 7.5, 9.0):
        engine.at(time, ran.append, time)
    engine.run()
    assert ran == [1.0, 6.0, 7.5]
    assert engine.now == 8.0 and engine.events == 4   # an event left past the end: the clock at the end
    done = Engine(stop_at=5.0)
    done.at(2.0, lambda _: None)
    done.run()
    assert done.now == 5.0


def test_an_action_without_argument_gets_none_and_progress_comes_once_a_simulated_second() -> None:
    engine = Engine(stop_at=10.0)
    arguments: list[object] = []
    for tenth in range(1, 60):
        engine.at(tenth / 10, arguments.append)
    reports: list[float] = []
    engine.run(reports.append)
    assert arguments == [None] * 59
    assert reports == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_observers_see_every_event_after_it_and_an_exception_stops_the_run() -> None:
    engine = Engine(stop_at=10.0)
    seen: list[tuple[object, object, int]] = []
    engine.observers.append(lambda action, argument: seen.append((action, argument, engine.events)))

    def fail(_: object) -> None:
        raise RuntimeError("stopped")
    engine.at(1.0, len, "x")
    engine.at(2.0, fail)
    engine.at(3.0, len, "y")
    with pytest.raises(RuntimeError, match="stopped"):
        engine.run()
    assert seen == [(len, "x", 1)] and engine.now == 2.0 and engine.events == 1


def test_an_engine_and_its_components_are_collected_together() -> None:
    class Component:
        def __init__(self, engine: Engine) -> None:
            self.engine = engine
            engine.at(1.0, self.tick)

        def tick(self, _: object) -> None:
            pass
    gone = weakref.ref(Component(Engine(stop_at=1.0)))
    gc.collect()
    assert gone() is None
