"""The live stack: the same scenarios on real components (Kafka brokers first)."""
from simulator.live.jars import KafkaJars, resolve_jars
from simulator.live._process import StackError
from workloads.prometheus_text import metric_sum, parse_metrics
from simulator.live.kafka import (KafkaCluster, Node, NodeStatus, render_status,
                                  render_stopped)

__all__ = ["KafkaCluster", "KafkaJars", "Node", "NodeStatus", "StackError", "metric_sum",
           "parse_metrics", "render_status", "render_stopped", "resolve_jars"]
