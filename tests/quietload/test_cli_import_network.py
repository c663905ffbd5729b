"""Every network call of `quietload import` is bounded: an endpoint that takes the connection and
never answers, or never takes it, is one line naming the endpoint and the time waited, exit 2,
once the import's --timeout (here a fraction of a second) has passed on each attempt."""
import socket
from contextlib import ExitStack

import pytest
from _bad_input import assert_refused

TIMEOUT = "0.3s"


@pytest.fixture
def silent():
    """A port whose server takes every connection and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    with server:
        yield server.getsockname()[1]


@pytest.fixture
def full():
    """A port whose server takes no connection: its backlog of one is held by a connection never accepted."""
    with ExitStack() as stack:
        server = stack.enter_context(socket.socket())
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        holder = stack.enter_context(socket.socket())
        holder.connect(server.getsockname())
        yield server.getsockname()[1]


@pytest.fixture
def aws(monkeypatch, tmp_path):
    """AWS's endpoints all at one local port, with made-up credentials and no file read from home."""
    def at(port: int) -> None:
        for name, value in {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "test",
                            "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "eu-west-1",
                            "AWS_CONFIG_FILE": str(tmp_path / "none"), "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
                            "AWS_EC2_METADATA_DISABLED": "true"}.items():
            monkeypatch.setenv(name, value)
    return at


CALLS = {     # the option whose call waits, and its arguments
    "glue": ["--glue-job-name", "load"],
    "msk": ["--msk-cluster-arn", "arn:aws:kafka:eu-west-1:123456789012:cluster/payments/0b3e4c2a-2"],
    "cloudwatch": ["--cloudwatch", "payments", "--since", "1h"],
    "s3": ["--script", "s3://glue-scripts/load.py"],
}


@pytest.mark.parametrize("call", CALLS)
def test_an_aws_endpoint_that_never_answers_is_one_line(call, silent, aws, tmp_path):
    aws(silent)
    line = assert_refused(["import", *CALLS[call], "--timeout", TIMEOUT, "--out", str(tmp_path / "o.yaml")],
                          f"{CALLS[call][0]}: http://127.0.0.1:{silent} did not answer within --timeout 0.3 s (3 attempts, ")
    assert line.endswith(" s waited)") and not (tmp_path / "o.yaml").exists()


def test_an_aws_endpoint_that_takes_no_connection_is_one_line(full, aws, tmp_path):
    aws(full)
    assert_refused(["import", *CALLS["glue"], "--timeout", TIMEOUT, "--out", str(tmp_path / "o.yaml")],
                   f"--glue-job-name: http://127.0.0.1:{full} accepted no connection within --timeout 0.3 s")


def test_the_deadline_ends_the_retries(silent, aws, tmp_path):
    aws(silent)
    assert_refused(["import", *CALLS["cloudwatch"], "--timeout", TIMEOUT, "--deadline", "0.5s", "--out", str(tmp_path / "o.yaml")],
                   f"--cloudwatch: http://127.0.0.1:{silent}: gave up after ")


@pytest.mark.parametrize("server", ["silent", "full"])
def test_an_exporter_that_never_answers_is_one_line_without_its_password(server, request, tmp_path):
    port = request.getfixturevalue(server)
    line = assert_refused(["import", "--prometheus", f"http://scraper:s3cr3t@127.0.0.1:{port}/metrics", "--for", "1s",
                           "--period", "1", "--timeout", TIMEOUT, "--out", str(tmp_path / "o.yaml")],
                          f"--prometheus: http://scraper:***@127.0.0.1:{port}/metrics: no answer within --timeout 0.3 s (")
    assert "s3cr3t" not in line


def test_an_exporter_gets_the_urls_credentials_as_basic_authentication(tmp_path):
    """The user and password of the URL go in an Authorization header, not in the host name."""
    import base64
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer
    heard = []

    class Exporter(BaseHTTPRequestHandler):
        def do_GET(self):
            heard.append((self.headers.get("Host"), self.headers.get("Authorization")))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"kafka_server_BytesInPerSec_total 1.0\n")

        def log_message(self, *args):
            pass
    with HTTPServer(("127.0.0.1", 0), Exporter) as server:
        thread = threading.Thread(target=server.serve_forever)
        thread.start()
        try:
            from workloads.imports.network import Waits, http_get
            body = http_get(f"http://scraper:s%40cret@127.0.0.1:{server.server_port}/metrics", "--prometheus", Waits(timeout=5))
        finally:
            server.shutdown()
            thread.join()
    assert body == b"kafka_server_BytesInPerSec_total 1.0\n"
    assert heard == [(f"127.0.0.1:{server.server_port}", "Basic " + base64.b64encode(b"scraper:s@cret").decode())]
