import copy
import json

import pytest

from judging.advice import candidates, tried_advice
from judging.gate import (FAIL, PASS, SKIPPED, UNTRIED, broker_cpu, check, check_runs, failed_rules, handler_idle, load_deadline,
                          neighbour_sla, produce_request_rate, Verdict)
from simulator.contract import ResultError, RunResult
from workloads import Gate

# A small run shaped like the published baseline: linger.ms=0, no compression, acks=1,
# 3 brokers, two neighbours with a 10 ms SLA, the load from 2.0 s to 6.5 s.
RUN = {
    "schema_version": 1, "evaluator": "model", "seed": 7,
    "scenario": {"name": "glue", "batch": {"producer": {"batch.size": 131072, "linger.ms": 0.0,
                                                        "compression.type": "none", "acks": "1"}}},
    "summary": {
        "load_seconds": 4.5, "batch_fill": 0.35, "drain_interval_ms": 0.27, "mean_batch_bytes": 46080.0,
        "wire_bytes": 3489990000.0, "replica_lag_bytes_max_during": 18206500.0,
        "tenants": [
            {"name": "payment-api", "sla_p99_ms": 10.0, "p99_ms_before": 8.6, "p99_ms_during": 581.72,
             "broker_time_ms_p99_during": {"LocalTimeMs": 14.7, "RemoteTimeMs": 77.83, "TotalTimeMs": 91.2}},
            {"name": "fraud-scoring", "sla_p99_ms": 10.0, "p99_ms_before": 4.0, "p99_ms_during": 9.96,
             "broker_time_ms_p99_during": {"LocalTimeMs": 1.0, "RemoteTimeMs": 3.0, "TotalTimeMs": 4.0}},
        ],
    },
    "brokers": [
        {"id": 0, "RequestHandlerAvgIdlePercent": {"during": 28.04}, "cpu_percent": {"during": 78.61}},
        {"id": 1, "RequestHandlerAvgIdlePercent": {"during": 52.5}, "cpu_percent": {"during": 59.96}},
        {"id": 2, "RequestHandlerAvgIdlePercent": {"during": 12.0}, "cpu_percent": {"during": 61.0}},
    ],
    "spark": {"write_tasks": 60, "slots": 16, "waves": 4},
    "windows": {"before": [0.0, 2.0], "during": [2.0, 6.5], "after": [6.5, 8.5]},
    # Seconds 2, 3, 4 and 5 lie wholly inside the load; second 6 only half (not counted).
    "timelines": {"produce_requests_per_s": [450, 450, 15000, 16000, 17000, 18000, 90000, 450, 450]},
}


def _run(changes: dict | None = None) -> RunResult:
    """RUN with ``changes`` laid over it (nested mappings merged key by key)."""
    def merged(base: dict, more: dict) -> dict:
        out = copy.deepcopy(base)
        for key, value in more.items():
            out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
        return out
    return RunResult.from_dict(merged(RUN, changes or {}))


def _tenants(*p99s: float | None) -> dict:
    tenants = copy.deepcopy(RUN["summary"]["tenants"])
    for tenant, p99 in zip(tenants, p99s):
        tenant["p99_ms_during"] = p99
    return {"summary": {"tenants": tenants[:len(p99s)]}}


DEFAULTS = Gate()


def test_neighbour_over_its_sla_fails_naming_only_the_breaching_neighbour():
    verdict = neighbour_sla(_run(), DEFAULTS)
    assert (verdict.rule, verdict.status) == ("neighbour_sla", FAIL)
    assert verdict.reason == "neighbour p99 during the load over SLA: payment-api 581.7 ms > SLA 10.0 ms"


def test_a_p99_just_over_its_sla_is_shown_with_the_decimal_that_tells_them_apart():
    verdict = neighbour_sla(_run(_tenants(10.04, 9.96)), DEFAULTS)
    assert verdict.reason == "neighbour p99 during the load over SLA: payment-api 10.04 ms > SLA 10.00 ms"


