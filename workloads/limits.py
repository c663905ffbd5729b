"""How large a model run a scenario asks for, and the limits past which it is refused before it
starts (``--force`` runs it anyway).

The model keeps every broker, partition replica, producer and Spark task in memory and handles
every produce batch, neighbour record and replica fetch as events, so a scenario's size is
known before it runs. The estimate takes the least the run can be: full batches, the load as
fast as the executors' cores append, fetches only every ``replica.fetch.wait.max.ms``. A scenario
refused here would take at least that long; the figures per item are from runs of this model
(2 cores: 100,000-500,000 events/s; ~10 ns per partition a producer's drain or the per-second
sampler visits; 2 bytes per neighbour record, its latency's bucket under its second; 48 bytes
per produce request, each broker's six produce time parts kept for their exact p99).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Callable

from workloads.batch import job_path
from workloads.errors import ScenarioError
from workloads.kinds import is_pipeline
from workloads.units import format_bytes

TIME_MAX_S = 600.0           # one run: a plan or a study runs many
REPEAT_TIME_MAX_S = 3600.0   # the runs of one simulate or check --repeat N, one after another
MEMORY_MAX = 4 * 1024**3     # bytes: a plan's or a study's runs side by side fit a small machine
EVENTS_PER_S = 60_000        # estimated events the model handles a second, at its fastest measured
VISITS_PER_S = 11_000_000    # partition visits (drains, samples) a second
LONG_RUN_S = 3600.0          # windows.max_duration's default
FORCE_TIME_MAX_S = 86400.0   # --force runs past the limits, but not a run of more than a day
COMPRESSION_MAX = 1000.0     # no codec puts rows of JSON on the wire at less than a thousandth of their size

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
_TASK_EVENTS = 2             # a task's start, appends, flush and end: a million tasks of the published case ran in 17 s
_GZIP_CSV_RATIO = 4.0        # CSV bytes per gzip byte: a gzip file's rows are larger than the file
_NETWORK_THREAD_BYTES = 700  # a broker's network thread (processor): its CPU share and its connections' queue
_NETWORK_THREAD_SECOND_BYTES = 40   # and its idle figure each second
_NETWORK_THREAD_VISITS = 200        # visits to set a network thread up (measured: ~15 us each)
_NETWORK_THREAD_SECOND_VISITS = 45  # a network thread's visits per second of run (measured: ~4 us)


_count = "{:,.0f}".format


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
        return f"{_where(scenario, job)}.start"
    return "windows.before" if windows.before >= windows.after else "windows.after"


# A streaming tenant's record is fetched, processed, produced again and timed by part: about five
# times a producer tenant's events (Kafka Streams at 5,000 records/s took 5.0x a producer's wall
# time, a micro-batch pipeline 2.5x); it keeps its latency and parts in lists.
STREAMING_RECORD_EVENTS = 5.0


def _where(scenario, job) -> str:
    """The job's place in the file: ``batch``, or ``batch[i]`` in a night's list."""
    return job_path(scenario.jobs.index(job), scenario.listed)


@dataclass(frozen=True)
class _JobSize:
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
    def of(cls, scenario, job) -> "_JobSize":
        if job.spark is None:
            return cls._producers(scenario, job)
        dataset, spark, where = job.dataset or scenario.dataset, job.spark, _where(scenario, job)
        input_bytes = sum(group.size * group.count for group in dataset.files)   # never the list of files itself
        value_bytes = input_bytes * (1.0 if dataset.splittable else _GZIP_CSV_RATIO) * job.loads
        append_rate = spark.append_rate or scenario.profile.spark.append_rate
        load_s = value_bytes / (spark.slots * job.loads * append_rate) + (job.loads - 1) * job.spacing
        files = sum(group.count for group in dataset.files)
        tasks = max(files, input_bytes / spark.max_partition_bytes, spark.repartition or 0) * job.loads
        # what the load's terms are owed to: several loads, else the dataset's bytes; tasks to repartition where it rules
        load_field, load_value, load_shown = ((f"{where}.loads", float(job.loads), _count) if job.loads > 1
                                              else (_files_field(scenario, job), float(input_bytes), _in_all))
        by_repartition = spark.repartition is not None and spark.repartition >= max(files, input_bytes / spark.max_partition_bytes)
        task_field, task_value = ((f"{where}.spark.repartition", float(spark.repartition or 0)) if by_repartition
                                  else (load_field, load_value))
        return cls(job, where, input_bytes, value_bytes, load_s, tasks, load_field, load_value, load_shown,
                   task_field, task_value, by_repartition)

    @classmethod
    def _producers(cls, scenario, job) -> "_JobSize":
        """A producer job: its instances' records at their throughput, or at the fastest send() loop."""
        where = _where(scenario, job)
        value_bytes = float(job.records * producer_value_bytes(job) * job.producers * job.loads)
        load_s = producer_job_seconds(scenario, job) + (job.loads - 1) * job.spacing
        tasks = float(job.producers * job.loads)
        return cls(job, where, value_bytes, value_bytes, load_s, tasks, f"{where}.records", float(job.records), _count,
                   f"{where}.producers", float(job.producers), True, "producer instances")

    @property
    def task_shown(self) -> Callable[[float], str]:
        return _count if self.by_repartition else self.load_shown


