"""How long an import waits on the network, what it says while it waits, and what it says when an
endpoint does not answer.

Every call an import makes (AWS's S3, CloudWatch, Glue and Kafka APIs through boto3; a broker's
JMX exporter over HTTP; the cluster's metadata) gives up once it has waited ``timeout`` in all:
its connection, its answer and its retries together (an AWS call's three attempts get a third
each). A call still silent after ``SLOW_S`` is said on stderr once, with the endpoint and what
is asked of it, so a person knows what the import waits for and for how long at most; the whole
import gives up once it has spent ``deadline`` on the network. boto3's own defaults (60 s to
connect, 60 s per read, up to 5 attempts) let a silent endpoint hold an import for many minutes
in silence; here a silent endpoint is one line naming it and the time waited.
"""
from __future__ import annotations

import base64
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from workloads.errors import ScenarioError
from workloads.urls import http_url, mask_secrets, mask_url, split_credentials

TIMEOUT_S = 20.0          # one call in all, attempts included: with the command's start, within half a minute
DEADLINE_S = 600.0        # all of one import's network calls, retries included
AWS_ATTEMPTS = 3          # botocore's "standard" retries: a first call and two more, each a third of the timeout
SLOW_S = 5.0              # a call silent this long is said on stderr, with what it waits for
_CHUNK = 64 * 1024
BODY_MAX = 64 * 1024**2   # bytes: an exporter's page is kilobytes; an endless stream is no answer

Clients = Callable[[str], Any]


def _on_stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


@dataclass(frozen=True)
class Waits:
    """The network bounds of one import; the deadline counts from when the Waits were made.
    ``tell`` hears the line said of a slow call."""

    timeout: float = TIMEOUT_S
    deadline: float = DEADLINE_S
    started: float = field(default_factory=time.monotonic, compare=False)
    tell: Callable[[str], None] = field(default=_on_stderr, compare=False)
    _said: set[str] = field(default_factory=set, compare=False, repr=False)

    @property
    def attempt_s(self) -> float:
        """An AWS call's bound per attempt, to connect and between two parts of its answer."""
        return self.timeout / AWS_ATTEMPTS

    def waited(self) -> float:
        return time.monotonic() - self.started

    def left(self, what: str, endpoint: str) -> float:
        """Seconds left before the deadline; past it, one line naming the endpoint."""
        left = self.deadline - self.waited()
        if left <= 0:
            raise ScenarioError(what, f"{mask_url(endpoint)}: gave up after {self.waited():.1f} s, the import's "
                                      f"--deadline of {self.deadline:g} s for the network")
        return left

    def said_if_slow(self, waiting_for: str) -> threading.Timer:
        """A timer (cancel it once the call ends) that says, once per ``waiting_for`` in an
        import, what a call still silent after ``SLOW_S`` waits for and how long it may."""
        def say() -> None:
            if waiting_for not in self._said:
                self._said.add(waiting_for)
                self.tell(f"waiting for {waiting_for}: no answer after {SLOW_S:g} s; giving up after "
                          f"{self.timeout:g} s in all (--timeout)")
        timer = threading.Timer(SLOW_S, say)
        timer.daemon = True
        timer.start()
        return timer

    @contextmanager
    def slow(self, waiting_for: str) -> Iterator[None]:
        """The block (one call) said on stderr if it is still silent after ``SLOW_S``."""
        timer = self.said_if_slow(waiting_for)
        try:
            yield
        finally:
            timer.cancel()


class _DeadlinePassed(Exception):
    """Raised inside botocore when the import's deadline passed; turned into one line by aws_errors."""


def aws_config(waits: Waits) -> Any:
    """botocore's settings for an import's clients: AWS_ATTEMPTS attempts in all, each connecting
    and reading within its share of ``waits.timeout``."""
    from botocore.config import Config    # an optional extra, loaded only when an import asks AWS
    return Config(connect_timeout=waits.attempt_s, read_timeout=waits.attempt_s,    # botocore's max_attempts counts
                  retries={"mode": "standard", "total_max_attempts": AWS_ATTEMPTS})  # the retries: one attempt more


