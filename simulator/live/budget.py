"""CPU budgets of the live stack's components, applied with the kernel's own controls.

Each component gets the CPU the scenario states: every broker ``cluster.broker.vcpus``, the
Spark job ``spark.executor.instances`` x ``spark.executor.cores``, the neighbours' producers
``tenant_host.vcpus``. As root with the cgroup v1 ``cpu`` controller, each component runs in a
group of its own under ``quietload/run-<pid>`` whose ``cpu.cfs_quota_us`` is its budget times a
short ``cpu.cfs_period_us`` (5 ms: a throttled broker stalls for milliseconds, not the kernel's
default 100 ms), in a ``cpuset`` of its cores, and in a ``cpuacct`` group that counts the CPU
it used. Without cgroups (not root, no controller) the components are only pinned to their
cores with ``sched_setaffinity``, and the notes say so.

Cores: the job (the load) gets cores of its own from the last one down; the brokers and the
neighbours get the rest, apart where there are enough; where there are not, the neighbours run on
the job's cores, where they come first on wake-up, and the brokers keep theirs (with the user's
brokers, no cores of ours, the neighbours share the cores the job leaves). LocalStack, the KRaft controller and, with ``lay_out()``,
every other process of the machine run on the job's cores, and the neighbours' threads come first
on wake-up (``simulator.live.layout``): no broker or neighbour thread waits behind them.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from simulator.live.layout import REST, RestOfMachine, first_on_wake_up, real_time_budget, release_real_time
from simulator.live.threads import process_tree, tasks_of
from workloads import Scenario, ScenarioError
from workloads.placement import Host, Placement

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("cpu", "cpuacct", "cpuset")
PARENT = "quietload"
PERIOD_US = 5_000          # the throttling period: short, so a throttled group waits milliseconds
MIN_QUOTA_US = 1_000       # the kernel's smallest cpu.cfs_quota_us
Figure = TypeVar("Figure")   # what ``CpuBudgets._per_group`` reads from each group


@dataclass(frozen=True)
class Budget:
    """One component's CPU: ``vcpus`` of CPU time per second (None: no quota, only its cores)."""

    component: str
    vcpus: float | None
    cores: tuple[int, ...]

    @property
    def period_us(self) -> int:
        """5 ms, longer only where the quota would fall under the kernel's 1 ms minimum."""
        if self.vcpus is None:
            return PERIOD_US
        return max(PERIOD_US, math.ceil(MIN_QUOTA_US / self.vcpus))

    @property
    def quota_us(self) -> int:
        return -1 if self.vcpus is None else round(self.vcpus * self.period_us)

    def render(self) -> str:
        share = f"{self.vcpus:g} vCPU" if self.vcpus is not None else "no quota"
        if self.vcpus is not None and self.vcpus > len(self.cores):    # the machine's cores left it less
            share += f" (at most {len(self.cores)}: the cores it could be given)"
        return f"{self.component} {share} on core{'s' if len(self.cores) > 1 else ''} {','.join(map(str, self.cores))}"


def job_vcpus(scenario: Scenario) -> int:
    """The job's cores: its executors' (a producer job's: a core per instance, its send() loop's)."""
    spark = scenario.batch.spark
    return spark.executors * spark.executor_cores if spark is not None else scenario.batch.producers


