"""`quietload import` of a night's several Glue jobs refuses bad input with one line naming the job
and the field, exit code 2, nothing written. The jobs are files in GetJob's and GetJobs' shapes
(LocalStack's free edition has no Glue); their scripts are local files, their inputs local paths
(no S3 is asked)."""
import json
from pathlib import Path

import pytest
from _bad_input import assert_refused

NIGHT = Path(__file__).parents[1] / "workloads" / "imports" / "data" / "night"


def night_files(tmp_path: Path, change=None) -> tuple[Path, Path]:
    """The night's GetJobs and GetTriggers files in ``tmp_path``: scripts at absolute paths, inputs local."""
    jobs = json.loads((NIGHT / "get-jobs.json").read_text())
    for job in jobs["Jobs"]:
        script = tmp_path / job["Command"]["ScriptLocation"]
        script.write_text((NIGHT / script.name).read_text().replace("s3://", "/data/"))
        job["Command"]["ScriptLocation"] = str(script)
        job.get("DefaultArguments", {}).pop("--input_path", None)
        job.setdefault("DefaultArguments", {})["--input_path"] = "/data/in/"
    triggers = json.loads((NIGHT / "get-triggers.json").read_text())
    if change:
        change(jobs, triggers)
    (tmp_path / "get-jobs.json").write_text(json.dumps(jobs))
    (tmp_path / "get-triggers.json").write_text(json.dumps(triggers))
    return tmp_path / "get-jobs.json", tmp_path / "get-triggers.json"


def _one_job_file(tmp_path: Path, jobs: Path, index: int, name: str) -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"Job": json.loads(jobs.read_text())["Jobs"][index]}))
    return str(path)


def _set(job_index, key, value):
    def change(jobs, triggers):
        jobs["Jobs"][job_index][key] = value
    return change


def _trigger(index, key, value):
    def change(jobs, triggers):
        triggers["Triggers"][index][key] = value
    return change


CASES = {
    "two files naming one job": (
        None, lambda t, j, g: ["--glue-job", _one_job_file(t, j, 0, "a.json"), "--glue-job", _one_job_file(t, j, 0, "b.json")],
        "error: --glue-job b.json (job 'daily-card-load'): Job.Name: job 'daily-card-load' is given twice (--glue-job a.json "
        "and --glue-job b.json)"),
    "a trigger's cron that is not Glue's": (
        _trigger(0, "Schedule", "cron(0 2 * * *)"), lambda t, j, g: ["--glue-job", str(j), "--glue-triggers", str(g)],
        "error: --glue-triggers get-triggers.json: Triggers[0] ('nightly-card-load').Schedule: Glue's cron has 6 fields "
        "(Minutes Hours Day-of-month Month Day-of-week Year), got 5 in 'cron(0 2 * * *)'"),
    "a Unix cron": (
        _trigger(1, "Schedule", "15 * * * *"), lambda t, j, g: ["--glue-job", str(j), "--glue-triggers", str(g)],
        "error: --glue-triggers get-triggers.json: Triggers[1] ('hourly-export').Schedule: expected Glue's cron("),
    "a predicate on a job not imported": (
        None, lambda t, j, g: ["--glue-job", str(j), "--glue-job-pattern", "settlement-*", "--glue-triggers", str(g)],
        "error: --glue-triggers: trigger 'settle-after-load': Predicate: waits for job 'daily-card-load', which is not "
        "imported (imported: settlement-load); import it too, or leave the trigger out"),
    "an unknown worker type in one of the jobs": (
        _set(1, "WorkerType", "G.3X"), lambda t, j, g: ["--glue-job", str(j)],
        "error: --glue-job get-jobs.json: Jobs[1] (job 'hourly-export'): Job.WorkerType: unknown worker type 'G.3X'"),
    "one worker in one of the jobs": (
        _set(2, "NumberOfWorkers", 1), lambda t, j, g: ["--glue-job", str(j)],
        "error: --glue-job get-jobs.json: Jobs[2] (job 'settlement-load'): Job.NumberOfWorkers: 1 G.2X worker runs only the driver"),
    "a pattern matching no job": (
        None, lambda t, j, g: ["--glue-job", str(j), "--glue-job-pattern", "nightly-*"],
        "error: --glue-job-pattern: no job's name matches 'nightly-*'"),
    "--script with several jobs": (
        None, lambda t, j, g: ["--glue-job", str(j), "--script", str(NIGHT / "daily-card-load.py")],
        "error: --script: reads one job's script; with several jobs each job's ScriptLocation is read"),
    "--load-topic with several jobs": (
        None, lambda t, j, g: ["--glue-job", str(j), "--load-topic", "bulk"],
        "error: --load-topic: names one job's topic; with several jobs each job's script names its own"),
    "a trigger given twice": (
        lambda jobs, triggers: triggers["Triggers"].append(dict(triggers["Triggers"][0])),
        lambda t, j, g: ["--glue-job", str(j), "--glue-triggers", str(g)],
        "error: --glue-triggers get-triggers.json: Triggers[3].Name: trigger 'nightly-card-load' is given twice"),
    "a trigger file that is a job's": (
        None, lambda t, j, g: ["--glue-job", str(j), "--glue-triggers", str(j)],
        "error: --glue-triggers get-jobs.json: not the JSON of `aws glue get-triggers`: no \"Triggers\" list"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_night_input_is_one_line_naming_the_job_and_the_field(case, tmp_path):
    change, arguments, expected = CASES[case]
    jobs, triggers = night_files(tmp_path, change)
    out = tmp_path / "night.yaml"
    line = assert_refused(["import", *arguments(tmp_path, jobs, triggers), "--out", str(out)], expected)
    assert line.startswith(expected) and not out.exists()
