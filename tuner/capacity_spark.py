"""The plan's grid on a Spark cluster: one DataFrame row per (cluster option, load point) task,
the model run on each row in Spark's Python workers, the figures collected back in task order.

``local[*]`` needs no cluster: Spark runs in this machine's JVM and forks its Python workers
from this interpreter. A remote master needs quietload importable on its executors.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from workloads import ScenarioError

_PROJECT = str(Path(__file__).resolve().parents[1])
_LOG_CONFIG = Path(__file__).with_name("spark-log4j2.properties")
_POLL_S = 0.5


def _evaluate_rows(rows: Iterator[Any]) -> Iterator[tuple[int, str]]:
    from tuner.planning.capacity import evaluate_point  # imported in the Python worker
    for row in rows:
        yield row.point_id, json.dumps(evaluate_point(json.loads(row.task)))


def evaluate_on_spark(tasks: list[dict], master: str, progress: Callable[[int, int], None]) -> list[dict]:
    """Every task's figures, in task order, computed by Spark's executors (one task per partition,
    so executors pick points as they free up); the session and its JVM stop even on error."""
    session = _session(master)
    try:
        rows = session.sparkContext.parallelize([(i, json.dumps(t)) for i, t in enumerate(tasks)], len(tasks))
        frame = session.createDataFrame(rows, "point_id long, task string")
        rdd = frame.rdd.mapPartitions(_evaluate_rows)
        collected = _collect_with_progress(session.sparkContext, rdd, len(tasks), progress)
    finally:
        _stop(session)
    by_index = dict(collected)
    return [json.loads(by_index[i]) for i in range(len(tasks))]


def _session(master: str) -> Any:
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join([_PROJECT, *(p for p in paths if p != _PROJECT)])
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # loopback only, as the live stack
    from pyspark.sql import SparkSession
    try:
        session = (SparkSession.builder.master(master).appName("quietload-plan")
                   .config("spark.ui.enabled", "false")
                   .config("spark.pyspark.python", sys.executable)
                   .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
                   .config("spark.ui.showConsoleProgress", "false")   # the plan draws its own progress line
                   .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_LOG_CONFIG.as_uri()}")
                   .getOrCreate())
    except Exception as error:  # a bad master URL or no Java: one line, nothing left running
        raise ScenarioError("--engine spark", f"could not start Spark on {master!r}: {str(error).splitlines()[0]}") from None
    session.sparkContext.setLogLevel("ERROR")
    return session


def _collect_with_progress(context: Any, rdd: Any, total: int, progress: Callable[[int, int], None]) -> list:
    """``rdd.collect()`` in a thread, while this thread reports the finished Spark tasks (one per point)."""
    group = f"quietload-plan-{os.getpid()}-{time.monotonic_ns()}"
    outcome: dict[str, Any] = {}

    def collect() -> None:
        context.setJobGroup(group, "quietload plan grid")
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
    """Finished tasks of the stage that runs the model (the one with a task per point)."""
    tracker, done = context.statusTracker(), 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        for stage in (tracker.getStageInfo(s) for s in (job.stageIds if job else [])):
            if stage and stage.numTasks == total:
                done = max(done, stage.numCompletedTasks)
    return done


def _stop(session: Any) -> None:
    """Stop the session, then the JVM behind it, so nothing of Spark is left running."""
    from pyspark import SparkContext
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
