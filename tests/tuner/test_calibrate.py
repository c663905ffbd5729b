"""Calibration: the fit recovers costs it was given, says which it cannot tell apart, and writes a
profile whose provenance reads back; bad input stops before any run with one line.

The synthetic check feeds the fitter runs of the model itself, made with a profile whose costs
are known: the model stands in for the live stack only there, so the fit can be judged against
the truth (no live run could know its broker's true costs).
"""
import dataclasses
import json
import os

import pytest
import yaml
from typer.testing import CliRunner

from quietload.cli import app
from simulator.evaluator import model_evaluator
from tuner.calibration import CALIBRATION, calibrate, fit_costs
from tuner.calibration.calibrate import flat_values
from tuner.calibration.fit import Observation
from workloads import ScenarioError
from workloads.profile import PROFILE_DIR, CostProfile, Provenance

KNOWN_REQUEST_US = 150.0   # the loopback profile says 60: the fit must find the 150 the runs were made with


@pytest.fixture(scope="module")
def calibration(tmp_path_factory):
    base = tmp_path_factory.mktemp("calibrate")
    raw = yaml.safe_load((PROFILE_DIR / "loopback.yaml").read_text())
    raw["name"], raw["broker"]["produce_request_us"] = "known", KNOWN_REQUEST_US
    known = base / "known.yaml"
    known.write_text(yaml.safe_dump(raw))
    # enough cores that the broker's threads never wait for one: busy time is the costs alone
    points = tuple(dataclasses.replace(p, overrides=(*p.overrides, "cluster.broker.vcpus=8")) for p in CALIBRATION[:4])
    lines: list[str] = []
    result = calibrate(model_evaluator(), points, str(known), base / "fitted.yaml", 2, "model", lines.append, base / "runs")
    return result, lines, base


def test_a_known_per_request_cost_is_recovered_within_its_stated_uncertainty(calibration):
    result, _, _ = calibration
    term = result.fit.value("broker.produce_request_us")
    assert term.standard_error is not None and 0 < term.standard_error < 0.05 * KNOWN_REQUEST_US
    assert abs(term.value - KNOWN_REQUEST_US) <= term.standard_error
    # the design's four points: one-record requests, full requests, one-record batches, wide rows
    assert [pr.point.name for pr in result.runs] == ["one-record-requests", "full-requests", "one-record-batches", "wide-rows"]
    assert result.fit.unused == [f"broker.decompress_byte_ns.{c}" for c in ("gzip", "snappy", "lz4", "zstd")]


def test_progress_shows_a_line_per_run_with_an_eta(calibration):
    _, lines, base = calibration
    assert len(lines) == 8 and lines[0].startswith("[1/8] one-record-requests seed 1: ") and "ETA" in lines[-1]
    assert len(list((base / "runs").glob("*.json"))) == 8


def test_the_profile_with_its_provenance_round_trips_through_load(calibration):
    result, _, _ = calibration
    profile = CostProfile.load(str(result.profile_path))
    provenance = profile.provenance
    assert isinstance(provenance, Provenance) and provenance.kafka_version == "model"
    assert provenance.machine.cores == os.cpu_count() and provenance.base_profile == "known"
    assert [(r.point, r.seed) for r in provenance.runs][:2] == [("one-record-requests", 1), ("one-record-requests", 2)]
    sources = {p.name: p.source for p in provenance.parameters}
    assert sources["broker.produce_request_us"] == "fitted" and sources["spark.append_rate"] == "measured"
    assert sources["broker.follower_byte_ns"] == "assumed" and sources["client.sender_request_us"] == "assumed"
    assert len(provenance.residuals) == 2 * len(provenance.runs)     # handler-busy and CPU seconds of each run
    fitted = next(p for p in provenance.parameters if p.name == "broker.produce_request_us")
    assert profile.broker.produce_request_us == fitted.value
    # the model reads the costs only: a figure the design does not fit keeps the base profile's value
    assert profile.broker.follower_batch_us == CostProfile.load("loopback").broker.follower_batch_us


def test_a_provenance_with_an_unknown_key_is_rejected_naming_it(calibration, tmp_path):
    result, _, _ = calibration
    raw = yaml.safe_load(result.profile_path.read_text())
    raw["provenance"]["machine"]["colour"] = "blue"
    path = tmp_path / "odd.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ScenarioError, match=r"odd.yaml.provenance.machine.colour: unknown key"):
        CostProfile.load(str(path))


