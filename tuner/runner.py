"""Evaluation tasks on one runner: inline, on a pool of processes, or on Spark.

A task is any picklable value; ``work(evaluator, task)`` turns it into its result. ``work`` is a
module-level function (or a ``functools.partial`` of one), so pool processes and Spark's Python
workers find it by name. The evaluator is handed to each process once, not with every task, so
what it keeps between runs (the model's measured rows) serves every task that process runs.
Results come back in task order, so the same tasks give the same results on any engine and
any number of workers.

The study asks for one trial at a time (``submit``) as workers free up, inline or on the pool; the
plan runs whole batches of points (``run``), on any engine.
"""
from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from simulator.evaluator import Evaluator
from simulator.processes import STOPPING_SIGNALS, die_with_parent
from workloads import ScenarioError

ENGINES = ("local", "spark")

Work = Callable[[Evaluator, Any], Any]     # (the process's evaluator, a task) -> the task's result
Progress = Callable[[int, int], None]      # (tasks done, tasks in the batch)


def usable_cores() -> int:
    """The cores this process may run on: more worker processes than these only wait, each with a model's memory."""
    return len(os.sched_getaffinity(0)) or 1


@dataclass(frozen=True)
class Execution:
    """Where tasks run: ``local`` on ``workers`` processes (one: inline, in this process), or
    ``spark`` on the executors of ``master``."""

    engine: str = "local"
    workers: int | None = None      # local processes [default and at most: the usable cores]
    master: str = "local[*]"

    def checked(self) -> "Execution":
        """This execution with its worker count resolved; a bad engine or count is one ``--`` line."""
        if self.engine not in ENGINES:
            raise ScenarioError("--engine", f"expected one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.workers is not None and self.workers < 1:
            raise ScenarioError("--workers", f"expected at least 1, got {self.workers}")
        return Execution(self.engine, min(self.workers or usable_cores(), usable_cores()), self.master)

    @property
    def inline(self) -> bool:
        return self.engine == "local" and self.workers == 1


_WORKER: tuple[Work, Evaluator] | None = None   # a pool process's work and evaluator
END_GRACE_S = 2.0   # how long a worker is given to die of SIGTERM before SIGKILL
TICK_S = 1.0        # wall seconds between progress reports while no task finishes

# The simulated seconds of the run each process is running (0: none), where its progress line reads
# them: a pool's processes write their own slot of a shared array; inline, this process its own.
_SIMULATED: Any = None
_SLOT = 0
_INLINE = [0.0]
_INLINE_TICK: list[Callable[[], None] | None] = [None]   # an inline batch's report, told each wall second
_TICKED = [0.0]


def simulated(seconds: float) -> None:
    """A run's progress, once a simulated second (``Evaluator.evaluate(..., progress)``): told to the
    runner's parent, whose progress line shows it. Work functions hand it to their runs."""
    if _SIMULATED is not None:
        _SIMULATED[_SLOT] = seconds
        return
    _INLINE[0] = seconds
    tick = _INLINE_TICK[0]
    if tick is not None and seconds > 0 and time.monotonic() - _TICKED[0] >= TICK_S:
        _TICKED[0] = time.monotonic()
        tick()


def _start_worker(work: Work, evaluator: Evaluator, shared: Any = None, slots: Any = None) -> None:
    """A pool process's first step. Forked, it inherited its parent's Python handlers (which turn a
    signal into a KeyboardInterrupt that the pool hands back as a task's error, then ignore the
    next one): it gets the default action back, and is killed with its parent (the thread that
    started it) however that ends: a worker has nothing to clean up. The signals were held while
    it was forked (``timeout`` and Ctrl-C signal the whole process group); they land now."""
    global _WORKER, _SIMULATED, _SLOT
    if shared is not None:
        with slots.get_lock():
            _SIMULATED, _SLOT, slots.value = shared, slots.value, slots.value + 1
    for stopping in STOPPING_SIGNALS:
        signal.signal(stopping, signal.SIG_DFL)
    die_with_parent()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING_SIGNALS)
    _WORKER = (work, evaluator)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Stopping signals wait while a pool may fork: no worker runs its parent's handlers before its own."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _run_in_worker(task: Any) -> Any:
    assert _WORKER is not None
    work, evaluator = _WORKER
    try:
        return work(evaluator, task)
    finally:
        simulated(0.0)