def test_neighbours_within_sla_pass_with_every_figure():
    verdict = neighbour_sla(_run(_tenants(10.0, 1234.5 / 1000)), DEFAULTS)
    assert verdict.status == PASS
    assert verdict.reason == ("neighbour p99 during the load within SLA: "
                              "payment-api 10.0 ms <= SLA 10.0 ms, fraud-scoring 1.2 ms <= SLA 10.0 ms")


def test_neighbour_without_records_during_the_load_is_named_but_not_judged():
    verdict = neighbour_sla(_run(_tenants(None, 9.0)), DEFAULTS)
    assert verdict.status == PASS
    assert verdict.reason.endswith("fraud-scoring 9.0 ms <= SLA 10.0 ms (payment-api: no records during the load)")
    assert neighbour_sla(_run(_tenants(None)), DEFAULTS).status == SKIPPED


def test_no_neighbours_skips_the_sla_rule():
    verdict = neighbour_sla(_run({"summary": {"tenants": []}}), DEFAULTS)
    assert (verdict.status, verdict.reason) == (SKIPPED, "no neighbours in this scenario")


def test_handler_idle_below_the_floor_names_each_broker():
    verdict = handler_idle(_run(), DEFAULTS)
    assert (verdict.rule, verdict.status) == ("handler_idle", FAIL)
    assert verdict.reason == "RequestHandlerAvgIdlePercent during the load below 30 %: broker 0 28.0 %, broker 2 12.0 %"


def test_handler_idle_passes_with_the_lowest_broker():
    verdict = handler_idle(_run(), Gate(handler_idle_min=12))
    assert verdict.status == PASS
    assert verdict.reason == "lowest RequestHandlerAvgIdlePercent during the load 12.0 % (broker 2), at least 12 % required"


def test_cpu_above_the_msk_line_names_each_broker():
    verdict = broker_cpu(_run(), DEFAULTS)
    assert (verdict.rule, verdict.status) == ("broker_cpu", FAIL)
    assert verdict.reason == "broker CPU during the load above 60 %: broker 0 78.6 %, broker 2 61.0 %"


def test_cpu_passes_with_the_busiest_broker():
    verdict = broker_cpu(_run(), Gate(cpu_max=78.61))
    assert verdict.status == PASS
    assert verdict.reason == "highest broker CPU during the load 78.6 % (broker 0), at most 78.61 % allowed"


def test_request_rate_is_the_mean_over_whole_seconds_of_the_load_per_broker():
    # (15000 + 16000 + 17000 + 18000) / 4 = 16,500/s over 3 brokers = 5,500/s each
    verdict = produce_request_rate(_run(), DEFAULTS)
    assert (verdict.rule, verdict.status) == ("produce_request_rate", FAIL)
    assert verdict.reason == ("produce requests 5,500/s per broker during the load (16,500/s over 3 brokers), "
                              "above the maximum of 5,000/s")
    passing = produce_request_rate(_run(), Gate(requests_per_broker_max=5500))
    assert passing.status == PASS
    assert passing.reason.endswith("(16,500/s over 3 brokers), at most 5,500/s allowed")


def test_load_shorter_than_a_second_skips_the_metric_rules():
    short = _run({"windows": {"during": [2.0, 2.6]}, "brokers": [
        {"id": 0, "RequestHandlerAvgIdlePercent": {"during": None}, "cpu_percent": {"during": None}}]})
    assert [(v.status, v.reason) for v in (handler_idle(short, DEFAULTS), broker_cpu(short, DEFAULTS))] == [
        (SKIPPED, "the load lasted less than one full second of broker metrics")] * 2
    assert produce_request_rate(short, DEFAULTS).reason == "the load lasted less than one full second of the timeline"


def test_deadline():
    assert load_deadline(_run(), Gate(deadline=4.0)).reason == "the load took 4.5 s, past its deadline of 4.0 s"
    assert load_deadline(_run(), Gate(deadline=4.0)).status == FAIL
    assert load_deadline(_run(), Gate(deadline=600)).reason == "the load took 4.5 s, within its deadline of 600.0 s"
    assert load_deadline(_run(), Gate(deadline=4.5)).status == PASS
    unstated = load_deadline(_run(), DEFAULTS)
    assert (unstated.status, unstated.reason) == (SKIPPED, "the load took 4.5 s; no deadline stated (--deadline)")


