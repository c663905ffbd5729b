"""What else runs on the cores a live run placed its components on: the background the model needs
to run the scenario as the rig placed it.

Twice a second, every thread of the machine in state R (running or waiting for a core, from
``/proc/PID/task/TID/stat``) is counted on the core whose run queue holds it (the stat's
``processor``): LocalStack, the Spark driver's Python process, the rest of the machine's work
(``others``), and apart from them the JIT compiler and garbage-collector threads of the
components' own JVMs (``jvm``: the brokers', the job's), which the cost profile otherwise
assumes (``jvm_background_threads``, ``broker_background_threads``). The components' other
threads (request handlers, network processors, task threads, senders) are the model's own.
``stop()`` returns each figure's mean per core.
"""
from __future__ import annotations

import os
import statistics
import threading
from pathlib import Path
from typing import Callable

SAMPLE_S = 0.5
JVM_BACKGROUND = ("C1 CompilerThre", "C2 CompilerThre", "GC Thread", "G1 ", "VM Thread")


def runnable_by_core(components: set[int]) -> tuple[dict[int, int], dict[int, int]]:
    """(others, jvm): runnable threads per core outside the processes ``components``, and the JIT and
    GC threads runnable inside them."""
    others: dict[int, int] = {}
    jvm: dict[int, int] = {}
    me = os.getpid()
    for stat in Path("/proc").glob("[0-9]*/task/[0-9]*/stat"):
        pid = int(stat.parts[2])
        if pid == me:
            continue
        try:
            text = stat.read_text()
        except OSError:          # a thread that ended meanwhile
            continue
        name, _, rest = text.partition(" (")[2].rpartition(")")
        fields = rest.split()
        if not fields or fields[0] != "R":
            continue
        core = int(fields[36])
        if pid not in components:
            others[core] = others.get(core, 0) + 1
        elif name.startswith(JVM_BACKGROUND):
            jvm[core] = jvm.get(core, 0) + 1
    return others, jvm


class BackgroundSampler:
    """Samples ``runnable_by_core`` from ``start()`` to ``stop()``; ``components()`` names the
    processes whose threads the model follows (asked at each sample: processes start meanwhile)."""

    def __init__(self, components: Callable[[], set[int]], every: float = SAMPLE_S) -> None:
        self.components, self.every = components, every
        self.samples: list[tuple[dict[int, int], dict[int, int]]] = []
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, name="quietload-background", daemon=True)

    def start(self) -> None:
        if Path("/proc/self/stat").exists():
            self._thread.start()

    def _run(self) -> None:
        while not self._halt.wait(self.every):
            self.samples.append(runnable_by_core(self.components()))

    def stop(self) -> dict[str, dict[int, float]]:
        """{"others": {core: mean}, "jvm": {core: mean}} over the samples (empty without any)."""
        if self._thread.is_alive():
            self._halt.set()
            self._thread.join()
        if not self.samples:
            return {}
        cores = sorted(os.sched_getaffinity(0))
        return {kind: {core: round(statistics.mean(sample[i].get(core, 0) for sample in self.samples), 3)
                       for core in cores} for i, kind in enumerate(("others", "jvm"))}
