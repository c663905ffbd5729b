"""What every child process quietload starts shares: it dies with its parent, and the signals
that stop a command are the same for all of them.

Live services and producers (``simulator.live``) and the model's worker processes
(``tuner.runner``) alike, so that no process outlives the command that started it, even when that
command is killed with SIGKILL.
"""
from __future__ import annotations

import ctypes
import signal

# Ctrl-C, SIGTERM (``timeout``, CI, orchestrators, ``kill``) and SIGHUP (a closed terminal)
STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_PR_SET_PDEATHSIG = 1   # linux/prctl.h
# resolved here, not in the forked child, where loading a library could wait on a lock forever
_prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)


def die_with_parent() -> None:
    """In a child (``preexec_fn``, a pool's initializer or its first line): SIGKILL it when the
    process (precisely: the thread) that started it dies, even by SIGKILL. A no-op where prctl
    is missing (not Linux)."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
