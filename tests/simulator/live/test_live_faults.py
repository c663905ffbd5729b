"""A broker killed during an RF=3 acks=all load: the load completes, nothing is lost, the
result marks the fault, and the stack is gone afterwards."""
import pytest

from simulator.live.evaluator import LiveEvaluator
from workloads import CATALOG, Scenario


@pytest.mark.live
def test_a_broker_killed_under_an_acks_all_load_loses_nothing(tmp_path):
    scenario = Scenario.from_yaml(CATALOG / "rf3-acks-all.yaml",
                                  # 40 MB: a load of several seconds even with the job's JVM warm, so
                                  # that the kill at 30 % of the rows falls inside it
                                  ["dataset.files.0.size=40MB", "windows.before=2s", "windows.after=3s",
                                   "cluster.broker.vcpus=1", "batch.spark.spark.executor.instances=1",
                                   "batch.spark.spark.executor.cores=1"])
    result = LiveEvaluator(tmp_path / "stack", kill_broker=2).evaluate(scenario, seed=1)
    s = result.summary
    assert s["integrity_ok"] is True
    [fault] = s["faults"]
    assert fault["kind"] == "broker killed" and fault["broker"] == 2
    during = result.windows["during"]
    assert during[0] <= fault["at_s"] <= during[1]
    assert any(line.startswith("Fault: broker killed (broker 2)") for line in result.mechanism)
    assert not list((tmp_path / "stack").rglob("*.properties"))     # the stack is gone, dead broker and all
