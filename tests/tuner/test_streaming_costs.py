"""A calibrated profile's micro-batch costs from runs of the pipeline before the load.

The model stands in for the live stack (its runs have the live runs' batch figures, in the same
shape): its costs are known, so what is measured must be them. The live runs' batch figures are
checked in tests/tuner/test_fidelity_live.py."""
import dataclasses
import shutil

import pytest

from simulator.evaluator import model_evaluator
from tuner.calibration.runs import run_points
from tuner.calibration.streaming import MICROBATCH_ALONE, measure, write_streaming_costs
from workloads.profile import PROFILE_DIR, CostProfile


@pytest.fixture(scope="module")
def runs():
    model = model_evaluator()

    class AsLive:
        def evaluate(self, scenario, seed):
            return dataclasses.replace(model.evaluate(scenario, seed), evaluator="live")

    point_runs, = run_points((MICROBATCH_ALONE,), "loopback", AsLive(), 2, lambda line: None)
    return point_runs


def test_the_measured_costs_are_the_runs_own(runs):
    costs = measure(runs)
    befores = [b for _, b in costs.runs]
    assert [b["count"] for b in befores] == [29, 29]   # a 500 ms trigger over the 15 s before the load; at 0 s, nothing yet
    # loopback's log writes are 10 ms, its planning 60 ms; the model's tasks (fetch, write, flush) come with planning
    assert costs.measured["offset_log_write_ms"] == (pytest.approx(10.0), pytest.approx(0.0))
    assert costs.measured["commit_log_write_ms"] == (pytest.approx(10.0), pytest.approx(0.0))
    tasks = sum(b["tasks_ms"] * b["count"] for b in befores) / 58
    assert costs.measured["microbatch_planning_ms"][0] == pytest.approx(60.0 + tasks)
    assert 0 < tasks < 5


def test_the_profile_gets_them_with_their_provenance(runs, tmp_path):
    path = tmp_path / "mine.yaml"
    shutil.copy(PROFILE_DIR / "loopback-calibrated.yaml", path)
    before = CostProfile.load(str(path))
    costs = measure(runs)
    write_streaming_costs(path, costs)
    write_streaming_costs(path, costs)        # again: the same, nothing listed twice
    profile = CostProfile.load(str(path))
    assert profile.streaming.offset_log_write_ms == pytest.approx(10.0)
    assert profile.streaming.poll_us == before.streaming.poll_us
    assert profile.broker == before.broker and profile.spark == before.spark
    sources = {p.name: p.source for p in profile.provenance.parameters if p.name.startswith("streaming.")}
    assert sources == {"streaming.microbatch_planning_ms": "measured", "streaming.offset_log_write_ms": "measured",
                       "streaming.commit_log_write_ms": "measured", "streaming.state_commit_ms": "assumed",
                       "streaming.end_txn_request_us": "assumed", "streaming.txn_marker_us": "assumed",
                       "streaming.poll_us": "assumed"}
    assert [(r.point, r.seed) for r in profile.provenance.runs if r.point == "microbatch-alone"] == [
        ("microbatch-alone", 1), ("microbatch-alone", 2)]
    assert profile.provenance.summary.count("The Spark micro-batch costs") == 1
