"""The Glue jobs an import names, each with its script and its input's sizes.

Jobs come from files in the shape of Glue's ``GetJob`` answer (``{"Job": {...}}``) or ``GetJobs``
answer (``{"Jobs": [...]}``), or through boto3 by name; ``--glue-job-pattern`` keeps the jobs
whose names match it (fnmatch), read from the files given or, without any, from every job
``GetJobs`` lists; with ``--bootstrap-servers``, only those whose script writes to them.
"""
from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

from workloads.errors import ScenarioError
from workloads.imports.glue import GlueJob, fetch_glue_job, read_glue_job
from workloads.imports.network import Clients, Waits, aws_errors
from workloads.imports.sections import ImportedJob
from workloads.imports.script import input_files, read_script
from workloads.reader import read_json, read_text


def _s3_object(uri: str, clients: Clients, where: str, waits: Waits) -> str:
    bucket, _, key = uri.split("://", 1)[1].partition("/")
    with aws_errors(where, waits):
        body = clients("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    try:
        return body.decode()
    except UnicodeDecodeError:
        raise ScenarioError(where, f"{uri}: not a text file") from None


def fetch_glue_jobs(client: Any) -> list[dict]:
    """Every job ``get-jobs`` lists, through boto3's Glue client."""
    jobs: list[dict] = []
    for page in client.get_paginator("get_jobs").paginate():
        jobs += page.get("Jobs", [])
    return jobs


def _documents(files: tuple[Path, ...], names: tuple[str, ...], pattern: str | None, clients: Clients,
               waits: Waits) -> list[tuple[Any, str]]:
    """(a GetJob-shaped document, where it came from) of every job named."""
    documents: list[tuple[Any, str]] = []
    alone = len(files) == 1 and not names
    for path in files:
        document = read_json(path, "--glue-job")
        if isinstance(document, dict) and isinstance(document.get("Jobs"), list):
            documents += [({"Job": job}, f"--glue-job {path.name}: Jobs[{i}]") for i, job in enumerate(document["Jobs"])]
        else:
            documents.append((document, "--glue-job" if alone else f"--glue-job {path.name}"))
    for name in names:
        with aws_errors("--glue-job-name", waits):
            documents.append((fetch_glue_job(name, clients("glue")), "--glue-job-name" if len(names) == 1 and not files
                              else f"--glue-job-name {name}"))
    if pattern is not None and not files and not names:
        with aws_errors("--glue-job-pattern", waits):
            documents += [({"Job": job}, f"--glue-job-pattern: job {job.get('Name')!r}") for job in fetch_glue_jobs(clients("glue"))]
    if pattern is not None:
        documents = [(d, w) for d, w in documents if fnmatch.fnmatchcase(str(_name(d)), pattern)]
        if not documents:
            raise ScenarioError("--glue-job-pattern", f"no job's name matches {pattern!r}")
    return documents


def _name(document: Any) -> Any:
    job = document.get("Job") if isinstance(document, dict) else None
    return job.get("Name") if isinstance(job, dict) else None


def glue_jobs(files: tuple[Path, ...], names: tuple[str, ...], pattern: str | None, script: str | None,
              clients: Clients, waits: Waits) -> list[GlueJob]:
    """Every Glue job named, read and checked; a job given twice is one line naming both places."""
    documents = _documents(files, names, pattern, clients, waits)
    jobs: list[GlueJob] = []
    seen: dict[str, str] = {}
    for document, where in documents:
        name = _name(document)
        shown = f"{where} (job {name!r})" if len(documents) > 1 and isinstance(name, str) and "job '" not in where else where
        job = read_glue_job(document, shown)
        if job.name in seen:
            raise ScenarioError(f"{shown}: Job.Name", f"job {job.name!r} is given twice ({seen[job.name]} and {where})")
        seen[job.name] = where
        jobs.append(job)
    if script and len(jobs) > 1:
        raise ScenarioError("--script", "reads one job's script; with several jobs each job's ScriptLocation is read")
    return jobs


def with_scripts(jobs: list[GlueJob], pattern: str | None, script: str | None, bootstrap: str | None, clients: Clients,
                 waits: Waits) -> tuple[list[ImportedJob], list[str]]:
    """Each job with its script and input's sizes (when they can be read); with a pattern and bootstrap servers,
    the jobs whose script writes to them; and what was said."""
    read = [_job(job, script, clients, waits) for job in jobs] or ([_job(None, script, clients, waits)] if script else [])
    notes: list[str] = []
    if pattern is not None and bootstrap:
        wanted = {s.strip() for s in bootstrap.split(",") if s.strip()}
        kept = [j for j in read if j.script and wanted & set(j.script.bootstrap_servers)]
        for job in read:
            if job not in kept:
                notes.append(f"Job {job.name!r} matches {pattern!r} but " + ("its script was not read" if not job.script else
                             "its script writes elsewhere") + f": left out (not writing to {bootstrap}).")
        if not kept:
            raise ScenarioError("--glue-job-pattern", f"no job matching {pattern!r} writes to {bootstrap}")
        read = kept
    return read, notes


def _job(glue: GlueJob | None, given: str | None, clients: Clients, waits: Waits) -> ImportedJob:
    """One job with its script (``given``, else its ScriptLocation) and its input's sizes, when readable."""
    notes: list[str] = []
    script, files = None, None
    location = given or (glue.script_location if glue else None)
    if location:
        where = "--script" if given else "--glue-job: Job.Command.ScriptLocation"
        try:
            text = (_s3_object(location, clients, where, waits) if location.startswith("s3://")
                    else read_text(Path(location), where))
        except (ScenarioError, ModuleNotFoundError) as error:     # ModuleNotFoundError: without the aws extra
            if given:
                raise
            text = None      # the job's own script is read when S3 is reachable; else its settings are assumed, and said
            notes.append(f"The job's script was not read ({error}); give --script job.py.")
        script = read_script(text, glue.parameters if glue else {}, where) if text is not None else None
        if script and script.input_paths:
            try:
                with aws_errors("input", waits):
                    files = input_files(script.input_paths, clients("s3"))
            except (ScenarioError, ModuleNotFoundError) as error:   # read when S3 is reachable; else assumed, and said
                notes.append(f"The input's sizes were not read from S3 ({error}).")
    return ImportedJob(glue, script, files, tuple(notes))
