"""The Java streaming pipelines (Kafka Streams, Flink) built with Maven from their sources under
``simulator/live/streaming_apps/<app>/`` (and ``common/``, what every app shares) and Maven
Central: once per change of those files, into ``.build/streaming-apps/<app>-<digest>/`` (the
app's jar and its runtime dependencies in ``lib/``), then run as
``java -cp 'lib/*' <main class> PROPERTIES``."""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from simulator.live.jars import ROOT, java_command, run_maven
from simulator.live._process import StackError

APPS = ROOT / "simulator" / "live" / "streaming_apps"
BUILDS = ROOT / ".build" / "streaming-apps"
# Flink 2.0 on Java 17 reflects into these (its documented JVM options for Java 17).
FLINK_OPENS = ("--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
                "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                "--add-opens=java.base/java.time=ALL-UNNAMED", "--add-opens=java.base/java.text=ALL-UNNAMED")


def _digest(*folders: Path) -> str:
    sha = hashlib.sha256()
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "target" not in p.parts):
            sha.update(str(path.relative_to(APPS)).encode())
            sha.update(path.read_bytes())
    return sha.hexdigest()[:12]


def build_app(app: str, progress: Callable[[str], None] = lambda line: None) -> Path:
    """The app's build directory (its jar and ``lib/``), built by Maven once per change of its sources."""
    source = APPS / app
    cache = BUILDS / f"{app}-{_digest(source, APPS / 'common')}"
    if (cache / "lib").is_dir():
        return cache
    mvn = shutil.which("mvn")
    if not mvn:
        raise StackError(f"mvn not found on PATH: the {app} pipeline is built with Maven 3")
    progress(f"building the {app} pipeline with Maven into {cache} (once) ...")
    started, partial = time.monotonic(), cache.with_name(f"{cache.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    command = [mvn, "-q", "-B", "-Dstyle.color=never", "-f", str(source / "pom.xml"), f"-Dbuild.dir={partial / 'target'}",
               "package", "dependency:copy-dependencies", f"-DoutputDirectory={partial / 'lib'}"]
    run_maven(command, partial, f"building the {app} pipeline with Maven")
    for jar in (partial / "target").glob("*.jar"):
        jar.rename(partial / "lib" / jar.name)
    shutil.rmtree(partial / "target")
    try:
        partial.rename(cache)
    except OSError:   # another process built it first
        shutil.rmtree(partial)
    progress(f"built in {time.monotonic() - started:.1f} s")
    return cache


def java_pipeline_command(app: str, main_class: str, jvm_options: tuple[str, ...], properties: Path, work: Path,
                          progress: Callable[[str], None] = lambda line: None) -> list[str]:
    """The command line that runs ``app``'s ``main_class`` with the pipeline's properties file; its
    temporary files in ``work``."""
    build = build_app(app, progress)
    options = ["-Xmx512m", f"-Djava.io.tmpdir={work}", *jvm_options]
    return [java_command(), *options, "-cp", str(build / "lib" / "*"), main_class, str(properties)]


def kafka_streams_settings(tenant: Any, bootstrap: str, secure: dict[str, str]) -> dict[str, Any]:
    """A Kafka Streams application's own properties (StreamsConfig's names)."""
    return {"application.id": f"quietload-{tenant.name}", "bootstrap.servers": bootstrap,
            "num.stream.threads": tenant.num_stream_threads, "processing.guarantee": tenant.processing_guarantee,
            **({"commit.interval.ms": int(tenant.commit_interval_ms)} if tenant.commit_interval_ms is not None else {}),
            **secure}


def flink_settings(tenant: Any, bootstrap: str, secure: dict[str, str]) -> dict[str, Any]:
    """A Flink job's configuration (its own names), its Kafka source's and sink's security prefixed."""
    return {"quietload.bootstrap": bootstrap, "quietload.group": f"quietload-{tenant.name}",
            "parallelism.default": tenant.parallelism, "execution.buffer-timeout": int(tenant.buffer_timeout_ms),
            "execution.checkpointing.interval": int(tenant.checkpoint_interval_ms or 0),
            "sink.delivery-guarantee": tenant.delivery_guarantee,
            **{f"{side}.{k}": v for side in ("consumer", "producer") for k, v in secure.items()}}
