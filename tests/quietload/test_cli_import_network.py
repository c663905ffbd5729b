"""Every network call of `quietload import` is bounded: an endpoint that takes the connection and
never answers, or never takes it, is one line naming the endpoint and the time waited, exit 2,
once the import's --timeout (here a fraction of a second) has passed, its attempts together; a
call still silent after a few seconds says on stderr what it waits for."""
import socket
from contextlib import ExitStack

import pytest
from _bad_input import assert_refused
from typer.testing import CliRunner

from quietload.cli import app
from workloads import ScenarioError
from workloads.imports import network
from workloads.imports.network import AWS_ATTEMPTS, Waits, aws_clients

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
                          f"{CALLS[call][0]}: http://127.0.0.1:{silent} did not answer within --timeout 0.3 s (3 attempts of 0.1 s, ")
    assert line.endswith(" s waited)") and not (tmp_path / "o.yaml").exists()


def test_an_aws_endpoint_that_takes_no_connection_is_one_line(full, aws, tmp_path):
    aws(full)
    assert_refused(["import", *CALLS["glue"], "--timeout", TIMEOUT, "--out", str(tmp_path / "o.yaml")],
                   f"--glue-job-name: http://127.0.0.1:{full} accepted no connection within --timeout 0.3 s")


def test_the_deadline_ends_the_retries(silent, aws, tmp_path):
    aws(silent)   # the third attempt comes after two of 0.3 s each, past the deadline
    assert_refused(["import", *CALLS["cloudwatch"], "--timeout", "0.9s", "--deadline", "0.5s", "--out", str(tmp_path / "o.yaml")],
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


def test_a_call_waits_half_a_minute_at_most_by_default_its_attempts_together(aws, silent):
    aws(silent)
    assert Waits().timeout == 20.0 and AWS_ATTEMPTS == 3
    config = aws_clients(Waits())("glue").meta.config
    assert (config.connect_timeout, config.read_timeout) == (20.0 / 3, 20.0 / 3)   # each attempt's share
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}


@pytest.mark.parametrize("given, each", [("1.5s", "0.5 s"), ("3min", "60 s")])
def test_the_timeout_given_is_shared_by_the_attempts(given, each, aws, silent, monkeypatch, tmp_path):
    aws(silent)
    told = []

    def gather(request):   # the import's bounds, as the command made them; no call is made
        told.append(request.waits)
        raise ScenarioError("--glue-job-name", "not asked")
    monkeypatch.setattr("workloads.imports.gather", gather)
    assert CliRunner().invoke(app, ["import", *CALLS["glue"], "--timeout", given, "--out", str(tmp_path / "o.yaml")]).exit_code == 2
    [waits] = told
    config = aws_clients(waits)("glue").meta.config
    assert f"{config.connect_timeout:.3g} s" == f"{config.read_timeout:.3g} s" == each
    assert config.connect_timeout * AWS_ATTEMPTS == pytest.approx(waits.timeout)


@pytest.mark.parametrize("call, waiting_for", [("glue", "http://127.0.0.1:{port} (Glue GetJob)"),
                                               ("prometheus", "http://scraper:***@127.0.0.1:{port}/metrics (--prometheus)")])
def test_a_slow_call_says_once_what_it_waits_for(call, waiting_for, aws, silent, monkeypatch, tmp_path):
    aws(silent)
    monkeypatch.setattr(network, "SLOW_S", 0.05)
    arguments = CALLS["glue"] if call == "glue" else ["--prometheus", f"http://scraper:s3cr3t@127.0.0.1:{silent}/metrics",
                                                      "--for", "1s", "--period", "1"]
    result = CliRunner().invoke(app, ["import", *arguments, "--timeout", "0.6s", "--out", str(tmp_path / "o.yaml")])
    assert result.exit_code == 2
    waiting, error = result.stderr.splitlines()   # once, however many attempts
    assert waiting == (f"waiting for {waiting_for.format(port=silent)}: no answer after 0.05 s; "
                       "giving up after 0.6 s in all (--timeout)")
    assert error.startswith("error: ")


@pytest.mark.parametrize("url", ["not a url", "ftp://127.0.0.1/metrics", "http:///metrics"])
def test_an_exporter_url_that_is_no_http_url_is_one_line(url, tmp_path):
    assert_refused(["import", "--prometheus", url, "--for", "1s", "--period", "1", "--out", str(tmp_path / "o.yaml")],
                   f"--prometheus: {url!r} is no http:// or https:// URL with a host")