def plan_budgets(scenario: Scenario, cores: Iterable[int], brokers: int | None) -> list[Budget]:
    """Each component's budget and cores on a machine with ``cores``; ``brokers`` is the local
    stack's broker count (None: the user's brokers, no budget of ours). A component whose budget
    is more than the machine's cores is a ScenarioError naming its field."""
    cores = sorted(cores)
    n = len(cores)
    broker_vcpus, job, neighbours = scenario.cluster.broker.vcpus, job_vcpus(scenario), scenario.tenant_host.vcpus
    if brokers is not None and broker_vcpus > n:
        raise ScenarioError("cluster.broker.vcpus", f"{broker_vcpus:g} vCPUs do not fit this machine's {n} cores")
    if job > n and scenario.batch.spark is None:
        raise ScenarioError("batch.producers", f"{job} instances, a core each, do not fit this machine's {n} cores")
    if job > n:
        spark = scenario.batch.spark
        raise ScenarioError("batch.spark", f"{spark.executors} executor(s) x {spark.executor_cores} cores = {job} cores do not "
                            f"fit this machine's {n} cores: set spark.executor.instances and spark.executor.cores")
    if neighbours > n:
        raise ScenarioError("tenant_host.vcpus", f"{neighbours:g} vCPUs do not fit this machine's {n} cores")
    job_cores = tuple(cores[n - job:])
    rest = cores[:n - job] or cores
    broker_total = broker_vcpus * (brokers or 0)
    broker_count = min(len(rest), max(1, math.ceil(broker_total))) if brokers else 0
    neighbour_count = min(len(rest), math.ceil(neighbours))
    if broker_count + neighbour_count <= len(rest):     # apart
        broker_cores, neighbour_cores = tuple(rest[:broker_count]), tuple(rest[broker_count:broker_count + neighbour_count])
    elif brokers and len(rest) < n:     # on the job's cores, first on wake-up there (lay_out): the brokers' stay theirs
        broker_cores, neighbour_cores = tuple(rest[:broker_count]), job_cores[:neighbour_count] or job_cores
    else:                                               # sharing the cores the job leaves
        broker_cores, neighbour_cores = tuple(rest[:broker_count]), tuple(rest[len(rest) - neighbour_count:])
    plan = [Budget(f"broker-{i}", broker_vcpus, broker_cores) for i in range(brokers or 0)]
    if brokers:     # idle but for its JVM's start and the brokers' heartbeats: off the brokers' cores
        plan.append(Budget("controller", None, job_cores))
    plan += [Budget("job", job, job_cores), Budget("neighbours", neighbours, neighbour_cores),
             Budget("storage", None, job_cores)]    # LocalStack serves the job's reads: its cost lands on the job's cores
    return plan


def cgroups_available(root: Path = CGROUP_ROOT) -> str | None:
    """None if budgets can be applied with cgroups here, else why not (one phrase)."""
    if os.geteuid() != 0:
        return "not root"
    missing = [c for c in CONTROLLERS if not (root / c / "cgroup.procs").exists()]
    if missing:
        return f"no cgroup v1 {'/'.join(missing)} controller at {root}"
    return None


def pin_tree(pid: int, cores: Iterable[int]) -> None:
    """Every thread of ``pid`` and of its descendants onto ``cores`` (threads made later inherit it)."""
    cores = set(cores)
    for process in process_tree(pid):
        for task in tasks_of(process):
            try:
                os.sched_setaffinity(task, cores)
            except OSError:        # a thread that ended meanwhile
                pass


