import pytest

from tuner.planning import (GIB, ClusterOption, Grid, LoadPoint, bracket, current_load, ingest_gb_per_hour, option_verdict,
                            refine, run_plan, sized)
from workloads import CATALOG, Scenario, ScenarioError
from workloads.scenario import load_mapping
from workloads.scenario import Plan

FIXED = CATALOG / "paypay-glue-2gb-fixed.yaml"
BASELINE = CATALOG / "paypay-glue-2gb.yaml"
# the published fix at a quarter of its size, with short quiet windows: about 0.2 s a run; the
# fraud-scoring service's SLA at 10.5 ms (6 brokers hold it at 10.04 ms under the lightest load)
SMALL = ["windows.before=2s", "windows.after=2s", "dataset.files.0.size=512MB", "tenants.1.sla_p99=10.5ms"]
TINY_GRID = {"load_gb": "0.25,0.5", "loads": "1,2", "brokers": "6"}


def test_grid_expands_load_sizes_then_loads_then_spacings():
    grid = Grid((1.0, 2.0), (1, 3), (0.0, 60.0))
    assert grid.points() == [LoadPoint(1.0, 1, 0.0), LoadPoint(1.0, 1, 60.0), LoadPoint(1.0, 3, 0.0),
                             LoadPoint(1.0, 3, 60.0), LoadPoint(2.0, 1, 0.0), LoadPoint(2.0, 1, 60.0),
                             LoadPoint(2.0, 3, 0.0), LoadPoint(2.0, 3, 60.0)]


def test_default_grid_goes_around_the_jobs_own_load():
    scenario = Scenario.from_yaml(BASELINE)
    assert current_load(scenario) == LoadPoint(2.0, 1, 0.0)
    assert Grid.of(scenario.plan, current_load(scenario)) == Grid((1.0, 2.0, 4.0), (1, 2), (0.0,))
    given = Plan(load_gb=(3.0,), spacing=(30.0,))
    assert Grid.of(given, current_load(scenario)) == Grid((3.0,), (1, 2), (30.0,))


def test_ingest_is_the_loaded_gb_over_the_load_time_per_hour():
    assert ingest_gb_per_hour(LoadPoint(2.0, 2, 0.0), 9.0) == 1600.0
    assert ingest_gb_per_hour(LoadPoint(0.5, 1, 60.0), 1800.0) == 1.0


def test_a_load_point_scales_every_file_group_by_one_factor():
    mapping = load_mapping(CATALOG / "gzip-input.yaml", [])
    scenario = Scenario.from_mapping(mapping)
    point = Scenario.from_mapping(sized(mapping, scenario, LoadPoint(1.0, 3, 90.0)))
    assert [(g.size, g.count) for g in point.dataset.files] == [(round(150 * 1024**2 * GIB / (24 * 150 * 1024**2)), 24)]
    assert abs(sum(point.dataset.file_sizes) - GIB) <= 24
    assert (point.batch.loads, point.batch.spacing) == (3, 90.0)


def _point(ingest, p99s, current=False):
    tenants = [{"name": name, "p99_ms_during": p99, "sla_p99_ms": 10.0} for name, p99 in zip(("api", "scoring"), p99s)]
    return {"option": "x", "load_gb": ingest / 1000, "loads": 1, "spacing_s": 0.0, "current_plan": current,
            "ingest_gb_per_hour": ingest, "feasible": all(p <= 10.0 for p in p99s), "tenants": tenants}


def test_capacity_is_the_largest_ingest_within_sla_and_the_first_breach_the_least_over_it():
    points = [_point(400.0, [5.0, 6.0], current=True), _point(900.0, [9.0, 10.0]), _point(1200.0, [9.0, 40.0]),
              _point(800.0, [12.0, 11.0]), _point(1500.0, [80.0, 90.0])]
    verdict = option_verdict(ClusterOption("x"), points, current_ingest=600.0)
    assert verdict["max_ingest_gb_per_hour"] == 900.0 and verdict["max_point"] == {"load_gb": 0.9, "loads": 1, "spacing_s": 0.0}
    assert verdict["first_breach"] == {"tenant": "api", "p99_ms_during": 12.0, "sla_p99_ms": 10.0,
                                       "ingest_gb_per_hour": 800.0, "load_gb": 0.8, "loads": 1, "spacing_s": 0.0}
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


