"""What the bench scripts share, imported by name (each script's own folder is first on its path):
the project's folders, the figures' format, a fresh process of a project tree, and the live probes'
rig (the probe's javac and launcher, the broker's request-time histograms, the machine's other
runnable threads, the broker's CPU by kind of thread). Nothing of the project is imported before it is
used: a tree of another revision runs ``bench/sim_speed.py --measure`` with this module beside it."""
from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 1
CATALOG = ROOT / "workloads" / "catalog"
PUBLISHED = CATALOG / "paypay-glue-2gb.yaml"
VALUE_BYTES = 1000
PARTS = ("RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs",
         "TotalTimeMs")
BASE = {"linger.ms": "0", "acks": "1", "batch.size": "16384", "max.request.size": "1048576",
        "enable.idempotence": "false", "compression.type": "none", "max.in.flight.requests.per.connection": "5"}
MB = 1024 ** 2


def three_digits(value: float) -> str:
    """3 significant digits without an exponent: 0.0123, 12.3, 1230."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    rounded = float(f"{value:.3g}")
    decimals = 2 - math.floor(math.log10(abs(rounded)))
    return f"{rounded:.{max(decimals, 0)}f}"


def environment(tree: Path, pycache: Path | None = None) -> dict[str, str]:
    """The project in ``tree`` first on the path; compiled bytecode kept (in ``pycache``, when given),
    as an installed tool has it, even where the environment asks for none."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(tree), **({"PYTHONPYCACHEPREFIX": str(pycache)} if pycache else {})}


def run_python(tree: Path, arguments: list[str], cwd: Path | None = None,
               pycache: Path | None = None) -> subprocess.CompletedProcess:
    """This Python on ``arguments`` with the project in ``tree`` (in ``tree``, unless ``cwd``), its output as text."""
    return subprocess.run([sys.executable, *arguments], cwd=cwd or tree, env=environment(tree, pycache),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)


def topic(partitions: int) -> str:
    return f"cadence-p{partitions}"


def compile_probe(work: Path, classpath: str, source: str = "ProducerProbe.java") -> None:
    """``source``, a probe beside this file, compiled into ``work``."""
    from simulator.live.jars import java_command
    javac = str(Path(java_command()).with_name("javac"))
    subprocess.run([javac, "-d", str(work), "-cp", classpath, str(Path(__file__).with_name(source))], check=True)


def start_probe(work: Path, classpath: str, main: str, args: list[str], cores: list[int]) -> subprocess.Popen[str]:
    """A probe's JVM (``main``, compiled into ``work``) on ``cores`` (any, if none), its output piped as text."""
    from simulator.live.jars import java_command
    return subprocess.Popen([java_command(), "-cp", f"{classpath}:{work}", main, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=(lambda: os.sched_setaffinity(0, cores)) if cores else None)


def others_runnable(own: list[int], every: float, running: threading.Event, samples: list[dict[int, int]]) -> None:
    """Every ``every`` seconds while ``running`` is set: the machine's runnable threads (state R
    in /proc/PID/task/TID/stat) by the core whose run queue holds them, less the probe's, the
    broker's and this process's own (``quietload live``'s own count of the others)."""
    from simulator.live.background import runnable_by_core
    while running.is_set():
        samples.append(runnable_by_core(set(own))[0])
        time.sleep(every)


def run_probe(work: Path, classpath: str, bootstrap: str, seconds: float, append: float | str, size: int,
              cores: list[int], producer: dict[str, str], topic_name: str = "card-transactions",
              watch: list[int] | None = None) -> dict[str, float]:
    """One ProducerProbe run: its figures by name. ``append``: bytes per second (one busy thread)
    or ProducerProbe's APPEND. With ``watch`` (the broker's pids) the figures include
    ``others_runnable``, the mean of the machine's runnable threads besides the probe's, the
    broker's and the bench's over the run, and ``others_cpuN`` the same on core N."""
    args = [bootstrap, topic_name, str(seconds), str(append), str(size)] + [f"{k}={v}" for k, v in producer.items()]
    with start_probe(work, classpath, "ProducerProbe", args, cores) as probe:
        samples: list[dict[int, int]] = []
        running = threading.Event()
        sampler = threading.Thread(target=others_runnable, args=([probe.pid, *(watch or [])], 0.2, running, samples))
        if watch is not None:
            running.set()
            sampler.start()
        out, err = probe.communicate()
        running.clear()
        if watch is not None:
            sampler.join()
    if probe.returncode:
        raise subprocess.CalledProcessError(probe.returncode, probe.args, out, err)
    figures = {k: float(v) for k, v in (item.split("=") for item in out.split())}
    if samples:
        figures["others_runnable"] = statistics.mean(sum(counts.values()) for counts in samples)
        for core in sorted(os.sched_getaffinity(0)):
            figures[f"others_cpu{core}"] = statistics.mean(counts.get(core, 0) for counts in samples)
    return figures


def produce_sums(metrics: dict[str, float]) -> dict[str, tuple[float, float]]:
    """Per time part: (requests counted, their summed ms) from the histogram's Count and all-time Mean."""
    sums = {}
    for part in PARTS:
        count = metrics.get(f'kafka_network_{part}_Count{{request="Produce"}}', 0.0)
        sums[part] = (count, count * metrics.get(f'kafka_network_{part}_Mean{{request="Produce"}}', 0.0))
    return sums


def thread_cpu(pid: int) -> dict[str, float]:
    """The broker JVM's CPU seconds so far per kind of thread (/proc/PID/task/*/stat utime + stime):
    request handlers, network processors, the JIT compiler, the garbage collector, the rest."""
    kinds = (("handler", "request-handler"), ("network", "network-thread"), ("JIT", "Compiler"),
             ("GC", "G1"), ("GC", "GC Thread"))
    ticks = os.sysconf("SC_CLK_TCK")
    cpu: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rpartition(")")[2].split()
        except OSError:        # a thread that ended meanwhile
            continue
        kind = next((k for k, marker in kinds if marker in name), "other")
        cpu[kind] = cpu.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return cpu
