import csv
import io
import json

import pytest

from reports.sections.plan import capacity_plot, render_plan_csv, render_plan_markdown, render_plan_table
from reports.report import write_report
from simulator.contract import ResultError
from simulator.contract.files import is_plan_file, read_plan


def _point(option, load_gb, loads, ingest, p99s, current=False):
    tenants = [{"name": "api", "p99_ms_during": p99s[0], "sla_p99_ms": 10.0},
               {"name": "scoring", "p99_ms_during": p99s[1], "sla_p99_ms": 20.0}]
    return {"option": option, "load_gb": load_gb, "loads": loads, "spacing_s": 0.0, "executors": 2, "cores": 8, "current_plan": current,
            "ingest_gb_per_hour": ingest, "produce_requests": 1000 * loads, "load_seconds": 3600.0 * load_gb * loads / ingest,
            "tenants": tenants, "feasible": p99s[0] <= 10.0 and p99s[1] <= 20.0}


PLAN = {
    "kind": "quietload-plan", "schema_version": 1, "scenario": "nightly", "source": "nightly.yaml",
    "evaluator": "model", "seed": 1, "grid": {"load_gb": [1.0, 2.0], "loads": [1], "spacing_s": [0.0], "executors": [2], "cores": 8},
    "current_plan": {"load_gb": 1.0, "loads": 1, "spacing_s": 0.0, "executors": 2, "cores": 8, "ingest_gb_per_hour": 400.0,
                     "feasible": True},
    "options": [
        {"name": "current", "changes": {}, "max_ingest_gb_per_hour": 400.0,
         "max_point": {"load_gb": 1.0, "loads": 1, "spacing_s": 0.0, "executors": 2, "cores": 8},
         "first_breach": {"tenant": "api", "p99_ms_during": 10.04, "sla_p99_ms": 10.0, "ingest_gb_per_hour": 410.0,
                          "load_gb": 2.0, "loads": 1, "spacing_s": 0.0, "executors": 2, "cores": 8}, "headroom": 1.0,
         "current_plan_feasible": True},
        {"name": "brokers=6", "changes": {"cluster.brokers": 6}, "max_ingest_gb_per_hour": 800.0,
         "max_point": {"load_gb": 2.0, "loads": 1, "spacing_s": 0.0, "executors": 2, "cores": 8}, "first_breach": None,
         "headroom": 2.0,
         "current_plan_feasible": True}],
    "points": [_point("current", 1.0, 1, 400.0, [8.0, 9.0], current=True), _point("current", 2.0, 1, 410.0, [10.04, 9.0]),
               _point("brokers=6", 1.0, 1, 790.0, [6.0, 7.0], current=True), _point("brokers=6", 2.0, 1, 800.0, [6.5, 7.5])],
}


def test_the_table_shows_each_options_capacity_headroom_and_first_breach():
    # the current cluster's 1.00x is no room (a bigger file, not more ingest): at the limit of a plan within SLA;
    # one seed per point, said with how to judge more; the line after the table says what to try
    assert render_plan_table(PLAN).splitlines() == [
        "nightly plan (model, seed 1; --repeat N judges each point on N seeds): 2 cluster option(s), 4 runs",
        "current plan: 1 load x 16 cores, 1 GB each: 400 GB/h on the current cluster, within SLA",
        "",
        "cluster option  max ingest within SLA  reached at                    headroom              current plan  first breach",
        "current         400 GB/h               1 load x 16 cores, 1 GB each  at the limit (1.00x)  within SLA    api p99 10.04 ms > SLA 10.00 ms at 410 GB/h (1 load x 16 cores, 2 GB each)",
        "brokers=6       800 GB/h               1 load x 16 cores, 2 GB each  2.00x                 within SLA    none: the capacity is beyond the largest point tried",
        "",
        "next: no room beyond the current plan on the current cluster; brokers=6 takes up to 1 load x 16 cores, 2 GB each (2.00x)",
    ]


def test_markdown_section_has_the_definitions_and_one_row_per_option():
    lines = render_plan_markdown(PLAN).splitlines()
    assert lines[0] == "## Capacity plan: nightly"
    assert any("Ingest (GB/h) = GB loaded over load_seconds" in line for line in lines)
    assert ("| brokers=6 | 800 GB/h | 1 load x 16 cores, 2 GB each | 2.00x | within SLA | none: the capacity is beyond the "
            "largest point tried |") in lines


def test_no_breach_and_no_point_within_sla_are_bounds_not_figures():
    """A plan whose option never went over SLA has at least its capacity; one never within SLA has no headroom
    to show (not 0.00x) and its capacity lies below the smallest point tried."""
    beyond = {**PLAN["options"][1], "headroom_at_least": True, "ingest_tried_gb_per_hour": [790.0, 800.0]}
    below = {**PLAN["options"][0], "name": "quota=1MB/s", "max_ingest_gb_per_hour": None, "max_point": None,
             "headroom": None, "headroom_at_least": False, "ingest_tried_gb_per_hour": [350.0, 410.0]}
    rows = render_plan_table({**PLAN, "options": [beyond, below]}).splitlines()[-4:-2]
    assert rows[0].split("  ")[0] == "brokers=6"
    assert "at least 800 GB/h" in rows[0] and ">= 2.00x" in rows[0]
    assert rows[0].endswith("none: the capacity is beyond the largest point tried (800 GB/h)")
    assert "below the smallest point tried (350 GB/h)" in rows[1] and "0.00x" not in rows[1]


