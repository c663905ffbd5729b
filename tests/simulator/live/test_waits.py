"""Each thread group's wait for a core over the load, from two reads of the scheduler's counts
(given here, no /proc needed), and the run marked placed badly when a broker or a neighbour waited."""
from __future__ import annotations

import os

from simulator.live.waits import (BROKER_CORES, WAIT_PCT_MAX, CoreWaits, ForeignTime, Group, busy_by_core, driver_thread,
                                  executor_thread, placed_badly)

MS = 1_000_000   # ns


def _waits(reads: list[dict[int, dict[int, tuple[str, int, int, int]]]], groups: list[Group], window_s: float = 10.0,
           split: dict | None = None) -> dict:
    state = {"read": 0}
    clock = iter([100.0, 100.0 + window_s])
    meter = CoreWaits(groups, tree=lambda pid: [pid], clock=lambda: next(clock),
                      read=lambda pid: reads[state["read"]].get(pid, {}))
    meter.start()
    state["read"] = 1
    meter.mark()
    return meter.figures(split)


def test_a_groups_run_and_wait_between_the_loads_start_and_end_as_a_share_of_the_window() -> None:
    before = {10: {1: ("data-plane-kafk", 50 * MS, 5 * MS, 9), 2: ("kafka-network-t", 0, 0, 0)}}
    after = {10: {1: ("data-plane-kafk", 2050 * MS, 105 * MS, 99), 2: ("kafka-network-t", 500 * MS, 50 * MS, 40),
                  3: ("new-thread", 10 * MS, 45 * MS, 2)}}     # born during the load: counted from zero
    waits = _waits([before, after], [Group("broker-1", lambda: [10], judged=True)])
    assert waits == {"broker-1": {"threads": 3, "run_s": 2.51, "wait_s": 0.195, "wait_pct": 1.95, "judged": True}}
    assert placed_badly(waits) == []


def test_a_broker_or_a_neighbour_over_the_share_marks_the_run_others_never_do() -> None:
    waits = {"broker-1": {"threads": 30, "run_s": 5.0, "wait_s": 0.25, "wait_pct": 2.5, "judged": True},
             "executor": {"threads": 2, "run_s": 9.0, "wait_s": 5.0, "wait_pct": 50.0, "judged": False},
             "payment-api": {"threads": 5, "run_s": 0.2, "wait_s": 0.1, "wait_pct": 1.0, "judged": True}}
    assert WAIT_PCT_MAX == 2.0
    assert placed_badly(waits) == ["placed badly: broker-1's threads waited for a core 2.5 % of the load's window "
                                   "(0.25 s; at most 2 % is a host of its own)"]


def test_the_jobs_threads_split_into_executor_and_driver_and_neighbours_by_their_threads() -> None:
    before = {20: {1: ("Executor task l", 0, 0, 0), 2: ("kafka-producer-", 0, 0, 0), 3: ("C2 CompilerThre", 0, 0, 0)},
              30: {7: ("python3", 0, 0, 0), 8: ("rdk:broker1", 0, 0, 0), 9: ("rdk:broker1", 0, 0, 0)}}
    after = {20: {1: ("Executor task l", 4000 * MS, 100 * MS, 9), 2: ("kafka-producer-", 1000 * MS, 300 * MS, 9),
                  3: ("C2 CompilerThre", 700 * MS, 700 * MS, 9)},
             30: {7: ("python3", 10 * MS, 1 * MS, 5), 8: ("rdk:broker1", 20 * MS, 2 * MS, 5), 9: ("rdk:broker1", 30 * MS, 40 * MS, 5)}}
    groups = [Group("executor", lambda: [20], executor_thread), Group("driver", lambda: [20], driver_thread),
              Group("neighbours", lambda: [30], judged=True)]
    waits = _waits([before, after], groups, split={"neighbours": {"api": {7, 8}, "scoring": {9}}})
    assert waits["executor"] == {"threads": 2, "run_s": 5.0, "wait_s": 0.4, "wait_pct": 4.0, "judged": False}
    assert waits["driver"] == {"threads": 1, "run_s": 0.7, "wait_s": 0.7, "wait_pct": 7.0, "judged": False}
    assert waits["api"] == {"threads": 2, "run_s": 0.03, "wait_s": 0.003, "wait_pct": 0.03, "judged": True}
    assert waits["scoring"] == {"threads": 1, "run_s": 0.03, "wait_s": 0.04, "wait_pct": 0.4, "judged": True}
    assert "neighbours" not in waits


def test_no_figures_before_the_load_ended() -> None:
    meter = CoreWaits([Group("broker-1", lambda: [10], judged=True)], tree=lambda pid: [pid], read=lambda pid: {})
    assert meter.figures() == {}
    meter.start()
    assert meter.figures() == {}


def test_what_else_the_brokers_cores_ran_is_their_busy_time_less_the_brokers_own() -> None:
    clock = iter([0.0, 10.0])
    reads = iter([({0: 100.0, 1: 50.0}, {0: 30.0}), ({0: 106.3, 1: 60.0}, {0: 36.0})])
    state: dict = {}

    def busy() -> dict:
        state["now"] = next(reads)
        return state["now"][0]

    foreign = ForeignTime((0,), ours=lambda: state["now"][1], busy=busy, clock=lambda: next(clock))
    foreign.start()
    foreign.mark()
    assert foreign.figures() == {"cores": 1, "foreign_s": 0.3, "foreign_pct": 3.0}   # core 1's 10 s are the job's, not counted
    assert placed_badly({BROKER_CORES: foreign.figures()}) == [
        "placed badly: the brokers' cores ran other work 3.0 % of the load's window (0.30 s; at most 2 % leaves them "
        "a host of their own)"]


def test_the_busy_time_of_each_core_from_proc_stat(tmp_path) -> None:
    stat = tmp_path / "stat"
    stat.write_text("cpu  9 9 9 9 9 9 9 9 0 0\ncpu0 100 1 20 500 3 4 5 6 0 0\ncpu1 0 0 0 700 0 0 0 0 0 0\nintr 1 2\n")
    tick = os.sysconf("SC_CLK_TCK")
    assert busy_by_core(stat) == {0: 136 / tick, 1: 0.0}    # idle and iowait left out
