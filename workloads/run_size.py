"""How large a model run a scenario asks for (``estimate``), before it runs.

The model keeps every broker, partition replica, producer and Spark task in memory and handles
every produce batch, neighbour record and replica fetch as events, so a scenario's size is
known before it runs. The estimate takes the least the run can be: full batches, the load as
fast as the executors' cores append, fetches only every ``replica.fetch.wait.max.ms``; the
figures per item are from runs of this model (2 cores: 100,000-500,000 events/s; ~10 ns per
partition a producer's drain or the per-second sampler visits; 2 bytes per neighbour record, its
latency's bucket under its second; 48 bytes per produce request, each broker's six produce time
parts kept for their exact p99). ``workloads.limits`` refuses a run past its limits.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from workloads.batch import job_path
from workloads.kinds import is_pipeline
from workloads.units import format_bytes

LONG_RUN_S = 3600.0          # windows.max_duration's default

# bytes each item keeps while the model runs
_RECORD_BYTES = 2            # a neighbour record's latency bucket under its second
_STREAMING_RECORD_BYTES = 525     # a pipeline's record: its latency and parts, three lists of 175 B
_REQUEST_BYTES = 48          # a produce request's six time parts on its leader (8-byte floats)
_REPLICA_BYTES = 3_000       # a partition replica: log end offsets, follower state, each producer's deque
_BROKER_BYTES = 100_000      # a broker: thread pools, queues, histograms, fetcher sessions
_TASK_BYTES = 1_000          # a Spark task and its input split
_PRODUCER_PARTITION_BYTES = 500   # a producer's state for one partition of its topic
_KEY_BYTES = 100             # a neighbour key and its partition
_SAMPLE_ROW_BYTES = 2_000    # a generated row as CSV and JSON
_SECOND_BYTES = 200          # one second of one timeline
TASK_EVENTS = 2             # a task's start, appends, flush and end: a million tasks of the published case ran in 17 s
_GZIP_CSV_RATIO = 4.0        # CSV bytes per gzip byte: a gzip file's rows are larger than the file
_NETWORK_THREAD_BYTES = 700  # a broker's network thread (processor): its CPU share and its connections' queue
_NETWORK_THREAD_SECOND_BYTES = 40   # and its idle figure each second
_NETWORK_THREAD_VISITS = 200        # visits to set a network thread up (measured: ~15 us each)
_NETWORK_THREAD_SECOND_VISITS = 45  # a network thread's visits per second of run (measured: ~4 us)


_count = "{:,.0f}".format


def bytes_text(suffix: str) -> Callable[[float], str]:
    """A size as people read it, then ``suffix`` (``/s``: a byte rate)."""
    return lambda value: f"{format_bytes(value)}{suffix}"


_in_all, _per_second = bytes_text(" in all"), "{:,.0f}/s".format


@dataclass(frozen=True)
class Part:
    """One term of the estimate: the field that drives it and why; with the field's ``value`` (the
    term grows in proportion to it), the value that would fit can be said."""

    field: str
    amount: float
    why: str
    value: float | None = None
    shown: Callable[[float], str] = _count

    def fitting(self, share: float) -> str:
        """``; FIELD of at most N fits`` when the term were ``share`` of what it is (0 < share < 1)."""
        if self.value is None or not 0 < share < 1 or self.value * share < 1:
            return ""
        return f"; {self.field} of at most {self.shown(math.floor(self.value * share * 0.99))} fits"    # a little below the limit


@dataclass(frozen=True)
class RunSize:
    seconds: float
    events: tuple[Part, ...]
    partition_visits: tuple[Part, ...]
    memory: tuple[Part, ...]

    @staticmethod
    def total(parts: tuple[Part, ...]) -> float:
        return sum(part.amount for part in parts)


def _window_field(scenario, job) -> str:
    """The window that makes a run long: the run's cap, the time before the load, or after it."""
    windows = scenario.windows
    if windows.max_duration <= scenario.job_start(job) + windows.after:
        return "windows.max_duration"
    if job.start is not None and job.start >= windows.after:
        return f"{where_of(scenario, job)}.start"
    return "windows.before" if windows.before >= windows.after else "windows.after"


# A streaming tenant's record is fetched, processed, produced again and timed by part: about five
# times a producer tenant's events (Kafka Streams at 5,000 records/s took 5.0x a producer's wall
# time, a micro-batch pipeline 2.5x); it keeps its latency and parts in lists.
STREAMING_RECORD_EVENTS = 5.0


def where_of(scenario, job) -> str:
    """The job's place in the file: ``batch``, or ``batch[i]`` in a night's list."""
    return job_path(scenario.jobs.index(job), scenario.listed)


