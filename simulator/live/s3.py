"""Amazon S3 on loopback: LocalStack's S3 (localstack-core 4.12, no Docker) run from its own
virtual environment, pinned by localstack/requirements.txt, as a service of the live stack
(``simulator.live.service``: ``start`` cleans first, then starts; ``stop``; ``clean``). It shares the stack's
run directory: ``s3.json`` (pid and port), ``localstack.log`` and ``localstack/`` (its whole file
system: state, cache, certificates), so ``status`` and ``stop`` work from another process.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from simulator.contract.names import STACK_RUN_DIR
from simulator.live.jars import LOCALSTACK, ROOT
from simulator.live._process import StackError, http_get, last_error, reserve_ports
from simulator.live.dataset import dataset_files, write_dataset_csv
from simulator.live.service import Recorded, Service
from workloads import ScenarioError

LOCALSTACK_VERSION = "4.12.0"
REQUIREMENTS = LOCALSTACK / "requirements.txt"
VENV = ROOT / ".build" / "localstack-venv"
REGION = "us-east-1"
# LocalStack accepts any credentials; these are the ones its docs use.
CREDENTIALS = {"aws_access_key_id": "test", "aws_secret_access_key": "test", "region_name": REGION}

__all__ = ["CREDENTIALS", "LocalStackS3", "S3Status", "check_inputs", "dataset_files", "localstack_python",
           "render_s3_status", "render_s3_stopped", "upload_dataset", "write_dataset_csv"]


def localstack_python(progress: Callable[[str], None] = lambda line: None) -> Path:
    """The Python of LocalStack's own environment (.build/localstack-venv), created on first use
    from the pinned requirements with uv and recreated when they change."""
    stamp = VENV / f".requirements-{hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:12]}"
    python = VENV / "bin" / "python"
    if stamp.exists() and python.exists():
        return python
    uv = ROOT / ".venv" / "bin" / "uv"
    uv_command = str(uv) if uv.exists() else shutil.which("uv")
    if not uv_command:
        raise StackError("uv not found (.venv/bin/uv or on PATH): LocalStack's environment is installed with uv (make venv)")
    progress(f"installing LocalStack {LOCALSTACK_VERSION} into {VENV} from {REQUIREMENTS.relative_to(ROOT)} (once) ...")
    started, env = time.monotonic(), {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    shutil.rmtree(VENV, ignore_errors=True)
    for command in ([uv_command, "venv", "-q", "-p", "python3.11", str(VENV)],
                    [uv_command, "pip", "sync", "-q", "-p", str(python), str(REQUIREMENTS)]):
        done = subprocess.run(command, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            shutil.rmtree(VENV, ignore_errors=True)
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            raise StackError(f"installing LocalStack's environment failed: {lines[-1] if lines else f'uv exited with {done.returncode}'}")
    stamp.touch()
    progress(f"installed in {time.monotonic() - started:.1f} s")
    return python


@dataclass(frozen=True)
class S3Status:
    """The LocalStack process (``pid``, gateway ``port``) and whether it still runs."""

    pid: int
    port: int
    running: bool


class LocalStackS3(Service[S3Status | None]):
    """LocalStack serving S3 only on 127.0.0.1. As a context manager: start on entry; stop and
    clean on exit, and killed with the process that entered it, however that ends."""

    name = "LocalStack S3"
    state_file = "s3.json"
    files = re.compile(r"s3\.json(\.tmp)?|localstack(\.log)?")

    def __init__(self, run_dir: Path | str = STACK_RUN_DIR, port: int | None = None, start_timeout: float = 60.0,
                 stop_timeout: float = 15.0, progress: Callable[[str], None] = lambda line: None,
                 services: tuple[str, ...] = ()) -> None:
        if port is not None and not 1024 <= port <= 65535:
            raise ScenarioError("s3 port", f"expected a port from 1024 to 65535, got {port}")
        super().__init__(run_dir, start_timeout, stop_timeout, progress)
        self.port = port
        self.services = services     # beside S3 (an import's tests add cloudwatch)

    @property
    def log(self) -> Path:
        return self.run_dir / "localstack.log"

    @property
    def filesystem(self) -> Path:
        """LocalStack's FILESYSTEM_ROOT: everything it writes (objects, cache, certificates)."""
        return self.run_dir / "localstack"

    def processes(self) -> list[Recorded]:
        # The file-system root on its command line marks the process as this run dir's.
        state = self.state()
        return [Recorded("localstack", state["pid"], str(self.filesystem))] if state else []

    def status(self) -> S3Status | None:
        """The recorded process and whether it still runs; None if none is recorded."""
        state = self.state()
        return S3Status(state["pid"], state["port"], self.running(self.processes()[0])) if state else None

    @property
    def endpoint_url(self) -> str:
        status = self.status()
        if status is None:
            raise StackError(f"LocalStack S3 is not up in {self.run_dir} (quietload stack up)")
        return f"http://127.0.0.1:{status.port}"

    def check_ports(self) -> None:
        status = self.status()
        if self.port is not None and not (status and status.running and status.port == self.port):
            reserve_ports({"LocalStack S3": self.port})

    def _check_settings(self) -> None:
        running = self.state()["port"]
        if self.port is not None and running != self.port:
            raise StackError(f"LocalStack S3 is up in {self.run_dir} on port {running} (not {self.port}); "
                             "stop it first (quietload stack down)")

    def _start(self) -> None:
        """Start LocalStack and wait until its health check shows S3 running."""
        reserve_ports({"LocalStack S3": self.port})
        python = localstack_python(self.progress)
        port = reserve_ports({"LocalStack S3": self.port})["LocalStack S3"]
        started = time.monotonic()
        self.progress(f"starting LocalStack {LOCALSTACK_VERSION} (S3) on 127.0.0.1:{port} ...")
        self.filesystem.mkdir(parents=True)
        env = {**os.environ, "GATEWAY_LISTEN": f"127.0.0.1:{port}", "SERVICES": ",".join(("s3", *self.services)),
               "FILESYSTEM_ROOT": str(self.filesystem),   # else it writes to /var/lib/localstack
               "OVERRIDE_IN_DOCKER": "0",                 # a host process, even inside a container
               "DNS_ADDRESS": "0", "DISABLE_EVENTS": "1", "SKIP_SSL_CERT_DOWNLOAD": "1", "PERSISTENCE": "0",
               # its default (twisted) server binds IPv4 gateways to 0.0.0.0 whatever GATEWAY_LISTEN names
               # (localstack/runtime/server/twisted.py); hypercorn binds the address given
               "GATEWAY_SERVER": "hypercorn"}
        child = self._spawn([str(python), "-m", "localstack.runtime.main", str(self.filesystem)], self.log,
                            cwd=self.run_dir, env=env)
        self._write_state({"localstack": LOCALSTACK_VERSION, "pid": child.pid, "port": port})
        self._wait_until_serving(port, child)
        self.progress(f"LocalStack S3 up in {time.monotonic() - started:.1f} s")

    def _wait_until_serving(self, port: int, child: subprocess.Popen) -> None:
        """Until /_localstack/health shows s3 "running": LocalStack loads a service on its first
        request ("available" until then), so one ListBuckets call wakes it (a signed one: an
        anonymous request does not reach the S3 provider)."""
        deadline, health = time.monotonic() + self.start_timeout, f"http://127.0.0.1:{port}/_localstack/health"
        while True:
            if child.poll() is not None:
                raise StackError(f"LocalStack exited while starting: {last_error(self.log)} (log: {self.log})")
            try:
                state = json.loads(http_get(health, timeout=2)).get("services", {}).get("s3")
                if state == "running":
                    return
                if state == "available":
                    _client(f"http://127.0.0.1:{port}").list_buckets()
            except Exception:   # noqa: BLE001 - not serving yet, whatever the client says
                pass
            if time.monotonic() > deadline:
                raise StackError(f"LocalStack S3 did not come up within {self.start_timeout:.0f} s (log: {self.log})")
            time.sleep(0.2)


