"""Bad result files for ``report`` and ``check --result``: the one reader (simulator/contract/)
checks a file's figures against the schema, so each is refused with one line naming the field,
exit code 2, no traceback."""
import json
from pathlib import Path

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
    # every figure out of its range, named
    "negative produce requests": (("summary.produce_requests", -5), "summary.produce_requests must be at least 0, got -5"),
    "negative batches of a broker": (("brokers.0.produce_requests", -1), "brokers[0].produce_requests must be at least 0, got -1"),
    "a negative p99": (("summary.tenants.0.p99_ms_during", -3), "summary.tenants[0].p99_ms_during must be greater than 0, got -3"),
    "a p99 of 0": (("summary.tenants.0.p99_ms_before", 0), "summary.tenants[0].p99_ms_before must be greater than 0, got 0"),
    "an SLA of 0": (("summary.tenants.0.sla_p99_ms", 0), "summary.tenants[0].sla_p99_ms must be greater than 0, got 0"),
    "a neighbour's SLA of -1": (("tenants.0.sla_p99_ms", -1), "tenants[0].sla_p99_ms must be greater than 0, got -1"),
    "a neighbour's latency of 0": (("tenants.0.latency_ms.during.p50", 0), "tenants[0].latency_ms.during.p50 must be greater than 0"),
    "a deadline of 0": (("scenario.check.deadline", 0), "scenario.check.deadline must be greater than 0, got 0"),
    "a CPU limit of 150 %": (("scenario.check.cpu_max", 150), "scenario.check.cpu_max must be from 0 to 100, got 150"),
    "a negative timeline point": (("timelines.produce_requests_per_s.0", -2), "timelines.produce_requests_per_s[0] must be at least 0"),
    "a negative window": (("windows.during.0", -1.5), "windows.during[0] must be at least 0, got -1.5"),
    "integrity as a word": (("summary.integrity_ok", "yes"), "summary.integrity_ok must be true or false, got 'yes'"),
    "a 20-digit count": ('{"schema_version": 1, "summary": {"produce_requests": 12345678901234567890}}',
                         "summary.produce_requests: 12345678901234567890 is past the largest number quietload reads"),
    "a 400-digit count": ('{"schema_version": 1, "summary": {"batches": ' + "9" * 400 + "}}",
                          "summary.batches: 999999999999... (400 digits) is past the largest number"),
    "a count past a float": ('{"schema_version": 1, "summary": {"batches": 1e400}}', "summary.batches: 1e400 is past the largest number"),
    "a key twice": ('{"schema_version": 1, "seed": 1, "seed": 2}', "seed is given twice; a key is said once"),
    "batch sizes without a bound": (("batch_sizes.bucket_upper_bytes", [1024]),
                                    "batch_sizes.wire_bytes has 7 buckets, batch_sizes.bucket_upper_bytes 1 bounds"),
    "batch sizes' bounds falling": (("batch_sizes.bucket_upper_bytes", [2048, 1024, 4096, 8192, 16384, 32768, 65536]),
                                    "batch_sizes.bucket_upper_bytes must rise from bucket to bucket"),
    "a negative bucket": (("batch_sizes.wire_bytes.0", -1), "batch_sizes.wire_bytes[0] must be at least 0, got -1"),
    "a window's negative record count": (("tenants.0.latency_ms.after.count", -1),
                                         "tenants[0].latency_ms.after.count must be at least 0, got -1"),
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


GOLDEN = Path(__file__).parents[1] / "golden"
GATE = {"gate": "quietload.check", "passed": False, "outcome": "fail", "scenario": "s", "evaluator": "model", "seed": 1,
        "seeds": [1], "thresholds": {"handler_idle_min_pct": 30.0, "cpu_max_pct": 60.0, "requests_per_broker_max": 5000.0,
                                     "deadline_s": None},
        "verdicts": [{"rule": "neighbour_sla", "status": "fail", "reason": "over", "margin": "", "tightness": 1.2}],
        "recommendations": []}

