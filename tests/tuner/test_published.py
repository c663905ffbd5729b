import dataclasses

import pytest

from simulator.evaluator import model_evaluator
from tuner.published import Row, judge, run_table, tables
from workloads.rows import read_sample_csv, to_json_value


def test_every_table_loads_and_its_rows_are_the_published_record_size():
    found = tables()
    assert len(found) >= 3
    for table in found:
        assert len(table.rows) >= 3
        sample = read_sample_csv(table.path.parent / table.scenario["dataset"]["rows"])
        assert {len(to_json_value(row)) for row in sample} == {table.record_size}


def test_judge_names_each_wrong_ordering_and_ratio():
    verdict = judge(["a", "b", "c"], [100.0, 50.0, 52.0], [80.0, 80.0, 20.0])
    assert verdict.orderings == 2           # b and c are 4 % apart: their ratio alone is judged
    assert verdict.misses == (
        "ordering: 'a' 100 above 'b' 50; the model 80.0 against 80.0",
        "ratio 'a' / 'b': published 2.00, the model 1.00 (2.00x off)",
        "ratio 'a' / 'c': published 1.92, the model 4.00 (2.08x off)",
        "ratio 'b' / 'c': published 0.96, the model 4.00 (4.16x off)",
    )
    assert judge(["a", "b"], [100.0, 50.0], [90.0, 60.0]).holds


def test_synchronous_replication_slows_one_producer_as_published():
    kreps = next(t for t in tables() if t.name == "kreps-2014")
    two = tuple(Row(r.label, r.published, (*r.overrides, "dataset.files.0.size=64MB"))
                for r in kreps.rows if r.label.startswith("1 producer, 3x"))
    run = run_table(dataclasses.replace(kreps, rows=two, anchor=two[0].label), model_evaluator())
    async_, sync = (row.model for row in run.rows)
    assert async_ == pytest.approx(75.1, rel=0.05)     # the anchor: the append rate is set from it
    assert sync < async_
    assert 1 / 1.5 <= (sync / async_) / (40.2 / 75.1) <= 1.5
