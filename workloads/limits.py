"""The limits past which a model run is refused before it starts (``--force`` runs it anyway): its
time and memory at the least ``workloads.run_size`` estimates, a load that cannot end within its
run, and a study this machine cannot end within its budget."""
from __future__ import annotations

import math
import os

from workloads.errors import ScenarioError
from workloads.run_size import (JobSize, RunSize, TASK_EVENTS, bytes_text, estimate, files_field, job_memory,
                                job_requests, producer_job_seconds, where_of)
from workloads.units import format_bytes

TIME_MAX_S = 600.0           # one run: a plan or a study runs many
REPEAT_TIME_MAX_S = 3600.0   # the runs of one simulate or check --repeat N, one after another
MEMORY_MAX = 4 * 1024**3     # bytes: a plan's or a study's runs side by side fit a small machine
EVENTS_PER_S = 60_000        # estimated events the model handles a second, at its fastest measured
VISITS_PER_S = 11_000_000    # partition visits (drains, samples) a second
FORCE_TIME_MAX_S = 86400.0   # --force runs past the limits, but not a run of more than a day
COMPRESSION_MAX = 1000.0     # no codec puts rows of JSON on the wire at less than a thousandth of their size


def _duration(seconds: float) -> str:
    for unit, scale in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * scale:
            return f"{seconds / scale:,.0f} {unit}"
    return f"{seconds:,.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


_rate = bytes_text("/s")


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
        _check_job_fits(scenario, job, where_of(scenario, job))
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
                field = f"{where}.loads" if batch.loads > 1 else files_field(scenario, batch)
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
    for j in (JobSize.of(scenario, job) for job in scenario.jobs):
        partitions = scenario.cluster.topic(j.job.topic).partitions
        events = j.value_bytes / j.job.producer.batch_size + j.tasks * TASK_EVENTS
        seconds += events / EVENTS_PER_S + events * partitions / VISITS_PER_S
        memory += sum(part.amount for part in (*job_memory(scenario, j), *job_requests(j)))
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