def _files_field(scenario, job) -> str:
    return f"{_where(scenario, job)}.dataset.files" if job.own_dataset else "dataset.files"


def estimate(scenario) -> RunSize:
    """The least a model run of ``scenario`` takes: simulated seconds, events, partition visits,
    memory; a night's jobs each add their own terms."""
    cluster, dataset = scenario.cluster, scenario.dataset
    jobs = [_JobSize.of(scenario, job) for job in scenario.jobs]
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
        else _files_field(scenario, last.job)
    job_events = [(Part(j.load_field, j.value_bytes / j.job.producer.batch_size,
                        f"{j.value_bytes / j.job.producer.batch_size:,.0f} produce batches of at most batch.size",
                        j.load_value, j.load_shown),
                   Part(j.task_field, j.tasks * _TASK_EVENTS, f"{j.tasks:,.0f} {j.task_words}", j.task_value, j.task_shown),
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
        *(part for j in jobs for part in _job_memory(scenario, j)),
        Part("dataset.sample_rows", dataset.sample_rows * _SAMPLE_ROW_BYTES, f"{dataset.sample_rows:,} sample rows",
             float(dataset.sample_rows)),
        *(part for j in jobs for part in _job_requests(j)),
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


def _drains(scenario, j: _JobSize, events: float) -> Part:
    """A job's producers' drains visit its topic's partitions for each of its share of the events."""
    cluster, topic = scenario.cluster, scenario.cluster.topic(j.job.topic)
    return Part(f"cluster.topics[{cluster.topics.index(topic)}].partitions", events * topic.partitions,
                f"drains over {topic.partitions:,} partitions of {j.job.topic!r} for each of ~{events:,.0f} events",
                float(topic.partitions))


def _throttle_wakes(scenario, j: _JobSize) -> tuple[Part, ...]:
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


def _job_memory(scenario, j: _JobSize) -> tuple[Part, ...]:
    partitions = scenario.cluster.topic(j.job.topic).partitions
    producers = j.job.instances * j.job.loads
    field = f"{j.where}.spark.spark.executor.instances" if j.job.spark is not None else f"{j.where}.producers"
    return (Part(field, producers * partitions * _PRODUCER_PARTITION_BYTES,
                 f"{producers:,} producers over {partitions:,} partitions", float(j.job.instances)),
            Part(j.task_field, j.tasks * _TASK_BYTES, f"{j.tasks:,.0f} {j.task_words}", j.task_value, j.task_shown))


def _job_requests(j: _JobSize) -> tuple[Part, ...]:
    requests = j.value_bytes / j.job.producer.max_request_size
    return (Part(j.load_field, requests * _REQUEST_BYTES, f"{requests:,.0f} produce requests of at most max.request.size",
                 j.load_value, j.load_shown),)


def _duration(seconds: float) -> str:
    for unit, scale in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * scale:
            return f"{seconds / scale:,.0f} {unit}"
    return f"{seconds:,.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def _bytes(suffix: str) -> Callable[[float], str]:
    return lambda value: f"{format_bytes(value)}{suffix}"


_in_all, _rate, _per_second = _bytes(" in all"), _bytes("/s"), "{:,.0f}/s".format


def _machine_memory() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):    # a system that does not say
        return float(MEMORY_MAX)


def check_load_fits(scenario) -> None:
    """Refuse a load that cannot end within ``windows.max_duration`` whatever the model does: its
    bytes at the fastest the executors' cores append them (their jitter at its top), or on the wire
    at the quota's rate on every broker (compressed at most COMPRESSION_MAX to 1). The run would end
    in "the load did not finish" after handling every event up to the cap. Each job of a night on its own."""
    for job in scenario.jobs:
        _check_job_fits(scenario, job, _where(scenario, job))
        _check_cluster_carries(scenario, job)


def _check_job_fits(scenario, batch, where: str) -> None:
    spark, windows = batch.spark, scenario.windows
    if spark is None:   # a producer job: its records at its throughput (or send() loop) from its start
        least, room = producer_job_seconds(scenario, batch), windows.max_duration - scenario.job_start(batch)
        if room > 0 and least > room:
            raise ScenarioError(f"{where}.records", f"{batch.records:,} records a producer would take at least "
                                                    f"{_duration(least)}, past windows.max_duration's {_duration(room)} for it")
        return
    dataset = batch.dataset or scenario.dataset
    value_bytes = sum(group.size * group.count for group in dataset.files) * batch.loads    # the least: JSON >= CSV >= gzip
    fastest = 1.5 if scenario.jitter.append_rate else 1.0      # the model's jitter draws a core's rate within 0.5x-1.5x
    name = "shuffle_append_rate" if spark.repartition is not None else "append_rate"
    rate = getattr(spark, name) or getattr(scenario.profile.spark, name)
    start = scenario.job_start(batch)
    # each load appends its bytes from its start on; the last starts (loads - 1) spacings after the first
    bounds = [(value_bytes / (spark.slots * batch.loads * rate * fastest),
               windows.max_duration - start - (batch.loads - 1) * batch.spacing,
               f"{where}.spark.{name}", rate, f"{spark.slots:,} cores a load, appending at most {_rate(rate * fastest)} each")]
    quota = batch.quota.producer_byte_rate
    if quota:      # every load's producers share the quota's client id
        wire = value_bytes / (1.0 if batch.producer.compression_type == "none" else COMPRESSION_MAX)
        bounds.append((wire / (quota * scenario.cluster.brokers), windows.max_duration - start,
                       f"{where}.quota.producer_byte_rate", quota, f"{_rate(quota)} on each of {scenario.cluster.brokers:,} brokers"))
    for least, room, field, value, why in bounds:
        if room > 0 and least > room:
            fits = f"{field} of at least {_rate(value * least / room)} (or at most {format_bytes(value_bytes * room / least)} of input) fits"
            if field.startswith(f"{where}.spark.") and getattr(spark, name) is None:     # the profile's rate: the input is what is asked
                field = f"{where}.loads" if batch.loads > 1 else _files_field(scenario, batch)
                fits = f"at most {format_bytes(value_bytes * room / least)} of input fits"
            raise ScenarioError(field, f"the load of {format_bytes(value_bytes)} would take at least {_duration(least)} "
                                       f"({why}), past windows.max_duration's {_duration(room)} for it; {fits}")


def _check_cluster_carries(scenario, batch) -> None:
    """Refuse a load the cluster cannot carry within the run whatever the model does: its bytes on the
    wire (compressed at most COMPRESSION_MAX to 1) through the brokers' NICs and disks, and through
    their CPUs at the profile's cost per byte and request (its service-time jitter at its fastest);
    its produce requests each a round trip, max.in.flight at once on each producer's connection."""
    cluster, broker, costs = scenario.cluster, scenario.cluster.broker, scenario.profile.broker
    if batch.spark is None:    # a producer job: its records from its producers, each a client of every broker
        value_bytes = float(batch.records * (batch.record_size or 0) * batch.producers)   # rows' size: unknown here, the least
        clients = batch.producers
    else:
        value_bytes = sum(group.size * group.count for group in (batch.dataset or scenario.dataset).files) * batch.loads
        clients = batch.spark.executors * batch.loads
    wire = value_bytes / (1.0 if batch.producer.compression_type == "none" else COMPRESSION_MAX)
    requests = max(1.0, wire / batch.producer.max_request_size)
    connections = clients * cluster.brokers
    cpu_s = (wire * (costs.produce_byte_ns + costs.network_byte_ns) * 1e-9
             + requests * (costs.produce_request_us + costs.network_request_us) * 1e-6) * (1 - scenario.jitter.service_time)
    room = scenario.windows.max_duration - scenario.job_start(batch)
    brokers = f"each of {cluster.brokers:,} brokers"
    bounds = ((wire / (broker.nic_bandwidth * cluster.brokers), "cluster.broker.nic_bandwidth", f"{_rate(broker.nic_bandwidth)} on {brokers}",
               lambda share: f"at least {_rate(broker.nic_bandwidth / share)}"),
              (wire / (broker.disk_bandwidth * cluster.brokers), "cluster.broker.disk_bandwidth", f"{_rate(broker.disk_bandwidth)} on {brokers}",
               lambda share: f"at least {_rate(broker.disk_bandwidth / share)}"),
              (cpu_s / (broker.vcpus * cluster.brokers), "cluster.broker.vcpus", f"{cpu_s:,.2g} s of CPU on {broker.vcpus:g} vCPUs of {brokers}",
               lambda share: f"at least {broker.vcpus / share:.2g}"),
              (cluster.network_rtt * max(1.0, requests / (connections * batch.producer.max_in_flight)), "cluster.network_rtt",
               f"{requests:,.0f} produce requests each a round trip of {_duration(cluster.network_rtt)}, "
               f"{batch.producer.max_in_flight:,} at once on each of {connections:,} connections",
               lambda share: f"at most {cluster.network_rtt * share:,.4g} s"))
    for least, field, why, fits in bounds:
        if room > 0 and least > room:
            raise ScenarioError(field, f"the load of {format_bytes(value_bytes)} would take at least {_duration(least)} ({why}), "
                                       f"past windows.max_duration's {_duration(room)} for it; {field} of {fits(room / least)} fits")


def check_run_size(scenario, hint: str = "--force runs it anyway", runs: int = 1, runs_field: str = "--repeat",
                   force: bool = False) -> None:
    """Refuse, with one line naming the field that makes it so and the value that would fit, a run
    (or ``runs`` runs of ``--repeat``, one after another) the model cannot finish in reasonable time
    and memory. ``force`` runs past those limits, but never a load that cannot end within its run,
    a run of more than a day or one of more memory than the machine has."""
    size = estimate(scenario)
    memory_max, time_max = (_machine_memory(), FORCE_TIME_MAX_S) if force else (MEMORY_MAX, TIME_MAX_S)
    hint = "not even with --force" if force else hint
    memory = RunSize.total(size.memory)
    if memory > memory_max:
        top = max(size.memory, key=lambda part: part.amount)
        owed = sum(part.amount for part in size.memory if (part.field, part.value) == (top.field, top.value))
        raise ScenarioError(top.field, f"the model run would need at least {format_bytes(memory)} of memory "
                                       f"({top.why}), more than its limit of {format_bytes(memory_max)}"
                                       f"{top.fitting((memory_max - memory + owed) / owed)}; {hint}")
    timed = [(part, part.amount / EVENTS_PER_S) for part in size.events] + \
            [(part, part.amount / VISITS_PER_S) for part in size.partition_visits]
    seconds = sum(t for _, t in timed)
    if seconds > time_max:
        top = max(timed, key=lambda pair: pair[1])[0]
        took = sum(t for part, t in timed if (part.field, part.value) == (top.field, top.value))
        raise ScenarioError(top.field, f"the model run would take at least {_duration(seconds)} ({top.why}), "
                                       f"more than its limit of {_duration(time_max)}{top.fitting((time_max - seconds + took) / took)}; {hint}")
    check_load_fits(scenario)
    if not force and seconds * runs > REPEAT_TIME_MAX_S:
        raise ScenarioError(runs_field, f"{runs:,} runs of at least {_duration(seconds)} each would take at least "
                                        f"{_duration(seconds * runs)}, more than the limit of {_duration(REPEAT_TIME_MAX_S)}; "
                                        f"{runs_field} of at most {max(1, int(REPEAT_TIME_MAX_S // seconds)):,} fits; {hint}")


STUDY_MINUTES = 60.0   # --max-minutes' default: a study's budget of wall time


def _least_run_s(size: RunSize) -> float:
    return RunSize.total(size.events) / EVENTS_PER_S + RunSize.total(size.partition_visits) / VISITS_PER_S


def _job_copy(scenario) -> tuple[float, float]:
    """What one more copy of every job of the night adds to a run at the least: seconds, bytes."""
    seconds = memory = 0.0
    for j in (_JobSize.of(scenario, job) for job in scenario.jobs):
        partitions = scenario.cluster.topic(j.job.topic).partitions
        events = j.value_bytes / j.job.producer.batch_size + j.tasks * _TASK_EVENTS
        seconds += events / EVENTS_PER_S + events * partitions / VISITS_PER_S
        memory += sum(part.amount for part in (*_job_memory(scenario, j), *_job_requests(j)))
    return seconds, memory


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def check_study_size(scenario, trials: int, seeds: int, validate: int, workers: int, max_minutes: float,
                     copies: int = 1, fields: tuple[str, str] = ("--trials", "--jobs-at-once"),
                     other_runs: str = "held-out run") -> None:
    """Refuse, before it starts, a study this machine cannot end within ``max_minutes`` (0: no
    limit) or hold in its memory: ``trials`` trials of ``seeds`` model runs each and ``validate``
    held-out runs, ``workers`` at once, of the scenario with ``copies`` of every job at once (a
    policy's worst night), each run at the least ``estimate`` says. One line names the option and
    the value that would fit. Runs a trial stops at its verdict may end sooner: the estimate
    counts whole runs. ``other_runs`` names the ``validate`` runs (a schedule's solo runs: each job alone)."""
    trials_field, copies_field = fields
    size = estimate(scenario)
    copy_s, copy_bytes = _job_copy(scenario)
    run_s = _least_run_s(size) + (copies - 1) * copy_s
    run_bytes = RunSize.total(size.memory) + (copies - 1) * copy_bytes
    memory_max = _machine_memory()
    budget, runs = max_minutes * 60.0, trials * seeds + validate
    # the most copies the budget's time has room for (each run the time of one copy, and each copy's more)
    room = budget * workers / runs - (run_s - (copies - 1) * copy_s) if max_minutes and copy_s else math.inf
    time_fits = max(1, int(room // copy_s) + 1) if room >= 0 and room < math.inf else copies
    if copies > 1 and run_bytes > memory_max:
        fits = max(1, int((memory_max - RunSize.total(size.memory)) // copy_bytes) + 1) if copy_bytes else copies
        fits = min(fits, time_fits)
        raise ScenarioError(copies_field, f"{copies:,} copies of every job at once would need at least {format_bytes(run_bytes)} "
                                          f"of memory in one run, more than this machine's {format_bytes(memory_max)}; "
                                          f"{copies_field} of at most {fits:,} fits")
    if not max_minutes:
        return
    least = runs * run_s / max(1, workers)
    if least <= budget:
        return
    what = (f"{trials:,} trials of {_plural(seeds, 'model run')} each and {_plural(validate, other_runs)}, at least "
            f"{_duration(run_s)} each on {_plural(workers, 'worker')}, would take at least {_duration(least)}, more than "
            f"--max-minutes {max_minutes:g}")
    trials_fit = int((budget * workers / run_s - validate) // seeds)
    if trials_fit >= 1:
        raise ScenarioError(trials_field, f"{what}; {trials_field} of at most {trials_fit:,} fits")
    if copies > 1 and copy_s and room >= 0:
        raise ScenarioError(copies_field, f"{what}; {copies_field} of at most {time_fits:,} fits")
    raise ScenarioError("--max-minutes", f"{what}; --max-minutes of at least {math.ceil(least / 60):,} fits")
