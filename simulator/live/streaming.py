"""The scenario's streaming tenants on real parts: each pipeline (Spark Structured Streaming,
Kafka Streams, Flink) in a process of its own, fed by its own upstream producer at the tenant's
rate, its output timed by a consumer (``simulator.live.streaming_feed``).

``launch()`` builds what needs building and starts every pipeline (its JVM's start can overlap
other work); ``flow()`` waits until each says it runs, starts the feed, waits until every
pipeline's output arrives, lets them settle, and from then on counts a record that never comes
out as lost: JVM start-up, Spark's first batches and
Kafka Streams' rebalance stay before the run's windows. ``stop()`` stops the feed (its last
records drain through the pipelines), then each pipeline, which first reports the produce
requests its own producers sent; every process and temporary file goes, whatever happens.
The pipelines and the feed run on the tenants' host (the ``neighbours`` CPU budget).
"""
from __future__ import annotations

import dataclasses
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

from simulator.contract.histograms import LatencyHistogram
from simulator.live.jars import ROOT
from simulator.live._process import StackError, last_error
from simulator.processes import die_with_parent
from simulator.live.neighbours import TenantTrace
from simulator.live.pipelines import launcher
from simulator.live.streaming_feed import PipelineTrace, StreamingFeed
from simulator.live.streaming_spark import BATCHES, PRODUCE_REQUESTS, RUNNING
from workloads.kinds import is_pipeline

START_TIMEOUT_S = 180.0     # a pipeline's JVM up and its query or client running
FLOW_TIMEOUT_S = 120.0      # the first output record of every pipeline
SETTLE_S = 5.0              # after the first output: first batches, rebalances, JIT


class _Pipeline:
    """One pipeline's process (a new session: its JVM and every thread end with the group; killed
    if its parent dies) and its progress lines."""

    def __init__(self, tenant: Any, command: list[str], request: str | None, log: Path) -> None:
        self.tenant, self.log = tenant, log
        with log.open("ab") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"},
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=out, text=True,
                                            start_new_session=True, preexec_fn=die_with_parent)
        if request is not None:
            self.process.stdin.write(request + "\n")
            self.process.stdin.flush()
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        self.batches: list[dict] | None = None      # a micro-batch query's progress, printed as it stops
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            if line.startswith(BATCHES):
                self.batches = json.loads(line.removeprefix(BATCHES))
                continue
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, prefix: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise StackError(f"the {self.tenant.kind} pipeline of {self.tenant.name} stopped: {last_error(self.log)} (log: {self.log})")
            if line.startswith(prefix):
                return line
        raise StackError(f"the {self.tenant.kind} pipeline of {self.tenant.name} said nothing of {prefix!r} "
                         f"within {timeout:.0f} s (log: {self.log})")

    def stop(self, timeout: float = 60.0) -> int:
        """Closes its standard input (the stop signal); the produce requests it reports."""
        try:
            self.process.stdin.close()
            return int(self.wait_for(PRODUCE_REQUESTS, timeout).removeprefix(PRODUCE_REQUESTS))
        finally:
            try:
                self.process.wait(30.0)
            except subprocess.TimeoutExpired:
                pass
            self.kill()

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()


