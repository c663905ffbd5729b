"""The batch job as AWS Glue runs it, on PySpark 4.1 in local mode: read the CSV from S3 (s3a),
``to_json(struct(*))`` every row, write it to Kafka with the scenario's producer settings.

The driver runs in a process of its own (``python -m simulator.live.spark_job REPORT``, the
request on its stdin: it may hold the cluster's credentials, which never go to a file; a new
session, so its JVM and every thread of it end with the group whatever happens, killed if its
parent dies, and it can be held to its cores). In local mode the Kafka producer lives in that driver JVM, so the
job reads the producer's own metrics from the JVM's MBean server before the session stops.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from simulator.live.jars import INTERCEPTOR_CLASS, LOCALSTACK, ROOT, interceptor_jar
from simulator.live.threads import by_kind, read_threads
from simulator.live._process import StackError, pin_self
from simulator.processes import die_with_parent
from simulator.live.clients import QUIET_LOG, java_security, property_text
from simulator.live.s3 import check_inputs
from workloads import Scenario, ScenarioError

SPARK_JARS = ROOT / ".build" / "spark-jars"
# kafka.producer:type=producer-metrics attributes (kafka-clients' Sender and Selector sensors).
PRODUCER_METRICS = ("request-total", "record-send-total", "batch-size-avg", "records-per-request-avg",
                    "request-latency-avg", "compression-rate-avg", "outgoing-byte-total", "record-size-avg")
_TOTALS = {"request-total", "record-send-total", "outgoing-byte-total"}
# Before the load: this many of the input's rows through the same session and sink options, by a
# producer of its own client.id, so that the JVM's start, the sink's class loading and its first
# JIT-compiled writes fall outside every window and outside the job's producer metrics.
WARM_UP_ROWS = 10_000
WARM_UP_CLIENT_ID = "quietload-warm-up"
READY = "quietload: warmed up, waiting for the load"
LOADED = "quietload: the load is written"
# py4j calls the platform MBean server through its implementation class, which Java 17 keeps closed.
JMX_ACCESS = ("--add-opens=java.management/com.sun.jmx.mbeanserver=ALL-UNNAMED "
               "--add-opens=java.management/com.sun.jmx.interceptor=ALL-UNNAMED")
_S3A = {"fs.s3a.path.style.access": "true", "fs.s3a.connection.ssl.enabled": "false",
        "fs.s3a.endpoint.region": "us-east-1", "fs.s3a.access.key": "test", "fs.s3a.secret.key": "test",
        "fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        "fs.s3a.attempts.maximum": "2", "fs.s3a.retry.limit": "2"}


@dataclass(frozen=True)
class GlueJobReport:
    """What one run of the job did: Spark's own task metrics of the write (rows and bytes its
    scan read, tasks of the stages it ran, tasks of the last one: those that produce), wall-clock start and end (``time.time()``), and the batch
    producer's metrics by their Kafka names (totals summed over client ids, averages weighted
    by request-total; the averages are kafka-clients' windowed ones, the last ~60 s)."""

    topic: str
    rows: int
    input_bytes: int
    tasks: int
    write_tasks: int
    stages: int
    cores: int
    started: float
    ended: float
    wall_seconds: float
    producer: dict[str, float] = field(default_factory=dict)
    warm_up: dict[str, float] = field(default_factory=dict)     # rows and request-total of the warm-up write
    threads: dict[str, dict[str, float]] = field(default_factory=dict)   # the JVM's threads over the load, by kind
    trace: str | None = None        # the append trace the interceptor wrote (with ``trace_dir``)

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.wall_seconds if self.wall_seconds > 0 else 0.0