@pytest.mark.parametrize("changes, message", [
    ({"summary": {"tenants": [{"name": "payment-api", "sla_p99_ms": 10.0}]}},
     "result: RunResult lacks summary.tenants[0].p99_ms_during"),   # the reader's: a neighbour's figure every file has
    ({"brokers": [{"id": 0, "cpu_percent": {"during": 50.0}}]}, "RunResult lacks brokers[0].RequestHandlerAvgIdlePercent"),
    ({"brokers": []}, "RunResult lacks brokers"),
    # figures of the wrong type stop at the reader's schema check, before any rule
    ({"timelines": {"produce_requests_per_s": None}}, "result: timelines.produce_requests_per_s must be a list, got None"),
    ({"windows": {"during": None}}, "result: windows.during must be a list, got None"),
    ({"summary": {"load_seconds": "4.5 s"}}, "result: summary.load_seconds must be a finite number or null, got '4.5 s'"),
])
def test_a_result_without_a_rule_s_figures_is_unusable(changes, message):
    with pytest.raises(ResultError) as raised:
        check(_run(changes), Gate(deadline=60.0))
    assert str(raised.value) == message


def recommend(result, failed):
    """The candidate changes a result's figures point to, as words (before any is tried on the model)."""
    return [f"{change.action}: {change.because}" for change in candidates(result, failed)]


HEADROOM = ("isolate the load with a producer_byte_rate quota on the batch client (or revisit the SLA): payment-api "
            "already had a p99 of 8.6 ms before the load (86 % of its 10.0 ms SLA), leaving the load 1.4 ms")


def test_baseline_like_run_fails_with_hints_tied_to_its_figures():
    report = check(_run())
    assert not report.passed
    assert [v.status for v in report.verdicts] == [FAIL, FAIL, FAIL, FAIL, SKIPPED]
    assert report.recommendations == (UNTRIED,)   # no scenario to try a change on: no untested hint as advice
    assert recommend(_run(), {"neighbour_sla", "handler_idle", "broker_cpu", "produce_request_rate"}) == [
        "raise linger.ms (e.g. 10) so batches fill: with linger.ms=0 the sender drained every 0.27 ms and "
        "batches reached 35 % of batch.size=128.0 KB (45.0 KB of records)",
        "set compression.type=zstd: the load sent 3.3 GB to the brokers uncompressed",
        "use acks=all (with enable.idempotence=true) so the load cannot outrun replication: with acks=1 "
        "replication fell 17.4 MB behind and payment-api's requests waited 77.8 ms for followers "
        "(RemoteTimeMs p99) against an SLA of 10.0 ms",
        HEADROOM,
    ]
    assert report.render().splitlines() == [
        "FAIL glue (model, seed 7): 4 of 5 rules failed, 1 skipped",
        "  neighbour_sla: neighbour p99 during the load over SLA: payment-api 581.7 ms > SLA 10.0 ms",
        "  handler_idle: RequestHandlerAvgIdlePercent during the load below 30 %: broker 0 28.0 %, broker 2 12.0 %",
        "  broker_cpu: broker CPU during the load above 60 %: broker 0 78.6 %, broker 2 61.0 %",
        "  produce_request_rate: produce requests 5,500/s per broker during the load (16,500/s over 3 brokers), "
        "above the maximum of 5,000/s",
        "recommended change",
        *(f"  - {hint}" for hint in report.recommendations),
    ]


FIXED_PRODUCER = {"batch": {"producer": {"linger.ms": 10.0, "compression.type": "zstd", "acks": "all"}}}


