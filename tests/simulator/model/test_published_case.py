"""The published case (workloads/catalog/paypay-glue-2gb*.yaml) under its files' assumptions."""
import pytest

from simulator.model.model import ModelEvaluator
from workloads import CATALOG, Scenario

KB = 1024


@pytest.fixture(scope="module")
def results():
    evaluator = ModelEvaluator()
    return {name: evaluator.evaluate(Scenario.from_yaml(CATALOG / f"{name}.yaml"), seed=1)
            for name in ("paypay-glue-2gb", "paypay-glue-2gb-repartition60", "paypay-glue-2gb-fixed")}


def test_baseline_sends_batches_of_40_to_80_kb(results):
    summary = results["paypay-glue-2gb"].summary
    assert 40 * KB <= summary.mean_batch_bytes <= 80 * KB
    assert summary.batch_fill < 0.7      # linger.ms=0: batches leave long before batch.size


def test_repartition60_requests(results):
    baseline = results["paypay-glue-2gb"].summary
    repartitioned = results["paypay-glue-2gb-repartition60"].summary
    assert 11_000 <= repartitioned.produce_requests <= 21_000
    assert repartitioned.produce_requests < baseline.produce_requests / 2
    # the mechanism: write tasks that read shuffled rows append faster, so batches grow
    assert repartitioned.append_rate_bytes_per_s > baseline.append_rate_bytes_per_s
    assert repartitioned.mean_batch_bytes > baseline.mean_batch_bytes


def test_full_fix_requests(results):
    fixed = results["paypay-glue-2gb-fixed"].summary
    assert 5_000 <= fixed.produce_requests <= 11_000
    assert 0.40 <= fixed.compression_ratio <= 0.60
    assert fixed.batch_fill > 0.75       # linger.ms=10: batches fill before they leave


def test_baseline_hurts_every_neighbour(results):
    for tenant in results["paypay-glue-2gb"].summary.tenants:
        assert tenant.p99_ms_before < tenant.sla_p99_ms
        assert tenant.p99_ms_during >= 10 * tenant.p99_ms_before
        assert tenant.p99_ms_during > tenant.sla_p99_ms


def test_full_fix_keeps_neighbours_within_twice_their_quiet_p99(results):
    for tenant in results["paypay-glue-2gb-fixed"].summary.tenants:
        assert tenant.p99_ms_during <= 2 * tenant.p99_ms_before


def test_each_result_explains_its_mechanism(results):
    for result in results.values():
        text = " ".join(result.mechanism)
        assert "appended" in text and "drained every" in text and "batch.size" in text
    baseline = " ".join(results["paypay-glue-2gb"].mechanism)
    assert "RemoteTimeMs" in baseline and "one request per connection" in baseline
