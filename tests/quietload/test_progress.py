"""The one progress facility: rich's bar with an ETA on a terminal, a plain line every few
seconds elsewhere, and a closing line either way. The clock is a fake one the test moves."""
import io

import pytest

from quietload.progress import best_feasible, plan_progress, simulation_progress, study_progress


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_plain_line_every_few_seconds_then_the_closing_line():
    stream, clock = io.StringIO(), Clock()
    with simulation_progress("glue", 100.0, stream=stream, clock=clock, every_s=5.0) as progress:
        for step in range(1, 25):           # 10 simulated seconds per wall second, past the estimate
            clock.now += 0.5
            progress.update(5.0 * step)
            if step == 8:   # 60 simulated seconds left at 10 per wall second
                assert progress.remaining_s == 6
        progress.finish(120.0)
    assert stream.getvalue().splitlines() == [
        "simulating glue: 50/100 s simulated, 0:00:05 elapsed, ETA 0:00:05",
        "simulating glue: 100/100 s simulated, 0:00:10 elapsed, ETA 0:00:00",
        "simulated glue: 120.0 s of cluster time in 12.0 s",
    ]


def test_a_terminal_gets_richs_bar_and_only_the_closing_line_stays():
    stream, clock = Terminal(), Clock()
    with plan_progress("grid", stream=stream, clock=clock, every_s=5.0) as progress:
        for done in range(1, 11):
            clock.now += 1.0
            progress.update(done, 10)
        progress.finish()
    text = stream.getvalue()
    assert "elapsed, ETA" not in text                                # no plain lines on a terminal
    assert "10/10 points" in text and "ETA" in text                  # the bar was drawn
    assert text.endswith("planned grid: 10 points in 10.0 s\n")


def test_a_study_closes_once_and_its_validation_lines_follow():
    stream, clock = io.StringIO(), Clock()
    study, held_out = study_progress("tuning tiny", stream=stream, clock=clock, every_s=5.0)
    study.finish()                      # before any trial: nothing to close
    for done in range(1, 5):
        clock.now += 2.0
        study.update(done, 4, best_feasible(120 if done > 1 else None))
    held_out.note("tuning tiny: trial 3 on 20 held-out seeds: held")
    study.finish()
    held_out.finish()
    assert stream.getvalue().splitlines() == [
        "tuning tiny: 4/4 trials (best feasible 120 requests), 0:00:06 elapsed, ETA 0:00:00",
        "tuning tiny: trial 4/4, best feasible 120 requests, 6.0 s",
        "tuning tiny: trial 3 on 20 held-out seeds: held",
    ]


def test_a_study_without_a_feasible_trial_says_so_once():
    stream, clock = io.StringIO(), Clock()
    study, held_out = study_progress("tuning tiny", stream=stream, clock=clock, every_s=5.0)
    study.update(1, 2, best_feasible(None))     # the study's clock starts at its first trial
    clock.now += 1.0
    study.update(2, 2, best_feasible(None))
    study.finish()
    held_out.finish()
    assert stream.getvalue().splitlines() == ["tuning tiny: trial 2/2, none feasible, 1.0 s"]


def test_the_held_out_validation_has_its_own_lines_with_an_eta():
    stream, clock = io.StringIO(), Clock()
    study, held_out = study_progress("tuning tiny", stream=stream, clock=clock, every_s=5.0)
    study.update(1, 1, best_feasible(120))
    for done in range(1, 9):            # 8 of at most 40 runs, one a second; the first point holds
        clock.now += 1.0
        held_out.update(done, 40)
    held_out.note("tuning tiny: trial 0 on 20 held-out seeds: held")
    study.finish()
    held_out.finish()
    assert stream.getvalue().splitlines() == [
        "tuning tiny: trial 1/1, best feasible 120 requests, 1.0 s",     # closed by the first held-out run
        "tuning tiny: held-out validation: 6/40 runs at most, 0:00:05 elapsed, ETA 0:00:34",
        "tuning tiny: trial 0 on 20 held-out seeds: held",
        "tuning tiny: 8 held-out runs in 7.0 s",
    ]


def test_the_eta_is_the_median_measured_time_of_a_unit_times_the_units_left():
    """Two trials that run to the end (8 s), then trials that stop at their verdict (0.2 s): after three
    of those, the ETA follows them, not a rate that still holds the slow ones."""
    stream, clock = io.StringIO(), Clock()
    study, _ = study_progress("tuning tiny", stream=stream, clock=clock, every_s=5.0)
    study.update(1, 100, best_feasible(None))    # the first trial starts the clock: its time is not measured
    assert study.remaining_s is None
    for took in (8.0, 8.0):
        clock.now += took
        study.update(study.done + 1, 100)
    assert study.unit_s == [8.0, 8.0] and study.remaining_s == 97 * 8.0
    for _ in range(3):
        clock.now += 0.2
        study.update(study.done + 1, 100)
    assert study.remaining_s == pytest.approx(94 * 0.2)
    clock.now += 0.5
    study.update(study.done, 100, best_feasible(None, running="trial 6, seed 1: 3 s simulated"))   # no unit done: no change
    assert study.remaining_s == pytest.approx(94 * 0.2)
