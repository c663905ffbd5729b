"""A live run's RunResult from hand-made measurements: every figure follows from the inputs."""
import dataclasses

import pytest

from simulator.live.clients import security_from_environment
from simulator.live.neighbours import TenantTrace
from simulator.live.outcome import LiveRun, build
from simulator.live.sampler import Scrape, handler_idle_pct, per_second, rate, read_scrape
from workloads import CATALOG, Scenario

T0 = 1_000_000.0
NO_TIMES = {part: {"mean": 1.0, "p50": 1.0, "p99": 4.0, "p999": 5.0, "max": 6.0}
            for part in ("TotalTimeMs", "RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs",
                         "ResponseSendTimeMs")}


def _scrape(second: float, produce: float, idle_fraction_so_far: float, cpu: float) -> Scrape:
    return Scrape(at=T0 + second, produce=produce, fetch=0.0, bytes_in=produce * 1000, idle_nanos=idle_fraction_so_far * 1e9,
                  cpu_seconds=cpu, network_idle=0.9, queue_size=second, produce_time=NO_TIMES)


def test_a_second_belongs_to_the_pair_of_scrapes_that_ends_in_it():
    scrapes = [_scrape(0.5, 0, 0.0, 0.0), _scrape(1.5, 100, 0.9, 0.5), _scrape(2.5, 400, 1.2, 1.5)]
    assert per_second(scrapes, T0, 4, rate("produce")) == [None, 100.0, 300.0, None]
    # idle ns per thread grew by 0.9 s, then by 0.3 s, in one-second intervals
    assert per_second(scrapes, T0, 4, handler_idle_pct) == [None, pytest.approx(90.0), pytest.approx(30.0), None]


def test_a_scrape_reads_the_exporters_names():
    metrics = {'kafka_network_RequestsPerSec_total{request="Produce",version="11"}': 7.0,
               'kafka_network_RequestsPerSec_total{request="Produce",version="12"}': 3.0,
               'kafka_network_RequestsPerSec_total{request="FetchFollower",version="17"}': 5.0,
               "kafka_server_RequestHandlerAvgIdleNanos_total": 2e9, "process_cpu_seconds_total": 4.5,
               'kafka_network_RemoteTimeMs_99thPercentile{request="Produce"}': 12.0}
    scrape = read_scrape(metrics, 5.0)
    assert (scrape.produce, scrape.fetch, scrape.idle_nanos, scrape.cpu_seconds) == (10.0, 5.0, 2e9, 4.5)
    assert scrape.produce_time["RemoteTimeMs"]["p99"] == 12.0


def test_security_settings_come_from_quietload_kafka_variables_only():
    environ = {"QUIETLOAD_KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "QUIETLOAD_KAFKA_SASL_PASSWORD": "s3cret",
               "KAFKA_OPTS": "-Xmx1g"}
    assert security_from_environment(environ) == {"sasl.password": "s3cret", "security.protocol": "SASL_SSL"}


def _run() -> LiveRun:
    scenario = Scenario.from_yaml(CATALOG / "paypay-glue-2gb.yaml", ["dataset.files.0.size=40MB"])
    # the run: 0-2 s neighbours alone, 2-4 s the load, 4-6 s alone again; one broker scraped each
    # second at x.5 s, a pair of scrapes counting for the second its end falls in
    scrapes = {0: [_scrape(s + 0.5, produce, idle, cpu) for s, produce, idle, cpu in
                   ((0, 0, 0.0, 0.0), (1, 10, 0.95, 0.1), (2, 510, 1.35, 0.8), (3, 1010, 1.75, 1.5),
                    (4, 1020, 2.7, 1.6), (5, 1030, 3.65, 1.7))]}
    # payment-api: 100 records a second, 5 ms alone, 50 ms during the load
    intended = [T0 + i / 100 for i in range(600)]
    latency = [0.05 if 2.0 <= i / 100 < 4.0 else 0.005 for i in range(600)]
    traces = [TenantTrace("payment-api", intended, latency, failed=0, produce_requests=30),
              TenantTrace("fraud-scoring", intended, [0.004] * 600, failed=0, produce_requests=0)]
    job = {"rows": 50_000, "tasks": 4, "started": T0 + 2.0, "ended": T0 + 4.0, "wall_seconds": 20.0,
           "producer": {"request-total": 985, "batch-size-avg": 40_960.0, "compression-rate-avg": 1.0,
                        "record-send-total": 50_000, "record-size-avg": 800.0, "records-per-request-avg": 50.0}}
    return LiveRun(scenario=scenario, seed=3, started=T0, load_started=T0 + 2.0, load_ended=T0 + 4.0, ended=T0 + 6.0,
                   traces=traces, scrapes=scrapes, job=job,
                   integrity={"ok": True, "rows_expected": 50_000, "rows_arrived": 50_000, "missing": 0, "duplicated": 0},
                   broker_cores=1)


def test_the_jobs_requests_are_the_brokers_count_less_the_neighbours():
    result = build(_run())
    s = result.summary
    assert result.evaluator == "live" and result.seed == 3
    assert s.broker_produce_requests == 1030 and s.neighbour_produce_requests == 30
    assert s.produce_requests == 1000 and s.producer_request_total == 985
    assert s.mean_batch_wire_bytes == 40_960.0 and s.records_per_request == 50.0
    assert s.load_seconds == 2.0 and s.simulated_seconds == 6.0
    assert s.integrity_ok is True