@dataclass(frozen=True)
class JobSize:
    """One job's terms: its bytes, its least load time, and the fields they are owed to."""

    job: object
    where: str
    input_bytes: float
    value_bytes: float
    load_s: float
    tasks: float
    load_field: str
    load_value: float
    load_shown: Callable[[float], str]
    task_field: str
    task_value: float
    by_repartition: bool
    task_words: str = "Spark tasks"

    @classmethod
    def of(cls, scenario, job) -> "JobSize":
        if job.spark is None:
            return cls._producers(scenario, job)
        dataset, spark, where = job.dataset or scenario.dataset, job.spark, where_of(scenario, job)
        input_bytes = sum(group.size * group.count for group in dataset.files)   # never the list of files itself
        value_bytes = input_bytes * (1.0 if dataset.splittable else _GZIP_CSV_RATIO) * job.loads
        append_rate = spark.append_rate or scenario.profile.spark.append_rate
        load_s = value_bytes / (spark.slots * job.loads * append_rate) + (job.loads - 1) * job.spacing
        files = sum(group.count for group in dataset.files)
        tasks = max(files, input_bytes / spark.max_partition_bytes, spark.repartition or 0) * job.loads
        # what the load's terms are owed to: several loads, else the dataset's bytes; tasks to repartition where it rules
        load_field, load_value, load_shown = ((f"{where}.loads", float(job.loads), _count) if job.loads > 1
                                              else (files_field(scenario, job), float(input_bytes), _in_all))
        by_repartition = spark.repartition is not None and spark.repartition >= max(files, input_bytes / spark.max_partition_bytes)
        task_field, task_value = ((f"{where}.spark.repartition", float(spark.repartition or 0)) if by_repartition
                                  else (load_field, load_value))
        return cls(job, where, input_bytes, value_bytes, load_s, tasks, load_field, load_value, load_shown,
                   task_field, task_value, by_repartition)

    @classmethod
    def _producers(cls, scenario, job) -> "JobSize":
        """A producer job: its instances' records at their throughput, or at the fastest send() loop."""
        where = where_of(scenario, job)
        value_bytes = float(job.records * producer_value_bytes(job) * job.producers * job.loads)
        load_s = producer_job_seconds(scenario, job) + (job.loads - 1) * job.spacing
        tasks = float(job.producers * job.loads)
        return cls(job, where, value_bytes, value_bytes, load_s, tasks, f"{where}.records", float(job.records), _count,
                   f"{where}.producers", float(job.producers), True, "producer instances")

    @property
    def task_shown(self) -> Callable[[float], str]:
        return _count if self.by_repartition else self.load_shown


def files_field(scenario, job) -> str:
    return f"{where_of(scenario, job)}.dataset.files" if job.own_dataset else "dataset.files"


def estimate(scenario) -> RunSize:
    """The least a model run of ``scenario`` takes: simulated seconds, events, partition visits,
    memory; a night's jobs each add their own terms."""
    cluster, dataset = scenario.cluster, scenario.dataset
    jobs = [JobSize.of(scenario, job) for job in scenario.jobs]
    last = max(jobs, key=lambda j: scenario.job_start(j.job) + j.load_s)   # the job that ends the load last
    load_end = scenario.job_start(last.job) + last.load_s
    seconds = min(scenario.windows.max_duration, load_end + scenario.windows.after)
    replicas = sum(t.partitions * (t.replication_factor or cluster.replication_factor) for t in cluster.topics)
    rf = max(t.replication_factor or cluster.replication_factor for t in cluster.topics)
    # a fetcher thread runs a session only for partitions it follows: at most one per follower replica
    followers = sum(t.partitions * ((t.replication_factor or cluster.replication_factor) - 1) for t in cluster.topics)
    fetcher_threads = cluster.brokers * min(cluster.brokers - 1, rf - 1) * cluster.broker.num_replica_fetchers
    fetch_sessions = min(fetcher_threads, followers)
    fetch_field = ("cluster.topics" if followers < fetcher_threads else "cluster.broker.num.replica.fetchers"
                   if cluster.broker.num_replica_fetchers > 1 else "cluster.brokers")
    fetch_interval = max(cluster.broker.replica_fetch_wait_max_ms / 1000.0, 0.001)
    threads = cluster.brokers * cluster.broker.num_network_threads
    long = f"{seconds:,.0f} s of run"
    # a term that grows with the run's seconds is owed to the run's length once that is past the
    # default cap of a run (an hour): to the windows or to the load, whichever makes it
    windows_s = scenario.job_start(last.job) + scenario.windows.after
    by_time = None if seconds <= LONG_RUN_S else _window_field(scenario, last.job) if windows_s > last.load_s \
        else files_field(scenario, last.job)
    job_events = [(Part(j.load_field, j.value_bytes / j.job.producer.batch_size,
                        f"{j.value_bytes / j.job.producer.batch_size:,.0f} produce batches of at most batch.size",
                        j.load_value, j.load_shown),
                   Part(j.task_field, j.tasks * TASK_EVENTS, f"{j.tasks:,.0f} {j.task_words}", j.task_value, j.task_shown),
                   *_throttle_wakes(scenario, j))
                  for j in jobs]
    events = (
        *(part for parts in job_events for part in parts),
        *(Part(by_time or f"tenants[{i}].rate", t.rate * seconds * (STREAMING_RECORD_EVENTS if is_pipeline(t) else 1.0),
               f"{t.rate:,.0f} records/s over {long}", None if by_time else t.rate, _per_second)
          for i, t in enumerate(scenario.tenants)),
        Part(by_time or fetch_field, fetch_sessions * seconds / fetch_interval,
             f"{fetch_sessions:,} replica fetcher sessions over {long}"),
        Part(by_time or "cluster.brokers", seconds * (cluster.brokers + len(scenario.tenants)), f"per-second samples of {long}"),
    )
    own_events = [RunSize.total(parts) for parts in job_events]
    visits = (
        Part(by_time or "cluster.topics", seconds * replicas, f"{replicas:,} partition replicas sampled over {long}"),
        *(_drains(scenario, j, RunSize.total(events) * own / sum(own_events)) for j, own in zip(jobs, own_events)),
        Part("cluster.broker.num.network.threads", threads * (_NETWORK_THREAD_VISITS + seconds * _NETWORK_THREAD_SECOND_VISITS),
             f"{threads:,} network threads over {long}", float(cluster.broker.num_network_threads)),
    )
    memory = (
        Part("cluster.topics", replicas * _REPLICA_BYTES, f"{replicas:,} partition replicas"),
        Part("cluster.brokers", cluster.brokers * _BROKER_BYTES, f"{cluster.brokers:,} brokers", float(cluster.brokers)),
        *(part for j in jobs for part in job_memory(scenario, j)),
        Part("dataset.sample_rows", dataset.sample_rows * _SAMPLE_ROW_BYTES, f"{dataset.sample_rows:,} sample rows",
             float(dataset.sample_rows)),
        *(part for j in jobs for part in job_requests(j)),
        *(Part(by_time or f"tenants[{i}].rate",
               t.rate * seconds * (_STREAMING_RECORD_BYTES if is_pipeline(t) else _RECORD_BYTES),
               f"{t.rate * seconds:,.0f} neighbour records: {t.rate:,.0f}/s over {long}", None if by_time else t.rate,
               _per_second)
          for i, t in enumerate(scenario.tenants)),
        *(Part(f"tenants[{i}].keys", t.keys * _KEY_BYTES, f"{t.keys:,} keys", float(t.keys)) for i, t in enumerate(scenario.tenants)),
        Part("cluster.broker.num.network.threads", threads * (_NETWORK_THREAD_BYTES + seconds * _NETWORK_THREAD_SECOND_BYTES),
             f"{threads:,} network threads", float(cluster.broker.num_network_threads)),
        Part(by_time or "windows.max_duration", seconds * (cluster.brokers + len(scenario.tenants) + 10) * _SECOND_BYTES,
             f"timelines of {long}"),
    )
    return RunSize(seconds, events, visits, memory)