class CpuBudgets:
    """The run's budgets, applied: ``place(component, pid)`` moves a process (every thread, and
    its children) into the component's group, or pins it where there are no cgroups. As a
    context manager: groups made on entry (leftovers of ended runs removed first), removed on
    exit whatever happened; ``used()`` reads each group's CPU seconds before that."""

    def __init__(self, budgets: list[Budget], root: Path = CGROUP_ROOT, use_cgroups: bool = True) -> None:
        self.budgets = {b.component: b for b in budgets}
        self.root = root
        self.unavailable = cgroups_available(root) if use_cgroups else "cgroups not asked for"
        self.run = f"run-{os.getpid()}"
        self._made: list[Path] = []
        self._rest: RestOfMachine | None = None
        self._real_time: list[Path] = []

    @property
    def applied(self) -> bool:
        return self.unavailable is None

    def __enter__(self) -> "CpuBudgets":
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def group(self, controller: str, component: str | None = None) -> Path:
        base = self.root / controller / PARENT / self.run
        return base / component if component else base

    def start(self) -> None:
        if not self.applied:
            return
        remove_leftovers(self.root)
        try:
            for controller in CONTROLLERS:
                parent = self.root / controller / PARENT
                for path in (parent, self.group(controller)):
                    if not path.exists():
                        path.mkdir()
                        self._made.append(path)
                    if controller == "cpuset":      # a cpuset takes no task before it has cores and memory nodes
                        _inherit_cpuset(path)
                for budget in self.budgets.values():
                    path = self.group(controller, budget.component)
                    path.mkdir()
                    self._made.append(path)
                    if controller == "cpu":
                        (path / "cpu.cfs_period_us").write_text(str(budget.period_us))
                        (path / "cpu.cfs_quota_us").write_text(str(budget.quota_us))
                    elif controller == "cpuset":
                        (path / "cpuset.mems").write_text((path.parent / "cpuset.mems").read_text())
                        (path / "cpuset.cpus").write_text(",".join(map(str, budget.cores)))
        except BaseException:
            self.stop()
            raise

    def place(self, component: str, pid: int) -> None:
        """``pid``, all its threads and its children into the component's groups (or onto its cores)."""
        budget = self.budgets[component]
        if not self.applied:
            pin_tree(pid, budget.cores)
            return
        for process in process_tree(pid):
            for controller in CONTROLLERS:
                try:     # cgroup.procs moves every thread of the process at once
                    (self.group(controller, component) / "cgroup.procs").write_text(str(process))
                except ProcessLookupError:
                    break

    def lay_out(self, rest_on: str = "job") -> None:
        """Every process outside the run's groups held to ``rest_on``'s cores until ``stop()``
        (only where those are not every core the brokers have)."""
        if not self.applied or self._rest is not None:
            return
        cores = self.budgets[rest_on].cores
        if any(set(b.cores) <= set(cores) for name, b in self.budgets.items() if name.startswith("broker-")):
            return
        group, behind = self.group("cpuset", REST), self.group("cpu", REST)
        self._rest = RestOfMachine(group, cores, behind)
        self._made += [group, behind]
        self._rest.start()

    def first_on_wake_up(self, component: str, pid: int) -> int:
        """``component``'s threads (``pid``'s) ahead of the other groups' on wake-up, in the
        real-time class under a bounded budget; the threads set (0 without cgroups)."""
        if not self.applied:
            return 0
        if not self._real_time:
            chain = [self.root / "cpu" / PARENT, self.group("cpu"), self.group("cpu", component)]
            real_time_budget(chain)
            self._real_time = chain
        return first_on_wake_up(pid)

    @property
    def rest_moved(self) -> int:
        """Processes ``lay_out()`` held to the job's cores (0 if it did not)."""
        return self._rest.moved if self._rest else 0

    @property
    def rest_behind(self) -> int:
        """Processes ``lay_out()`` put behind the run's groups on the job's cores (0 if it did not)."""
        return self._rest.behind_moved if self._rest else 0

    def used_by_core(self, components: list[str]) -> dict[int, float]:
        """CPU seconds ``components``' groups have used so far on each core (cpuacct.usage_percpu; empty without cgroups)."""
        per_group = self._per_group("cpuacct", lambda group: [int(v) / 1e9 for v in (group / "cpuacct.usage_percpu").read_text().split()])
        used: dict[int, float] = {}
        for component in components:
            for core, seconds in enumerate(per_group.get(component, [])):
                used[core] = used.get(core, 0.0) + seconds
        return used

    def used(self) -> dict[str, float]:
        """CPU seconds each component's group has used so far (empty without cgroups)."""
        return self._per_group("cpuacct", lambda group: int((group / "cpuacct.usage").read_text()) / 1e9)

    def throttled(self) -> dict[str, float]:
        """Seconds each component's group spent throttled, out of its quota until its next period (cpu.stat)."""
        return self._per_group("cpu", lambda group: _stat(group / "cpu.stat").get("throttled_time", 0) / 1e9)

    def cpu_stat(self) -> dict[str, dict[str, int]]:
        """Each component's group's cpu.stat now: nr_periods, nr_throttled, throttled_time (ns)."""
        return self._per_group("cpu", lambda group: _stat(group / "cpu.stat"))

    def _per_group(self, controller: str, read: Callable[[Path], Figure]) -> dict[str, Figure]:
        if not self.applied:
            return {}
        figures: dict[str, Figure] = {}
        for component in self.budgets:
            try:
                figures[component] = read(self.group(controller, component))
            except OSError:      # a group already removed
                pass
        return figures

    def stop(self) -> None:
        """Every group this run made removed (what still runs in one goes back to the root group)."""
        if self._rest is not None:
            self._rest.stop()
            self._rest = None
        release_real_time(self._real_time)
        self._real_time = []
        for path in reversed(self._made):
            _remove_group(path, self.root / path.relative_to(self.root).parts[0])
        self._made.clear()

    def report(self) -> list[str]:
        """The notes, then what each group used and how long it was throttled (cgroups only)."""
        used, throttled = self.used(), self.throttled()
        if not used:
            return self.notes()
        return self.notes() + ["CPU used: " + "; ".join(
            f"{name} {seconds:.1f} s (throttled {throttled.get(name, 0.0):.1f} s)" for name, seconds in used.items()) + "."]

    def notes(self) -> list[str]:
        how = (f"cgroup v1 cpu quotas (cpu.cfs_quota_us over a {PERIOD_US // 1000} ms cpu.cfs_period_us) in cpusets"
               if self.applied else f"pinning only (sched_setaffinity), no quotas: {self.unavailable}")
        shown = [b.render() for b in self.budgets.values() if not b.component.startswith("broker-") or b.component == "broker-0"]
        brokers = sum(1 for name in self.budgets if name.startswith("broker-"))
        if brokers > 1:
            shown[0] = f"{brokers} brokers, each " + shown[0].removeprefix("broker-0 ")
        return [f"CPU budgets by {how}: {'; '.join(shown)}."]


