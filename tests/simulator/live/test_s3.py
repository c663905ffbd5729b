"""LocalStack S3 without Docker: lifecycle, uploads, the dataset files, bad input as one line.

One LocalStack serves the module (a few seconds to start; the first run on a machine also
installs its pinned environment); the CLI test starts its own with one broker.
"""
import os
import signal
import socket

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from simulator.live import StackError
from simulator.live.s3 import CREDENTIALS, LocalStackS3, check_inputs, dataset_files, upload_dataset, write_dataset_csv
from workloads import CATALOG, Scenario, ScenarioError
from stack_probes import eventually, listening, processes_using


def _stack(*args: str):
    return CliRunner().invoke(app, ["stack", *args])


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    with LocalStackS3(tmp_path_factory.mktemp("s3") / "stack") as running:
        yield running


@pytest.mark.live
def test_uploaded_files_are_listed_under_their_uris(s3, tmp_path):
    import boto3
    files = []
    for name, text in (("a.csv", "id\n1\n"), ("b.csv", "id\n2\n3\n")):
        files.append(tmp_path / name)
        files[-1].write_text(text)
    uris = upload_dataset(s3.endpoint_url, "landing", "day=2024-06-03/", files)
    assert uris == ["s3a://landing/day=2024-06-03/a.csv", "s3a://landing/day=2024-06-03/b.csv"]
    client = boto3.client("s3", endpoint_url=s3.endpoint_url, **CREDENTIALS)
    listed = client.list_objects_v2(Bucket="landing")["Contents"]
    assert [(o["Key"], o["Size"]) for o in listed] == [("day=2024-06-03/a.csv", 5), ("day=2024-06-03/b.csv", 7)]
    assert client.get_object(Bucket="landing", Key="day=2024-06-03/b.csv")["Body"].read() == b"id\n2\n3\n"
    check_inputs(s3.endpoint_url, uris + ["s3a://landing/day=2024-06-03"])   # a prefix names its objects


@pytest.mark.live
def test_a_missing_bucket_or_object_is_one_line(s3):
    with pytest.raises(StackError) as missing:
        check_inputs(s3.endpoint_url, ["s3a://no-such-bucket/day=1/part-0.csv"])
    assert str(missing.value) == f"s3a://no-such-bucket/day=1/part-0.csv: bucket 'no-such-bucket' does not exist at {s3.endpoint_url}"
    upload_dataset(s3.endpoint_url, "empty-landing", "", [])
    with pytest.raises(StackError) as empty:
        check_inputs(s3.endpoint_url, ["s3a://empty-landing/day=1"])
    assert str(empty.value) == f"s3a://empty-landing/day=1: no object in bucket 'empty-landing' at {s3.endpoint_url}"


@pytest.mark.live
def test_up_twice_starts_once_and_status_shows_it_running(s3):
    assert s3.up() is False
    status = s3.status()
    assert status.running and s3.endpoint_url == f"http://127.0.0.1:{status.port}"
    assert LocalStackS3(s3.run_dir).status() == status   # read from s3.json by another instance
    assert (s3.filesystem / "var" / "lib" / "localstack").is_dir()   # its files stay in the run dir
    other = status.port + 1 if status.port < 65535 else 1024
    with pytest.raises(StackError) as differing:
        LocalStackS3(s3.run_dir, port=other).up()
    assert str(differing.value) == (f"LocalStack S3 is up in {s3.run_dir} on port {status.port} (not {other}); "
                                    "stop it first (quietload stack down)")


@pytest.mark.live
def test_down_leaves_no_process_port_or_data_dir(s3):
    # The module's last test on the shared instance: the fixture's own down then finds nothing.
    port = s3.status().port
    assert processes_using(s3.run_dir) and listening(port)
    assert s3.down().running
    assert processes_using(s3.run_dir) == [] and not listening(port)
    assert not s3.run_dir.exists()
    assert s3.down() is None