def test_fixed_settings_with_followers_holding_the_neighbour_up_ask_for_more_fetchers():
    scenario = {**FIXED_PRODUCER, "cluster": {"broker": {"num.replica.fetchers": 2}}}
    hints = recommend(_run({"scenario": scenario}), {"neighbour_sla"})
    # payment-api is over its SLA and spent 77.8 of its 91.2 ms (85 %) waiting for followers
    assert hints == ["give the brokers more replica fetchers, num.replica.fetchers (now 2): payment-api's requests "
                     "spent 77.8 of their 91.2 ms in the brokers waiting for followers (RemoteTimeMs p99), whose "
                     "fetches also carry the load's partitions", HEADROOM]


def test_fixed_settings_leave_only_the_neighbour_s_headroom_to_say():
    tenants = copy.deepcopy(RUN["summary"]["tenants"])
    tenants[0]["broker_time_ms_p99_during"] = {"LocalTimeMs": 14.7, "RemoteTimeMs": 60.0, "TotalTimeMs": 91.2}
    hints = recommend(_run({"scenario": FIXED_PRODUCER, "summary": {"tenants": tenants}}), {"neighbour_sla"})
    assert hints == [HEADROOM]


def test_the_headroom_hint_names_a_neighbour_over_its_sla_not_a_tighter_one_within_it():
    tenants = copy.deepcopy(RUN["summary"]["tenants"])
    tenants[0]["broker_time_ms_p99_during"] = {"LocalTimeMs": 14.7, "RemoteTimeMs": 60.0, "TotalTimeMs": 91.2}
    tenants[1]["p99_ms_before"] = 9.5      # fraud-scoring: 95 % of its SLA alone, but 9.96 ms during: within it
    hints = recommend(_run({"scenario": FIXED_PRODUCER, "summary": {"tenants": tenants}}), {"neighbour_sla"})
    assert hints == [HEADROOM]


def test_hints_need_their_mechanism_in_the_figures():
    # Batches already over half full, acks=1 but followers not what the neighbours waited for.
    quiet = {"summary": {"batch_fill": 0.8, "tenants": [{"name": "api", "sla_p99_ms": 10.0, "p99_ms_before": 2.0, "p99_ms_during": None,
                                                         "broker_time_ms_p99_during": {"RemoteTimeMs": 4.9}}]}}
    assert recommend(_run(quiet), {"broker_cpu"}) == [
        "set compression.type=zstd: the load sent 3.3 GB to the brokers uncompressed"]
    assert recommend(_run({**quiet, "scenario": FIXED_PRODUCER}), {"broker_cpu"}) == []


def test_a_late_load_in_waves_asks_for_cores():
    assert recommend(_run(), {"load_deadline"}) == [
        "give the job more executor cores: its 60 write tasks ran in 4 waves on 16 cores"]


def test_passing_gate_has_no_recommendation_and_one_line():
    within = [{"name": "payment-api", "sla_p99_ms": 10.0, "p99_ms_before": 8.6, "p99_ms_during": 9.2}]
    calm = {"summary": {"tenants": within}, "brokers": [
        {"id": 0, "RequestHandlerAvgIdlePercent": {"during": 94.3}, "cpu_percent": {"during": 41.0}}],
        "timelines": {"produce_requests_per_s": [450, 450, 2000, 2000, 2000, 2000, 450, 450, 450]}}
    report = check(_run(calm), Gate(deadline=600))
    assert report.passed and report.recommendations == ()
    # the PASS line shows each rule's margin: the figure closest to its limit
    assert report.render() == ("PASS glue (model, seed 7): 5 of 5 rules passed: p99 9.2 ms of a 10.0 ms SLA (payment-api); handler idle 94.3 % "
                               "(at least 30 %); CPU 41.0 % of 60 %; 2,000 of 5,000 produce requests/s per broker; "
                               "load 4.5 s of a 600.0 s deadline")


CALM = {"summary": {"tenants": [{"name": "payment-api", "sla_p99_ms": 10.0, "p99_ms_before": 8.6, "p99_ms_during": 9.9}]},
        "brokers": [{"id": 0, "RequestHandlerAvgIdlePercent": {"during": 94.3}, "cpu_percent": {"during": 41.0}}],
        "timelines": {"produce_requests_per_s": [450, 450, 2000, 2000, 2000, 2000, 450, 450, 450]}}


