"""`quietload import` against LocalStack's CloudWatch and S3 for real: a quiet week of an MSK
cluster's metrics with a load every night (written with put_metric_data, as MSK publishes them),
the Glue script and the input files in S3. One LocalStack serves the module."""
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import boto3
import pytest
import yaml
from _bad_input import assert_refused
from typer.testing import CliRunner

import msk_metrics
from quietload.cli import app
from simulator.live.s3 import CREDENTIALS, LocalStackS3

DATA = Path(__file__).parent / "data"
PERIOD = 900          # quarter-hour points keep a week at 672 per series: LocalStack answers ~1 ms per series and point
DAYS = 7
BROKERS = ("1", "2")
LOAD_TOPIC, LOAD_RATE, LOAD_RECORD = "card-transactions", 40e6, 1600.0     # bytes/s of the nightly load
NEIGHBOURS = {"payment-events": (500.0, 1024.0), "fraud-scores": (300.0, 700.0)}   # records/s, bytes per record
# per broker: (quiet, during a load)
FIGURES = {"CpuUser": (10.0, 45.0), "CpuSystem": (3.0, 12.0), "RequestHandlerAvgIdlePercent": (92.0, 35.0)}
END = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
START = END - timedelta(days=DAYS)


def _loading(k: int) -> bool:
    """The load runs 02:00-02:30 UTC every night."""
    seconds = (k * PERIOD) % 86400
    return 2 * 3600 <= seconds < 2 * 3600 + 1800


def week(cluster: str = "payments", figures: dict = FIGURES) -> dict:
    noise = random.Random(7)
    points = DAYS * 86400 // PERIOD
    series: dict = {}
    for broker in BROKERS:
        for name, (quiet, busy) in figures.items():
            series[(name, broker, None)] = [(busy if _loading(k) else quiet) * noise.uniform(0.97, 1.03) for k in range(points)]
        for topic, (rate, size) in {**NEIGHBOURS, LOAD_TOPIC: (LOAD_RATE / LOAD_RECORD, LOAD_RECORD)}.items():
            records = [(0.0 if topic == LOAD_TOPIC and not _loading(k) else rate / len(BROKERS) * noise.uniform(0.97, 1.03))
                       for k in range(points)]
            series[("MessagesInPerSec", broker, topic)] = records
            series[("BytesInPerSec", broker, topic)] = [r * size for r in records]
    return series


@pytest.fixture(scope="module")
def aws(tmp_path_factory):
    with LocalStackS3(tmp_path_factory.mktemp("aws") / "stack", services=("cloudwatch",)) as stack:
        cloudwatch = boto3.client("cloudwatch", endpoint_url=stack.endpoint_url, **CREDENTIALS)
        msk_metrics.put(cloudwatch, "payments", START.timestamp(), PERIOD, week())
        s3 = boto3.client("s3", endpoint_url=stack.endpoint_url, **CREDENTIALS)
        for bucket in ("glue-scripts", "landing"):
            s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket="glue-scripts", Key="card-transactions-to-msk.py",
                      Body=(DATA / "card-transactions-to-msk.py").read_bytes())
        for i, size in enumerate((2_000_000, 2_000_000, 1_500_000)):
            s3.put_object(Bucket="landing", Key=f"card-transactions/part-{i}.csv", Body=b"x" * size)
        yield stack