@pytest.mark.live
def test_stack_up_status_down_with_s3(tmp_path):
    run_dir = tmp_path / "stack"
    try:
        first = _stack("up", "--run-dir", str(run_dir))
        assert first.exit_code == 0, first.output
        assert "LocalStack S3 up in " in first.stderr
        storage = LocalStackS3(run_dir)
        port = storage.status().port
        lines = first.stdout.splitlines()
        assert lines[-2:] == [f"s3 endpoint: http://127.0.0.1:{port} (LocalStack 4.12.0)",
                              f"  localstack  pid {storage.status().pid:<7}  127.0.0.1:{port:<5}  running"]
        again = _stack("up", "--run-dir", str(run_dir))
        assert again.stdout.splitlines() == ["already up"] + lines

        os.kill(storage.status().pid, signal.SIGKILL)
        status = eventually(lambda: _stack("status", "--run-dir", str(run_dir)), lambda r: r.exit_code == 1)
        assert status.exit_code == 1
        assert status.stdout.splitlines()[-1].endswith(f"exited (log: {run_dir / 'localstack.log'})")

        down = _stack("down", "--run-dir", str(run_dir))
        assert down.exit_code == 0
        assert down.stdout.splitlines() == [f"stopped controller, broker-0 in {run_dir}",
                                            f"localstack in {run_dir} had already exited"]
        assert _stack("status", "--run-dir", str(run_dir)).exit_code == 3
        assert processes_using(run_dir) == [] and not listening(port) and not run_dir.exists()
    finally:
        LocalStackS3(run_dir).down()
        _stack("down", "--run-dir", str(run_dir))


@pytest.mark.live
def test_a_taken_s3_port_is_one_error_line_and_starts_nothing(tmp_path):
    run_dir = tmp_path / "stack"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _stack("up", "--s3-port", str(port), "--run-dir", str(run_dir))
    assert (result.exit_code, result.stderr) == (2, f"error: 127.0.0.1:{port} (LocalStack S3) is taken: Address already in use\n")
    assert processes_using(run_dir) == [] and not run_dir.exists()


def test_the_dataset_is_written_as_files_of_the_scenarios_sizes(tmp_path):
    scenario = Scenario.from_yaml(CATALOG / "gzip-input.yaml", ["dataset.files=[{size: 64KB, count: 2}, {size: 200KB}]",
                                                               "dataset.compression=none"])
    files = write_dataset_csv(scenario, tmp_path)
    assert [p.name for p in files] == ["part-00000.csv", "part-00001.csv", "part-00002.csv"]
    for path, size in zip(files, (65_536, 65_536, 204_800)):
        lines = path.read_bytes().split(b"\n")
        assert lines[0].startswith(b"transaction_id,transaction_ts,card_id,") and lines[-1] == b""
        # whole rows up to the size: at most one row past it
        assert size <= path.stat().st_size < size + 2 * max(len(line) for line in lines)
    assert files[0].read_bytes() != files[1].read_bytes()   # each file its own rows
    again = write_dataset_csv(scenario, tmp_path / "again")
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in files]   # same scenario, same bytes


def test_gzip_datasets_are_written_compressed_and_a_users_sample_is_cycled(tmp_path):
    sample = tmp_path / "sample.csv"
    sample.write_text("id,amount\n1,10.00\n2,20.00\n")
    scenario = Scenario.from_yaml(CATALOG / "gzip-input.yaml", ["dataset.files=[{size: 1KB}]", f"dataset.rows={sample}"])
    (path,) = write_dataset_csv(scenario, tmp_path / "out")
    import gzip
    text = gzip.decompress(path.read_bytes()).decode()
    assert path.name == "part-00000.csv.gz" and text.startswith("id,amount\n1,10.00\n2,20.00\n1,10.00\n")


def test_missing_or_unusable_dataset_paths_are_one_line(tmp_path):
    with pytest.raises(ScenarioError) as missing:
        dataset_files([tmp_path / "nowhere.csv"])
    assert str(missing.value) == f"dataset: {tmp_path / 'nowhere.csv'} does not exist"
    with pytest.raises(ScenarioError) as empty_dir:
        dataset_files([tmp_path])
    assert str(empty_dir.value) == f"dataset: {tmp_path} holds no .csv or .csv.gz files"
    (tmp_path / "b.csv").write_text("id\n1\n")
    (tmp_path / "a.csv.gz").write_bytes(b"")
    with pytest.raises(ScenarioError, match="a.csv.gz is empty: a CSV file needs a header row"):
        dataset_files([tmp_path])
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", [f"dataset.rows={tmp_path / 'gone.csv'}"])
    with pytest.raises(ScenarioError) as no_rows:
        write_dataset_csv(scenario, tmp_path / "out")
    assert str(no_rows.value) == f"dataset.rows: CSV sample {tmp_path / 'gone.csv'} does not exist."