def _load(gb, feasible, option="x", loads=1):
    return {"option": option, "load_gb": gb, "loads": loads, "spacing_s": 0.0, "feasible": feasible,
            "ingest_gb_per_hour": 100.0 * gb * loads}


def test_refining_bisects_the_load_between_the_last_point_within_sla_and_the_next_over_it():
    """The bisection alone: a stated threshold (within SLA up to 3.3 GB) stands in for the model."""
    runs = []

    def tasks_of(mids):
        runs.append([(option.name, point.load_gb) for option, point in mids])
        return [_load(point.load_gb, point.load_gb <= 3.3, option.name) for option, point in mids]
    points = [_load(1.0, True), _load(2.0, True), _load(4.0, False), _load(3.0, False, loads=2),
              _load(1.0, False, "y"), _load(2.0, True, "z"), _load(8.0, True, "z")]
    added = refine(tasks_of, [ClusterOption("x"), ClusterOption("y"), ClusterOption("z")], points, steps=3)
    # x: 2 within, 4 over -> 3 (within), 3.5 (over), 3.25 (within); y has nothing within SLA and z nothing over it
    assert runs == [[("x", 3.0)], [("x", 3.5)], [("x", 3.25)]]
    assert [(p["load_gb"], p["feasible"], p["refined"]) for p in added] == [(3.0, True, True), (3.5, False, True), (3.25, True, True)]
    assert bracket([_load(2.0, True), _load(4.0, False, loads=2)]) is None    # another load count is no bracket


@pytest.fixture(scope="module")
def tiny_plan():
    """The published fix (a quarter of its size) on its cluster and with 6 brokers, 2 x 2 load points (~2 s)."""
    return run_plan(FIXED, SMALL, TINY_GRID, seed=1, workers=1)


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
    assert run_plan(FIXED, SMALL, TINY_GRID, seed=1, workers=2) == tiny_plan


def test_a_point_on_several_seeds_counts_at_its_worst(tiny_plan):
    second = run_plan(FIXED, SMALL, TINY_GRID, seed=2, workers=2)
    both = run_plan(FIXED, SMALL, TINY_GRID, seed=1, workers=2, repeat=2)
    assert (both["seed"], both["seeds"], tiny_plan["seeds"]) == (1, [1, 2], [1])
    for one, two, worst in zip(tiny_plan["points"], second["points"], both["points"]):
        assert worst["load_seconds"] == max(one["load_seconds"], two["load_seconds"])
        assert worst["ingest_gb_per_hour"] == min(one["ingest_gb_per_hour"], two["ingest_gb_per_hour"])
        assert worst["produce_requests"] == max(one["produce_requests"], two["produce_requests"])
        assert [t["p99_ms_during"] for t in worst["tenants"]] == [
            max(a["p99_ms_during"], b["p99_ms_during"]) for a, b in zip(one["tenants"], two["tenants"])]
        assert worst["feasible"] == (one["feasible"] and two["feasible"])


def test_the_spark_engine_gives_the_same_plan(tiny_plan):
    from pyspark import SparkContext
    seen = []
    assert run_plan(FIXED, SMALL, TINY_GRID, seed=1, engine="spark", progress=lambda d, n: seen.append((d, n))) == tiny_plan
    assert seen[-1] == (8, 8)
    assert SparkContext._gateway is None and SparkContext._active_spark_context is None  # session and JVM stopped


def test_bad_engine_and_empty_axis_are_one_line_errors():
    with pytest.raises(ScenarioError, match=r"^--engine: expected one of local, spark, got 'flink'$"):
        run_plan(FIXED, SMALL, TINY_GRID, engine="flink")
    with pytest.raises(ScenarioError, match=r"^--loads: expected at least one value$"):
        run_plan(FIXED, SMALL, {"loads": ""})
