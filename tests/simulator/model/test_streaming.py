"""Streaming neighbours' mechanisms in tiny scenarios with exact expectations.

A free profile (every broker and client cost zero, no round trip, no jitter, a NIC of 1000 TB/s)
leaves only the
framework's own fixed costs (the default profile's streaming section: planning 80 ms, offset
and commit log writes 110 ms each) and the scenario's record_cost, so every record's end to end
latency follows from its intended send time alone.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from simulator.model.model import ModelRun
from workloads.profile import PROFILE_DIR

PLANNING, OFFSET_LOG, COMMIT_LOG = 0.080, 0.110, 0.110
RECORD_COST = 0.001


def free_profile(directory: Path) -> dict:
    raw = yaml.safe_load((PROFILE_DIR / "default.yaml").read_text())
    raw["name"] = "free"
    for section in ("broker", "client"):
        for key, value in raw[section].items():
            raw[section][key] = {codec: 0 for codec in value} if isinstance(value, dict) else 0
    raw["streaming"]["poll_us"] = 0
    path = directory / "free.yaml"
    path.write_text(yaml.safe_dump(raw))
    # a NIC so fast that a request's bytes take no time
    return {"profile": str(path), "cluster": {"network_rtt": "0ms", "broker": {"nic_bandwidth": "1000TB/s"}}}


def pipeline(kind: str, rate: str = "10/s", partitions: int = 1, **settings) -> dict:
    return {"cluster": {"topics": [{"name": "bulk", "partitions": 4}, {"name": "in", "partitions": partitions},
                                   {"name": "out", "partitions": 1}]},
            "tenants": [{"name": "p", "kind": kind, "topic": "in", "output_topic": "out", "rate": rate,
                         "record_size": "100B", "record_cost": f"{RECORD_COST * 1e3:g}ms", "sla_p99": "1s",
                         "producer": {"linger.ms": 0}, "sink": {"linger.ms": 0}, **settings}],
            "windows": {"before": "3s", "after": "3s"}}


def run_of(make_scenario, evaluator, *changes) -> ModelRun:
    run = ModelRun(make_scenario(*changes), 1, evaluator)
    run.execute()
    return run


def test_a_micro_batch_record_waits_for_the_next_trigger_then_the_batch_s_fixed_cost(make_scenario, evaluator, tmp_path):
    run = run_of(make_scenario, evaluator, free_profile(tmp_path), pipeline("spark-microbatch", processingTime="1s"))
    (out,) = run.tenants
    by_trigger: dict[int, list[float]] = {}
    for intended, _ in out.latencies:
        by_trigger.setdefault(math.floor(intended) + 1, []).append(intended)
    latency = dict(out.latencies)
    for trigger, records in by_trigger.items():
        for i, intended in enumerate(sorted(records)):
            # ListOffsets at the trigger, offset log, planning, then the task's records one by one
            expected = trigger - intended + OFFSET_LOG + PLANNING + (i + 1) * RECORD_COST
            assert latency[intended] == pytest.approx(expected, abs=1e-6)
    # the floor: a record just after a trigger waits the whole interval and the fixed cost
    assert max(latency.values()) == pytest.approx(1.0 + OFFSET_LOG + PLANNING + RECORD_COST, abs=0.1 + 1e-9)
    assert min(latency.values()) >= OFFSET_LOG + PLANNING
    batches = [b for b in out.batches if b["start"] >= 1.0]
    assert all(b["commit_log_s"] == COMMIT_LOG and b["start"] == pytest.approx(round(b["start"])) for b in batches)


@pytest.mark.parametrize("async_progress", [False, True])
def test_async_progress_tracking_takes_the_log_writes_off_the_batch(make_scenario, evaluator, tmp_path, async_progress):
    run = run_of(make_scenario, evaluator, free_profile(tmp_path),
                 pipeline("spark-microbatch", rate="100/s", asyncProgressTrackingEnabled=async_progress))
    (out,) = run.tenants
    for batch in out.batches[1:]:
        logs = 0.0 if async_progress else OFFSET_LOG + COMMIT_LOG
        assert (batch["offset_log_s"], batch["commit_log_s"]) == ((0.0, 0.0) if async_progress else (OFFSET_LOG, COMMIT_LOG))
        assert batch["end"] - batch["start"] == pytest.approx(logs + PLANNING + batch["tasks_s"], abs=1e-6)


def test_async_writes_block_the_query_when_two_wait(make_scenario, evaluator, tmp_path):
    """With a durable write every batch, two 110 ms writes per batch outrun an 80 ms batch: the
    queue fills and the query waits, so batches come every 220 ms, the writer's pace."""
    run = run_of(make_scenario, evaluator, free_profile(tmp_path),
                 pipeline("spark-microbatch", rate="100/s", asyncProgressTrackingEnabled=True,
                          asyncProgressTrackingCheckpointIntervalMs=0))
    (out,) = run.tenants
    starts = [b["start"] for b in out.batches[5:]]
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    assert sum(gaps) / len(gaps) == pytest.approx(OFFSET_LOG + COMMIT_LOG, rel=0.05)


