"""The versions quietload knows: Kafka's and librdkafka's release lines, the kafka-clients each
Spark release's Kafka connector brings, and the Spark each managed platform runs.

A version decides defaults (kafka-clients 2.x: acks=1, no idempotence; 3.x: acks=all with
idempotence; 4.x: linger.ms=5) and batching (KIP-480 or KIP-794), so a version outside these
lines is refused rather than read as the nearest one.

Sources:
- Apache Kafka release lines 2.0-4.3: the kafka-clients versions Maven Central serves
  (org.apache.kafka:kafka-clients, e.g. 2.8.1, 3.4.1, 3.9.1, 4.1.1, 4.3.0).
- librdkafka 0.11, 1.0-1.9, 2.0-2.16: the confluent-kafka releases on PyPI, which follow it.
- Spark -> kafka-clients: the ``kafka.version`` property of each Spark release's parent pom
  (org.apache.spark:spark-parent, the version spark-sql-kafka-0-10 depends on): 2.4.3 2.0.0,
  3.1.1 2.6.0, 3.2.0 2.8.0, 3.3.0 2.8.1, 3.4.0 3.3.2, 3.5.0/3.5.4/3.5.6 3.4.1, 4.0.0 3.9.0,
  4.1.0 3.9.1.
- AWS Glue -> Spark: AWS Glue versions, https://docs.aws.amazon.com/glue/latest/dg/release-notes.html
  (5.1 Spark 3.5.6, 5.0 3.5.4, 4.0 3.3.0, 3.0 3.1.1, 2.0 2.4.3).
- Amazon EMR 7.x -> Spark 3.5: Application versions in Amazon EMR 7.x releases,
  https://docs.aws.amazon.com/emr/latest/ReleaseGuide/emr-release-app-versions-7.x.html
  (emr-7.0.0 Spark 3.5.0 ... emr-7.12.0 Spark 3.5.x).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from workloads.errors import ScenarioError

KAFKA_LINES = tuple([(2, minor) for minor in range(9)] + [(3, minor) for minor in range(10)]
                    + [(4, minor) for minor in range(4)])
LIBRDKAFKA_LINES = ((0, 11), *((1, minor) for minor in range(10)), *((2, minor) for minor in range(17)))
LINES = {"java": KAFKA_LINES, "librdkafka": LIBRDKAFKA_LINES}

# Spark release line -> the kafka-clients its spark-sql-kafka-0-10 brings
SPARK_KAFKA_CLIENTS = {"2.4": "2.0.0", "3.1": "2.6.0", "3.2": "2.8.0", "3.3": "2.8.1", "3.4": "3.3.2",
                       "3.5": "3.4.1", "4.0": "3.9.0", "4.1": "3.9.1"}
GLUE_SPARK = {"5.1": "3.5.6", "5.0": "3.5.4", "4.0": "3.3.0", "3.0": "3.1.1", "2.0": "2.4.3"}
EMR_RELEASES = {f"7.{minor}.0": "3.5" for minor in range(13)}   # emr-7.0.0 .. emr-7.12.0


def parse_version(value: Any, path: str) -> tuple[int, int, int]:
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\.(\d+))?", str(value).strip())
    if not match:
        raise ScenarioError(path, f"expected a version like 2.8.1, got {value!r}")
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def _lines(kind: str) -> str:
    lines = LINES[kind]
    spans: list[str] = []
    for major in sorted({m for m, _ in lines}):
        minors = [n for m, n in lines if m == major]
        spans.append(f"{major}.{minors[0]}" + (f"-{major}.{minors[-1]}" if len(minors) > 1 else ""))
    return ", ".join(spans)


def known_version(kind: str, version: tuple[int, int, int], path: str) -> tuple[int, int, int]:
    """``version`` if it is on one of ``kind``'s release lines (java: Apache Kafka's), else one line refusing it."""
    if version[:2] not in LINES[kind]:
        name = "an Apache Kafka" if kind == "java" else f"a {kind}"
        raise ScenarioError(path, f"{'.'.join(map(str, version))} is not {name} release quietload knows "
                                  f"(release lines {_lines(kind)})")
    return version


def kafka_version(value: Any, path: str) -> tuple[int, int, int]:
    """A Kafka cluster's version (its brokers'): an Apache Kafka release."""
    return known_version("java", parse_version(value, path), path)


@dataclass(frozen=True)
class Platform:
    """Where the batch job runs, by name: AWS Glue, Amazon EMR or Apache Spark, and so its Spark and
    the kafka-clients its Kafka connector brings."""

    name: str              # glue, emr or spark
    version: str
    spark: str
    kafka_clients: str

    @property
    def label(self) -> str:
        return f"{ {'glue': 'AWS Glue', 'emr': 'Amazon EMR', 'spark': 'Apache Spark'}[self.name]} {self.version}"


def _line(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _text(value: Any) -> str:
    # YAML reads `glue: 4.0` as a number; a version is its text
    return f"{value:.1f}" if isinstance(value, float) and value == round(value, 1) else str(value).strip()


def platform(raw: Any, path: str) -> Platform:
    """``{glue: 4.0}``, ``{emr: 7.1.0}`` (or ``7.x``) or ``{spark: 3.5}``: one of them."""
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ScenarioError(path, f"expected one of glue: VERSION, emr: VERSION or spark: VERSION, got {raw!r}")
    (name, value), = raw.items()
    where, version = f"{path}.{name}", _text(value)
    if name == "glue":
        if version not in GLUE_SPARK:
            raise ScenarioError(where, f"AWS Glue {version} is not one quietload knows (known: {', '.join(GLUE_SPARK)})")
        spark = GLUE_SPARK[version]
    elif name == "emr":
        release = version[:-2] + ".0" if version.endswith(".x") else version if version.count(".") == 2 else version + ".0"
        if version not in ("7", "7.x") and release not in EMR_RELEASES:
            raise ScenarioError(where, f"Amazon EMR {version} is not one quietload knows (known: 7.x, 7.0.0-7.12.0: Spark 3.5)")
        spark = "3.5"
    elif name == "spark":
        spark = version
    else:
        raise ScenarioError(where, "unknown platform (known: glue, emr, spark)")
    if _line(spark) not in SPARK_KAFKA_CLIENTS:
        raise ScenarioError(where, f"Apache Spark {version} is not one quietload knows (known: {', '.join(SPARK_KAFKA_CLIENTS)})")
    return Platform(name, version, spark, SPARK_KAFKA_CLIENTS[_line(spark)])