def test_the_jobs_warm_up_write_before_the_windows_is_not_in_the_brokers_count():
    run = _run()
    warmed = dataclasses.replace(run, job={**run.job, "warm_up": {"rows": 10_000.0, "request-total": 20.0}})
    s = build(warmed).summary
    assert s.broker_produce_requests == 1010 and s.produce_requests == 980
    assert s.broker_produce_requests == s.produce_requests + s.neighbour_produce_requests


def test_a_broker_on_half_a_cpu_shows_its_cpu_as_a_share_of_that_half():
    run = dataclasses.replace(_run(), broker_cores=0.5)
    assert build(run).summary.cpu_pct_during == pytest.approx(100.0)     # 0.7 CPU s a second, capped at its 0.5


def test_broker_figures_during_the_load_are_the_seconds_of_the_load():
    s = build(_run()).summary
    # seconds 2 and 3 of the run: the pairs ending at 2.5 s and 3.5 s, idle 0.4 s each
    assert s.handler_idle_pct_during == pytest.approx(40.0)
    assert s.cpu_pct_during == pytest.approx(70.0)        # 0.7 CPU seconds a second on one core
    assert s.remote_time_ms_p99 == 4.0


def test_neighbour_percentiles_follow_the_intended_send_time_windows():
    result = build(_run())
    api = result.summary.tenants[0]
    assert api.name == "payment-api" and api.sla_p99_ms == 10.0
    assert api.p99_ms_before == pytest.approx(5.0, rel=0.01)
    assert api.p99_ms_during == pytest.approx(50.0, rel=0.01)
    assert api.p99_ms_after == pytest.approx(5.0, rel=0.01)
    assert result.timelines["tenant.payment-api.p99_ms"][2] == pytest.approx(50.0, rel=0.01)
    assert result.timelines["produce_requests_per_s"][:6] == [None, 10.0, 500.0, 500.0, 10.0, 10.0]
    assert any("every row exactly once" in line for line in result.mechanism)


def test_a_pipeline_reads_end_to_end_as_the_models_does():
    run = _run()
    traces = [run.traces[0], dataclasses.replace(run.traces[0], name="fraud-detection")]
    streaming = Scenario.from_yaml(CATALOG / "streaming-neighbours.yaml", ["dataset.files.0.size=40MB"])
    result = build(dataclasses.replace(run, scenario=streaming, traces=traces))
    assert "Neighbour payment-api: p99 5.0 ms before the load, 50.0 ms during it (10.0x; SLA 10 ms)." in result.mechanism
    assert ("Pipeline fraud-detection: end to end p99 5.0 ms before the load, 50.0 ms during it (10.0x; SLA 1000 ms)."
            in result.mechanism)


def test_the_waits_for_a_core_are_in_the_summary_and_the_mechanism_and_a_neighbour_over_its_share_marks_the_run():
    waits = {"broker-0": {"threads": 90, "run_s": 2.4, "wait_s": 1.93, "wait_pct": 11.79, "judged": False},
             "payment-api": {"threads": 4, "run_s": 0.9, "wait_s": 0.1, "wait_pct": 5.0, "judged": True},
             "brokers' cores": {"cores": 1, "foreign_s": 0.0, "foreign_pct": 0.0}}
    busy = {"load_avg_1m_max": 9.0, "cores": 2, "iowait_pct": 0.0}     # the job's core busy: no mark where waits were read
    result = build(dataclasses.replace(_run(), waits=waits, machine=busy))
    assert result.summary.core_waits == waits
    assert result.summary.noise == ("placed badly: payment-api's threads waited for a core 5.0 % of the load's window "
                                    "(0.10 s; at most 2 % is a host of its own)",)
    assert any(line.startswith("Waits for a core during the load: broker-0 11.79 % (1.93 s over 90 threads, ran 2.4 s); "
                               "payment-api 5.00 %") and line.endswith("the brokers' cores ran other work 0.00 % (0.00 s).")
               for line in result.mechanism)
    unmeasured = build(dataclasses.replace(_run(), machine=busy)).summary     # no waits: the machine's load judges
    assert unmeasured.core_waits is None and unmeasured.noise[0].startswith("the machine was saturated")


def test_a_producer_jobs_run_reads_perf_tests_latency_and_says_who_wrote():
    run = _run()
    perf = Scenario.from_mapping({"name": "perf", "cluster": {"brokers": 1, "topics": [{"name": "card-transactions", "partitions": 30}]},
                                  "batch": {"kind": "producer", "topic": "card-transactions", "records": 25_000,
                                            "record_size": "800B", "producers": 2},
                                  "tenants": [{"name": t, "topic": "card-transactions", "rate": "100/s", "record_size": "1KB",
                                               "sla_p99": "20ms"} for t in ("payment-api", "fraud-scoring")]})
    latency = {"count": 50_000, "p50": 2.0, "p95": 5.0, "p99": 9.0, "p999": 30.0, "max": 41.0}
    result = build(dataclasses.replace(run, scenario=perf, job={**run.job, "record_latency_ms": latency}))
    assert result.summary.record_latency_ms == latency and result.producers[0]["name"] == "perf-test"
    assert result.mechanism[0].startswith("kafka-producer-perf-test wrote 50,000 rows in 2.0 s")
    assert result.mechanism[1] == ("The job's 50,000 records took 2.00 ms at p50, 5.00 ms at p95, 9.00 ms at p99, "
                                   "30.00 ms at p99.9 and 41.00 ms at most from send() to acknowledgement.")
    # the append rate is per producer instance
    assert result.summary.append_rate_bytes_per_s == pytest.approx(50_000 * 800.0 / 2.0 / 2)