def test_a_fetch_with_fetch_min_bytes_unmet_waits_fetch_max_wait_ms(make_scenario, evaluator, tmp_path):
    run = run_of(make_scenario, evaluator, free_profile(tmp_path),
                 pipeline("kafka-streams", rate="3/s", consumer={"fetch.min.bytes": "1MB", "fetch.max.wait.ms": 200}))
    (out,) = run.tenants
    for intended, to_pipeline, _, _ in out.parts:
        fetched = intended + to_pipeline      # the parked fetch returns when its 200 ms are up
        assert fetched / 0.2 == pytest.approx(round(fetched / 0.2), abs=1e-6) and 0 < to_pipeline <= 0.2 + 1e-9
    (consumer,) = out.consumers
    assert consumer.fetches == pytest.approx(run.engine.now / 0.2, abs=2)


def test_a_fetch_with_fetch_min_bytes_met_returns_when_the_record_is_appended(make_scenario, evaluator, tmp_path):
    run = run_of(make_scenario, evaluator, free_profile(tmp_path), pipeline("kafka-streams", rate="3/s"))
    (out,) = run.tenants
    assert out.parts and all(to_pipeline == pytest.approx(0.0, abs=1e-6) for _, to_pipeline, _, _ in out.parts)
    assert all(latency == pytest.approx(RECORD_COST, abs=1e-6) for _, latency in out.latencies)


def test_record_at_a_time_latency_grows_when_the_broker_s_handlers_are_busy(make_scenario, evaluator, tmp_path):
    """One I/O handler taking 3 ms per produce request: the load's requests keep it busy, and the
    pipeline's fetches (and its producers' requests) queue behind them."""
    raw = yaml.safe_load((PROFILE_DIR / "default.yaml").read_text())
    raw["name"], raw["broker"]["produce_request_us"] = "slow-handler", 3000
    (tmp_path / "slow.yaml").write_text(yaml.safe_dump(raw))
    busy_broker = {"profile": str(tmp_path / "slow.yaml"), "cluster": {"broker": {"num.io.threads": 1}},
                   "dataset": {"files": [{"size": "8MB"}]}}
    result = evaluator.evaluate(make_scenario(pipeline("kafka-streams", rate="20/s"), busy_broker), 1)
    (tenant,) = result.tenants
    before, during = tenant["latency_ms"]["before"], tenant["latency_ms"]["during"]
    # the load holds the handler 3 ms a request: a fetch or a produce arriving meanwhile waits
    # for the rest of it, 1.5 ms on average, at each of the pipeline's three requests
    assert during["p50"] > before["p50"] + 3 * 1.5 * 0.8
    parts = tenant["streaming"]["parts_ms"]
    assert parts["during"]["to_pipeline"] > parts["before"]["to_pipeline"] + 1.5 * 0.8


def test_exactly_once_output_is_visible_when_its_transaction_commits(make_scenario, evaluator, tmp_path):
    """exactly_once_v2 commits every 100 ms (StreamsConfig's default under it): a record's output
    counts once EndTxn has run on the coordinator's handler (100 us, and 30 us for each of the
    3 partitions' markers), not when its produce was acknowledged."""
    run = run_of(make_scenario, evaluator, free_profile(tmp_path),
                 pipeline("kafka-streams", rate="50/s", partitions=2, **{"processing.guarantee": "exactly_once_v2"}))
    (out,) = run.tenants
    end_txn = 100e-6 + 3 * 30e-6
    waits = [to_output for _, _, _, to_output in out.parts]
    assert waits and all(end_txn - 1e-6 <= wait <= 0.1 + end_txn + 1e-6 for wait in waits)
    assert sum(waits) / len(waits) == pytest.approx(0.05, abs=0.01)      # half a commit interval
    committed_at = sorted({round(intended + latency, 6) for intended, latency in out.latencies})
    assert all(b - a >= 0.1 - 1e-6 for a, b in zip(committed_at, committed_at[1:]))   # one commit per interval


def test_max_offsets_per_trigger_caps_each_batch_and_the_backlog_grows(make_scenario, evaluator, tmp_path):
    """100 records/s against at most 50 a one-second trigger: every batch takes 50, the rest wait
    for later triggers, so the backlog grows by 50 records a second and each second's records
    wait a second longer than the last's."""
    run = run_of(make_scenario, evaluator, free_profile(tmp_path),
                 pipeline("spark-microbatch", rate="100/s", processingTime="1s", maxOffsetsPerTrigger=50),
                 {"windows": {"before": "6s"}})
    (out,) = run.tenants
    assert [b["records"] for b in out.batches[1:]] == [50] * len(out.batches[1:])
    by_second: dict[int, list[float]] = {}
    for intended, latency in out.latencies:
        by_second.setdefault(int(intended), []).append(latency)
    means = [sum(v) / len(v) for _, v in sorted(by_second.items()) if len(v) == 100]
    assert len(means) >= 3 and all(b - a == pytest.approx(1.0, abs=0.05) for a, b in zip(means, means[1:]))


def test_the_brokers_count_a_pipeline_s_fetches_with_the_followers(make_scenario, evaluator, tmp_path):
    result = evaluator.evaluate(make_scenario(free_profile(tmp_path), pipeline("kafka-streams", rate="3/s")), 1)
    (tenant,) = result.tenants
    fetches = tenant["streaming"]["fetch_requests"]
    assert fetches > 0 and result.summary.fetch_requests == fetches    # one broker: no follower fetches
