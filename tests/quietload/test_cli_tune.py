import json
import re

import pytest
import yaml
from typer.testing import CliRunner

from quietload.cli import app
from workloads import CATALOG

BASE = str(CATALOG / "paypay-glue-2gb.yaml")
SMALL = ["--set", "dataset.files.0.size=64MB", "--set", "windows.before=1s", "--set", "windows.after=1s"]
RELAXED_SLA = ["--set", "tenants.0.sla_p99=100ms", "--set", "tenants.1.sla_p99=100ms"]


def _tune(*args: str):
    return CliRunner().invoke(app, ["tune", *args])


def test_tune_writes_the_study_the_recommendation_and_the_snippets(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _tune(BASE, *SMALL, *RELAXED_SLA, "--trials", "4")
    assert result.exit_code == 0, result.output
    written = ["results/paypay-glue-2gb-study.json", "results/paypay-glue-2gb-recommendation.yaml",
               "results/paypay-glue-2gb-tuned.yaml", "results/paypay-glue-2gb-snippets.txt"]
    assert result.stdout.rstrip().splitlines()[-4:] == [f"wrote {path}" for path in written]
    assert (tmp_path / "results" / "paypay-glue-2gb-study.db").is_file()     # the default storage
    study = json.loads((tmp_path / written[0]).read_text())
    assert (study["kind"], study["schema_version"], study["sampler"], study["seed"]) == ("quietload-study", 1, "tpe", 1)
    assert sorted(t["number"] for t in study["trials"] + study["pruned_trials"]) == [0, 1, 2, 3]   # pruned: stopped at their verdict
    assert study["pick"] in study["pareto_front"]
    assert study["importances"] is None                          # too few trials to say
    recommendation = yaml.safe_load((tmp_path / written[1]).read_text())
    assert recommendation["trial"] == study["pick"]
    assert result.stdout.startswith(f"recommendation (trial {study['pick']}, model seeds 1-3)\n")   # judged at its worst of three
    assert "\nwhy\n  - produce requests " in result.stdout
    assert (tmp_path / written[3]).read_text().startswith("# PySpark: Spark's Kafka sink passes every kafka.* writer option")
    # stderr is not a terminal here: only the closing progress line, then the pick on 20 held-out seeds
    lines = [line for line in result.stderr.splitlines() if " trials, " not in line]   # a line every 5 s of the study
    assert lines[0].startswith("tuning paypay-glue-2gb: trial 4/4, best feasible "), result.stderr
    assert lines[-2] == f"tuning paypay-glue-2gb: trial {study['pick']} on 20 held-out seeds: held"
    assert re.fullmatch(r"tuning paypay-glue-2gb: 20 held-out runs in [\d.]+ s", lines[-1]), lines[-1]
    assert re.fullmatch(r"tuning paypay-glue-2gb: \d feasible trials at their worst on model seeds 1-3: \d still within "
                        "their constraints", lines[1]), lines[1]
    assert all(" runs at most, " in line for line in lines[2:-2])   # a line every 5 s without a terminal
    assert "  - held its constraints on held-out model seeds 4-23\n" in result.stdout
    [tried] = study["validation"]["tried"]
    assert study["validation"] == {"seeds": list(range(4, 24)), "held": True, "pick": study["pick"],
                                   "tried": [{"trial": study["pick"], "held_on": 20, "missed_on": None,
                                              "produce_requests": tried["produce_requests"]}]}
    # run again with more trials: the study resumes
    again = _tune(BASE, *SMALL, *RELAXED_SLA, "--trials", "5")
    assert again.exit_code == 0, again.output
    resumed = json.loads((tmp_path / written[0]).read_text())
    assert len(resumed["trials"]) + len(resumed["pruned_trials"]) == 5


def test_without_a_feasible_trial_the_closest_is_written_and_the_exit_is_1(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _tune(BASE, *SMALL, "--set", "tenants.0.sla_p99=1ms", "--trials", "2")
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("no trial met the constraints; closest (trial ")
    assert result.stdout.splitlines()[0].endswith(" ms > SLA 1.0 ms")     # payment-api's, the last of the sorted misses
    recommendation = yaml.safe_load((tmp_path / "results" / "paypay-glue-2gb-recommendation.yaml").read_text())
    assert recommendation["meets_constraints"] is False
    assert recommendation["missed"][-1].startswith("payment-api p99 ") and recommendation["missed"][-1].endswith("> SLA 1.0 ms")


def test_repeat_runs_each_trial_on_several_model_seeds_and_counts_the_worst(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _tune(BASE, *SMALL, *RELAXED_SLA, "--trials", "3", "--set", "tune.repeat=2")
    assert result.exit_code == 0, result.output
    study = json.loads((tmp_path / "results" / "paypay-glue-2gb-study.json").read_text())
    assert study["model_seeds"] == [1, 2]
    picked = next(t for t in study["trials"] if t["number"] == study["pick"])
    low, high = picked["figures"]["spread"]["produce_requests"]
    assert picked["values"]["produce_requests"] == high >= low
    # the candidates are judged again at their worst of three seeds before the held-out ones
    assert result.stdout.startswith(f"recommendation (trial {study['pick']}, model seeds 1-3)\n")
    assert "  - over model seeds 1-3, each counted at its worst: produce requests " in result.stdout
    assert yaml.safe_load((tmp_path / "results" / "paypay-glue-2gb-recommendation.yaml").read_text())["model_seeds"] == [1, 2, 3]
    # resuming it with one seed per trial would mix trials that do not compare
    refused = _tune(BASE, *SMALL, *RELAXED_SLA, "--trials", "4", "--set", "tune.repeat=2", "--repeat", "1")
    _assert_one_line_error(refused, f"--study-name: study '{study['study_name']}' in sqlite:///results/paypay-glue-2gb-study.db "
                                    "was run with another model_repeat (2)")


def _study(tmp_path, out: str = "results") -> dict:
    return json.loads((tmp_path / out / "paypay-glue-2gb-study.json").read_text())


def test_a_changed_scenario_never_resumes_a_study_judged_on_the_old_one(tmp_path, monkeypatch):
    """The catalog scenario copied with both SLAs raised from 10 to 20 ms, its name kept: a study of
    its own, every trial judged at 20 ms; a named study refuses it saying which fields changed."""
    monkeypatch.chdir(tmp_path)
    first = _tune(BASE, *SMALL, "--trials", "3", "--validate", "0")
    assert first.exit_code in (0, 1), first.output
    before = _study(tmp_path)
    raw = yaml.safe_load(open(BASE))
    for tenant in raw["tenants"]:
        assert tenant["sla_p99"] == "10ms"
        tenant["sla_p99"] = "20ms"
    copy = tmp_path / "copy.yaml"
    copy.write_text(yaml.safe_dump(raw, sort_keys=False))
    # its files never replace the original's (results/ holds those: refused); its study in the same storage
    kept = ("--out", "copy-results", "--storage", "sqlite:///results/paypay-glue-2gb-study.db")
    _assert_one_line_error(_tune(str(copy), *SMALL, "--trials", "3", "--validate", "0"),
                           f"--out: results/paypay-glue-2gb-study.json holds a study of {BASE} with --set {' '.join(SMALL[1::2])}, "
                           f"not of {copy}")
    second = _tune(str(copy), *SMALL, "--trials", "3", "--validate", "0", *kept)
    assert second.exit_code in (0, 1), second.output
    after = _study(tmp_path, "copy-results")
    assert after["study_name"] != before["study_name"] and after["scenario"]["digest"] != before["scenario"]["digest"]
    # and says so, naming what changed
    assert (f"tuning copy: new study '{after['study_name']}': the scenario differs from study '{before['study_name']}''s "
            "(tenants[0].sla_p99 10ms -> 20ms, tenants[1].sla_p99 10ms -> 20ms)") in second.stderr.splitlines()
    assert sorted(t["number"] for t in after["trials"] + after["pruned_trials"]) == [0, 1, 2]   # run afresh, not the old study's
    for trial in after["trials"]:
        for name, tenant in trial["figures"]["tenants"].items():
            assert tenant["sla_p99_ms"] == 20.0
            assert trial["constraints"][f"sla:{name}"] == pytest.approx(tenant["p99_ms_during"] / 20.0 - 1.0)
    # the same copy again resumes its own study
    again = _tune(str(copy), *SMALL, "--trials", "4", "--validate", "0", *kept)
    assert again.exit_code in (0, 1), again.output
    resumed = _study(tmp_path, "copy-results")
    assert (resumed["study_name"], len(resumed["trials"]) + len(resumed["pruned_trials"])) == (after["study_name"], 4)
    # a study named by the user refuses the changed scenario in one line naming what changed
    named = before["study_name"]
    _assert_one_line_error(_tune(str(copy), *SMALL, "--trials", "3", "--validate", "0", "--study-name", named, *kept),
                           f"--study-name: study '{named}' in sqlite:///results/paypay-glue-2gb-study.db ran another "
                           "scenario (tenants[0].sla_p99 10ms -> 20ms, tenants[1].sla_p99 10ms -> 20ms); name a new study")
    _assert_one_line_error(_tune(BASE, *SMALL, "--set", "tenants.0.sla_p99=12ms", "--trials", "3", "--study-name", named,
                                 "--out", "twelve", *kept[2:]),
                           f"--study-name: study '{named}' in sqlite:///results/paypay-glue-2gb-study.db ran another "
                           "scenario (tenants[0].sla_p99 10ms -> 12ms); name a new study")


def _assert_one_line_error(result, starts: str) -> None:
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {starts}"), lines[0]
    assert "Traceback" not in result.output


BAD = {
    "unknown knob": (["--set", "tune.knobs={lingr.ms: [0, 5]}"], "tune.knobs.lingr.ms: unknown knob"),
    "empty range": (["--set", "tune.knobs={linger.ms: [50, 0]}"], "tune.knobs.linger.ms: empty search range: low 50 is above high 0"),
    "empty choices": (["--set", "tune.knobs={repartition: []}"], "tune.knobs.repartition: empty search range"),
    "missing directory": (["--storage", "sqlite:////nonexistent/dir/x.db"], "--storage: sqlite:////nonexistent/dir/x.db: directory /nonexistent/dir does not exist"),
    "no driver": (["--storage", "postgresql+psycopg2://nohost:1/x"], "--storage: postgresql+psycopg2://nohost:1/x: needs the database driver 'psycopg2'"),
    "unknown sampler": (["--sampler", "grid"], "--sampler: expected tpe or random"),
    "no seeds per trial": (["--set", "tune.repeat=0"], "tune.repeat: "),
}


@pytest.mark.parametrize("args, starts", BAD.values(), ids=BAD.keys())
def test_bad_input_is_one_line_and_exit_2(args, starts, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _assert_one_line_error(_tune(BASE, *SMALL, "--trials", "2", *args), starts)
    assert not (tmp_path / "results" / "paypay-glue-2gb-recommendation.yaml").exists()