def _seed(seed: int, p99_ms: float) -> RunResult:
    tenant = {**CALM["summary"]["tenants"][0], "p99_ms_during": p99_ms}
    return _run({**CALM, "seed": seed, "summary": {"tenants": [tenant]}})


def test_over_several_seeds_a_rule_fails_when_it_fails_on_any_of_them():
    report = check_runs([_seed(1, 9.9), _seed(2, 10.1), _seed(3, 9.8), _seed(4, 10.2)], Gate(deadline=600))
    assert not report.passed and report.seeds == (1, 2, 3, 4)
    assert report.render().splitlines()[:2] == [
        "FAIL glue (model, seeds 1-4): 1 of 5 rules failed",
        "  neighbour_sla: on 2 of 4 seeds (2, 4); seed 2: neighbour p99 during the load over SLA: payment-api 10.1 ms > SLA 10.0 ms"]
    alone = check(_seed(1, 9.9)).verdicts[1]
    assert report.verdicts[1] == Verdict("handler_idle", PASS, "on every seed; seed 1: " + alone.reason, alone.margin,
                                         alone.tightness)
    assert report.recommendations == check(_seed(2, 10.1)).recommendations
    assert report.to_dict()["seeds"] == [1, 2, 3, 4]


def test_over_several_seeds_within_sla_on_each_passes():
    report = check_runs([_seed(1, 9.8), _seed(2, 9.96)], Gate(deadline=600))
    # over several seeds a margin is the closest any seed came to its limit
    assert report.render() == ("PASS glue (model, seeds 1-2): 5 of 5 rules passed: p99 9.96 ms of a 10.00 ms SLA "
                               "(payment-api); handler idle 94.3 % (at least 30 %); CPU 41.0 % of 60 %; 2,000 of "
                               "5,000 produce requests/s per broker; load 4.5 s of a 600.0 s deadline")
    assert report.verdicts[0].reason == ("on every seed; seed 2: neighbour p99 during the load within SLA: "
                                         "payment-api 9.96 ms <= SLA 10.00 ms")
    assert check_runs([_seed(1, 9.9)]) == check(_seed(1, 9.9))     # one run: the gate as it was


def test_json_holds_every_verdict_and_the_thresholds(tmp_path):
    report = check(_run(), Gate(deadline=600))
    data = json.loads(report.write_json(tmp_path / "gate.json").read_text())
    assert data["gate"] == "quietload.check" and data["passed"] is False
    assert data["thresholds"] == {"handler_idle_min_pct": 30.0, "cpu_max_pct": 60.0,
                                  "requests_per_broker_max": 5000.0, "deadline_s": 600}
    assert [(v["rule"], v["status"]) for v in data["verdicts"]] == [
        ("neighbour_sla", FAIL), ("handler_idle", FAIL), ("broker_cpu", FAIL), ("produce_request_rate", FAIL),
        ("load_deadline", PASS)]
    assert data["verdicts"][4]["reason"] == "the load took 4.5 s, within its deadline of 600.0 s"
    assert data["recommendations"] == list(report.recommendations)


def _predicted(p99: float, requests: int) -> dict:
    """What a scripted trial returns: RUN's figures with the neighbours' p99 and the request count changed
    (RUN's brokers would fail the broker rules, so those are made calm)."""
    return {**_tenants(p99, 5.0), "summary": {**_tenants(p99, 5.0)["summary"], "produce_requests": requests},
            "brokers": CALM["brokers"], "timelines": CALM["timelines"]}


