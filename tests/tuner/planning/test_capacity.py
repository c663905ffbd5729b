import pytest

from tuner.planning import (GIB, ClusterOption, Grid, LoadPoint, bracket, current_load, extend, ingest_gb_per_hour,
                            option_verdict, refine, run_plan, sized)
from workloads import CATALOG, Scenario, ScenarioError
from workloads.scenario import load_mapping
from workloads.scenario import Plan

FIXED = CATALOG / "paypay-glue-2gb-fixed.yaml"
BASELINE = CATALOG / "paypay-glue-2gb.yaml"
# the published fix at a quarter of its size, with short quiet windows: about 0.2 s a run; the
# fraud-scoring service's SLA at 10.5 ms (6 brokers hold it at 10.04 ms under the lightest load)
SMALL = ["windows.before=2s", "windows.after=2s", "dataset.files.0.size=512MB", "tenants.1.sla_p99=10.5ms"]
TINY_GRID = {"load_gb": "0.25,0.5", "loads": "1,2", "brokers": "6"}


def test_grid_expands_load_sizes_then_loads_then_spacings_then_executors():
    grid = Grid((1.0, 2.0), (1, 3), (0.0, 60.0), (2,), 8)
    assert grid.points() == [LoadPoint(gb, n, s, 2, 8) for gb in (1.0, 2.0) for n in (1, 3) for s in (0.0, 60.0)]
    assert Grid((1.0,), (1,), (0.0,), (1, 4), 8).points() == [LoadPoint(1.0, 1, 0.0, 1, 8), LoadPoint(1.0, 1, 0.0, 4, 8)]


def test_default_grid_is_the_jobs_own_load_once_and_twice_at_once():
    scenario = Scenario.from_yaml(BASELINE)
    assert current_load(scenario) == LoadPoint(2.0, 1, 0.0, 2, 8)
    assert Grid.of(scenario.plan, current_load(scenario)) == Grid((2.0,), (1, 2), (0.0,), (2,), 8)
    given = Plan(load_gb=(3.0,), spacing=(30.0,), executors=(1, 4))
    assert Grid.of(given, current_load(scenario)) == Grid((3.0,), (1, 2), (30.0,), (1, 4), 8)


def test_ingest_is_the_loaded_gb_over_the_load_time_per_hour():
    assert ingest_gb_per_hour(LoadPoint(2.0, 2, 0.0, 2, 8), 9.0) == 1600.0
    assert ingest_gb_per_hour(LoadPoint(0.5, 1, 60.0, 2, 8), 1800.0) == 1.0


def test_a_load_point_scales_every_file_group_by_one_factor():
    mapping = load_mapping(CATALOG / "gzip-input.yaml", [])
    scenario = Scenario.from_mapping(mapping)
    point = Scenario.from_mapping(sized(mapping, scenario, LoadPoint(1.0, 3, 90.0, 3, 2)))
    assert [(g.size, g.count) for g in point.dataset.files] == [(round(150 * 1024**2 * GIB / (24 * 150 * 1024**2)), 24)]
    assert abs(sum(point.dataset.file_sizes) - GIB) <= 24
    assert (point.batch.loads, point.batch.spacing) == (3, 90.0)
    assert (point.batch.spark.executors, point.batch.spark.executor_cores) == (3, 2)


def _point(ingest, p99s, current=False):
    tenants = [{"name": name, "p99_ms_during": p99, "sla_p99_ms": 10.0} for name, p99 in zip(("api", "scoring"), p99s)]
    return {"option": "x", "load_gb": ingest / 1000, "loads": 1, "spacing_s": 0.0, "executors": 2, "cores": 8, "current_plan": current,
            "ingest_gb_per_hour": ingest, "feasible": all(p <= 10.0 for p in p99s), "tenants": tenants}


