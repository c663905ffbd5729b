"""A topic's partition count read from the metrics' partition dimension (CloudWatch's ``Partition``,
a JMX exporter's ``partition`` label) and said in the scenario's assumptions with where it came
from; a cluster that does not answer on the bootstrap servers is said, and the count assumed.
(The bootstrap servers' read on a real broker: test_bootstrap_live.py.)"""
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import boto3
from botocore.stub import Stubber

from workloads.imports import Imported, Request, build, gather
from workloads.imports.cloudwatch import list_series
from workloads.imports.network import Waits
from workloads.imports.partitions import partitions_in_metrics
from workloads.imports.prometheus import sample


def _metric(name, **dimensions):
    return {"Namespace": "AWS/Kafka", "MetricName": name,
            "Dimensions": [{"Name": k.replace("_", " "), "Value": v} for k, v in dimensions.items()]}


def test_cloudwatchs_partition_dimension_counts_each_topics_partitions():
    client = boto3.client("cloudwatch", region_name="eu-west-1")
    lag = [_metric("OffsetLag", Cluster_Name="payments", Consumer_Group="settle", Topic="card-transactions", Partition=str(p))
           for p in range(30)]
    lag += [_metric("OffsetLag", Cluster_Name="payments", Consumer_Group="fraud", Topic="card-transactions", Partition=str(p))
            for p in range(30)]
    lag += [_metric("EstimatedMaxTimeLag", Cluster_Name="payments", Consumer_Group="api", Topic="payment-events", Partition=str(p))
            for p in range(6)]
    with Stubber(client) as stub:
        stub.add_response("list_metrics", {"Metrics": [_metric("CpuUser", Cluster_Name="payments", Broker_ID="1"), *lag]},
                          {"Namespace": "AWS/Kafka", "Dimensions": [{"Name": "Cluster Name", "Value": "payments"}]})
        found, partitions = list_series(client, "payments")
    assert [m["MetricName"] for m in found] == ["CpuUser"]
    assert partitions == {"card-transactions": 30, "payment-events": 6}


def test_an_exporters_partition_labels_count_each_topics_partitions():
    page = "\n".join([*(f'kafka_log_Log_Size{{partition="{p}",topic="bulk",}} 100.0' for p in range(12)),
                      'kafka_log_Log_Size{partition="0",topic="payments",}  5.0',
                      'kafka_server_BytesInPerSec_total{topic="bulk",} 10.0', "process_cpu_seconds_total 1.0", ""]).encode()

    class Exporter(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    with HTTPServer(("127.0.0.1", 0), Exporter) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            history = sample([f"http://127.0.0.1:{server.server_port}/metrics"], 1.0, 1.0, 2, Waits(5.0, 30.0),
                             sleep=lambda _: None)
        finally:
            server.shutdown()
    assert history.partitions == {"bulk": 12, "payments": 1}


def test_labels_without_a_topic_or_a_partition_count_nothing():
    assert partitions_in_metrics([{"Topic": "a"}, {"Partition": "0"}, {"Topic": "a", "Partition": "0"},
                                  {"Topic": "a", "Partition": "0"}]) == {"a": 1}


def test_each_count_says_where_it_came_from():
    imported = Imported(load_topic="card-transactions", partitions={"card-transactions": 30, "fraud-scores": 6},
                        partitions_from={"card-transactions": "the cloudwatch metrics' partition dimension (the "
                                                              "partitions they name)", "fraud-scores": "given (--partitions)"})
    scenario = build(imported, "counts").scenario
    assert [(t.name, t.partitions) for t in scenario.cluster.topics] == [("card-transactions", 30)]
    assert ("Partition counts from the cloudwatch metrics' partition dimension (the partitions they name): "
            "card-transactions 30.") in scenario.assumptions


def test_a_cluster_that_does_not_answer_is_said_and_the_count_assumed(tmp_path):
    script = tmp_path / "job.py"
    script.write_text('df.write.format("kafka").option("topic", "card-transactions").save()\n')
    imported = gather(Request(script=str(script), bootstrap_servers="127.0.0.1:9", waits=Waits(1.0, 10.0)),
                      clients=lambda service: None)
    assert imported.partitions == {}
    (note,) = imported.notes
    assert re.fullmatch(r"The topics' partition counts were not read from the cluster \(--bootstrap-servers: 127\.0\.0\.1:9: "
                        r"no broker answered within --timeout 1 s \([0-9.]+ s waited: Failed to get metadata: Local: Broker "
                        r"transport failure\)\)\.", note)
    assert ("Assumed: 6 partitions for card-transactions (not read from the cluster (--bootstrap-servers) nor in the "
            "metrics' partition dimension; give --partitions TOPIC=N).") in build(imported, "x").scenario.assumptions
