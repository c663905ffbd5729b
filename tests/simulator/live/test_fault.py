"""The fault run tells the truth: a killed broker's figures are marked incomplete, the job's
requests never go negative, the gate judges the result, a broker that cannot be killed is
refused before anything starts, and a run the machine starved says so."""
import dataclasses
import json

import pytest
from typer.testing import CliRunner

from quietload.cli import app
from judging.gate import check
from reports.summary import render_summary
from simulator.live.evaluator import LiveEvaluator
from simulator.live.neighbours import TenantTrace
from simulator.live.outcome import build
from simulator.contract import RunResult
from test_live_outcome import T0, _run, _scrape
from workloads import CATALOG, Gate, Scenario

# budgets this 2-core machine can give (simulator.live.budget)
FITS = ["cluster.broker.vcpus=0.5", "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1"]
# 40 MB: a load of several seconds even with the job's JVM warm, so that the kill at 30 % of
# its rows falls inside it
SMALL_RF3 = [*FITS, "dataset.files.0.size=40MB", "windows.before=1s", "windows.after=2s"]


def _killed_run():
    """Broker 1 killed at 2.6 s: its last scrape is at 2.6 s; the neighbours counted 1,200 requests,
    more than the surviving broker's count less what the killed one counted before its death."""
    run = _run()
    survivor = run.scrapes[0]
    dead = [_scrape(0.5, 0, 0.0, 0.0), _scrape(1.5, 100, 0.9, 0.1), _scrape(2.6, 150, 1.3, 0.2)]
    traces = [dataclasses.replace(run.traces[0], produce_requests=1_200), run.traces[1]]
    return dataclasses.replace(run, scrapes={0: survivor, 1: dead}, traces=traces,
                               faults=[{"kind": "broker killed", "broker": 1, "at_s": 2.6}])


def test_a_killed_brokers_figures_are_marked_incomplete_and_the_jobs_requests_are_its_own_count():
    result = build(_killed_run())
    s = result.summary
    assert s.broker_produce_requests == 1030 + 150 and s.neighbour_produce_requests == 1_200
    assert s.produce_requests == 985 == s.producer_request_total      # not 1180 - 1200 = -20
    assert set(s.incomplete) == {"broker_produce_requests", "fetch_requests", "produce_requests"}
    assert "broker 1 counted only until killed" in s.incomplete["broker_produce_requests"]
    assert any(line.startswith("Incomplete: produce_requests: the job's producer's own count") for line in result.mechanism)
    assert not any("are the rest" in line for line in result.mechanism)
    assert "Incomplete: broker_produce_requests" in render_summary(result)


def test_without_a_fault_nothing_is_incomplete():
    s = build(_run()).summary
    assert s.incomplete == {} and s.noise == () and s.produce_requests == 1000


def test_the_gate_judges_a_fault_runs_result_with_unmeasured_seconds():
    result = build(_killed_run())
    timeline = list(result.timelines["produce_requests_per_s"])
    timeline[3] = None      # no pair of scrapes ended in that second
    result = dataclasses.replace(result, timelines={**result.timelines, "produce_requests_per_s": timeline})
    report = check(RunResult.from_dict(json.loads(json.dumps(result.to_dict()))), Gate(requests_per_broker_max=100))
    [rate] = [v for v in report.verdicts if v.rule == "produce_request_rate"]
    assert rate.status == "fail"
    # second 2: the survivor's 500 and the killed broker's 50 over its last 1.1 s; second 3 unmeasured
    assert rate.reason == ("produce requests 273/s per broker during the load (545/s over 2 brokers; "
                           "1 of its 2 seconds unmeasured), above the maximum of 100/s")


def test_a_starved_neighbour_and_a_saturated_machine_are_called_noise():
    run = _run()
    late = dataclasses.replace(run.traces[0], send_lag_p99_s=17.0, send_lag_max_s=70.0)
    run = dataclasses.replace(run, traces=[late, run.traces[1]],
                              machine={"cores": 2, "load_avg_1m_max": 12.0, "iowait_pct": 31.0})
    result = build(run)
    assert result.summary.noise == (
        "neighbour payment-api fell behind its schedule: 1 % of its records went to its client over 17,000 ms late (worst 70.0 s)",
        "the machine was saturated: load average up to 12.0 on 2 core(s)",
        "the machine waited on I/O 31 % of its CPU time")
    assert result.summary.neighbour_send_lag_ms_p99 == {"payment-api": 17_000.0, "fraud-scoring": 0.0}
    assert render_summary(result).count("NOISE: ") == 3


