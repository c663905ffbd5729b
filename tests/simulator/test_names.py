"""The one rule for the names of quietload's files: after what they hold, every part safe in a name."""
from pathlib import Path

from simulator.contract import result_path, scenario_path, scenario_stem, spread_path


def test_a_scenarios_own_files_are_named_by_the_rule_of_the_runs():
    assert scenario_path("paypay-glue-2gb", "plan.json") == Path("results/paypay-glue-2gb-plan.json")
    assert scenario_path("paypay glue/2gb", "study.json", Path("out")) == Path("out/paypay-glue-2gb-study.json")
    assert result_path("paypay glue/2gb", [], 1) == Path("results/paypay-glue-2gb-seed1.json")


def test_the_spread_of_runs_is_named_after_them_and_their_seeds():
    overrides = ["dataset.files.0.size=40MB"]
    assert spread_path("paypay-glue-2gb", overrides, 1, 3, "live") == \
        Path("results/paypay-glue-2gb-live-dataset.files.0.size=40MB-spread-seed1-3.json")
    assert result_path("paypay-glue-2gb", overrides, 3, "live") == \
        Path("results/paypay-glue-2gb-live-dataset.files.0.size=40MB-seed3.json")


def test_a_what_if_named_with_a_slash_stays_one_file_in_the_directory():
    # a plan's quota what-if is named quota=20MB/s: its kept runs are files of the directory
    path = result_path("quota=20MB/s", [], 1, "1gb-x2-0s", Path("kept"))
    assert path == Path("kept/quota=20MB-s-1gb-x2-0s-seed1.json") and path.parent == Path("kept")


def test_a_run_is_named_after_its_scenario_file_not_its_name():
    assert scenario_stem("workloads/catalog/paypay-glue-2gb.yaml") == "paypay-glue-2gb"
    assert scenario_stem(Path("copies/my job (edited).yml")) == "my-job-edited"
    assert result_path(scenario_stem("a/x.yaml"), ["batch.producer.linger.ms=10"], 1) == Path("results/x-linger.ms=10-seed1.json")