def _drains(scenario, j: JobSize, events: float) -> Part:
    """A job's producers' drains visit its topic's partitions for each of its share of the events."""
    cluster, topic = scenario.cluster, scenario.cluster.topic(j.job.topic)
    return Part(f"cluster.topics[{cluster.topics.index(topic)}].partitions", events * topic.partitions,
                f"drains over {topic.partitions:,} partitions of {j.job.topic!r} for each of ~{events:,.0f} events",
                float(topic.partitions))


def _throttle_wakes(scenario, j: JobSize) -> tuple[Part, ...]:
    """A throttled producer job's instances wake once per sleep (perf-test's 2 ms deficit at least)."""
    if j.job.spark is not None or j.job.throughput is None:
        return ()
    cycle = max(0.002, 1.0 / j.job.throughput) + scenario.profile.client.throttle_wake_ms * 1e-3
    wakes = 2.0 * j.load_s / cycle * j.job.producers
    return (Part(f"{j.where}.throughput", wakes, f"{wakes:,.0f} wakes of throttled send loops", j.job.throughput,
                 _per_second),)


def producer_value_bytes(job) -> int:
    """A producer job's value bytes per record (its dataset's rows: about a kilobyte, before they are read)."""
    return job.record_size or 1024


def producer_job_seconds(scenario, job) -> float:
    """The least a producer job's load takes: its records at its throughput, or at its send() loop's pace."""
    costs = scenario.profile.client
    send_s = costs.send_record_us * 1e-6 + producer_value_bytes(job) * costs.send_byte_ns * 1e-9
    return job.records / job.throughput if job.throughput else job.records * send_s


def job_memory(scenario, j: JobSize) -> tuple[Part, ...]:
    partitions = scenario.cluster.topic(j.job.topic).partitions
    producers = j.job.instances * j.job.loads
    field = f"{j.where}.spark.spark.executor.instances" if j.job.spark is not None else f"{j.where}.producers"
    return (Part(field, producers * partitions * _PRODUCER_PARTITION_BYTES,
                 f"{producers:,} producers over {partitions:,} partitions", float(j.job.instances)),
            Part(j.task_field, j.tasks * _TASK_BYTES, f"{j.tasks:,.0f} {j.task_words}", j.task_value, j.task_shown))


def job_requests(j: JobSize) -> tuple[Part, ...]:
    requests = j.value_bytes / j.job.producer.max_request_size
    return (Part(j.load_field, requests * _REQUEST_BYTES, f"{requests:,.0f} produce requests of at most max.request.size",
                 j.load_value, j.load_shown),)