def test_a_machine_within_bounds_is_no_noise():
    run = dataclasses.replace(_run(), machine={"cores": 2, "load_avg_1m_max": 3.9, "iowait_pct": 2.0})
    assert build(run).summary.noise == ()


@pytest.mark.parametrize("scenario, overrides, broker, message", [
    ("rf3-acks-all.yaml", [], 5, "broker 5 is not in the scenario's cluster (broker ids 0 to 2)"),
    ("rf3-acks-all.yaml", [], -1, "broker -1 is not in the scenario's cluster (broker ids 0 to 2)"),
    ("paypay-glue-2gb.yaml", ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1"], 5,
     "broker 5 is not in the scenario's cluster (broker ids 0)"),
    ("rf3-acks-all.yaml", ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
                           "cluster.topics.0.replication.factor=1", "cluster.topics.1.replication.factor=1",
                           "cluster.topics.2.replication.factor=1"], 0,
     "topic 'card-settlements' has replication.factor 1 and min.insync.replicas 1: without broker 0 its partitions "
     "there are gone; a fault run needs replication.factor > min.insync.replicas"),
    ("rf3-acks-all.yaml", ["cluster.min.insync.replicas=3"], 1,
     "topic 'card-settlements' has replication.factor 3 and min.insync.replicas 3: without broker 1 its partitions "
     "there take no acks=all write; a fault run needs replication.factor > min.insync.replicas"),
    ("rf3-acks-all.yaml", ["batch.producer.acks=1", "batch.producer.enable.idempotence=false"], 1,
     "the job writes with acks=1 and min.insync.replicas 2: a leader's death may lose rows it acknowledged alone; "
     "a fault run needs acks=all and min.insync.replicas >= 2"),
])
def test_a_broker_that_cannot_be_killed_is_one_line_and_exit_2_before_anything_starts(scenario, overrides, broker,
                                                                                      message, tmp_path):
    sets = [part for override in [*FITS, *overrides] for part in ("--set", override)]
    outcome = CliRunner().invoke(app, ["live", str(CATALOG / scenario), *sets, f"--kill-broker={broker}",
                                       "--run-dir", str(tmp_path / "run")])
    assert outcome.exit_code == 2, outcome.output
    assert [line for line in outcome.output.splitlines() if line.strip()][-1] == f"error: --kill-broker: {message}"
    assert "Traceback" not in outcome.output and not (tmp_path / "run").exists()


@pytest.mark.live
def test_a_broker_kill_run_counts_no_negative_requests_and_passes_the_gate(tmp_path):
    scenario = Scenario.from_yaml(CATALOG / "rf3-acks-all.yaml", SMALL_RF3)
    result = LiveEvaluator(tmp_path / "stack", kill_broker=2).evaluate(scenario, seed=1)
    s = result.summary
    assert s.integrity_ok is True and [f["broker"] for f in s.faults] == [2]
    assert result.windows["during"][0] <= s.faults[0]["at_s"] <= result.windows["during"][1]
    assert any(line.startswith("Fault: broker killed (broker 2)") for line in result.mechanism)
    assert not list((tmp_path / "stack").rglob("*.properties"))     # the stack is gone, dead broker and all
    assert s.produce_requests == s.producer_request_total > 0
    assert all(b.produce_requests >= 0 and b.fetch_requests >= 0 for b in result.brokers)
    assert 2 in [b.id for b in result.brokers]      # the killed broker's count up to its death
    assert set(s.incomplete) == {"broker_produce_requests", "fetch_requests", "produce_requests"}
    path = result.write(tmp_path / "fault.json")
    outcome = CliRunner().invoke(app, ["check", "--result", str(path)])
    assert outcome.exit_code in (0, 1), outcome.output        # a verdict, not unusable input
    assert outcome.output.startswith(("PASS rf3-acks-all", "FAIL rf3-acks-all"))