class StreamingNeighbours:
    """The streaming tenants' pipelines and feed. As a context manager: launched on entry (then
    ``flow()``), every process gone on exit; ``stop()`` returns each tenant's trace (once), its produce requests
    those of the upstream producer and of the pipeline's own producers."""

    def __init__(self, tenants: list, bootstrap: str, security: dict[str, str] | None = None, seed: int = 1,
                 cpus: list[int] | None = None, place: Callable[[int], None] = lambda pid: None,
                 progress: Callable[[str], None] = lambda line: None) -> None:
        self.tenants = [t for t in tenants if is_pipeline(t)]
        self.bootstrap, self.security, self.seed = bootstrap, security or {}, seed
        self.cpus = cpus or sorted(os.sched_getaffinity(0))
        self.place, self.say = place, progress
        self.pipelines: list[_Pipeline] = []
        self.feed: StreamingFeed | None = None
        self.work: Path | None = None

    def __enter__(self) -> "StreamingNeighbours":
        try:
            self.launch()
        except BaseException:
            self.close(failed=True)
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close(failed=exc_info[0] is not None)

    def start(self) -> None:
        self.launch()
        self.flow()

    def launch(self) -> None:
        """Every pipeline's process started (the pipelines' topics must exist)."""
        if not self.tenants:
            return
        self.work = Path(tempfile.mkdtemp(prefix="quietload-streaming-"))
        for tenant in self.tenants:
            self.say(f"starting the {tenant.kind} pipeline of {tenant.name}: {tenant.topic} -> {tenant.output_topic} ...")
            self.pipelines.append(self._launch(tenant))

    def flow(self) -> None:
        """Once every pipeline runs: its feed started, its output arrived, settled."""
        if not self.tenants:
            return
        for pipeline in self.pipelines:
            pipeline.wait_for(RUNNING, START_TIMEOUT_S)
        self.feed = StreamingFeed(self.tenants, self.bootstrap, self.security, self.seed, self.cpus)
        self.feed.start()
        deadline = time.monotonic() + FLOW_TIMEOUT_S
        for index, pipeline in enumerate(self.pipelines):
            while self.feed.seen(index) == 0:
                if pipeline.process.poll() is not None:
                    raise StackError(f"the {pipeline.tenant.kind} pipeline of {pipeline.tenant.name} stopped: "
                                     f"{last_error(pipeline.log)} (log: {pipeline.log})")
                if not self.feed.alive():
                    raise StackError("the streaming tenants' producers and consumers stopped before any output")
                if time.monotonic() > deadline:
                    raise StackError(f"no output of the {pipeline.tenant.kind} pipeline of {pipeline.tenant.name} "
                                     f"within {FLOW_TIMEOUT_S:.0f} s (log: {pipeline.log})")
                time.sleep(0.2)
        # into the tenants' CPU budget only now: their first batches and compilation ran unheld,
        # as a long-running pipeline's did long ago
        for pid in [p.process.pid for p in self.pipelines] + [self.feed.pid]:
            self.place(pid)
        self.say(f"streaming pipelines flowing; settling {SETTLE_S:.0f} s")
        time.sleep(SETTLE_S)
        self.feed.measure_from_now()

    def _launch(self, tenant: Any) -> _Pipeline:
        assert self.work is not None
        command, request = launcher(tenant).launch(tenant, self.work, self.bootstrap, self.security, self.cpus, self.say)
        return _Pipeline(tenant, command, request, self.work / f"{tenant.name}.log")

    def stop(self) -> list[TenantTrace]:
        """The feed first (its last records drain through the pipelines), then each pipeline."""
        if self.feed is None:
            self.close()
            return []
        try:
            self.say("stopping the streaming feed ...")
            traces = self.feed.stop()
            self.say("stopping the pipelines ...")
            self.feed = None
            pipelines = list(self.pipelines)
            requests = [pipeline.stop() for pipeline in pipelines]
        except BaseException:
            self.close(failed=True)
            raise
        self.close()
        return [dataclasses.replace(trace, produce_requests=trace.produce_requests + sent, pipeline_produce_requests=sent,
                                    batches=pipeline.batches)
                for trace, sent, pipeline in zip(traces, requests, pipelines)]

    def close(self, failed: bool = False) -> None:
        """Every process of ours killed, the temporary files removed (the credentials with them);
        after a failure the pipelines' logs are kept in the system's temporary directory."""
        if self.feed is not None:
            try:
                self.feed.stop(timeout=5.0)
            except StackError:
                pass
            self.feed = None
        for pipeline in self.pipelines:
            pipeline.kill()
        self.pipelines = []
        if self.work is not None:
            for path in self.work.iterdir():
                if not (failed and path.suffix == ".log"):      # an error names its log by this path
                    shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink()
            if not failed:
                self.work.rmdir()
            self.work = None


