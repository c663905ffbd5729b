"""The file kinds besides a run's RunResult (simulator.contract.files): each read back as written,
anything else refused in one line naming the file."""
import json
from pathlib import Path

import pytest

from simulator.contract import ResultError
from simulator.contract.files import RECOMMENDATION, read_recommendation

GOLDEN = Path(__file__).parents[1] / "golden" / "tune"


def test_a_recommendation_reads_back_as_tune_wrote_it(tmp_path):
    recommendation = read_recommendation(GOLDEN / "paypay-glue-2gb-recommendation.yaml")
    assert (recommendation["kind"], recommendation["scenario"], recommendation["trial"]) == (
        "quietload-recommendation", "paypay-glue-2gb", 0)
    assert recommendation["params"]["linger.ms"] == 20 and "dataset.files.0.size=64MB" in recommendation["overrides"]
    again = RECOMMENDATION.write_yaml(recommendation, tmp_path / "again.yaml")
    assert again.read_bytes() == (GOLDEN / "paypay-glue-2gb-recommendation.yaml").read_bytes()
    assert read_recommendation(again) == recommendation


@pytest.mark.parametrize("name, text, line", [
    ("study.json", json.dumps({"kind": "quietload-study", "schema_version": 1}), "not a recommendation of quietload tune"),
    ("tuned.yaml", "extends: paypay-glue-2gb.yaml\nname: paypay-glue-2gb-tuned\n", "not a recommendation of quietload tune"),
    ("short.yaml", "kind: quietload-recommendation\nscenario: s\nparams: {}\n", "recommendation lacks overrides"),
    ("twice.yaml", "kind: quietload-recommendation\nscenario: s\nkind: x\n", "kind is given twice (lines 1 and 3); a key is said once"),
    ("p99.yaml", "kind: quietload-recommendation\nscenario: s\nparams: {}\noverrides: []\n"
                 "predicted: {before: {p99_ms_during: {api: -1}}}\n", "predicted.before.p99_ms_during.api must be greater than 0, got -1"),
    ("trial.yaml", "kind: quietload-recommendation\nscenario: s\nparams: {}\noverrides: []\ntrial: '1'\n",
     "trial must be a whole number, got '1'"),
    ("alias.yaml", "kind: &k quietload-recommendation\nscenario: *k\n", "is not valid YAML at line 2: "
                                                                         "aliases (*name) are not allowed"),
])
def test_anything_but_a_recommendation_is_refused_in_one_line(tmp_path, name, text, line):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ResultError) as refused:
        read_recommendation(path)
    assert str(refused.value) in (f"{path}: {line}", f"{path} {line}")


def test_a_missing_recommendation_is_one_line(tmp_path):
    with pytest.raises(ResultError, match=r"absent.yaml: no such file$"):
        read_recommendation(tmp_path / "absent.yaml")


def test_a_study_files_knob_values_are_checked_as_each_knobs_record_takes_them():
    from simulator.contract.files import _KNOB_VALUES
    assert {name: shape for name, shape in _KNOB_VALUES.items() if shape != "L"} == {
        "linger.ms": "C", "compression.type": "S", "acks": "S", "cluster.broker.type": "S", "repartition": ("?", "L")}
