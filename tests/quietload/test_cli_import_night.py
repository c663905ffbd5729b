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
        change(jobs, triggers, tmp_path)
    (tmp_path / "get-jobs.json").write_text(json.dumps(jobs))
    (tmp_path / "get-triggers.json").write_text(json.dumps(triggers))
    return tmp_path / "get-jobs.json", tmp_path / "get-triggers.json"


def _one_job_file(tmp_path: Path, jobs: Path, index: int, name: str) -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"Job": json.loads(jobs.read_text())["Jobs"][index]}))
    return str(path)


def _set(job_index, key, value):
    def change(jobs, triggers, tmp_path):
        jobs["Jobs"][job_index][key] = value
    return change


def _trigger(index, key, value):
    def change(jobs, triggers, tmp_path):
        triggers["Triggers"][index][key] = value
    return change


def _script(job_index, old, new):
    def change(jobs, triggers, tmp_path):
        script = Path(jobs["Jobs"][job_index]["Command"]["ScriptLocation"])
        script.write_text(script.read_text().replace(old, new))
    return change


def _both(*changes):
    def change(jobs, triggers, tmp_path):
        for one in changes:
            one(jobs, triggers, tmp_path)
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
    "a negative repartition in one job's script": (
        _script(2, "repartition(30)", "repartition(-3)"), lambda t, j, g: ["--glue-job", str(j), "--glue-job-pattern", "[dhs]*"],
        "error: job 'settlement-load': batch[2].spark.repartition: expected a whole number of at least 1, got -3 (in the "
        "scenario the import would write; nothing written)"),
    "two jobs' scripts with one client.id": (
        _both(_script(1, '.option("topic"', '.option("kafka.client.id", "daily-card-load").option("topic"')),
        lambda t, j, g: ["--glue-job", str(j), "--glue-job-pattern", "[dhs]*"], "error: job 'hourly-export': batch[1].client.id: "),
    "a trigger given twice": (
        lambda jobs, triggers, tmp_path: triggers["Triggers"].append(dict(triggers["Triggers"][0])),
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


def test_the_night_is_written_and_read_back(tmp_path):
    from typer.testing import CliRunner

    from quietload.cli import app
    from workloads import Scenario
    jobs, triggers = night_files(tmp_path)
    out = tmp_path / "night.yaml"
    result = CliRunner().invoke(app, ["import", "--glue-job", str(jobs), "--glue-job-pattern", "[dhs]*", "--glue-triggers",
                                      str(triggers), "--until", "2026-11-20T00:00:00Z", "--partitions", "card-transactions=30",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    night = Scenario.from_yaml(out)
    assert [(j.name, night.job_start(j)) for j in night.jobs] == [
        ("daily-card-load", 10.0), ("hourly-export", 910.0), ("settlement-load", 10.0)]
    assert result.stdout.endswith(f"wrote {out}\n")
