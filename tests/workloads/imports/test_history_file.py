"""A metrics history file (``quietload import`` writes it, ``validate --history`` reads it) reads back
as written; one with a point out of range or a series off the grid is one line naming the series."""
import copy
import json

import pytest

from workloads import ScenarioError
from workloads.imports import History

HISTORY = History("night", "cloudwatch", 1_700_000_000.0, 60.0, {"bulk": [0.0, 5e6, None]}, {"bulk": [0.0, 5e3, None]},
                  {"1": {"CpuUser": [10.0, 55.0, 12.0], "RequestHandlerAvgIdlePercent": [95.0, 40.0, None]}})


def test_a_history_reads_back_as_written(tmp_path):
    assert History.read(HISTORY.write(tmp_path / "h.json")) == HISTORY


@pytest.mark.parametrize("change, line", [
    (lambda h: h["brokers"]["1"]["CpuUser"].__setitem__(1, -5.0), "brokers.1.CpuUser[1] must be a number of at least 0 or null, got -5.0"),
    (lambda h: h["topic_bytes"]["bulk"].__setitem__(0, "lots"), "topic_bytes.bulk[0] must be a number of at least 0 or null, got 'lots'"),
    (lambda h: h["topic_records"]["bulk"].pop(), "topic_records.bulk must be a list of 3 points, one per period"),
    (lambda h: h["brokers"].__setitem__("1", [1, 2]), "brokers.1 must be a mapping of series"),
    (lambda h: h.__setitem__("period", 0), "period must be greater than 0, got 0.0"),
], ids=["a negative CPU", "a word", "a short series", "a broker without series", "a period of 0"])
def test_a_history_out_of_range_is_one_line(change, line, tmp_path):
    document = copy.deepcopy(HISTORY.to_dict())
    change(document)
    (tmp_path / "h.json").write_text(json.dumps(document))
    with pytest.raises(ScenarioError) as refused:
        History.read(tmp_path / "h.json")
    assert str(refused.value) == f"--history: {tmp_path / 'h.json'}: {line}"