def producer_options(scenario: Scenario) -> dict[str, str]:
    """The batch producer's properties as the job's ``kafka.<property>`` options, sorted; the
    scenario's client version decides the defaults it fills in (acks=1 for a 2.x client ...).
    Every executor's producer has the job's ``client.id``, the one its client quota meters."""
    batch = scenario.batch
    if batch.client.kind != "java":
        raise ScenarioError("batch.client.kind", f"Spark's Kafka sink runs the Java producer, not {batch.client.kind}")
    properties = batch.producer.as_properties() | {"client.id": batch.client_id}
    return {f"kafka.{name}": property_text(value) for name, value in sorted(properties.items())}


def spark_settings(scenario: Scenario, s3_endpoint: str | None, cores: int) -> dict[str, str]:
    """The session's configuration: the scenario's file splitting and parallelism, s3a on the endpoint."""
    spark = scenario.batch.spark
    settings = {"spark.master": f"local[{cores}]", "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
                "spark.driver.memory": "1g", "spark.driver.extraJavaOptions": JMX_ACCESS,
                "spark.sql.files.maxPartitionBytes": str(spark.max_partition_bytes),
                "spark.sql.files.openCostInBytes": str(spark.open_cost_in_bytes)}
    if spark.default_parallelism:
        settings["spark.default.parallelism"] = str(spark.default_parallelism)
    if s3_endpoint:
        settings |= {f"spark.hadoop.{key}": value for key, value in {"fs.s3a.endpoint": s3_endpoint, **_S3A}.items()}
    return settings


def run_glue_job(scenario: Scenario, bootstrap_servers: str, input_uris: list[str], s3_endpoint: str | None,
                 topic: str | None = None, cores: int | None = None, progress: Callable[[str], None] = lambda line: None,
                 log: Path | None = None, timeout_s: float = 3600.0, security: dict[str, str] | None = None,
                 warm_up_topic: str | None = None, on_started: Callable[[int], None] = lambda pid: None,
                 before_load: Callable[[], None] | None = None, after_load: Callable[[], None] = lambda: None,
                 trace_dir: Path | None = None) -> GlueJobReport:
    """Run the job once in its own driver process and return its report. ``cores`` (default:
    the scenario's spark.executor.cores) is capped to the cores this process may use; the
    driver is held to that many of them. ``security`` holds the cluster's client settings in
    librdkafka's names; the producer gets them as kafka-clients properties. The driver's log
    goes to ``log`` (default: a temporary file kept only if the job fails); a failure is one
    StackError line. ``on_started`` gets the driver's pid before its JVM starts (to hold it to a
    CPU budget). With ``before_load`` the driver starts its session, writes WARM_UP_ROWS rows to
    ``warm_up_topic`` (when given), and waits: ``before_load()`` runs then, and the load starts
    when it returns; ``after_load()`` runs as soon as the load's write returns. With ``trace_dir``
    the executors' producers carry the append-trace interceptor, whose file lands there."""
    if not input_uris:
        raise ScenarioError("input", "the job needs at least one input file")
    if s3_endpoint:
        check_inputs(s3_endpoint, input_uris)
    _check_topic(bootstrap_servers, topic or scenario.batch.topic, security or {})
    allowed = sorted(os.sched_getaffinity(0))
    cores = max(1, min(cores or scenario.batch.spark.executor_cores, len(allowed)))
    request = {"topic": topic or scenario.batch.topic, "uris": input_uris, "bootstrap_servers": bootstrap_servers,
               "key": scenario.batch.key, "repartition": scenario.batch.spark.repartition,
               "options": producer_options(scenario) | {f"kafka.{key}": value for key, value in java_security(security or {}).items()},
               "settings": spark_settings(scenario, s3_endpoint, cores),
               "cpus": allowed[-cores:], "jars": [str(jar) for jar in resolve_spark_jars(progress)]}
    if trace_dir is not None:    # beside the Kafka sink's jars: loaded by the loader that loads kafka-clients
        request["jars"].append(str(interceptor_jar(progress)))
        request["options"] |= {"kafka.interceptor.classes": INTERCEPTOR_CLASS, "kafka.quietload.trace.dir": str(trace_dir)}
    with tempfile.TemporaryDirectory(prefix="quietload-spark-") as work:
        request["settings"]["spark.local.dir"] = work
        request["warm_up_topic"] = warm_up_topic
        if before_load is not None:     # the go signal: a FIFO the driver waits on once warm
            request["go"] = str(Path(work) / "go")
            os.mkfifo(request["go"])
        # the driver's and its JVM's temporary files stay in ``work``, removed however the job ends
        request["settings"]["spark.driver.extraJavaOptions"] += f" -Djava.io.tmpdir={work}"
        report_file = Path(work) / "report.json"
        log_file = log or Path(work) / "spark-job.log"
        progress(f"running the Glue job on Spark local[{cores}]: {len(input_uris)} file(s) -> {request['topic']} ...")
        with log_file.open("ab") as log_out:
            driver = subprocess.Popen([sys.executable, "-m", "simulator.live.spark_job", str(report_file)],
                                      cwd=ROOT, env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "TMPDIR": work}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_out,
                                      start_new_session=True, preexec_fn=die_with_parent, text=True)
        on_started(driver.pid)
        timer = threading.Timer(timeout_s, _kill_group, (driver.pid,))
        timer.start()
        try:
            try:
                with driver.stdin:
                    driver.stdin.write(json.dumps(request))
            except BrokenPipeError:   # the driver died at once: its exit code and log say why
                pass
            for line in driver.stdout:   # the driver's progress lines
                if line.rstrip("\n") == READY and before_load is not None:
                    before_load()
                    with open(request["go"], "w") as go:
                        go.write("go")
                elif line.rstrip("\n") == LOADED:
                    after_load()
                else:
                    progress(line.rstrip("\n"))
            driver.wait()
        finally:
            timer.cancel()
            _kill_group(driver.pid)   # whatever is left of the driver's JVM
        outcome = json.loads(report_file.read_text()) if report_file.exists() else {}
        if "error" in outcome or driver.returncode != 0:
            kept = log or Path(tempfile.gettempdir()) / f"quietload-spark-job-{driver.pid}.log"
            if log is None:
                shutil.copyfile(log_file, kept)
            reason = outcome.get("error") or (f"no end within {timeout_s:.0f} s" if driver.returncode == -signal.SIGKILL
                                              else f"the driver exited with {driver.returncode}")
            raise StackError(f"the Glue job failed: {reason} (log: {kept})")
    report = GlueJobReport(**outcome)
    progress(f"the job wrote {report.rows:,} rows in {report.wall_seconds:.1f} s ({report.rows_per_second:,.0f} rows/s), "
             f"{report.producer.get('request-total', 0):,.0f} produce requests by its producer's count")
    return report