def _observation(run: str, requests: float, batches: float, records: float, row_bytes: float, costs: dict) -> Observation:
    wire = records * row_bytes
    received = wire + 70 * batches + 100 * requests      # batch and request headers
    handler = (requests * costs["request"] + batches * costs["batch"]) * 1e-6 + (records * costs["record"] + wire * costs["byte"]) * 1e-9
    return Observation(run, requests, batches, records, wire, wire, received, "none", handler,
                       handler + 2 * requests * costs["network"] * 1e-6 + received * costs["network_byte"] * 1e-9)


def test_a_term_the_design_cannot_tell_apart_is_held_at_the_base_value():
    costs = {"request": 100.0, "batch": 30.0, "record": 50.0, "byte": 2.0, "network": 20.0, "network_byte": 0.3}
    base = flat_values(CostProfile.load("loopback"))
    # every run's rows are 1,000 bytes: records and bytes move together, so their costs cannot be told apart
    runs = [_observation("a", 1000, 1000, 1000, 1000, costs), _observation("b", 10, 10, 5000, 1000, costs),
            _observation("c", 100, 3000, 3000, 1000, costs), _observation("d", 50, 50, 800, 1000, costs)]
    fit = fit_costs(runs, base)
    assert len(fit.held) == 1 and fit.held[0] in ("broker.produce_record_ns", "broker.produce_byte_ns")
    assert abs(fit.value("broker.produce_request_us").value - 100.0) < 1e-6
    assert abs(fit.value("broker.produce_batch_us").value - 30.0) < 1e-6
    assert abs(fit.value("broker.network_byte_ns").value - 0.3) < 1e-6


def _invoke(args: list[str], env: dict | None = None):
    result = CliRunner().invoke(app, args, env=env)
    return result.exit_code, result.output.strip().splitlines()


def test_bad_input_is_one_line_and_exit_2_before_anything_runs(tmp_path):
    code, lines = _invoke(["calibrate", "--name", "loopback"])
    assert code == 2 and len(lines) == 1 and "exists; give --force to replace it" in lines[0]
    code, lines = _invoke(["calibrate", "--name", str(tmp_path / "new.yaml"), "--set", "cluster.broker.vcpus=64"])
    assert code == 2 and len(lines) == 1 and "above this machine's" in lines[0] and "cluster.broker.vcpus" in lines[0]
    code, lines = _invoke(["calibrate", "--name", str(tmp_path / "new.yaml")], env={"PATH": str(tmp_path), "JAVA_HOME": ""})
    assert code == 2 and len(lines) == 1 and "java not found" in lines[0]
    code, lines = _invoke(["calibrate", "--name", str(tmp_path / "new.yaml"), "--point", "no-such-point"])
    assert code == 2 and len(lines) == 1 and "unknown configuration 'no-such-point'" in lines[0]
    code, lines = _invoke(["calibrate", "--name", str(tmp_path / "new.yaml"), "--bootstrap-servers", "127.0.0.1:1"])
    assert code == 2 and len(lines) == 1 and "--metrics" in lines[0]
    assert not (tmp_path / "new.yaml").exists() and json.dumps(lines)


def test_too_few_runs_for_the_terms_is_one_error_not_a_fit():
    costs = {"request": 100.0, "batch": 30.0, "record": 50.0, "byte": 2.0, "network": 20.0, "network_byte": 0.3}
    with pytest.raises(ScenarioError, match=r"1 run\(s\) give 2 figures, too few to fit 6 cost terms"):
        fit_costs([_observation("a", 1000, 1000, 1000, 1000, costs)], flat_values(CostProfile.load("loopback")))


def test_earlier_runs_are_fitted_again_from_their_files(calibration, tmp_path):
    result, _, base = calibration
    code, lines = _invoke(["calibrate", "--name", str(tmp_path / "again.yaml"), "--base", str(base / "known.yaml"),
                           "--point", "one-record-requests", "--point", "full-requests", "--point", "one-record-batches",
                           "--point", "wide-rows", "--from", str(base / "runs")])
    assert code == 0 and lines[-1] == f"wrote {tmp_path / 'again.yaml'}"
    again = CostProfile.load(str(tmp_path / "again.yaml"))
    assert again.broker.produce_request_us == CostProfile.load(str(result.profile_path)).broker.produce_request_us
    assert len(again.provenance.runs) == 8
    code, lines = _invoke(["calibrate", "--name", str(tmp_path / "none.yaml"), "--from", str(tmp_path / "empty")])
    assert code == 2 and lines == ["error: --from: no RunResult files (*.json) to fit"]
