import dataclasses

from simulator.evaluator import model_evaluator
from tuner.published import FIGURES, Row, judge, run_table, tables


def test_every_table_runs_perf_test_producers_and_gives_each_row_every_figure():
    found = tables()
    assert len(found) >= 4
    for table in found:
        assert len(table.rows) >= 3 and set(table.figures) <= set(FIGURES)
        assert all(set(row.published) == set(table.figures) for row in table.rows)
        assert all(table.scenario_of(row).jobs[0].kind == "producer" for row in table.rows)


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


def test_synchronous_replication_slows_one_producer_and_the_table_is_judged_on_its_rows():
    kreps = next(t for t in tables() if t.name == "kreps-2014")
    two = tuple(Row(r.label, r.published, (*r.overrides, "batch.records=500000"))
                for r in kreps.rows if r.label.startswith("1 producer, 3x"))
    run = run_table(dataclasses.replace(kreps, rows=two), model_evaluator())
    (async_, sync), published = (row.model["throughput"] for row in run.rows), (75.1, 40.2)
    assert sync < async_     # acks=all waits for the followers' fetches: the mechanism, whatever its size
    # the table's verdict is the judge's of exactly these rows' figures (its size is bench/published_clusters.py's)
    assert run.verdicts["throughput"] == judge([r.label for r in two], list(published), [async_, sync])
