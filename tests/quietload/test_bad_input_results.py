"""Bad result files for ``report`` and ``check --result``: the one reader (simulator/contract/)
checks a file's figures against the schema, so each is refused with one line naming the field,
exit code 2, no traceback."""
import json

import pytest
from _bad_input import BASE, assert_refused, write_yaml
from typer.testing import CliRunner

from quietload.cli import app


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> dict:
    """A real RunResult of the small scenario, as JSON data to break."""
    out = tmp_path_factory.mktemp("result")
    path = out / "small.json"
    outcome = CliRunner().invoke(app, ["simulate", write_yaml(out, "small.yaml", BASE), "--json", str(path)])
    assert outcome.exit_code == 0, outcome.output
    return json.loads(path.read_text())


def _set(data: dict, path: str | tuple, value) -> dict:
    data = json.loads(json.dumps(data))
    *parents, last = path.split(".") if isinstance(path, str) else path   # a tuple keeps Kafka's dotted names
    node = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


# (file text, or (path in the result, new value); a text the error line contains)
RESULTS = {
    "empty file": ("", "not JSON"),
    "not JSON": ("produce_requests: 5\n", "not JSON"),
    "a JSON list": ("[1, 2]", "not a quietload RunResult of schema_version 1 (found 'list')"),
    "another schema version": (("schema_version", 2), "not a quietload RunResult of schema_version 1 (found 2)"),
    "NaN": ('{"schema_version": 1, "evaluator": "model", "seed": 1, "scenario": {}, "summary": {"load_seconds": NaN}}',
            "summary.load_seconds: expected a finite number, got nan"),
    "Infinity": ('{"schema_version": 1, "summary": {"load_seconds": Infinity}}', "summary.load_seconds: expected a finite number, got inf"),
    "deeply nested": ('{"schema_version": 1, "summary": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than 64 levels deep"),
    "no summary": ('{"schema_version": 1, "evaluator": "model", "seed": 1, "scenario": {}}', "RunResult lacks summary"),
    "produce_requests a string": (("summary.produce_requests", "71631"), "summary.produce_requests must be a finite number or null, got '71631'"),
    "load_seconds a boolean": (("summary.load_seconds", True), "summary.load_seconds must be a finite number or null, got True"),
    "summary a list": (("summary", [1, 2]), "summary must be a mapping, got [1, 2]"),
    "summary tenants a mapping": (("summary.tenants", {"a": 1}), "summary.tenants must be a list"),
    "a neighbour's p99 a word": (("summary.tenants.0.p99_ms_during", "slow"), "summary.tenants[0].p99_ms_during must be a finite number"),
    "a neighbour's name a number": (("summary.tenants.0.name", 7), "summary.tenants[0].name must be a text, got 7"),
    "seed a string": (("seed", "1"), "seed must be a whole number, got '1'"),
    "evaluator a number": (("evaluator", 3), "evaluator must be a text, got 3"),
    "scenario name a list": (("scenario.name", ["a"]), "scenario.name must be a text"),
    "codec a number": ((("scenario", "batch", "producer", "compression.type"), 0), "scenario.batch.producer.compression.type must be a text"),
    "a broker's CPU a string": (("brokers.0.cpu_percent.during", "high"), "brokers[0].cpu_percent.during must be a finite number"),
    "brokers a mapping": (("brokers", {"0": {}}), "brokers must be a list"),
    "a window a number": (("windows.during", 5), "windows.during must be a list, got 5"),
    "a timeline a string": (("timelines.produce_requests_per_s", "1,2,3"), "timelines.produce_requests_per_s must be a list"),
    "a timeline point a string": (("timelines.second.0", "zero"), "timelines.second[0] must be a finite number"),
    "a mechanism line a number": (("mechanism.0", 1), "mechanism[0] must be a text, got 1"),
    "a neighbour's latency a string": (("tenants.0.latency_ms.during.p99", "2 ms"), "tenants[0].latency_ms.during.p99 must be a finite number"),
    "batch sizes a list": (("batch_sizes", [1]), "batch_sizes must be a mapping or null"),
}


def _write(tmp_path, result: dict, case: str) -> str:
    content, _ = RESULTS[case]
    path = tmp_path / "bad.json"
    path.write_text(content if isinstance(content, str) else json.dumps(_set(result, *content)))
    return str(path)


@pytest.mark.parametrize("case", RESULTS, ids=list(RESULTS))
def test_report_refuses_a_bad_result_in_one_line(case, result, tmp_path):
    assert_refused(["report", _write(tmp_path, result, case), "--out", str(tmp_path / "out")], RESULTS[case][1])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", RESULTS, ids=list(RESULTS))
def test_check_refuses_a_bad_result_in_one_line(case, result, tmp_path):
    assert_refused(["check", "--result", _write(tmp_path, result, case)], RESULTS[case][1])


def test_a_binary_result(tmp_path):
    (tmp_path / "r.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" * 50)
    assert_refused(["report", str(tmp_path / "r.json")], "r.json is not a UTF-8 text file")


def test_a_result_is_checked_as_it_is(result, tmp_path):
    (tmp_path / "r.json").write_text(json.dumps(result))
    assert_refused(["check", "--result", str(tmp_path / "r.json"), "--set", "name=x"], "--result: --set, --seed and --repeat")


def test_a_good_result_reads_and_a_run_writes_no_nan(result, tmp_path):
    """The fixture's own file passes the same reader (the schema refuses no real run), and holds
    no NaN or Infinity."""
    (tmp_path / "r.json").write_text(json.dumps(result))
    outcome = CliRunner().invoke(app, ["report", str(tmp_path / "r.json"), "--out", str(tmp_path / "out")])
    assert outcome.exit_code == 0, outcome.output
    json.loads((tmp_path / "r.json").read_text(), parse_constant=lambda name: pytest.fail(f"{name} in a result"))