def machine_cores() -> set[int]:
    """The cores a run may plan on: this process's, once the groups of ended runs are gone. A run killed
    before its cleanup leaves every process of the machine behind its ``rest`` cpuset, on the cores it
    left them (one of two here): its next run would read those as the machine's and refuse its budgets."""
    if cgroups_available() is None:
        remove_leftovers()
    return os.sched_getaffinity(0)


def remove_leftovers(root: Path = CGROUP_ROOT) -> list[str]:
    """The groups of runs whose process has ended (killed before they could clean up), removed."""
    removed = []
    for controller in CONTROLLERS:
        parent = root / controller / PARENT
        if not parent.is_dir():
            continue
        for run in parent.iterdir():
            if run.is_dir() and run.name.startswith("run-") and not _alive(run.name.removeprefix("run-")):
                for component in [p for p in run.iterdir() if p.is_dir()]:
                    _remove_group(component, root / controller)
                _remove_group(run, root / controller)
                removed.append(f"{controller}/{PARENT}/{run.name}")
        _remove_group(parent, root / controller)      # stays while another run's groups are in it
    return removed


def _alive(pid: str) -> bool:
    return pid.isdigit() and Path(f"/proc/{pid}").exists()


def _remove_group(path: Path, top: Path) -> None:
    try:
        for task in (path / "cgroup.procs").read_text().split():
            try:
                (top / "cgroup.procs").write_text(task)
            except OSError:
                pass
        path.rmdir()
    except FileNotFoundError:
        pass
    except OSError as error:
        if error.errno != 16 or path.name != PARENT:   # the shared parent stays while another run uses it
            raise


def _inherit_cpuset(path: Path) -> None:
    for name in ("cpuset.cpus", "cpuset.mems"):
        if not (path / name).read_text().strip():
            (path / name).write_text((path.parent / name).read_text())


def _stat(path: Path) -> dict[str, int]:
    return {key: int(value) for key, value in (line.split() for line in path.read_text().splitlines() if line.strip())}


def placement_of(budgets: list[Budget], brokers: int) -> tuple[tuple[Host, ...], Placement]:
    """The run's placement in the scenario's words: a host per distinct set of cores the budgets
    use (its quota the sum of the modelled components' there, over their period), the brokers,
    the job's executors and the neighbours on theirs. The controller and LocalStack are no
    component of the model: what they run is background (``simulator.live.background``)."""
    modelled = [b for b in budgets if b.component.startswith("broker-") or b.component in ("job", "neighbours")]
    hosts: dict[tuple[int, ...], list[Budget]] = {}
    for budget in modelled:
        hosts.setdefault(budget.cores, []).append(budget)
    named = {cores: "cores-" + "-".join(map(str, cores)) for cores in hosts}
    built = []
    for cores, placed in hosts.items():
        if any(b.vcpus is None for b in placed):
            quota, period = -1, PERIOD_US
        else:
            period = max(b.period_us for b in placed)
            quota = round(min(len(cores), sum(b.vcpus or 0.0 for b in placed)) * period)
        built.append(Host(name=named[cores], cpuset=cores, quota_us=quota, period_us=period))
    by_component = {b.component: named[b.cores] for b in modelled}
    placement = Placement(brokers=tuple(by_component[f"broker-{i}"] for i in range(brokers)) if brokers else None,
                          executors=by_component.get("job"), neighbours=by_component.get("neighbours"))
    return tuple(built), placement