def render_s3_status(s3: LocalStackS3, status: S3Status | None) -> str:
    """The S3 lines of ``quietload stack status`` (empty if S3 is not part of the stack)."""
    if status is None:
        return ""
    return (f"s3 endpoint: http://127.0.0.1:{status.port} (LocalStack {s3.state().get('localstack')})\n"
            f"  {'localstack':<10}  pid {status.pid:<7}  127.0.0.1:{status.port:<5}  "
            + ("running" if status.running else f"exited (log: {s3.log})"))


def render_s3_stopped(s3: LocalStackS3, status: S3Status | None) -> str:
    """The S3 line of ``quietload stack down`` (empty if S3 was not part of the stack)."""
    if status is None:
        return ""
    return f"stopped localstack in {s3.run_dir}" if status.running else f"localstack in {s3.run_dir} had already exited"


def _client(endpoint: str):
    import boto3   # heavy: only when S3 is used
    from botocore.config import Config     # optional extra (aws)
    return boto3.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"},
                                                                  retries={"max_attempts": 2}), **CREDENTIALS)


def upload_dataset(s3_endpoint: str, bucket: str, prefix: str, files: list[Path],
                   progress: Callable[[str], None] = lambda line: None) -> list[str]:
    """Upload ``files`` to ``s3://bucket/prefix/<name>`` (the bucket is created if missing);
    the objects' ``s3a://`` URIs, as a Glue job names them."""
    from botocore.exceptions import BotoCoreError, ClientError     # optional extra (aws)
    client, prefix = _client(s3_endpoint), prefix.strip("/")
    started, total = time.monotonic(), sum(path.stat().st_size for path in files)
    progress(f"uploading {len(files)} file(s), {total / 2**20:,.1f} MB to s3://{bucket}/{prefix} ...")
    try:
        try:
            client.head_bucket(Bucket=bucket)
        except ClientError:
            client.create_bucket(Bucket=bucket)
        uris = []
        for path in files:
            key = f"{prefix}/{path.name}" if prefix else path.name
            client.upload_file(str(path), bucket, key)
            uris.append(f"s3a://{bucket}/{key}")
    except (BotoCoreError, ClientError) as error:
        raise StackError(f"uploading to S3 at {s3_endpoint} failed: {error}") from None
    progress(f"uploaded in {time.monotonic() - started:.1f} s")
    return uris


def check_inputs(s3_endpoint: str, uris: list[str]) -> None:
    """Each ``s3a://bucket/key`` names an existing bucket and at least one object (a key or a
    prefix), else one error naming it: Spark's own error would come after a minute of retries."""
    from botocore.exceptions import BotoCoreError, ClientError     # optional extra (aws)
    client = _client(s3_endpoint)
    for uri in uris:
        bucket, _, key = uri.removeprefix("s3a://").partition("/")
        if not uri.startswith("s3a://") or not bucket:
            raise ScenarioError("input", f"{uri} is not an s3a://bucket/key URI")
        try:
            client.head_bucket(Bucket=bucket)
        except ClientError:
            raise StackError(f"{uri}: bucket {bucket!r} does not exist at {s3_endpoint}") from None
        except BotoCoreError as error:
            raise StackError(f"S3 at {s3_endpoint} did not answer: {error}") from None
        if not client.list_objects_v2(Bucket=bucket, Prefix=key, MaxKeys=1).get("KeyCount"):
            raise StackError(f"{uri}: no object in bucket {bucket!r} at {s3_endpoint}")
