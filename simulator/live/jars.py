"""The jars a broker runs from: resolved from Maven Central by localstack/pom.xml once per pom
version and kept in .build/kafka-jars/ (or an existing Kafka install's libs/ via KAFKA_HOME)."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from simulator.live._process import StackError

ROOT = Path(__file__).resolve().parents[2]
LOCALSTACK = ROOT / "localstack"
JARS_CACHE = ROOT / ".build" / "kafka-jars"


def _silent(line: str) -> None:
    pass


@dataclass(frozen=True)
class KafkaJars:
    """A classpath for ``java -cp``, the JMX exporter agent jar, the Kafka version and where they came from."""

    classpath: str
    agent: Path
    version: str
    origin: str


def resolve_jars(progress: Callable[[str], None] = _silent) -> KafkaJars:
    """The brokers' classpath and the JMX exporter agent, resolved by Maven once per pom and reused.
    With ``KAFKA_HOME`` set, that install's libs/ and only the agent from Maven Central."""
    home = os.environ.get("KAFKA_HOME")
    if home and not (Path(home) / "libs").is_dir():
        raise StackError(f"KAFKA_HOME={home} has no libs/ folder: point it at an unpacked Kafka distribution")
    pom = LOCALSTACK / "pom.xml"
    cache = JARS_CACHE / (hashlib.sha256(pom.read_bytes()).hexdigest()[:12] + ("-agent" if home else ""))
    if not (cache / "agent").is_dir():
        _maven_copy(pom, cache, agent_only=bool(home), progress=progress)
    lib = Path(home) / "libs" if home else cache / "lib"
    versions = [m.group(1) for jar in lib.glob("kafka_2.1*.jar") if (m := re.fullmatch(r"kafka_2\.1\d-([\d.]+)\.jar", jar.name))]
    if not versions:
        raise StackError(f"{lib} holds no kafka_2.13-<version>.jar: not a Kafka classpath")
    return KafkaJars(str(lib / "*"), next((cache / "agent").glob("jmx_prometheus_javaagent-*.jar")),
                     versions[0], f"KAFKA_HOME={home}" if home else "Maven Central")


def run_maven(command: list[str], partial: Path, what: str) -> None:
    """Run Maven into the ``partial`` folder; on failure remove it and raise one line naming
    ``what`` failed and Maven's first [ERROR] (or that it did not answer in 15 minutes)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        errors = [line[8:] for line in (done.stdout + done.stderr).splitlines() if line.startswith("[ERROR] ")] if done else []
        raise StackError(f"{what} failed: "
                         + (errors[0] if errors else "no answer in 15 min" if done is None else f"mvn exited with {done.returncode}"))


def _mvn(needed_for: str) -> str:
    mvn = shutil.which("mvn")
    if not mvn:
        raise StackError(f"mvn not found on PATH: {needed_for}")
    return mvn


def _maven_copy(pom: Path, cache: Path, agent_only: bool, progress: Callable[[str], None]) -> None:
    mvn = _mvn("the live stack resolves Kafka's jars with Maven 3 (or set KAFKA_HOME)")
    progress(f"resolving {'the JMX exporter agent' if agent_only else 'the Kafka jars'} from Maven Central into {cache} (once) ...")
    started, partial = time.monotonic(), cache.with_name(f"{cache.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    command = [mvn, "-q", "-B", "-Dstyle.color=never", "-f", str(pom), "dependency:copy-dependencies",
               f"-DoutputDirectory={partial / 'lib'}"] + (["-DincludeArtifactIds=jmx_prometheus_javaagent"] if agent_only else [])
    run_maven(command, partial, "resolving the Kafka jars with Maven")
    (partial / "agent").mkdir()
    for jar in (partial / "lib").glob("jmx_prometheus_javaagent-*.jar"):
        jar.rename(partial / "agent" / jar.name)
    try:
        partial.rename(cache)
    except OSError:   # another process resolved it first
        shutil.rmtree(partial)
    progress(f"resolved in {time.monotonic() - started:.1f} s")


def java_command() -> str:
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        raise StackError(f"java not found ({'JAVA_HOME=' + home if home else 'not on PATH'}): the Kafka brokers need Java 17 or later")
    return java


INTERCEPTOR = ROOT / "interceptor"
INTERCEPTOR_JAR = "quietload-append-trace.jar"
INTERCEPTOR_CLASS = "quietload.trace.AppendTraceInterceptor"


def interceptor_jar(progress: Callable[[str], None] = _silent) -> Path:
    """The append-trace interceptor's jar, built by Maven from interceptor/ once per change of its
    sources (into .build/interceptor/<their hash>/) and reused."""
    sources = sorted([INTERCEPTOR / "pom.xml", *(INTERCEPTOR / "src").rglob("*.java")])
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()[:12]
    built = ROOT / ".build" / "interceptor" / digest
    if not (built / INTERCEPTOR_JAR).is_file():
        mvn = _mvn("the append-trace interceptor is built with Maven 3")
        progress(f"building the append-trace interceptor into {built} (once) ...")
        partial = built.with_name(f"{digest}.partial-{os.getpid()}")
        shutil.rmtree(partial, ignore_errors=True)
        run_maven([mvn, "-q", "-B", "-Dstyle.color=never", "-f", str(INTERCEPTOR / "pom.xml"), "package",
                   f"-Dquietload.build={partial}"], partial, "building the append-trace interceptor with Maven")
        built.mkdir(parents=True, exist_ok=True)
        os.replace(partial / INTERCEPTOR_JAR, built / INTERCEPTOR_JAR)
        shutil.rmtree(partial, ignore_errors=True)
    return built / INTERCEPTOR_JAR
