"""A knob is described once: its --set values and the label a recommended change carries come from it."""
from reports.advice import _change
from workloads.tuning import KNOBS

MB = 1024**2


def test_a_recommended_change_is_written_by_its_knob():
    quota = _change("producer_byte_rate", 23 * MB, "isolate the load", "because")
    assert (quota.label, quota.overrides, quota.lever) == (
        "producer_byte_rate=23.0 MB/s", ("batch.quota.producer_byte_rate=24117248B/s",), "quota")
    acks = _change("acks", "all", "use acks=all", "because")
    assert (acks.label, acks.overrides, acks.lever) == (
        "acks=all, enable.idempotence=true", ("batch.producer.acks=all", "batch.producer.enable.idempotence=true"), "job")
    assert KNOBS["num.replica.fetchers"].setting(4) == "num.replica.fetchers=4"