def resolve_spark_jars(progress: Callable[[str], None] = lambda line: None) -> list[Path]:
    """The Kafka sink and s3a jars (localstack/spark-pom.xml), resolved by Maven once per pom and reused."""
    pom = LOCALSTACK / "spark-pom.xml"
    cache = SPARK_JARS / hashlib.sha256(pom.read_bytes()).hexdigest()[:12]
    if not cache.is_dir():
        mvn = shutil.which("mvn")
        if not mvn:
            raise StackError("mvn not found on PATH: the live job resolves Spark's Kafka and S3 jars with Maven 3")
        progress(f"resolving the Spark Kafka sink and hadoop-aws jars from Maven Central into {cache} (once) ...")
        partial = cache.with_name(f"{cache.name}.partial-{os.getpid()}")
        done = subprocess.run([mvn, "-q", "-B", "-Dstyle.color=never", "-f", str(pom), "dependency:copy-dependencies",
                               f"-DoutputDirectory={partial}"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            errors = [line[8:] for line in (done.stdout + done.stderr).splitlines() if line.startswith("[ERROR] ")]
            raise StackError(f"resolving the Spark jars with Maven failed: {errors[0] if errors else f'mvn exited with {done.returncode}'}")
        try:
            partial.rename(cache)
        except OSError:   # another process resolved it first
            shutil.rmtree(partial)
    return sorted(cache.glob("*.jar"))


def _check_topic(bootstrap_servers: str, topic: str, security: dict[str, str]) -> None:
    """The topic must exist: a missing one stalls the sink for max.block.ms (60 s), then fails."""
    from confluent_kafka import KafkaException     # optional extra (live)
    from confluent_kafka.admin import AdminClient     # optional extra (live)

    admin = AdminClient({"bootstrap.servers": bootstrap_servers, **QUIET_LOG, **security})
    try:
        found = admin.list_topics(topic, timeout=15).topics.get(topic)
    except KafkaException as error:
        raise StackError(f"the Kafka cluster at {bootstrap_servers} did not answer: {error}") from None
    if found is None or found.error is not None:
        raise StackError(f"topic {topic!r} does not exist on {bootstrap_servers}: create it first")


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# The driver process.

def _drive(request: dict) -> dict:
    """The Glue script itself, then the write's metrics; the session stops however it ends."""
    from pyspark.sql import SparkSession     # optional extra (live)
    from pyspark.sql.functions import col, struct, to_json     # optional extra (live)

    builder = SparkSession.builder.appName("quietload-glue-job").config("spark.jars", ",".join(request["jars"]))
    for key, value in request["settings"].items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    try:
        spark.sparkContext.setLogLevel("WARN")
        warm_up = _warm_up(spark, request) if request.get("warm_up_topic") else {}
        frame = spark.read.option("header", True).csv(request["uris"])
        if request["repartition"]:
            frame = frame.repartition(request["repartition"])
        key = [col(request["key"]).alias("key")] if request["key"] else []
        writer = (frame.select(*key, to_json(struct("*")).alias("value")).write.format("kafka")
                  .option("kafka.bootstrap.servers", request["bootstrap_servers"]).option("topic", request["topic"]))
        for option, value in request["options"].items():
            writer = writer.option(option, value)
        store = spark.sparkContext._jsc.sc().statusStore()
        earlier = {stage.stageId() for stage in _stages(spark, store)}
        if request.get("go"):
            print(READY, flush=True)
            with open(request["go"]) as go:
                if go.read() != "go":
                    raise RuntimeError("the run was called off before the load")
        done = threading.Event()
        threading.Thread(target=_report_progress, args=(spark, done), daemon=True).start()
        jvm = int(spark._jvm.java.lang.ProcessHandle.current().pid())
        threads = read_threads(jvm)
        started = time.time()
        writer.mode("append").save()
        ended = time.time()
        threads = by_kind(threads, read_threads(jvm))
        print(LOADED, flush=True)
        done.set()
        trace = _write_trace(spark) if "kafka.interceptor.classes" in request["options"] else None
        # The write's stages, less those adaptive execution skipped (a shuffle's map side planned twice).
        stages = sorted((stage for stage in _stages(spark, store) if stage.stageId() not in earlier
                         and str(stage.status().toString()) != "SKIPPED"), key=lambda stage: stage.stageId())
        return {"topic": request["topic"], "rows": sum(stage.inputRecords() for stage in stages),
                "input_bytes": sum(stage.inputBytes() for stage in stages),
                "tasks": sum(stage.numCompleteTasks() for stage in stages),
                "write_tasks": stages[-1].numCompleteTasks() if stages else 0,
                "stages": len(stages), "cores": len(request["cpus"]), "started": started, "ended": ended,
                "wall_seconds": ended - started, "producer": _producer_metrics(spark, request["options"]["kafka.client.id"]),
                "warm_up": {**warm_up, "request-total": _producer_metrics(spark, WARM_UP_CLIENT_ID)["request-total"]}
                if warm_up else {}, "threads": threads, "trace": None if trace is None else str(trace)}
    finally:
        spark.stop()


def _write_trace(spark: Any) -> Any:
    """The interceptor's file written now (the JVM may end without its exit hook), through the
    loader that loaded the sink's kafka-clients and so the interceptor: its one recorder."""
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    try:
        context = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        loader = jvm.java.lang.Class.forName("org.apache.kafka.clients.producer.KafkaProducer", False, context).getClassLoader()
        interceptor = jvm.java.lang.Class.forName(INTERCEPTOR_CLASS, True, loader)
        method = interceptor.getMethod("writeTrace", gateway.new_array(jvm.java.lang.Class, 0))
        return method.invoke(None, gateway.new_array(jvm.java.lang.Object, 0))
    except Exception as error:    # noqa: BLE001 - the load is written: a run without its trace, said
        print(f"  no append trace: {_root_cause(error)}", flush=True)
        return None


def _warm_up(spark: Any, request: dict) -> dict:
    """The first rows of the input through the sink with the job's options to the scratch topic."""
    from pyspark.sql.functions import col, struct, to_json     # optional extra (live)

    frame = spark.read.option("header", True).csv(request["uris"]).limit(WARM_UP_ROWS)
    key = [col(request["key"]).alias("key")] if request["key"] else []
    writer = (frame.select(*key, to_json(struct("*")).alias("value")).write.format("kafka")
              .option("kafka.bootstrap.servers", request["bootstrap_servers"]).option("topic", request["warm_up_topic"]))
    for option, value in request["options"].items():
        writer = writer.option(option, value)
    writer.option("kafka.client.id", WARM_UP_CLIENT_ID).mode("append").save()
    return {"rows": float(frame.count())}


def _stages(spark: Any, store: Any) -> list:
    seq = store.stageList(None, False, False, spark.sparkContext._gateway.new_array(spark._jvm.double, 0), None)
    return [seq.apply(i) for i in range(seq.size())]


def _report_progress(spark: Any, done: threading.Event) -> None:
    tracker = spark.sparkContext.statusTracker()
    while not done.wait(3.0):
        stages = [tracker.getStageInfo(i) for i in tracker.getActiveStageIds()]
        tasks = ", ".join(f"stage {s.stageId}: {s.numCompletedTasks}/{s.numTasks} tasks" for s in stages if s)
        if tasks:
            print(f"  {tasks}", flush=True)


def _producer_metrics(spark: Any, client_id: str) -> dict[str, float]:
    jvm = spark._jvm
    server = jvm.java.lang.management.ManagementFactory.getPlatformMBeanServer()
    pattern = jvm.javax.management.ObjectName("kafka.producer:type=producer-metrics,client-id=*")
    names = [name for name in server.queryNames(pattern, None) if name.getKeyProperty("client-id") == client_id]
    clients = [{metric: float(server.getAttribute(name, metric)) for metric in PRODUCER_METRICS} for name in names]
    weights = [client["request-total"] for client in clients]
    figures = {}
    for metric in PRODUCER_METRICS:
        values = [client[metric] for client in clients]
        if metric in _TOTALS:
            figures[metric] = sum(values)
        else:   # NaN: no sample in the window
            pairs = [(v, w) for v, w in zip(values, weights) if v == v and w > 0]
            figures[metric] = sum(v * w for v, w in pairs) / sum(w for _, w in pairs) if pairs else 0.0
    figures["producers"] = float(len(clients))
    return figures


def _root_cause(error: BaseException) -> str:
    java = getattr(error, "java_exception", None)
    if java is None:
        return f"{type(error).__name__}: {error}".splitlines()[0]
    while java.getCause() is not None:
        java = java.getCause()
    return str(java.toString()).splitlines()[0]


def main(report_file: str) -> int:
    request = json.load(sys.stdin)
    pin_self(request["cpus"])   # the JVM that pyspark starts inherits it
    try:
        outcome = _drive(request)
    except Exception as error:   # noqa: BLE001 - reported to the caller as one line
        outcome = {"error": _root_cause(error)}
    Path(report_file).write_text(json.dumps(outcome))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
