"""The judge: a run's figures over its load's steady part (which seconds, the job's counts over
them), and the live repeats' spreads per configuration, judged only where no run was noise."""
import dataclasses

import pytest

from reports.fidelity import render_repeats
from simulator.contract.steady import middle_seconds, steady_middle
from simulator.evaluator import model_evaluator
from tuner.fidelity import repeat_target
from tuner.repeats import Spread, repeats
from workloads import CATALOG, Scenario

# one 1-core executor and 100 MB: a model load of 2.0-8.97 s
SMALL = ["dataset.files.0.size=100MB", "batch.spark.spark.executor.instances=1", "batch.spark.spark.executor.cores=1",
         "windows.before=2s", "windows.after=1s"]


@pytest.fixture(scope="module")
def run():
    return model_evaluator().evaluate(Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", SMALL), 1)


def test_the_steady_part_runs_from_the_first_to_the_last_whole_second_at_half_the_busiest_pace():
    # a live 12 MB load of 3.04-8.48 s: two slow seconds (the JVM warming), then the job's pace
    records = [0, 0, 0, 0, 561, 768, 6463, 9200, 3488, 0]
    assert middle_seconds(3.04, 8.48, records) == (6, 7)       # 6,463 and 9,200 reach 4,600; second 8 is partial
    assert middle_seconds(3.04, 8.48, [0.0] * 10) is None       # no record at all
    assert middle_seconds(3.2, 3.9, records) is None            # no whole second inside the load


def test_a_model_run_carries_the_job_lines_and_its_steady_part_is_their_sum_over_it(run):
    requests = run.timelines["job.batch.produce_requests_per_s"]
    records = run.timelines["job.batch.records_per_s"]
    assert run.windows["during"][0] == 2.0 and 8.9 < run.windows["during"][1] < 9.0
    assert sum(requests) == run.summary.produce_requests
    middle = steady_middle(run)
    assert (middle.first_s, middle.last_s, middle.seconds) == (2, 7, 6)   # the model's job runs at its pace from its start
    assert middle.produce_requests == sum(requests[2:8]) == 24275
    assert middle.records == pytest.approx(sum(records[2:8]))
    assert middle.requests_per_s == pytest.approx(24275 / 6)
    assert middle.records_per_request == pytest.approx(sum(records[2:8]) / 24275)
    assert middle.neighbour_p99_ms == {name: max(run.timelines[f"tenant.{name}.p99_ms"][2:8])
                                       for name in ("payment-api", "fraud-scoring")}


def test_a_run_without_job_lines_or_a_whole_second_of_load_has_no_steady_part(run):
    assert steady_middle(dataclasses.replace(run, timelines={"second": run.timelines["second"]})) is None
    assert steady_middle(dataclasses.replace(run, windows={**run.windows, "during": [2.1, 2.9]})) is None


def test_a_spread_gives_its_median_its_largest_distance_and_its_largest_factor():
    spread = Spread((90.0, 100.0, 130.0))
    assert (spread.median, spread.distance, spread.factor) == (100.0, 0.3, 1.3)


def _live(run, seed, per_second, noise=(), requests=None, p99=None, waits=None, brokers=1):
    """``run`` labelled a live run of ``seed`` on ``brokers`` brokers whose job sent ``per_second``
    requests a second in the middle, ``requests`` over the whole load and payment-api's p99 during it
    ``p99`` (else the model's)."""
    line = list(run.timelines["job.batch.produce_requests_per_s"])
    line[2:8] = [per_second] * 6
    tenants = tuple(dataclasses.replace(t, p99_ms_during=p99) if p99 is not None and t.name == "payment-api" else t
                    for t in run.summary.tenants)
    summary = dataclasses.replace(run.summary, noise=tuple(noise), tenants=tenants, core_waits=waits,
                                  produce_requests=run.summary.produce_requests if requests is None else requests)
    return dataclasses.replace(run, evaluator="live", seed=seed, summary=summary,
                               scenario={**run.scenario, "cluster": {**run.scenario["cluster"], "brokers": brokers}},
                               timelines={**run.timelines, "job.batch.produce_requests_per_s": line})


def test_repeats_are_judged_over_the_whole_load_and_printed_with_their_spread(run):
    records = sum(run.timelines["job.batch.records_per_s"][2:8])
    agreeing = [_live(run, seed, rate, requests=count, p99=p99)
                for seed, rate, count, p99 in ((1, 1000, 30000, 10.0), (2, 1100, 33000, 11.0), (3, 950, 28500, 9.0))]
    [spread] = repeats([run, *agreeing])             # the model's run is not a repeat
    assert spread.seeds == (1, 2, 3) and spread.verdict is True and spread.misses == []
    assert spread.figures["requests"].values == (30000.0, 33000.0, 28500.0)
    assert spread.figures["steady requests/s"].values == (1000.0, 1100.0, 950.0)     # shown, not judged
    assert spread.figures["steady records/request"].median == pytest.approx(records / 6000)
    assert spread.middles[0] == "seed 1: seconds 2-7 of load 2.0-9.0 s"
    lines = render_repeats([spread])
    assert "| paypay-glue-2gb | requests | 30,000.0 | 28,500.0-33,000.0 | 10% |" in lines
    assert "| paypay-glue-2gb | payment-api p99 during (ms) | 10.0 | 9.0-11.0 | 10% |" in lines
    assert lines[-1].startswith("paypay-glue-2gb: repeats; seed 1: seconds 2-7")
    # the steady pace 20 % from its median alone does not fail the judge; a neighbour's p99 20 % off does
    [steady_apart] = repeats([_live(run, 1, 1000), _live(run, 2, 1200), _live(run, 3, 950)])
    assert steady_apart.verdict is True
    [apart] = repeats([_live(run, seed, 1000, p99=p99) for seed, p99 in ((1, 10.0), (2, 12.0), (3, 9.5))])
    assert apart.verdict is False and apart.misses == ["payment-api p99 during (ms)"]
    assert render_repeats([apart])[-1].startswith("paypay-glue-2gb: does NOT repeat (payment-api p99 during (ms))")
    target = repeat_target([spread, apart])
    assert target.passed is False and target.detail == "1 of 2 hold; misses: paypay-glue-2gb (payment-api p99 during (ms))"


def test_a_configuration_of_several_brokers_is_shown_and_not_judged(run):
    three = [_live(run, seed, 1000, requests=count, brokers=3) for seed, count in ((1, 100), (2, 200), (3, 300))]
    [spread] = repeats(three)
    assert spread.brokers == 3 and spread.verdict is None
    assert repeat_target([spread]).detail == "no configuration judged (paypay-glue-2gb (several brokers))"


def test_each_groups_wait_for_a_core_is_shown_beside_the_figures(run):
    waits = {"payment-api": {"threads": 4, "run_s": 0.5, "wait_s": 0.17, "wait_pct": 1.8, "judged": True},
             "brokers' cores": {"cores": 1, "foreign_s": 0.0, "foreign_pct": 0.0}}
    [spread] = repeats([_live(run, 1, 1000, waits=waits), _live(run, 2, 1000, waits=waits)])
    assert spread.figures["payment-api waited for a core (%)"].values == (1.8, 1.8)
    assert spread.figures["brokers' cores: others' time (%)"].values == (0.0, 0.0)
    assert spread.verdict is True        # shown, not judged: a run over the share is noise already


def test_a_configuration_with_a_noisy_run_is_shown_and_not_judged(run):
    [spread] = repeats([_live(run, 1, 1000), _live(run, 2, 3000, ["the machine was saturated: load average up to 14.2"])])
    assert spread.verdict is None and spread.noise == ("seed 2: the machine was saturated: load average up to 14.2",)
    assert render_repeats([spread])[-1].endswith("NOISE seed 2: the machine was saturated: load average up to 14.2")
    assert repeat_target([spread]).passed is None
