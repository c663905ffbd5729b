"""What quietload exists for, measured on real parts, and a broker lost under load.

At the same load (the same rows through the same one-core Spark job), a configuration that
sends many small produce requests raises the neighbours' p99 more than one that sends few large
ones. On a 2-core machine single runs are noisy, so each configuration runs three times and the
medians are compared; the spread is printed. A broker killed during an RF=3 acks=all load
loses nothing.
"""
import statistics

import pytest

from reports.spread import render_spread
from simulator.live.evaluator import LiveEvaluator
from workloads import CATALOG, Scenario

ONE_BROKER = ["cluster.brokers=1", "cluster.replication.factor=1", "cluster.min.insync.replicas=1",
              "dataset.files.0.size=30MB", "windows.before=3s", "windows.after=3s"]
MANY_SMALL = ["batch.producer.batch.size=4KB", "batch.producer.max.request.size=8KB", "batch.producer.linger.ms=0"]
FEW_LARGE = ["batch.producer.batch.size=512KB", "batch.producer.linger.ms=100"]
REPEATS = 3


def _worst_p99_during(result) -> float:
    return max(t["p99_ms_during"] for t in result.summary["tenants"])


def _bytes_per_second(result) -> float:
    return result.summary["record_bytes"] / result.summary["load_seconds"]


@pytest.mark.live
def test_many_small_requests_hurt_neighbours_more_than_few_large_ones(tmp_path):
    evaluator = LiveEvaluator(tmp_path / "stack")
    runs = {}
    for name, settings in (("many-small", MANY_SMALL), ("few-large", FEW_LARGE)):
        scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ONE_BROKER + settings)
        runs[name] = [evaluator.evaluate(scenario, seed) for seed in range(1, REPEATS + 1)]
        print("\n" + name + "\n" + render_spread(runs[name]))
    small, large = runs["many-small"], runs["few-large"]
    assert all(r.summary["integrity_ok"] for r in small + large)
    # the same rows at about the same rate: the job's one core sets the pace either way
    assert statistics.median(map(_bytes_per_second, small)) == pytest.approx(
        statistics.median(map(_bytes_per_second, large)), rel=0.5)
    assert min(r.summary["produce_requests"] for r in small) > 10 * max(r.summary["produce_requests"] for r in large)
    assert statistics.median(map(_worst_p99_during, small)) > statistics.median(map(_worst_p99_during, large))


@pytest.mark.live
def test_a_broker_killed_under_an_acks_all_load_loses_nothing(tmp_path):
    scenario = Scenario.from_yaml(CATALOG / "rf3-acks-all.yaml",
                                  ["dataset.files.0.size=10MB", "windows.before=2s", "windows.after=3s"])
    result = LiveEvaluator(tmp_path / "stack", kill_broker=2).evaluate(scenario, seed=1)
    s = result.summary
    assert s["integrity_ok"] is True
    [fault] = s["faults"]
    assert fault["kind"] == "broker killed" and fault["broker"] == 2
    during = result.windows["during"]
    assert during[0] <= fault["at_s"] <= during[1]
    assert any(line.startswith("Fault: broker killed (broker 2)") for line in result.mechanism)
    assert not list((tmp_path / "stack").rglob("*.properties"))     # the stack is gone, dead broker and all