# The other files report reads, each figure out of its range: (the file, (path, value), the line's text)
DOCUMENTS = {
    "a study's trials a string": ("study", ("trials", "abc"), "trials must be a list, got 'abc'"),
    "a trial without values": ("study", ("trials.0", {"number": 0}), "trials[0] lacks params, values, constraints, feasible"),
    "a trial's negative requests": ("study", ("trials.0.values.produce_requests", -1), "trials[0].values.produce_requests must be at least 0"),
    "a trial's feasible a word": ("study", ("trials.0.feasible", "yes"), "trials[0].feasible must be true or false, got 'yes'"),
    "a trial's p99 of 0": ("study", ("trials.0.figures.tenants.payment-api.p99_ms_during", 0),
                           "trials[0].figures.tenants.payment-api.p99_ms_during must be greater than 0, got 0"),
    "a study's pick a word": ("study", ("pick", "best"), "pick must be a whole number, got 'best'"),
    # what tune recommends from the study, as the report's first screen shows it
    "a recommendation without its trial": ("study", ("recommended", {"meets_constraints": True, "params": {}, "missed": []}),
                                           "recommended lacks trial"),
    "a recommendation's trial of -1": ("study", ("recommended.trial", -1), "recommended.trial must be at least 0, got -1"),
    "a recommendation's trial a word": ("study", ("recommended.trial", "best"), "recommended.trial must be a whole number, got 'best'"),
    "a recommendation's verdict a word": ("study", ("recommended.meets_constraints", "maybe"),
                                          "recommended.meets_constraints must be true or false, got 'maybe'"),
    "a recommendation's params a list": ("study", ("recommended.params", [1]), "recommended.params must be a mapping, got [1]"),
    "a recommendation's unknown setting": ("study", ("recommended.params", {"linger": 5}),
                                           "recommended.params.linger is no setting quietload tunes"),
    "a recommendation's negative linger.ms": ("study", (("recommended", "params", "linger.ms"), -5),
                                              "recommended.params.linger.ms must be at least 0, got -5"),
    "a recommendation's linger.ms a word": ("study", (("recommended", "params", "linger.ms"), "10ms"),
                                            "recommended.params.linger.ms must be a finite number or null, got '10ms'"),
    "a recommendation's batch.size of 0": ("study", (("recommended", "params", "batch.size"), 0),
                                           "recommended.params.batch.size must be greater than 0, got 0"),
    "a recommendation's repartition of 2.5": ("study", (("recommended", "params", "repartition"), 2.5),
                                              "recommended.params.repartition: expected a whole number"),
    "a recommendation's unknown codec": ("study", (("recommended", "params", "compression.type"), "brotli"),
                                         "recommended.params.compression.type: expected one of none, gzip, snappy, lz4, zstd"),
    "a recommendation's acks of 2": ("study", (("recommended", "params", "acks"), "2"),
                                     "recommended.params.acks: expected 0, 1 or all, got '2'"),
    "a recommendation's negative byte rate": ("study", (("recommended", "params", "producer_byte_rate"), -1.0),
                                              "recommended.params.producer_byte_rate must be greater than 0, got -1.0"),
    "a recommendation's missed a text": ("study", ("recommended.missed", "p99"), "recommended.missed must be a list, got 'p99'"),
    "a recommendation's wider lever a number": ("study", ("recommended.wider_lever", 3), "recommended.wider_lever must be a text, got 3"),
    "a trial's unknown setting": ("study", ("trials.0.params", {"lingerms": 5}), "trials[0].params.lingerms is no setting quietload tunes"),
    "a plan's point a string": ("plan", ("points.0", "0.25 GB"), "points[0] must be a mapping, got '0.25 GB'"),
    "a plan's point without its load": ("plan", ("points.0", {"option": "current"}), "points[0] lacks load_gb, loads, spacing_s"),
    "a plan's negative load": ("plan", ("points.0.load_gb", -1), "points[0].load_gb must be greater than 0, got -1"),
    "a plan's SLA of 0": ("plan", ("points.0.tenants.0.sla_p99_ms", 0), "points[0].tenants[0].sla_p99_ms must be greater than 0"),
    "a plan's headroom a word": ("plan", ("options.0.headroom", "lots"), "options[0].headroom must be a finite number or null"),
    "a gate's passed a word": ("gate", ("passed", "maybe"), "passed must be true or false, got 'maybe'"),
    "a gate's status a word": ("gate", ("verdicts.0.status", "maybe"), "verdicts[0].status must be one of pass, fail, skipped, got 'maybe'"),
    "a gate's deadline of 0": ("gate", ("thresholds.deadline_s", 0), "thresholds.deadline_s must be greater than 0, got 0"),
    "a gate's CPU limit of 150 %": ("gate", ("thresholds.cpu_max_pct", 150), "thresholds.cpu_max_pct must be from 0 to 100"),
    "a gate's verdicts a mapping": ("gate", ("verdicts", {"a": 1}), "verdicts must be a list"),
}


@pytest.mark.parametrize("case", DOCUMENTS, ids=list(DOCUMENTS))
def test_report_refuses_a_study_plan_or_gate_figure_out_of_range(case, tmp_path):
    kind, change, expected = DOCUMENTS[case]
    document = {"study": lambda: json.loads((GOLDEN / "tune" / "paypay-glue-2gb-study.json").read_text()),
                "plan": lambda: json.loads((GOLDEN / "plan" / "plan.json").read_text()), "gate": lambda: GATE}[kind]()
    (tmp_path / "bad.json").write_text(json.dumps(_set(document, *change)))
    assert_refused(["report", str(tmp_path / "bad.json"), "--out", str(tmp_path / "out")], f"bad.json: {expected}")
    assert not (tmp_path / "out").exists()


def test_a_neighbour_window_without_records_reads_and_reports(result, tmp_path):
    # a neighbour that completed no record in a window (a pipeline behind its schedule when the run
    # ends): count 0 and no percentiles, as the model and the live stack write it
    empty = {"count": 0, "p50": None, "p95": None, "p99": None, "p999": None, "max": None}
    (tmp_path / "r.json").write_text(json.dumps(_set(result, "tenants.0.latency_ms.after", empty)))
    outcome = CliRunner().invoke(app, ["report", str(tmp_path / "r.json"), "--out", str(tmp_path / "out")])
    assert outcome.exit_code == 0, outcome.output
    assert (tmp_path / "out" / "report.md").exists()