def test_capacity_is_the_largest_ingest_within_sla_and_the_first_breach_the_least_over_it():
    points = [_point(400.0, [5.0, 6.0], current=True), _point(900.0, [9.0, 10.0]), _point(1200.0, [9.0, 40.0]),
              _point(800.0, [12.0, 11.0]), _point(1500.0, [80.0, 90.0])]
    verdict = option_verdict(ClusterOption("x"), points, current_ingest=600.0)
    where = {"loads": 1, "spacing_s": 0.0, "executors": 2, "cores": 8}
    assert verdict["max_ingest_gb_per_hour"] == 900.0 and verdict["max_point"] == {"load_gb": 0.9, **where}
    assert verdict["first_breach"] == {"tenant": "api", "p99_ms_during": 12.0, "sla_p99_ms": 10.0,
                                       "ingest_gb_per_hour": 800.0, "load_gb": 0.8, **where}
    assert verdict["headroom"] == 1.5 and verdict["current_plan_feasible"] is True
    nothing = option_verdict(ClusterOption("y"), [_point(800.0, [12.0, 11.0], current=True)], current_ingest=800.0)
    # nothing within SLA: the capacity lies below the smallest point tried, the headroom unknown (not 0)
    assert (nothing["max_ingest_gb_per_hour"], nothing["headroom"], nothing["current_plan_feasible"]) == (None, None, False)
    assert nothing["ingest_tried_gb_per_hour"] == [800.0, 800.0]
    assert verdict["headroom_at_least"] is False
    everything = option_verdict(ClusterOption("z"), [_point(400.0, [5.0, 6.0], current=True), _point(900.0, [9.0, 9.0])],
                                current_ingest=400.0)
    # nothing over SLA: the capacity is at least the largest point tried
    assert (everything["headroom"], everything["headroom_at_least"], everything["ingest_tried_gb_per_hour"]) == (2.25, True, [400.0, 900.0])


def _load(loads, feasible, option="x", cores=8, gb=2.0, executors=2):
    return {"option": option, "load_gb": gb, "loads": loads, "spacing_s": 0.0, "executors": executors, "cores": cores,
            "feasible": feasible, "ingest_gb_per_hour": 10.0 * loads * executors * cores}


def test_extending_doubles_the_loads_until_a_breach_and_slows_the_job_until_one_holds():
    """The extension alone: stated thresholds stand in for the model (x holds up to 5 loads, y only
    2 cores, z never breaches)."""
    holds = {"x": lambda p: p.loads <= 5, "y": lambda p: p.write_cores <= 2, "z": lambda p: True}
    runs = []

    def tasks_of(asks):
        runs.append([(o.name, p.loads, p.executors, p.cores) for o, p in asks])
        return [_load(p.loads, holds[o.name](p), o.name, p.cores, executors=p.executors) for o, p in asks]
    options = [ClusterOption("x"), ClusterOption("y"), ClusterOption("z")]
    points = [_load(1, True), _load(2, True), _load(1, False, "y"), _load(2, False, "y"), _load(1, True, "z"), _load(2, True, "z")]
    added, bounds = extend(tasks_of, options, points, steps=3, fits=lambda o, p: p.loads <= 8)
    assert runs == [[("x", 4, 2, 8), ("y", 1, 1, 8), ("z", 4, 2, 8)],
                    [("x", 8, 2, 8), ("y", 1, 1, 4), ("z", 8, 2, 8)],
                    [("y", 1, 1, 2)]]
    # x bracketed between 4 and 8 loads, y between 2 and 4 cores; z's next doubling is past the model's limits
    assert bounds == {"z": "the next step, 16 loads, is past the model's limits (--force)"}
    assert len(added) == 7


def test_refining_bisects_the_one_axis_two_bracketing_points_differ_on():
    """The bisection alone: a stated threshold (within SLA up to 5 loads) stands in for the model."""
    runs = []

    def tasks_of(mids):
        runs.append([(option.name, point.loads) for option, point in mids])
        return [_load(point.loads, point.loads <= 5, option.name) for option, point in mids]
    points = [_load(1, True), _load(2, True), _load(16, False), _load(4, False, gb=1.0),
              _load(1, False, "y"), _load(2, True, "z"), _load(8, True, "z")]
    added = refine(tasks_of, [ClusterOption("x"), ClusterOption("y"), ClusterOption("z")], points, steps=5)
    # x: 2 within, 16 over -> 9 (over), 5 (within), 7 (over), 6 (over); then 5 and 6 are neighbours
    assert runs == [[("x", 9)], [("x", 5)], [("x", 7)], [("x", 6)]]
    assert [(p["loads"], p["feasible"], p["refined"]) for p in added] == [(9, False, True), (5, True, True), (7, False, True),
                                                                         (6, False, True)]
    assert bracket([_load(2, True), _load(4, False, gb=1.0)]) is None    # another load size is no bracket


@pytest.fixture(scope="module")
def tiny_plan():
    """The published fix (a quarter of its size) on its cluster and with 6 brokers, 2 x 2 load points (~2 s)."""
    return run_plan(FIXED, SMALL, TINY_GRID, seed=1, workers=1, extend_steps=0)


