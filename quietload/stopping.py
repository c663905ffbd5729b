"""How a command stops on a signal: Ctrl-C (SIGINT), SIGTERM (``timeout``, CI, orchestrators) and
SIGHUP (a closed terminal) all unwind it as a KeyboardInterrupt, so every worker process, service,
file and child of a run is ended or cleaned up on the way out (``tuner.runner`` ends its workers;
a study keeps its completed trials). What each part ended or kept rides on the interrupt as a
note, and the command's last line says it, once:

    stopping: SIGTERM received; tuning night at 3/20 trials after 41.2 s; 3 trials completed, ...

The exit code is the shell's for the signal (128 + its number: 130 for Ctrl-C, 143 for SIGTERM).
"""
from __future__ import annotations

import atexit
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from simulator.processes import STOPPING_SIGNALS

_received: list[signal.Signals] = []   # the signal that stopped this command, once one has


def received() -> signal.Signals | None:
    """The signal this command is stopping on, if any."""
    return _received[0] if _received else None


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """Inside the block each stopping signal raises KeyboardInterrupt in the main thread. A second
    signal during the clean-up is ignored so that the clean-up can finish (each part bounds its own)."""
    def interrupt(signum: int, frame: object) -> None:
        for stopping in STOPPING_SIGNALS:
            signal.signal(stopping, lambda *_: None)   # not SIG_IGN: children started meanwhile keep the default
        _received.append(signal.Signals(signum))
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {stopping: signal.signal(stopping, interrupt) for stopping in STOPPING_SIGNALS}
    try:
        yield
    finally:
        for stopping, handler in previous.items():
            signal.signal(stopping, handler)


def stop_line(stop: BaseException) -> str:
    """The command's one line on stopping: the signal, then what each part ended or kept, outermost first."""
    signum = received()
    cause = f"{signum.name} received" if signum is not None else "interrupted"
    notes = [note for note in reversed(getattr(stop, "__notes__", [])) if note]
    return "; ".join([f"stopping: {cause}", *notes])


def stop_exit_code() -> int:
    """The shell's exit code for a command a signal ended: 128 + the signal's number."""
    return 128 + int(received() or signal.SIGINT)


def exit_stopped() -> None:
    """Ends a stopped command once it has unwound: its exit handlers run and its output is
    flushed, but the interpreter's teardown, which frees the command's heap object by object
    (a second, and several on a busy machine), is left to the kernel, which frees it at once."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe, a closed stream: nothing more to say
            pass
    os._exit(stop_exit_code())
