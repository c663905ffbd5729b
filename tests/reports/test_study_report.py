import csv
import io
import json

import pytest

from reports.report import write_report
from reports.sections.study import (IMPORTANCE_CAPTION, PARETO_CAPTION, importance_plot, pareto_plot, render_study_csv,
                                  render_study_markdown)
from simulator.contract import ResultError
from simulator.contract.files import is_study_file, read_study


def _trial(number, linger, codec, requests, seconds, p99s):
    constraints = {"sla:api": p99s[0] / 10.0 - 1, "sla:scoring": p99s[1] / 20.0 - 1}
    return {"number": number, "params": {"linger.ms": linger, "compression.type": codec},
            "values": {"produce_requests": requests, "load_seconds": seconds}, "constraints": constraints,
            "feasible": all(v <= 0 for v in constraints.values()),
            "figures": {"produce_requests": requests, "mean_batch_bytes": 204800.0, "compression_ratio": 0.4321,
                        "load_seconds": seconds, "tenants": {"api": {"p99_ms_during": p99s[0], "sla_p99_ms": 10.0},
                                                             "scoring": {"p99_ms_during": p99s[1], "sla_p99_ms": 20.0}}},
            "overrides": [f"batch.producer.linger.ms={linger}", f"batch.producer.compression.type={codec}"]}


STUDY = {
    "kind": "quietload-study", "schema_version": 1,
    "scenario": {"name": "nightly", "source": "nightly.yaml", "overrides": ["dataset.files.0.size=64MB"]},
    "study_name": "nightly", "storage": "sqlite:///results/nightly-study.db", "seed": 1, "sampler": "tpe",
    "prefer": "requests", "objectives": {"produce_requests": "minimize", "load_seconds": "minimize"},
    "constraints": "sla:<tenant> = p99 during / SLA - 1; feasible <= 0",
    "space": {"linger.ms": "0 ms .. 100 ms", "compression.type": "{none, zstd}"},
    "baseline": {"produce_requests": 12000, "mean_batch_kb": 40.0, "compression_ratio": 1.0, "load_seconds": 9.4,
                 "p99_ms_during": {"api": 580.0, "scoring": 45.5}, "p99_ms_before": {"api": 8.6, "scoring": 8.0}},
    "trials": [_trial(0, 0, "none", 11000, 9.0, [300.0, 30.0]), _trial(1, 20, "zstd", 2000, 12.5, [9.5, 15.0]),
               _trial(2, 5, "zstd", 4000, 10.25, [9.8, 18.0]), _trial(3, 50, "zstd", 1500, 14.0, [10.5, 12.0])],
    "failed_trials": 0, "pareto_front": [1, 2], "pick": 1, "importances_target": "produce_requests",
    "importances": {"linger.ms": 0.75, "compression.type": 0.25},
}


def test_markdown_section_shows_the_pick_the_front_and_the_importances():
    lines = render_study_markdown(STUDY).splitlines()
    assert lines[:5] == [
        "## Tuning study: nightly", "",
        "Study nightly (tpe sampler, seed 1, prefer requests): 4 trials, 2 feasible, 0 failed; Pareto front of 2 trial(s).",
        "Scenario nightly from nightly.yaml with --set dataset.files.0.size=64MB.",
        "Objectives: produce requests and load seconds, both minimized; constraints: sla:<tenant> = p99 during / SLA - 1; feasible <= 0."]
    assert "The pick: trial 1 (the front's point the preference 'requests' picks)." in lines
    assert "| linger.ms | 20 ms |" in lines and "| compression.type | zstd |" in lines
    for row in ("| produce requests | 12,000 | 2,000 |", "| mean batch (KB of records) | 40.0 | 200.0 |",
                "| compression ratio | 1.000 | 0.432 |", "| load (s) | 9.40 | 12.50 |",
                "| api p99 during (ms), SLA 10 | 580.0 | 9.5 |", "| scoring p99 during (ms), SLA 20 | 45.5 | 15.0 |"):
        assert row in lines
    front = lines.index("### Pareto front")
    assert lines[front + 2:front + 6] == [
        "| trial | produce requests | load (s) | linger.ms | compression.type |",
        "| --- | ---: | ---: | ---: | ---: |",
        "| 1 (pick) | 2,000 | 12.50 | 20 ms | zstd |",
        "| 2 | 4,000 | 10.25 | 5 ms | zstd |"]
    assert lines[-2:] == ["| linger.ms | 0.7500 |", "| compression.type | 0.2500 |"]


