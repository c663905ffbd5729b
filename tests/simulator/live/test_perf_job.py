"""The live producer job's parts that need no stack: kafka-producer-perf-test's command line from a
scenario, its output read back, several instances' reports together, and what it cannot run."""
import pytest

from simulator.live.perf_job import combine, parse_output, perf_command
from simulator.live.evaluator import check_producer_job
from workloads import Scenario, ScenarioError

SCENARIO = {"name": "perf", "cluster": {"brokers": 1, "topics": [{"name": "bench", "partitions": 3}]},
            "batch": {"kind": "producer", "topic": "bench", "records": 1000, "record_size": "100B",
                      "throughput": "1500.5/s", "client": {"kind": "java", "version": "4.1.1"},
                      "producer": {"acks": 1, "linger.ms": 0}}}

OUTPUT = """5002 records sent, 1000.0 records/sec (0.10 MB/sec), 3.1 ms avg latency, 40.0 ms max latency.
10000 records sent, 1999.6 records/sec (0.19 MB/sec), 2.53 ms avg latency, 41.00 ms max latency, 2 ms 50th, 5 ms 95th, 9 ms 99th, 30 ms 99.9th.

Metric Name                                                       Value
producer-metrics:batch-size-avg:{client-id=batch-load}          : 3210.500
producer-metrics:request-total:{client-id=batch-load}           : 400.000
producer-metrics:record-send-total:{client-id=batch-load}       : 10000.000
producer-metrics:compression-rate-avg:{client-id=batch-load}    : NaN
producer-node-metrics:request-total:{client-id=batch-load, node-id=node-1} : 396.000
"""


def test_perf_tests_command_line_carries_the_jobs_options_and_properties():
    command = perf_command(Scenario.from_mapping(SCENARIO), "127.0.0.1:9092", "lib/*", {})
    at = command.index("org.apache.kafka.tools.ProducerPerformance")
    assert command[at + 1:at + 10] == ["--topic", "bench", "--num-records", "1000", "--record-size", "100",
                                       "--throughput", "1500.5", "--print-metrics"]
    props = command[command.index("--producer-props") + 1:]
    assert props == sorted(props) and "acks=1" in props and "linger.ms=0" in props
    assert "client.id=batch-load" in props and "bootstrap.servers=127.0.0.1:9092" in props


def test_perf_tests_output_reads_as_its_final_line_and_its_producer_metrics():
    report = parse_output(OUTPUT)
    assert report["latency"] == {"count": 10000, "p50": 2.0, "p95": 5.0, "p99": 9.0, "p999": 30.0, "max": 41.0,
                                 "mean": 2.53}
    assert report["producer"] == {"batch-size-avg": 3210.5, "request-total": 400.0, "record-send-total": 10000.0}


def test_instances_together_sum_their_totals_weigh_averages_by_requests_and_keep_the_worst_percentile():
    one, two = parse_output(OUTPUT), parse_output(OUTPUT.replace(": 400.000", ": 100.000")
                                                  .replace(": 3210.500", ": 1000.000").replace("9 ms 99th", "12 ms 99th"))
    producer, latency = combine([one, two])
    assert producer["request-total"] == 500.0 and producer["record-send-total"] == 20000.0
    assert producer["batch-size-avg"] == pytest.approx((3210.5 * 400 + 1000.0 * 100) / 500)
    assert latency["count"] == 20000 and latency["p99"] == 12.0 and latency["p50"] == 2.0


@pytest.mark.parametrize("change, field", [({"payload": "repeated"}, "batch.payload"), ({"keys": 10}, "batch.keys"),
                                           ({"client": {"kind": "librdkafka", "version": "2.6.1"}}, "batch.client.kind")])
def test_what_perf_test_cannot_send_is_refused_before_the_stack_starts(change, field):
    scenario = Scenario.from_mapping({**SCENARIO, "batch": {**SCENARIO["batch"], **change}})
    with pytest.raises(ScenarioError) as error:
        check_producer_job(scenario, None)
    assert error.value.field == field


def test_a_spark_scenario_is_no_producer_job_and_a_fault_run_needs_one(tmp_path):
    assert check_producer_job(Scenario.from_mapping(SCENARIO), None) is True
    with pytest.raises(ScenarioError) as error:
        check_producer_job(Scenario.from_mapping(SCENARIO), 0)
    assert error.value.field == "--kill-broker"
