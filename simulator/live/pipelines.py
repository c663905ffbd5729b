"""Each streaming kind's live app, registered under its name (workloads.kinds): a Spark query in a
driver process of its own (``streaming_spark``, its trigger by kind), or a Java app built with
Maven (``streaming_java``: Kafka Streams, Flink), and how each is launched."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar

from simulator.live.clients import java_security, property_text
from simulator.live.spark_job import resolve_spark_jars
from simulator.live.streaming_java import FLINK_OPENS, flink_settings, java_pipeline_command, kafka_streams_settings
from simulator.live.streaming_spark import SparkTrigger, continuous, micro_batches, real_time, request_for
from workloads.kinds import kind_of

Say = Callable[[str], None]


@dataclass(frozen=True)
class SparkQueryApp:
    """A Structured Streaming query on PySpark in local mode; its records pass through unchanged."""

    trigger: Callable[[Any], SparkTrigger]
    does_work: ClassVar[bool] = False      # record_cost is the model's only

    def launch(self, tenant: Any, work: Path, bootstrap: str, security: dict[str, str], cpus: list[int],
               say: Say) -> tuple[list[str], str | None]:
        """The driver's command line and the request it reads on its standard input."""
        checkpoint = work / tenant.name
        checkpoint.mkdir()
        request = request_for(tenant, self.trigger(tenant), bootstrap, str(checkpoint), cpus,
                              [str(jar) for jar in resolve_spark_jars(say)])
        secure = {f"kafka.{k}": v for k, v in java_security(security).items()}
        request["source"] |= secure
        request["sink"] |= secure
        return [sys.executable, "-m", "simulator.live.streaming_spark"], json.dumps(request)


@dataclass(frozen=True)
class JavaApp:
    """A Java pipeline (``streaming_apps/<app>``) run with a properties file: its framework's own
    settings, its Kafka clients' under ``consumer.``/``producer.``, its topics and per-record work
    under ``quietload.*``."""

    app: str
    main_class: str
    jvm_options: tuple[str, ...]
    settings: Callable[[Any, str, dict[str, str]], dict[str, Any]]
    does_work: ClassVar[bool] = True       # record_cost of CPU per record

    def properties(self, tenant: Any, bootstrap: str, security: dict[str, str]) -> dict[str, str]:
        clients = {**{f"consumer.{k}": v for k, v in tenant.consumer.as_properties().items()},
                   **{f"producer.{k}": v for k, v in tenant.sink.as_properties().items()}}
        ours = {"quietload.input": tenant.topic, "quietload.output": tenant.output_topic,
                "quietload.work.ns": round(tenant.record_cost * 1e9)}
        framework = self.settings(tenant, bootstrap, java_security(security))
        return {k: property_text(v) for k, v in sorted({**framework, **clients, **ours}.items())}

    def launch(self, tenant: Any, work: Path, bootstrap: str, security: dict[str, str], cpus: list[int],
               say: Say) -> tuple[list[str], str | None]:
        properties = work / f"{tenant.name}.properties"
        properties.touch(mode=0o600)     # it may hold the cluster's credentials
        properties.write_text("".join(f"{k}={v}\n" for k, v in self.properties(tenant, bootstrap, security).items()))
        return java_pipeline_command(self.app, self.main_class, self.jvm_options, properties, work, say), None


LAUNCHERS: dict[str, SparkQueryApp | JavaApp] = {
    "spark-microbatch": SparkQueryApp(micro_batches),
    "spark-continuous": SparkQueryApp(continuous),
    "spark-realtime": SparkQueryApp(real_time),
    "kafka-streams": JavaApp("kafka-streams", "quietload.streaming.KafkaStreamsPipeline", (), kafka_streams_settings),
    "flink": JavaApp("flink", "quietload.streaming.FlinkPipeline", FLINK_OPENS, flink_settings),
}


def launcher(tenant: Any) -> SparkQueryApp | JavaApp:
    """A streaming tenant's live app."""
    return LAUNCHERS[kind_of(tenant).name]
