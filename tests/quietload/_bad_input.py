"""What every bad-input case asserts: exit 2, one line on stderr starting ``error:``, no
traceback, within a generous bound against a hang (never a timing), nothing left in the
temporary directory."""
from __future__ import annotations

import copy
import os
import resource
import signal
import tempfile
from contextlib import contextmanager
from typing import Any, Iterator

import yaml
from typer.testing import CliRunner

from quietload.cli import app

HANG_BOUND_S = 30   # a refusal comes before any run; only a hang gets near this
MEMORY_BOUND_KB = 2 * 1024**2   # what a refusal may add to the test process's peak: it expands nothing
# (a runaway expansion, e.g. --repeat 1e9, took tens of GB); the growth of the peak, not the peak
# itself, since other tests of the same process (model runs, streaming pipelines) set the peak first

# A small valid scenario the cases break one field of.
BASE: dict[str, Any] = {
    "name": "small",
    "description": "A small load beside one neighbour.",
    "assumptions": ["One executor of two cores."],
    "cluster": {"brokers": 1, "topics": [{"name": "bulk", "partitions": 4}, {"name": "api", "partitions": 2}]},
    "dataset": {"files": [{"size": "8MB"}]},
    "batch": {"topic": "bulk", "client": {"kind": "java", "version": "3.9.0"},
              "spark": {"spark.executor.instances": 1, "spark.executor.cores": 2},
              "producer": {"batch.size": "64KB", "linger.ms": 5}},
    "tenants": [{"name": "api", "topic": "api", "rate": "100/s", "record_size": "1KB", "sla_p99": "20ms"}],
    "windows": {"before": "1s", "after": "1s"},
}


def changed(path: str, value: Any, base: dict | None = None) -> dict:
    """BASE with the value at a dotted path (list items by index) replaced; ``...`` deletes it."""
    data = copy.deepcopy(base or BASE)
    *parents, last = path.split("|")   # Kafka's property names keep their dots: "|" separates levels
    node: Any = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
    if value is ...:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


class _PlainDumper(yaml.SafeDumper):
    """Repeated objects written out in full: the loader refuses aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def write_yaml(directory, name: str, data: Any) -> str:
    path = directory / name
    path.write_text(data if isinstance(data, str) else yaml.dump(data, Dumper=_PlainDumper, sort_keys=False))
    return str(path)


@contextmanager
def hang_bound(seconds: int = HANG_BOUND_S) -> Iterator[None]:
    def hung(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def assert_refused(args: list[str], expected: str) -> str:
    """Run ``quietload ARGS`` in-process; it must refuse with one line containing ``expected``."""
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryDirectory() as private, hang_bound():
        shared, tempfile.tempdir = tempfile.tempdir, private   # the command's temporary files, apart from others'
        try:
            outcome = CliRunner().invoke(app, args, prog_name="quietload", env={"TMPDIR": private})
        finally:
            tempfile.tempdir = shared
        assert os.listdir(private) == [], "left in the temporary directory"
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit), repr(outcome.exception)
    lines = outcome.stderr.splitlines()
    assert outcome.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (outcome.exit_code, outcome.stderr)
    assert "Traceback" not in outcome.stderr + outcome.stdout
    assert expected in lines[0], lines[0]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before < MEMORY_BOUND_KB
    return lines[0]