class Runner:
    """Runs ``work(evaluator, task)`` for tasks under an ``Execution``; a context manager that
    stops its processes (or its Spark session) on leaving, even on error."""

    def __init__(self, work: Work, evaluator: Evaluator, execution: Execution = Execution(workers=1)) -> None:
        self.work, self.evaluator, self.execution = work, evaluator, execution.checked()
        self._pool: ProcessPoolExecutor | None = None
        self._spark: Any = None
        self._simulated: Any = None

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> None:
        if self._pool is not None:
            if error is not None:   # a stop signal, a task's error: what the other workers run is not waited for
                ended = _end_processes(self._pool)
                if isinstance(error, KeyboardInterrupt) and ended:
                    error.add_note(f"{ended} worker process{'es' if ended > 1 else ''} ended")
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._spark is not None:
            self._spark.stop()
            self._spark = None

    def simulated_s(self) -> list[float]:
        """The simulated seconds each run now running has reached (those past their first second)."""
        seconds = list(self._simulated) if self._simulated is not None else [_INLINE[0]]
        return sorted((s for s in seconds if s > 0), reverse=True)

    def running(self) -> str | None:
        """The runs now running as a progress line shows them: ``runs at 41, 12 s simulated``."""
        seconds = self.simulated_s()
        if not seconds:
            return None
        return f"run{'s' if len(seconds) > 1 else ''} at {', '.join(f'{s:,.0f}' for s in seconds)} s simulated"

    def submit(self, task: Any) -> Future:
        """The task's result, to come; inline, it is there at once (an error too, as a pool would hand it)."""
        if self.execution.engine == "spark":
            raise ScenarioError("--engine", "spark runs whole batches of tasks, not one task at a time")
        if self.execution.inline:
            future: Future = Future()
            try:
                future.set_result(self.work(self.evaluator, task))
            except Exception as error:   # handed to the caller through the future, as a pool would; a stop signal goes on at once
                future.set_exception(error)
            return future
        with _signals_held():
            return self._processes(self.execution.workers or 1).submit(_run_in_worker, task)

    def run(self, tasks: Sequence[Any], progress: Progress | None = None,
            decided: Callable[[list[Any]], bool] | None = None) -> list[Any]:
        """Every task's result, in task order; ``progress`` hears (done, len(tasks)) as tasks finish.
        With ``decided``: the results up to the first whose prefix (in task order) it finds decided,
        the tasks after it left unrun (those a pool has started finish unheard), whatever the order
        the tasks finished in, so the same tasks give the same results on any number of workers."""
        report = progress or (lambda done, total: None)
        settled = decided or (lambda results: False)
        if not tasks:
            return []
        if self.execution.engine == "spark":
            return self._spark_session().run(tasks, report)
        if self.execution.inline:
            results: list[Any] = []
            _INLINE_TICK[0] = lambda: report(len(results), len(tasks))
            try:
                for task in tasks:
                    try:
                        results.append(self.work(self.evaluator, task))
                    finally:
                        simulated(0.0)
                    report(len(results), len(tasks))
                    if settled(results):
                        break
            finally:
                _INLINE_TICK[0] = None
            return results
        pool = self._processes(min(self.execution.workers or 1, len(tasks)))
        found: list[Any] = [None] * len(tasks)
        finished, ordered = [False] * len(tasks), 0
        with _signals_held():
            index = {pool.submit(_run_in_worker, task): i for i, task in enumerate(tasks)}
        pending, done = set(index), 0
        while pending:
            ended, pending = wait(pending, timeout=TICK_S, return_when=FIRST_COMPLETED)
            if not ended:   # none finished this second: the line shows the runs' simulated time
                report(done, len(tasks))
            for future in sorted(ended, key=index.__getitem__):
                found[index[future]], finished[index[future]] = future.result(), True
                done += 1
                report(done, len(tasks))
            while ordered < len(tasks) and finished[ordered]:
                ordered += 1
                if settled(found[:ordered]):
                    for other in index:
                        other.cancel()
                    return found[:ordered]
        return found

    def _processes(self, count: int) -> ProcessPoolExecutor:
        """The pool, started on first use with ``count`` processes (no more than the first batch needs)."""
        if self._pool is None:
            import multiprocessing
            self._simulated = multiprocessing.Array("d", count, lock=False)
            self._pool = ProcessPoolExecutor(count, initializer=_start_worker,
                                             initargs=(self.work, self.evaluator, self._simulated, multiprocessing.Value("i", 0)))
        return self._pool

    def _spark_session(self) -> Any:
        if self._spark is None:
            from tuner.spark_engine import SparkEngine   # pyspark loads only for the spark engine
            self._spark = SparkEngine(self.execution.master, self.work, self.evaluator)
        return self._spark


def _end_processes(pool: ProcessPoolExecutor) -> int:
    """Ends every process of ``pool`` now: SIGTERM, then SIGKILL for any still there after
    ``END_GRACE_S``; how many were alive."""
    processes = [p for p in dict(pool._processes or {}).values() if p.is_alive()]   # the pool names no public way
    for process in processes:
        process.terminate()
    deadline = time.monotonic() + END_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()
    return len(processes)
