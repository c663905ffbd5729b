"""`quietload import` refuses bad input with one line naming what, exit code 2, nothing written and
no secret printed. (A metric without data points and an unknown dimension need CloudWatch: they
are in tests/workloads/imports/test_cloudwatch_localstack.py.)"""
import json
import os
from pathlib import Path

import pytest
from _bad_input import assert_refused

DATA = Path(__file__).parents[1] / "workloads" / "imports" / "data"
SECRET = "s3cr3t-do-not-print"


def _write(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def _job(**changes):
    job = json.loads((DATA / "get-job.json").read_text())
    job["Job"].update(changes)
    return job


def _cluster(instance):
    cluster = json.loads((DATA / "describe-cluster-v2.json").read_text())
    cluster["ClusterInfo"]["Provisioned"]["BrokerNodeGroupInfo"]["InstanceType"] = instance
    return cluster


CASES = {
    "a cluster's JSON as the job": (lambda t: ["--glue-job", str(DATA / "describe-cluster-v2.json")],
                                   '--glue-job: not the JSON of `aws glue get-job`: no "Job" object with a "Command"'),
    "a job's JSON as the cluster": (lambda t: ["--msk-cluster", str(DATA / "get-job.json")],
                                    "--msk-cluster: not the JSON of `aws kafka describe-cluster-v2`"),
    "not JSON": (lambda t: ["--glue-job", _write(t, "job.json", "Job: x")], "job.json: not JSON"),
    "an unknown worker type": (lambda t: ["--glue-job", _write(t, "j.json", _job(WorkerType="G.3X"))],
                               "--glue-job: Job.WorkerType: unknown worker type 'G.3X'"),
    "one worker: only the driver": (lambda t: ["--glue-job", _write(t, "j.json", _job(NumberOfWorkers=1))],
                                    "1 G.2X worker runs only the driver"),
    "an unknown Glue version": (lambda t: ["--glue-job", _write(t, "j.json", _job(GlueVersion="9.0"))],
                                "Glue 9.0 is not one quietload knows"),
    "an instance type not in the table": (lambda t: ["--msk-cluster", _write(t, "c.json", _cluster("kafka.t3.small"))],
                                          "InstanceType: unknown broker type 'kafka.t3.small'"),
    "a configuration without a cluster": (lambda t: ["--configuration", str(DATA / "server.properties")],
                                          "--configuration: is the configuration of an MSK cluster"),
    "a bad thread count": (lambda t: ["--msk-cluster", str(DATA / "describe-cluster-v2.json"), "--configuration",
                                      _write(t, "s.properties", "num.io.threads=eight\n")],
                           "--configuration: num.io.threads: expected a whole number of at least 1, got 'eight'"),
    "a script that is not Python": (lambda t: ["--script", _write(t, "job.py", "def (:\n")],
                                    "--script: not a Python script quietload can read"),
    "a secret in a bad --conf": (lambda t: ["--glue-job", _write(t, "j.json", _job(DefaultArguments={
        "--conf": f"spark.a=1 --conf password={SECRET}"}))], "got 'password'"),
    "--since without a unit": (lambda t: ["--since", "14"], "--since: expected a duration"),
    "--partitions without a count": (lambda t: ["--partitions", "payments"], "--partitions: expected TOPIC=N"),
    "--profile without metrics": (lambda t: ["--glue-job", str(DATA / "get-job.json"), "--profile", "mine"],
                                  "--profile: fits the costs to metrics"),
    "a history that is not one": (lambda t: ["--glue-job", str(DATA / "get-job.json"), "--cloudwatch", "x", "--prometheus", "http://127.0.0.1:1/metrics"],
                                  "--cloudwatch: read the metrics from CloudWatch or from --prometheus, not both"),
    "an exporter that does not answer": (lambda t: ["--prometheus", "http://127.0.0.1:9/metrics", "--for", "1s", "--period", "1"],
                                         "--prometheus: http://127.0.0.1:9/metrics: no metrics"),
    "a file that is not an append trace": (lambda t: ["--trace", _write(t, "trace.qltrace", "x,y\n")],
                                           "trace.qltrace: not an append trace (it should start with QLTRACE1"),
}


def _script(t, body):
    return _write(t, "job.py", f'df.write.format("kafka"){body}.option("topic", "bulk").save()\n')


# What a source gives is judged as the same value in a scenario file is, and named
WRITTEN = {
    "a negative repartition": (lambda t: ["--script", _write(t, "job.py", "df.repartition(-3).write.save()\n")],
                               "batch.spark.repartition: expected a whole number of at least 1, got -3 (in the scenario the import would write"),
    "a zero repartition": (lambda t: ["--script", _write(t, "job.py", "df.repartition(0).write.save()\n")],
                           "batch.spark.repartition: expected a whole number of at least 1, got 0"),
    "a fractional repartition": (lambda t: ["--script", _write(t, "job.py", 'df.repartition("2.5").write.save()\n')],
                                 "batch.spark.repartition: expected a whole number of at least 1, got '2.5'"),
    "a negative batch.size": (lambda t: ["--script", _script(t, '.option("kafka.batch.size", "-5")')],
                              "batch.producer.batch.size: expected a size like 128KB or 2GB, got '-5'"),
    "min.insync.replicas above the replication factor": (
        lambda t: ["--msk-cluster", str(DATA / "describe-cluster-v2.json"), "--configuration",
                   _write(t, "s.properties", "default.replication.factor=2\nmin.insync.replicas=3\n")],
        "--configuration: min.insync.replicas: 3 is more than replication.factor 2 (default.replication.factor on 3 brokers)"),
    "an SLA of 0": (lambda t: ["--script", _script(t, ""), "--sla", "0"], "--sla: expected a p99 like 10ms"),
    "an SLA of 0 ms": (lambda t: ["--script", _script(t, ""), "--sla", "0ms"], "--sla: must be greater than zero, got '0ms'"),
    "a negative SLA": (lambda t: ["--script", _script(t, ""), "--sla", "-5ms"], "--sla: expected a p99 like 10ms"),
    "an SLA that is no duration": (lambda t: ["--script", _script(t, ""), "--sla", "abc"], "--sla: expected a p99 like 10ms"),
    "an SLA without a unit": (lambda t: ["--script", _script(t, ""), "--sla", "10"], "--sla: expected a p99 like 10ms"),
    "an empty CloudWatch name": (lambda t: ["--cloudwatch", ""], "--cloudwatch: expected the MSK cluster's name, got an empty one"),
    "NumberOfWorkers NaN": (lambda t: ["--glue-job", _write(t, "j.json", json.dumps(_job(NumberOfWorkers=float("nan"))))],
                            "j.json: Job.NumberOfWorkers: expected a finite number, got nan"),
    "NumberOfWorkers of 5,000 digits": (
        lambda t: ["--glue-job", _write(t, "j.json", json.dumps(_job(NumberOfWorkers=0)).replace('"NumberOfWorkers": 0', '"NumberOfWorkers": ' + "9" * 5000))],
        "j.json: Job.NumberOfWorkers: 999999999999... (5000 digits) is past the largest number quietload reads"),
    "a thread count of 30 digits": (lambda t: ["--msk-cluster", str(DATA / "describe-cluster-v2.json"), "--configuration",
                                               _write(t, "s.properties", "num.io.threads=" + "9" * 30 + "\n")],
                                    "--configuration: num.io.threads: expected a whole number of at least 1, got '99999999999999999999'..."),
    "a partition count in other digits": (lambda t: ["--script", _script(t, ""), "--partitions", "bulk=\u00b2"], "--partitions: expected TOPIC=N"),
    "--since of a huge span": (lambda t: ["--cloudwatch", "payments", "--since", "9" * 30 + "d"],
                               "--since: '99999999999999999999...' is longer than the 455 days it can be"),
    "--since past the points of a series": (lambda t: ["--cloudwatch", "payments", "--since", "400d"],
                                            "--since: 576,000 points of 60 s per series, more than the 100,800 a history holds; a --period of at least 360 s fits"),
    "--until before the year 1 with --since": (lambda t: ["--cloudwatch", "payments", "--since", "2d", "--until", "0001-01-01T00:00:00Z"],
                                               "--since: 2 days before --until 0001-01-01 is before the year 1"),
    "no source at all": (lambda t: [], "import: nothing to import: give a job"),
    "only a SLA": (lambda t: ["--sla", "10ms", "--partitions", "t=6"], "import: nothing to import"),
}
CASES.update(WRITTEN)


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_line_and_nothing_is_written(case, tmp_path, capfd):
    arguments, expected = CASES[case]
    out = tmp_path / "out.yaml"
    line = assert_refused(["import", *arguments(tmp_path), "--out", str(out)], expected)
    assert SECRET not in line and not out.exists()
    assert list(tmp_path.glob("*.history.json")) == []


def test_an_unwritable_out_is_refused_before_any_source_is_read(tmp_path):
    # the exporter would be sampled for an hour: refused first, so the line names --out
    assert_refused(["import", "--prometheus", "http://127.0.0.1:9/metrics", "--for", "1h", "--out", str(tmp_path)],
                   f"--out: {tmp_path} is a directory; name a file")


@pytest.fixture
def no_credentials(monkeypatch, tmp_path):
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")     # no instance role to ask for
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")


@pytest.mark.parametrize("option", [["--glue-job-name", "load"], ["--msk-cluster-arn", "arn:aws:kafka:eu-west-1:1:cluster/x/y"],
                                    ["--cloudwatch", "payments"]])
def test_missing_credentials_are_one_line(option, no_credentials, tmp_path):
    line = assert_refused(["import", *option, "--out", str(tmp_path / "o.yaml")], "no AWS credentials found")
    assert line.startswith(f"error: {option[0]}: ")


@pytest.mark.parametrize("arguments, expected", [
    (lambda t: ["--history", _write(t, "h.json", "{}")], "--history: replays the loads of an imported scenario: give --scenario FILE too"),
    (lambda t: ["--history", _write(t, "h.json", '{"schema": "other"}'), "--scenario", str(t / "s.yaml")],
     "h.json: not a history file quietload wrote (no schema 'quietload-history/1')"),
    (lambda t: ["--history", _write(t, "h.json", "[1,"), "--scenario", str(t / "s.yaml")], "h.json: not JSON (Expecting value at line 1 column 4)"),
], ids=["without a scenario", "another schema", "not JSON"])
def test_validate_history_refuses_bad_input(arguments, expected, tmp_path):
    assert_refused(["validate", *arguments(tmp_path)], expected)