@pytest.fixture
def environment(aws, monkeypatch, tmp_path):
    for name, value in {"AWS_ENDPOINT_URL": aws.endpoint_url, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                        "AWS_DEFAULT_REGION": CREDENTIALS["region_name"], "AWS_CONFIG_FILE": str(tmp_path / "none"),
                        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")}.items():
        monkeypatch.setenv(name, value)
    return aws


# LocalStack's CloudWatch took over 20 s to answer a week of a cluster's metrics on a busy machine:
# each of a call's three attempts gets a minute, where a person's default gives it 20 s in all
PATIENT = ["--timeout", "3min"]


def _import(*arguments: str):
    return CliRunner().invoke(app, ["import", *arguments, "--until", END.isoformat(), "--since", f"{DAYS}d",
                                    "--period", str(PERIOD), *PATIENT], prog_name="quietload")


@pytest.mark.live
def test_the_week_gives_the_nightly_loads_the_neighbours_and_the_input(environment, tmp_path):
    out = tmp_path / "payments.yaml"
    outcome = _import("--glue-job", str(DATA / "get-job.json"), "--msk-cluster", str(DATA / "describe-cluster-v2.json"),
                      "--cloudwatch", "payments", "--partitions", "card-transactions=30", "--out", str(out))
    assert outcome.exit_code == 0, outcome.output
    scenario = yaml.safe_load(out.read_text())
    tenants = {t["topic"]: (float(t["rate"][:-2]), t["record_size"]) for t in scenario["tenants"]}
    assert set(tenants) == set(NEIGHBOURS)
    for topic, (rate, size) in NEIGHBOURS.items():
        assert abs(tenants[topic][0] / rate - 1) <= 0.05 and abs(tenants[topic][1] / size - 1) <= 0.05, tenants
    assert scenario["dataset"]["files"] == [{"size": 2_000_000, "count": 2}, {"size": 1_500_000, "count": 1}]
    assert scenario["batch"]["producer"] == {"batch.size": 131072, "linger.ms": 10, "compression.type": "zstd"}
    history = json.loads((tmp_path / "payments.history.json").read_text())
    assert history["source"] == "cloudwatch" and history["period"] == PERIOD and len(history["brokers"]) == 2
    loads = [line for line in outcome.output.splitlines() if line.startswith("  ") and " UTC " in line]
    nights = [(START + timedelta(days=d, hours=2)).strftime("%Y-%m-%d %H:%M") for d in range(DAYS)]
    assert [line.split(" UTC")[0].strip() for line in loads] == nights
    assert all(line.split()[3] == "1800" for line in loads)     # 30 minutes each
    assert "s3cr3t" not in outcome.output + out.read_text()


@pytest.mark.live
def test_a_cluster_at_the_default_level_names_the_metric_and_its_level(environment, tmp_path):
    cloudwatch = boto3.client("cloudwatch")
    default_only = {k: v for k, v in FIGURES.items() if k in ("CpuUser", "CpuSystem")}
    msk_metrics.put(cloudwatch, "small", START.timestamp() + 86400 * 6, PERIOD,
                    {k: v[:12] for k, v in week("small", default_only).items()})
    (tmp_path / "c.json").write_text((DATA / "describe-cluster-v2.json").read_text().replace("PER_TOPIC_PER_BROKER", "DEFAULT"))
    assert_refused(["import", "--msk-cluster", str(tmp_path / "c.json"), "--cloudwatch", "small", "--until", END.isoformat(),
                    *PATIENT, "--out", str(tmp_path / "o.yaml")],
                   "--cloudwatch: no RequestHandlerAvgIdlePercent per broker: MSK publishes RequestHandlerAvgIdlePercent "
                   "from monitoring level PER_BROKER; the cluster's level is DEFAULT")


@pytest.mark.live
def test_a_metric_without_points_in_the_window_is_one_line(environment, tmp_path):
    cloudwatch = boto3.client("cloudwatch")
    series = {k: v[:3] for k, v in week("old").items()}
    msk_metrics.put(cloudwatch, "old", (START - timedelta(days=1)).timestamp(), PERIOD, series)   # all before the window
    # read at the period it was written at: LocalStack answers ~1 ms per series and point, so a day at 60 s
    # points would ask it for minutes per call on a busy machine
    line = assert_refused(["import", "--cloudwatch", "old", "--until", END.isoformat(), "--since", "1d",
                           "--period", str(PERIOD), *PATIENT, "--out", str(tmp_path / "o.yaml")], "has no data points from")
    assert line.startswith("error: --cloudwatch: metric ")


@pytest.mark.live
def test_an_unknown_dimension_is_one_line(environment, tmp_path):
    cloudwatch = boto3.client("cloudwatch")
    cloudwatch.put_metric_data(Namespace="AWS/Kafka", MetricData=[{
        "MetricName": "CpuUser", "Value": 10.0, "Timestamp": END - timedelta(hours=1),
        "Dimensions": [{"Name": "Cluster Name", "Value": "odd"}, {"Name": "Broker ID", "Value": "1"},
                       {"Name": "Instance", "Value": "i-0abc"}]}])
    assert_refused(["import", "--cloudwatch", "odd", "--until", END.isoformat(), *PATIENT, "--out", str(tmp_path / "o.yaml")],
                   "--cloudwatch: metric CpuUser has an unknown dimension 'Instance' (MSK's are Cluster Name, Broker ID, Topic)")