def batch_figures(batches: list[dict], windows: dict, started: float) -> dict:
    """A micro-batch query's batches per window (by their start, relative to ``started``) in the
    model's shape, from Spark's own progress parts: ``offsets_ms`` latestOffset, ``offset_log_ms``
    walCommit, ``tasks_ms`` addBatch, ``state_ms`` the state stores' commit, ``commit_log_ms``
    commitOffsets, ``batch_ms`` triggerExecution, and ``planning_ms`` the rest of it (queryPlanning,
    getBatch and the driver's bookkeeping): what the model's trigger spends besides the others."""
    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    parts = {"offsets_ms": "latestOffset", "offset_log_ms": "walCommit", "tasks_ms": "addBatch",
             "state_ms": "stateCommit", "commit_log_ms": "commitOffsets"}
    out = {}
    for name, (start, end) in windows.items():
        chosen = [b for b in batches if start <= b["start"] - started < end]
        means = {key: mean([b[part] for b in chosen]) for key, part in parts.items()}
        rest = mean([b["triggerExecution"] - sum(b[part] for part in parts.values()) for b in chosen])
        out[name] = {"count": len(chosen), "records": sum(b["records"] for b in chosen),
                     "batch_ms": mean([b["triggerExecution"] for b in chosen]), "offsets_ms": means["offsets_ms"],
                     "offset_log_ms": means["offset_log_ms"], "planning_ms": rest, "tasks_ms": means["tasks_ms"],
                     "state_ms": means["state_ms"], "commit_log_ms": means["commit_log_ms"]}
    return out


def with_pipelines(result: Any, tenants: list, traces: list[TenantTrace], started: float) -> Any:
    """``result`` with each streaming tenant's figures beside its end to end ``latency_ms``, in
    the model's shape (simulator.model.streaming.figures): its kind and output topic, the
    upstream producer's latency per window, what a live run sees of the pipeline (its own
    produce requests, the records lost) and a micro-batch query's batches from Spark's progress
    (``batch_figures``); the parts the model splits latency into and the fetches are None: no
    client reports them per record here."""
    pipelines = {trace.name: trace for trace in traces if isinstance(trace, PipelineTrace)}
    if not pipelines:
        return result
    specs = {t.name: t for t in tenants}
    entries = []
    for entry in result.tenants:
        trace = pipelines.get(entry["name"])
        if trace is not None:
            upstream = {name: LatencyHistogram() for name in result.windows}
            for intended, latency in trace.upstream:
                for name, (start, end) in result.windows.items():
                    if start <= intended - started < end:
                        upstream[name].record(latency)
            spec = specs[entry["name"]]
            entry = {**entry, "kind": spec.kind, "output_topic": spec.output_topic,
                     "upstream_latency_ms": {name: h.summary() for name, h in upstream.items()},
                     "streaming": {"parts_ms": {name: dict.fromkeys(("to_pipeline", "in_pipeline", "to_output"))
                                                for name in result.windows},
                                   "fetch_requests": None, "empty_fetches": None,
                                   "sink_produce_requests": trace.pipeline_produce_requests,
                                   "records_not_out": trace.failed}}
            if trace.batches is not None:
                entry["streaming"]["batches"] = batch_figures(trace.batches, result.windows, started)
        entries.append(entry)
    return type(result)(**{**result.__dict__, "tenants": entries})


def notes(tenants: list) -> list[str]:
    """What the live run's streaming tenants were, in a line each."""
    lines = []
    for tenant in tenants:
        if not is_pipeline(tenant):
            continue
        work = (f"{tenant.record_cost * 1e6:g} µs of CPU per record" if launcher(tenant).does_work
                else "no per-record work (a Spark query's records pass through; record_cost is the model's only)")
        lines.append(f"Streaming tenant {tenant.name}: a {tenant.kind} pipeline {tenant.topic} -> {tenant.output_topic}, "
                     f"fed at {tenant.rate:g} records/s by its own producer, {work}; end-to-end latency from each input "
                     "record's intended send time to its output record seen by a consumer of the output topic. "
                     "The pipeline started and ran warm before the windows.")
    return lines
