"""Scenarios that would cost the machine more than a run may (the hostile pass's hangs): refused
before any run, one line naming the key and a value that fits, exit 2, nothing written."""
import pytest
from _bad_input import assert_refused

from workloads import CATALOG

PAYPAY = str(CATALOG / "paypay-glue-2gb.yaml")
CASES = {
    "an append rate of bytes a second": (["simulate", PAYPAY, "--set", "batch.spark.append_rate=5B/s"],
                                         "error: batch.spark.append_rate: the load of 2.0 GB would take at least 207 days"),
    "a quota of 1 B/s": (["check", PAYPAY, "--set", "batch.quota.producer_byte_rate=1B/s"],
                         "error: batch.quota.producer_byte_rate: the load of 2.0 GB would take at least 8,285 days"),
    "2^31-1 network threads": (["simulate", PAYPAY, "--set", "cluster.broker.num.network.threads=2147483647"],
                               "error: cluster.broker.num.network.threads: the model run would need at least 7880.0 GB"),
    "--force on a load past the run's cap": (["simulate", PAYPAY, "--set", "dataset.files.0.size=100TB", "--force"],
                                             "error: dataset.files: the load of 102400.0 GB would take at least 2 days"),
    "--force on a million threads a broker": (["simulate", PAYPAY, "--set", "cluster.broker.num.network.threads=2147483647", "--force"],
                                              "not even with --force"),
    "plan --loads 2000": (["plan", PAYPAY, "--loads", "2000"],
                          "error: --loads: the model run would take at least 11 minutes (32,768,000 produce batches of at most batch.size), more than its limit of 10 minutes; --loads of at most 1,846 fits; at the plan's point current, 2 GB x 2000; --force runs it anyway"),
    "plan over a huge load": (["plan", PAYPAY, "--load-gb", "100000000"],
                              "error: --load-gb: the model run would need at least 5322.7 GB of memory"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_costly_run_is_refused_before_it_starts(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    arguments, expected = CASES[case]
    line = assert_refused(arguments, expected)
    assert " fits" in line, line
    assert list(tmp_path.iterdir()) == []