def test_a_study_of_several_model_seeds_per_trial_says_so():
    line = render_study_markdown({**STUDY, "model_seeds": [1, 2, 3]}).splitlines()[2]
    assert line.startswith("Study nightly (tpe sampler, seed 1, each trial the worst of model seeds 1-3, prefer requests): ")


def test_a_pick_held_on_held_out_seeds_says_which_front_points_missed():
    tried = [{"trial": 2, "held_on": 2, "missed_on": 4, "produce_requests": 4100},
             {"trial": 1, "held_on": 8, "missed_on": None, "produce_requests": 2050}]
    held = {**STUDY, "validation": {"seeds": [2, 3, 4, 5, 6, 7, 8, 9], "held": True, "pick": 1, "tried": tried}}
    assert ("The pick: trial 1 (the first point of the front, in the order of the preference 'requests', that met the "
            "constraints on held-out seeds 2-9; missed: trial 2 on seed 4).") in render_study_markdown(held).splitlines()
    none = {**STUDY, "pick": None, "validation": {"seeds": [2, 3], "held": False, "pick": 2, "tried": tried[:1]}}
    assert "No point of the front met the constraints on held-out seeds 2-3; missed: trial 2 on seed 4: no pick." in (
        render_study_markdown(none).splitlines())


def test_without_a_pick_or_importances_the_section_says_so():
    study = {**STUDY, "pareto_front": [], "pick": None, "importances": None}
    lines = render_study_markdown(study).splitlines()
    assert "No trial met the constraints: no pick." in lines
    assert "No feasible trial: the front is empty." in lines
    assert "No importances in the study (too few completed trials to say what mattered)." in lines
    assert importance_plot(study) is None


def test_csv_has_every_trial_with_its_exact_values_knobs_and_constraints():
    rows = list(csv.DictReader(io.StringIO(render_study_csv([STUDY]))))
    assert [(r["trial"], r["produce_requests"], r["load_seconds"], r["feasible"], r["pareto_front"], r["pick"]) for r in rows] == [
        ("0", "11000", "9.0", "False", "False", "False"), ("1", "2000", "12.5", "True", "True", "True"),
        ("2", "4000", "10.25", "True", "True", "False"), ("3", "1500", "14.0", "False", "False", "False")]
    assert (rows[3]["knob.linger.ms"], rows[3]["knob.compression.type"], rows[3]["constraint.sla:api"]) == (
        "50", "zstd", repr(10.5 / 10.0 - 1))


def test_plots_are_svgs_with_their_captions():
    front, importance = pareto_plot(STUDY), importance_plot(STUDY)
    assert front.mime == importance.mime == "image/svg+xml"
    assert front.image.startswith(b"<?xml") and importance.image.startswith(b"<?xml")
    assert (front.caption, importance.caption) == (PARETO_CAPTION, IMPORTANCE_CAPTION)
    assert front.caption.startswith("Every trial's produce requests against its load time")
    assert importance.caption.startswith("How much of the variation in produce requests")


def test_study_files_are_told_apart_and_a_wrong_schema_version_is_one_line(tmp_path):
    good, old, other = tmp_path / "study.json", tmp_path / "old.json", tmp_path / "other.json"
    good.write_text(json.dumps(STUDY))
    old.write_text(json.dumps({**STUDY, "schema_version": 2}))
    other.write_text(json.dumps({"kind": "quietload-plan"}))
    assert is_study_file(good) and is_study_file(old) and not is_study_file(other)
    assert read_study(good) == STUDY
    with pytest.raises(ResultError) as error:
        read_study(old)
    assert str(error.value) == f"{old}: not a quietload study of schema_version 1 (found 2)"


def test_report_with_a_study_adds_its_section_plots_and_trials(tmp_path):
    paths = write_report([], tmp_path, studies=[STUDY])
    assert [p.name for p in paths] == ["report.md", "runs.csv", "report.json", "report.html", "trials.csv"]
    assert "## Tuning study: nightly" in (tmp_path / "report.md").read_text()
    html = (tmp_path / "report.html").read_text()
    assert 'alt="Pareto front, nightly"' in html and 'alt="parameter importance, nightly"' in html
    assert html.count("<img") == 2 and html.rstrip().endswith("</body></html>")
    assert (tmp_path / "trials.csv").read_text() == render_study_csv([STUDY])
