import io

from quietload.progress import SimulationProgress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _clock(*readings: float):
    times = iter(readings)
    return lambda: next(times)


def test_terminal_redraws_one_line_at_most_every_tenth_of_a_second():
    stream = Terminal()
    with SimulationProgress("glue", stream, _clock(100.0, 100.5, 100.55, 100.7, 102.0)) as progress:
        progress(1.0)   # drawn
        progress(2.0)   # 0.05 s later: skipped
        progress(3.0)   # drawn
        progress.finish(3.4)
    assert stream.getvalue() == (
        "\r\x1b[Ksimulating glue: 1 s simulated, 0.5 s elapsed"
        "\r\x1b[Ksimulating glue: 3 s simulated, 0.7 s elapsed"
        "\r\x1b[K"
        "simulated glue: 3.4 s of cluster time in 2.0 s\n")


def test_pipe_gets_only_the_closing_line():
    stream = io.StringIO()
    with SimulationProgress("glue", stream, _clock(10.0, 11.0, 12.0, 13.5)) as progress:
        progress(1.0)
        progress(2.0)
        progress.finish(2.5)
    assert stream.getvalue() == "simulated glue: 2.5 s of cluster time in 3.5 s\n"
