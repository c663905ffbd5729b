"""The runner's Spark engine: one Spark task per evaluation task, run in Spark's Python workers,
the results collected back in task order.

``local[*]`` needs no cluster: Spark runs in this machine's JVM and forks its Python workers
from this interpreter. A remote master needs quietload importable on its executors.
"""
from __future__ import annotations

import functools
import os
import pickle
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from simulator.evaluator import Evaluator
from workloads import ScenarioError

_PROJECT = str(Path(__file__).resolve().parents[1])
_LOG_CONFIG = Path(__file__).with_name("spark-log4j2.properties")
_POLL_S = 0.5

_LOADED: dict[str, tuple[Callable[[Evaluator, Any], Any], Evaluator]] = {}   # a Python worker's work and evaluator, by engine


def _run_rows(engine: str, shipped: bytes, rows: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    """In a Python worker: each (index, task) row's result. Spark reuses its Python workers, so
    the evaluator is unpickled once per worker and engine, not once per task."""
    if engine not in _LOADED:
        _LOADED.clear()
        _LOADED[engine] = pickle.loads(shipped)
    work, evaluator = _LOADED[engine]
    for index, task in rows:
        yield index, work(evaluator, task)


class SparkEngine:
    """A Spark session that runs batches of tasks; ``stop`` ends the session and its JVM."""

    def __init__(self, master: str, work: Callable[[Evaluator, Any], Any], evaluator: Evaluator) -> None:
        self.id = uuid.uuid4().hex
        self.shipped = pickle.dumps((work, evaluator))
        self.session = _session(master)

    def run(self, tasks: Sequence[Any], progress: Callable[[int, int], None]) -> list[Any]:
        """Every task's result, in task order (one Spark task per task, so executors pick tasks as they free up)."""
        context = self.session.sparkContext
        rdd = context.parallelize(list(enumerate(tasks)), len(tasks)).mapPartitions(
            functools.partial(_run_rows, self.id, self.shipped))
        by_index = dict(_collect_with_progress(context, rdd, len(tasks), progress))
        return [by_index[i] for i in range(len(tasks))]

    def stop(self) -> None:
        _stop(self.session)


def _session(master: str) -> Any:
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join([_PROJECT, *(p for p in paths if p != _PROJECT)])
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # loopback only, as the live stack
    from pyspark.sql import SparkSession     # optional extra (live)
    try:
        session = (SparkSession.builder.master(master).appName("quietload")
                   .config("spark.ui.enabled", "false")
                   .config("spark.pyspark.python", sys.executable)
                   .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
                   .config("spark.ui.showConsoleProgress", "false")   # the caller draws its own progress line
                   .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_LOG_CONFIG.as_uri()}")
                   .getOrCreate())
    except Exception as error:  # a bad master URL or no Java: one line, nothing left running
        raise ScenarioError("--engine spark", f"could not start Spark on {master!r}: {str(error).splitlines()[0]}") from None
    session.sparkContext.setLogLevel("ERROR")
    return session


def _collect_with_progress(context: Any, rdd: Any, total: int, progress: Callable[[int, int], None]) -> list:
    """``rdd.collect()`` in a thread, while this thread reports the finished Spark tasks (one per task)."""
    group = f"quietload-{os.getpid()}-{time.monotonic_ns()}"
    outcome: dict[str, Any] = {}

    def collect() -> None:
        context.setJobGroup(group, "quietload evaluations")
        try:
            outcome["rows"] = rdd.collect()
        except Exception as error:
            outcome["error"] = error

    worker = threading.Thread(target=collect, daemon=True)
    worker.start()
    shown = -1
    while worker.is_alive():
        worker.join(_POLL_S)
        done = _finished_tasks(context, group, total)
        if done != shown and done < total:
            progress(done, total)
            shown = done
    if "error" in outcome:
        raise outcome["error"]
    progress(total, total)
    return outcome["rows"]


def _finished_tasks(context: Any, group: str, total: int) -> int:
    """Finished tasks of the stage that runs the evaluations (the one with a Spark task per task)."""
    tracker, done = context.statusTracker(), 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        for stage in (tracker.getStageInfo(s) for s in (job.stageIds if job else [])):
            if stage and stage.numTasks == total:
                done = max(done, stage.numCompletedTasks)
    return done


def _stop(session: Any) -> None:
    """Stop the session, then the JVM behind it, so nothing of Spark is left running."""
    from pyspark import SparkContext     # optional extra (live)
    gateway = SparkContext._gateway
    session.stop()
    if gateway is not None:
        proc = getattr(gateway, "proc", None)
        gateway.shutdown()
        if proc is not None:
            if proc.stdin:
                proc.stdin.close()  # spark-submit exits when its parent's pipe closes
            try:
                proc.wait(timeout=20)
            except Exception:
                proc.kill()
                proc.wait()
        SparkContext._gateway = None
        SparkContext._jvm = None