def test_six_brokers_absorb_the_light_loads_that_three_cannot(tiny_plan):
    options = {o["name"]: o for o in tiny_plan["options"]}
    assert [(p["option"], p["load_gb"], p["loads"]) for p in tiny_plan["points"]] == [
        (o, gb, n) for o in ("current", "brokers=6") for gb in (0.25, 0.5) for n in (1, 2)]
    six = [p for p in tiny_plan["points"] if p["option"] == "brokers=6"]
    assert six[0]["feasible"] and not six[-1]["feasible"]        # lightest within SLA, heaviest over it
    assert options["current"]["max_ingest_gb_per_hour"] is None
    assert options["brokers=6"]["max_ingest_gb_per_hour"] == max(p["ingest_gb_per_hour"] for p in six if p["feasible"])
    # the job's own load (0.5 GB x 1) is a grid point: its figure is the current plan's
    assert tiny_plan["current_plan"]["load_gb"] == 0.5 and not tiny_plan["current_plan"]["feasible"]
    assert options["brokers=6"]["headroom"] == pytest.approx(options["brokers=6"]["max_ingest_gb_per_hour"]
                                                             / tiny_plan["current_plan"]["ingest_gb_per_hour"], rel=1e-5)
    assert options["brokers=6"]["current_plan_feasible"] is True


def test_the_plan_does_not_depend_on_the_worker_count(tiny_plan):
    assert run_plan(FIXED, SMALL, TINY_GRID, seed=1, workers=2, extend_steps=0) == tiny_plan


def test_a_point_on_several_seeds_counts_at_its_worst(tiny_plan):
    second = run_plan(FIXED, SMALL, TINY_GRID, seed=2, workers=2, extend_steps=0)
    both = run_plan(FIXED, SMALL, TINY_GRID, seed=1, workers=2, repeat=2, extend_steps=0)
    assert (both["seed"], both["seeds"], tiny_plan["seeds"]) == (1, [1, 2], [1])
    assert any(not p["feasible"] for p in tiny_plan["points"]) and any(p["feasible"] for p in tiny_plan["points"])
    for one, two, worst in zip(tiny_plan["points"], second["points"], both["points"]):
        if not one["feasible"]:    # over an SLA on seed 1: its verdict is settled, seed 2 is not run
            assert worst == {**one, "seeds_run": 1}
            continue
        assert "seeds_run" not in worst
        assert worst["load_seconds"] == max(one["load_seconds"], two["load_seconds"])
        assert worst["ingest_gb_per_hour"] == min(one["ingest_gb_per_hour"], two["ingest_gb_per_hour"])
        assert worst["produce_requests"] == max(one["produce_requests"], two["produce_requests"])
        assert [t["p99_ms_during"] for t in worst["tenants"]] == [
            max(a["p99_ms_during"], b["p99_ms_during"]) for a, b in zip(one["tenants"], two["tenants"])]
        assert worst["feasible"] == (one["feasible"] and two["feasible"])


def test_the_spark_engine_gives_the_same_plan(tiny_plan):
    from pyspark import SparkContext
    seen = []
    assert run_plan(FIXED, SMALL, TINY_GRID, seed=1, engine="spark", extend_steps=0,
                    progress=lambda d, n, running: seen.append((d, n))) == tiny_plan
    assert seen[-1] == (8, 8)
    assert SparkContext._gateway is None and SparkContext._active_spark_context is None  # session and JVM stopped


def test_bad_engine_and_empty_axis_are_one_line_errors():
    with pytest.raises(ScenarioError, match=r"^--engine: expected one of local, spark, got 'flink'$"):
        run_plan(FIXED, SMALL, TINY_GRID, engine="flink")
    with pytest.raises(ScenarioError, match=r"^--loads: expected at least one value$"):
        run_plan(FIXED, SMALL, {"loads": ""})


def test_two_plans_keep_their_points_results_in_one_directory_without_overwriting_each_others(tmp_path):
    """--keep-results names each point's file after the plan's scenario file and --set values."""
    grid = {"load_gb": "0.25", "loads": "1", "brokers": "6"}
    run_plan(FIXED, SMALL, grid, seed=1, workers=1, extend_steps=0, keep_dir=tmp_path)
    run_plan(BASELINE, SMALL, grid, seed=1, workers=1, extend_steps=0, keep_dir=tmp_path)
    run_plan(BASELINE, SMALL[:3], grid, seed=1, workers=1, extend_steps=0, keep_dir=tmp_path)
    label = "windows.before=2s-windows.after=2s-dataset.files.0.size=512MB"
    names = sorted(path.name for path in tmp_path.iterdir())
    assert len(names) == 12, names   # 2 options x 2 points (0.25 GB and the job's own) x 3 plans
    assert f"paypay-glue-2gb-fixed-brokers=6-0.25gb-x1-0s-{label}-tenants.1.sla_p99=10.5ms-seed1.json" in names
    assert f"paypay-glue-2gb-brokers=6-0.25gb-x1-0s-{label}-tenants.1.sla_p99=10.5ms-seed1.json" in names
    assert f"paypay-glue-2gb-brokers=6-0.25gb-x1-0s-{label}-seed1.json" in names