def test_csv_has_every_point_with_each_neighbours_p99_and_sla():
    rows = list(csv.DictReader(io.StringIO(render_plan_csv([PLAN]))))
    assert [(r["option"], r["load_gb"], r["feasible"]) for r in rows] == [
        ("current", "1.0", "True"), ("current", "2.0", "False"), ("brokers=6", "1.0", "True"), ("brokers=6", "2.0", "True")]
    assert (rows[1]["p99_ms_during.api"], rows[1]["sla_p99_ms.api"], rows[1]["sla_p99_ms.scoring"]) == ("10.04", "10.0", "20.0")


def test_capacity_plot_is_an_svg_with_a_caption():
    plot = capacity_plot(PLAN)
    assert plot.image.startswith(b"<?xml") and b"<svg" in plot.image
    assert plot.caption.startswith("Each cluster option's worst neighbour p99 against the batch ingest")


def test_plan_files_are_told_from_other_json(tmp_path):
    plan_file, other = tmp_path / "plan.json", tmp_path / "other.json"
    plan_file.write_text(json.dumps(PLAN))
    other.write_text(json.dumps({"kind": "something-else"}))
    assert is_plan_file(plan_file) and not is_plan_file(other)
    assert read_plan(plan_file) == PLAN
    with pytest.raises(ResultError, match=r"other.json: not a quietload plan of schema_version 1$"):
        read_plan(other)


def test_report_with_a_plan_adds_its_section_plot_and_points(tmp_path):
    paths = write_report([], tmp_path, [PLAN])
    assert [p.name for p in paths] == ["report.md", "runs.csv", "report.json", "report.html", "plans.csv"]
    assert "## Capacity plan: nightly" in (tmp_path / "report.md").read_text()
    html = (tmp_path / "report.html").read_text()
    assert "<h2>Capacity plan: nightly</h2>" in html and 'alt="capacity plot, nightly"' in html
    assert html.rstrip().endswith("</body></html>")
    assert (tmp_path / "plans.csv").read_text() == render_plan_csv([PLAN])


def test_capacity_plot_draws_each_point_as_a_marker_without_joining_them(monkeypatch):
    import reports.kit.plot as plot
    drawn = []
    monkeypatch.setattr(plot, "svg", lambda figure: drawn.append(figure) or b"<svg/>")
    capacity_plot(PLAN)
    (axes,) = drawn[0].axes
    # the legend under the plot, off the data: the options, then each SLA
    drawn[0].canvas.draw()
    (legend,) = drawn[0].legends
    assert axes.get_legend() is None
    assert not legend.get_window_extent().overlaps(axes.get_window_extent())
    assert [t.get_text() for t in legend.get_texts()][-2:] == ["SLA p99 10 ms", "SLA p99 20 ms"]
    sla = [line for line in axes.lines if line.get_linestyle() == "--"]
    points = [line for line in axes.lines if line not in sla]
    assert sorted(line.get_ydata()[0] for line in sla) == [10.0, 20.0]
    assert all(line.get_linestyle() == "None" for line in points)
    # every point once, at its ingest and its worst neighbour p99; dots within SLA, crosses over it
    drawn_points = sorted((x, y, line.get_marker()) for line in points for x, y in zip(line.get_xdata(), line.get_ydata()))
    assert drawn_points == [(400.0, 9.0, "o"), (410.0, 10.04, "x"), (790.0, 7.0, "o"), (800.0, 7.5, "o")]


def test_next_names_the_what_if_that_holds_an_overloaded_plan_or_the_room_there_is():
    from reports.sections.plan import next_step
    over = {**PLAN, "current_plan": {**PLAN["current_plan"], "feasible": False},
            "options": [{**PLAN["options"][0], "current_plan_feasible": False, "max_point": None,
                         "max_ingest_gb_per_hour": None, "headroom": None}, PLAN["options"][1]]}
    assert next_step(over) == "brokers=6 keeps the current plan within SLA: make that change, or run less at once"
    roomy = {**PLAN, "options": [{**PLAN["options"][0], "headroom": 2.0, "max_ingest_gb_per_hour": 800.0,
                                  "max_point": {**PLAN["options"][0]["max_point"], "loads": 2}}]}
    assert next_step(roomy) == "room on the current cluster up to 2 loads x 16 cores, 1 GB each (2.00x the current ingest)"
    nothing = {**over, "options": over["options"][:1]}
    assert next_step(nothing).startswith("no option tried holds even the smallest load: change the job's settings")


def test_what_ifs_that_each_hold_the_plan_are_alternatives_and_a_caveat_is_said_with_its_option():
    from reports.sections.plan import next_step
    rf2 = {**PLAN["options"][1], "name": "replication.factor=2", "changes": {"cluster.replication.factor": 2},
           "caveat": "min.insync.replicas is 2: with one broker down its partitions keep 1 in-sync replica, and acks=all "
                     "produces to them fail (NOT_ENOUGH_REPLICAS)"}
    current = {**PLAN["options"][0], "current_plan_feasible": False, "max_point": None, "max_ingest_gb_per_hour": None,
               "headroom": 0.52}
    over = {**PLAN, "current_plan": {**PLAN["current_plan"], "feasible": False},
            "options": [current, PLAN["options"][1], {**PLAN["options"][1], "name": "broker_type=kafka.m5.xlarge"}, rf2]}
    assert next_step(over) == (
        "each of brokers=6, broker_type=kafka.m5.xlarge or replication.factor=2 (see its caveat) keeps the current plan "
        "within SLA on its own: make one of those changes, or run less at once")
    lines = render_plan_table(over).splitlines()
    assert lines[-3:-1] == ["caveat:", "  replication.factor=2: " + rf2["caveat"]]
    over_sla = {**PLAN["options"][0], "headroom": 0.52, "current_plan_feasible": False}
    assert "  none (0.52x)  OVER SLA  " in render_plan_table({**PLAN, "options": [over_sla]})
