"""A night's several imported jobs as the scenario's ``batch:`` list: each job's section as one job's
import writes it (``sections.job_section``), with its name, its ``client.id`` when the
script sets one, and its start from its triggers (``workloads.imports.night``); what each job's
sources gave or left assumed is said under the job's name.
"""
from __future__ import annotations

import dataclasses
import re
import statistics
from typing import Any

from workloads.imports.history import ALL_TOPICS, History, Neighbour, Window, find_loads, neighbours
from workloads.imports.night import schedule
from workloads.imports.sections import Imported, ImportedJob, job_topic, job_section
from workloads.scenario import Windows

# the scenario's own defaults: the neighbours alone before the night's first load, and a run's hour
WINDOW_BEFORE_S, RUN_S = Windows().before, Windows().max_duration


def job_name(name: str) -> str:
    """A Glue job's name in Kafka's client.id characters (letters, digits, ``.``, ``_``, ``-``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "batch"


def _past_loads(history: History | None, topic: str, said: list[str]) -> list[Window]:
    """A job's past loads in the metrics; none when its topic took in nothing there (a job new to the cluster), said."""
    if history is None:
        return []
    if topic not in history.topic_bytes and ALL_TOPICS not in history.topic_bytes:
        said.append(f"Its topic {topic!r} has no BytesInPerSec in the metrics: no past load of it.")
        return []
    return find_loads(history, topic)


def night_jobs(imported: Imported, said: list[str]) -> tuple[Any, dict, list[str], list[Window], list[Neighbour],
                                                              list[str], dict]:
    """(batch section, dataset, the jobs' topics, the first job's past loads, the neighbours, the jobs' names,
    further top-level sections) of the night."""
    jobs = list(imported.jobs) or [ImportedJob(imported.glue, imported.script, imported.files)]
    history = imported.history
    sections, datasets, topics, durations, job_said, every_load = [], [], [], {}, [], []
    for job in jobs:
        view = dataclasses.replace(imported, glue=job.glue, script=job.script, files=job.files)
        told: list[str] = list(job.notes) if imported.jobs else []
        topic = job_topic(view, told)
        loads = _past_loads(history, topic, told)
        every_load += loads
        durations[job.name] = statistics.median(w.seconds for w in loads) if loads else None
        section, dataset = job_section(view, topic, loads, told)
        sections.append(section)
        datasets.append(dataset)
        topics.append(topic)
        job_said.append(told)
    first_loads = _past_loads(history, topics[0], [])
    # the neighbours: the other topics over the periods no job's load touches
    found = [n for n in neighbours(history, topics[0], every_load) if n.topic not in topics] if history else []
    if history:
        said.append(f"Metrics: {history.source} of {history.cluster!r}, {history.points} points of {history.period:g} s; "
                    + "; ".join(f"{len(_past_loads(history, t, []))} past load(s) on {t!r}" for t in dict.fromkeys(topics)) + ".")
        said.extend(history.notes)
    night = schedule([j.name for j in jobs], list(imported.triggers), durations, imported.night)
    said.extend(night.notes)
    if len(jobs) == 1:           # one job keeps the single mapping: its trigger starts the night
        said.extend(job_said[0])
        return sections[0], datasets[0], topics, first_loads, found, [], {}
    batch, names = [], []
    for job, section, dataset, told in zip(jobs, sections, datasets, job_said):
        name = job_name(job.name)
        if name != job.name:
            told.insert(0, f"Named {name!r} in the scenario (Glue's name {job.name!r} has characters a client.id does not).")
        entry: dict[str, Any] = {"name": name}
        if job.script and job.script.client_id:
            entry["client.id"] = job.script.client_id
            told.append(f"client.id {job.script.client_id!r}, from the script's kafka.client.id.")
        entry["start"] = f"{WINDOW_BEFORE_S + night.starts[job.name]:g}s"
        entry.update(section)
        if dataset != datasets[0]:
            entry["dataset"] = dataset
        batch.append(entry)
        names.append(name)
        said.extend(f"{name}: {line}" for line in told)
    extra: dict[str, Any] = {}
    later = max(night.starts.values())
    if later > 0:                # each job has the hour a scenario's run gives its one job (windows.max_duration)
        extra["windows"] = {"max_duration": f"{RUN_S + later:g}s"}
        said.append(f"The run lasts up to {RUN_S + later:g} s (windows.max_duration): the last job starts {later:g} s "
                    f"after the first, and each has the hour a scenario gives its one job.")
    return batch, datasets[0], topics, first_loads, found, names, extra
