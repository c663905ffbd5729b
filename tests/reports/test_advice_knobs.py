"""A knob is described once: its --set values and the label a recommended change carries come from it."""
from judging.advice import _change
from workloads.tuning import KNOBS

MB = 1024**2


def test_a_recommended_change_is_written_by_its_knob():
    quota = _change("producer_byte_rate", 23 * MB, "isolate the load", "because")
    assert (quota.label, quota.overrides, quota.lever) == (
        "producer_byte_rate=23.0 MB/s per broker", ("batch.quota.producer_byte_rate=24117248B/s",), "quota")
    acks = _change("acks", "all", "use acks=all", "because")
    assert (acks.label, acks.overrides, acks.lever) == (
        "acks=all, enable.idempotence=true", ("batch.producer.acks=all", "batch.producer.enable.idempotence=true"), "job")
    assert KNOBS["num.replica.fetchers"].setting(4) == "num.replica.fetchers=4"


def test_more_executors_for_a_load_in_waves_is_written_by_its_knob():
    """A load of 24 tasks on 2 executors of 4 cores runs in 3 waves: 3 x the executors, as the knob writes it;
    the knob is in no study unless tune.knobs names it."""
    from types import SimpleNamespace

    from judging.advice import _waves
    from workloads.tuning import knobs_of
    result = SimpleNamespace(spark={"waves": 3, "write_tasks": 24, "slots": 8},
                             scenario={"batch": {"spark": {"spark.executor.instances": 2}}})
    change = _waves(result)
    assert (change.label, change.overrides, change.lever) == (
        "spark.executor.instances=6", ("batch.spark.spark.executor.instances=6",), "job")
    assert "spark.executor.instances" not in knobs_of(("job", "quota", "cluster"))
    one_wave = SimpleNamespace(spark={"waves": 1, "write_tasks": 8, "slots": 8}, scenario={})
    assert _waves(one_wave) is None