def aws_clients(waits: Waits) -> Clients:
    """boto3 clients bounded by ``aws_config``, that say what they wait for when an attempt is slow
    and send nothing once the deadline passed. One session of their own per import: boto3's
    default session keeps the credentials it first found for the life of the process."""
    sessions: list[Any] = []

    def client(service: str) -> Any:
        import boto3     # an optional extra, loaded only when an import asks AWS
        if not sessions:
            sessions.append(boto3.session.Session())
        made = sessions[0].client(service, config=aws_config(waits))
        slow: list[threading.Timer] = []

        def before_send(request: Any, event_name: str = "", **_: Any) -> None:
            if waits.waited() >= waits.deadline:
                raise _DeadlinePassed(request.url)
            operation = event_name.rsplit(".", 1)[-1]     # before-send.<service>.<operation>
            slow.append(waits.said_if_slow(f"{mask_url(_origin(request.url))} ({made.meta.service_model.service_id} {operation})"))

        def received(**_: Any) -> None:     # an attempt's answer, or its error
            while slow:
                slow.pop().cancel()
        made.meta.events.register("before-send", before_send)
        made.meta.events.register("response-received", received)
        return made
    return client


@contextmanager
def aws_errors(what: str, waits: Waits) -> Iterator[None]:
    """botocore's exceptions as one line naming ``what`` (and the endpoint, and the time waited when
    it did not answer); none of them carries a secret key."""
    from botocore import exceptions as aws     # boto3's, loaded only when an import asks AWS
    began = time.monotonic()
    try:
        yield
    except _DeadlinePassed as passed:
        raise ScenarioError(what, f"{mask_url(_origin(str(passed)))}: gave up after {waits.waited():.1f} s, the "
                                  f"import's --deadline of {waits.deadline:g} s for the network") from None
    except aws.NoCredentialsError:
        raise ScenarioError(what, "no AWS credentials found (AWS_PROFILE, or AWS_ACCESS_KEY_ID and "
                            "AWS_SECRET_ACCESS_KEY, or an instance role)") from None
    except aws.NoRegionError:
        raise ScenarioError(what, "no AWS region set (AWS_REGION or AWS_DEFAULT_REGION)") from None
    except aws.ClientError as error:
        detail = error.response.get("Error", {})
        raise ScenarioError(what, f"{detail.get('Code', 'error')}: {detail.get('Message', '')}".rstrip(": ")) from None
    except (aws.ConnectTimeoutError, aws.ReadTimeoutError) as error:
        endpoint = mask_url(_origin(str(error.kwargs.get("endpoint_url", "the endpoint"))))
        how = "accepted no connection" if isinstance(error, aws.ConnectTimeoutError) else "did not answer"
        raise ScenarioError(what, f"{endpoint} {how} within --timeout {waits.timeout:g} s ({AWS_ATTEMPTS} attempts of "
                                  f"{waits.attempt_s:.3g} s, {time.monotonic() - began:.1f} s waited)") from None
    except aws.EndpointConnectionError as error:
        raise ScenarioError(what, f"cannot reach {mask_url(_origin(str(error.kwargs.get('endpoint_url', 'the endpoint'))))} "
                                  f"({time.monotonic() - began:.1f} s waited)") from None
    except aws.BotoCoreError as error:
        raise ScenarioError(what, type(error).__name__) from None


def _origin(url: str) -> str:
    """An endpoint as scheme://host:port (an AWS call's URL carries its bucket, key and query)."""
    scheme, sep, rest = url.partition("://")
    return scheme + sep + rest.split("/", 1)[0] if sep else url


def http_get(url: str, what: str, waits: Waits) -> bytes:
    """The body at ``url``: credentials in the URL sent as HTTP basic authentication (never as part
    of the host name), the whole answer within ``waits.timeout``, and one line naming the URL
    (masked) when it does not come."""
    plain, credentials = split_credentials(url)
    http_url(plain, what)     # the one check of a URL's shape (sources checks it before any call, too)
    request = urllib.request.Request(plain)
    if credentials is not None:
        token = base64.b64encode(f"{credentials[0]}:{credentials[1]}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    shown, began = mask_url(url), time.monotonic()
    limit = min(waits.timeout, waits.left(what, url))
    try:
        with waits.slow(f"{shown} ({what})"), urllib.request.urlopen(request, timeout=limit) as response:
            body = bytearray()
            while chunk := response.read(_CHUNK):     # a slow trickle of bytes is no answer either
                body += chunk
                if time.monotonic() - began > limit:
                    raise TimeoutError("timed out")
                if len(body) > BODY_MAX:
                    raise ScenarioError(what, f"{shown}: answered more than {BODY_MAX // 1024**2} MB: not a metrics page")
            return bytes(body)
    except ScenarioError:
        raise
    except (TimeoutError, urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise ScenarioError(what, f"{shown}: no answer within --timeout {waits.timeout:g} s "
                                      f"({time.monotonic() - began:.1f} s waited)") from None
        raise ScenarioError(what, f"{shown}: no metrics ({mask_secrets(str(reason), url)})") from None