def test_changes_are_kept_in_the_order_the_model_ranks_them_and_only_while_they_help():
    """A scripted trial stands in for the model (the real one is exercised in tests/quietload/test_cli_check.py):
    zstd brings p99 to 9 ms alone, linger.ms to 50 ms, acks=all makes it worse."""
    effects = {(("batch", "producer", "compression.type"), "zstd"): (9.0, 900),
               (("batch", "producer", "linger.ms"), 10): (50.0, 800), (("batch", "producer", "acks"), "all"): (700.0, 1000),
               (("batch", "quota", "producer_byte_rate"), "128974848B/s"): (600.0, 1000)}
    calls = []

    def trial(changes):
        calls.append(changes)
        p99, requests = min((effects[c] for c in changes.items() if c in effects), default=(581.72, 1000))
        return [_run(_predicted(p99, requests))]
    run = _run({"summary": {"produce_requests": 1000}})
    failed = {v.rule for v in check(run).verdicts if v.failed}
    advice = tried_advice([run], run, failed, trial, lambda runs: failed_rules(runs, DEFAULTS))
    assert advice.passing == ("batch.producer.compression.type=zstd",)
    assert list(advice.lines) == [
        "compression.type=zstd (the job's owner): the load sent 3.3 GB to the brokers uncompressed; with it the model predicts every "
        "rule passes; payment-api p99 9.0 ms <= SLA 10.0 ms, fraud-scoring p99 5.0 ms <= SLA 10.0 ms; produce "
        "requests 1,000 -> 900",
        "so: --set batch.producer.compression.type=zstd"]
    assert {("batch", "producer", "linger.ms"): 10} in calls     # linger.ms came first among the hints, but was tried, not taken


def test_nothing_is_recommended_when_no_change_passes_on_the_model():
    def trial(changes):
        return [_run(_predicted(700.0, 1000))]    # every change makes the neighbours worse
    run = _run()
    failed = {v.rule for v in check(run).verdicts if v.failed}
    advice = tried_advice([run], run, failed, trial, lambda runs: failed_rules(runs, DEFAULTS))
    lines = list(advice.lines)
    assert lines[0] == "no job or quota change the figures point to improves the model's prediction" and not advice.passing
    assert not any(line.startswith("so: ") for line in lines)
    assert all(line.startswith("tried, not recommended: ") and "payment-api p99 700.0 ms > SLA 10.0 ms" in line
               for line in lines[1:]) and len(lines) > 1


def test_a_gate_result_records_each_neighbours_sla_as_stated_and_in_ms_on_each_seed():
    """Issue 36: the report's first screen says which SLA check used; a relative one as resolved on each run."""
    from pathlib import Path
    data = json.loads((Path(__file__).parents[1] / "golden" / "paypay-glue-2gb.json").read_text())
    runs = []
    for seed, alone in ((1, 8.56), (2, 8.4)):
        run = copy.deepcopy(data)
        run["seed"], run["scenario"]["tenants"][0]["sla_p99"] = seed, "1.5x"
        run["summary"]["tenants"][0]["sla_p99_ms"] = 1.5 * alone
        runs.append(RunResult.from_dict(run, f"seed {seed}"))
    gate = check_runs(runs).to_dict()
    assert gate["slas"] == [{"name": "payment-api", "sla_p99": "1.5x", "sla_p99_ms": [1.5 * 8.56, 1.5 * 8.4]},
                            {"name": "fraud-scoring", "sla_p99": "10ms", "sla_p99_ms": [10.0, 10.0]}]
    assert (gate["change"], gate["paste_needs"]) == ([], "")


def test_each_set_of_changes_runs_and_is_said_once_though_the_wider_levers_search_it_again():
    calls, said = [], []

    def trial(changes):
        calls.append(tuple(changes.items()))
        return [_run(_predicted(700.0 if changes.get(("batch", "producer", "acks")) == "all" else 60.0, 1000))]
    run = _run()
    failed = {v.rule for v in check(run).verdicts if v.failed}
    advice = tried_advice([run], run, failed, trial, lambda runs: failed_rules(runs, DEFAULTS), tried=said.append)
    assert not advice.passing and len(calls) > 1
    assert len(calls) == len(set(calls))    # the job,quota search's sets, not run again by the wider one
    assert len(said) == len(calls) and said[0] == "linger.ms=10"
