"""Where each component runs: hosts (cores, a CPU budget, what else runs there) and the placement of
the brokers, the executors and the neighbours on them.

By default every broker, executor and neighbour has a host of its own, as in production (its
``cluster.broker.vcpus``, ``batch.spark.vcpus``, ``tenant_host.vcpus``). A scenario can name hosts
and put components on them: neighbours that share a Kubernetes node, or the local rig as
``quietload live`` placed it (one core for the brokers and the neighbours, the other for the job,
each under a cgroup quota, with LocalStack, the Spark driver and the JVMs' JIT and GC beside them):

    hosts:
      - {name: core0, cpuset.cpus: "0", cpu.cfs_quota_us: 5000, cpu.cfs_period_us: 5000, background: 1.5}
      - {name: node-a, cores: 4}
    placement:
      brokers: core0                 # every broker; or a list, one host per broker id
      executors: core1               # every executor; or a list, one host per executor
      neighbours: {payment-api: node-a, fraud-scoring: node-a}    # or one host for every neighbour
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from workloads import _fields as f
from workloads.errors import ScenarioError


def _cpuset(value: Any, path: str) -> tuple[int, ...]:
    """A cpuset's cpus as the kernel writes them: "0", "0-1", "0,2-3" (or a list of core ids)."""
    if isinstance(value, list):
        cores = [f.non_negative_int(v, path) for v in value]
    elif isinstance(value, (str, int)) and not isinstance(value, bool):
        cores = []
        for part in str(value).split(","):
            low, _, high = part.strip().partition("-")
            if not low.isdigit() or (high and not high.isdigit()) or (high and int(high) < int(low)):
                raise ScenarioError(path, f"expected a cpuset like \"0\", \"0-1\" or \"0,2-3\", got {value!r}")
            cores.extend(range(int(low), int(high or low) + 1))
    else:
        raise ScenarioError(path, f"expected a cpuset like \"0\", \"0-1\" or \"0,2-3\", got {value!r}")
    if not cores or len(set(cores)) != len(cores):
        raise ScenarioError(path, f"expected distinct cores, got {value!r}")
    return tuple(sorted(cores))


def _quota(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not (value == -1 or value >= 1000):
        raise ScenarioError(path, f"expected microseconds of CPU per period, at least 1000 (or -1: no quota), got {value!r}")
    return value


def _period(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1000 <= value <= 1_000_000:
        raise ScenarioError(path, f"expected a period of 1000 to 1000000 microseconds, got {value!r}")
    return value


def _threads(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise ScenarioError(path, f"expected a number of runnable threads (0 or more), got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Host:
    """A machine, a VM, a Kubernetes node or a cgroup: its cores, its CPU budget and the threads
    runnable there besides the components placed on it (``background``, on average)."""

    name: str = f.prop(parse=f.text)
    cores: int | None = f.prop(parse=f.positive_int, default=None, unset_unsaid=True)
    cpuset: tuple[int, ...] | None = f.prop("cpuset.cpus", _cpuset, default=None, unset_unsaid=True)
    quota_us: int = f.prop("cpu.cfs_quota_us", _quota, default=-1, unset_unsaid=True)
    period_us: int = f.prop("cpu.cfs_period_us", _period, default=100_000, unset_unsaid=True)
    background: float = f.prop(parse=_threads, default=0.0, unset_unsaid=True)

    @property
    def vcpus(self) -> float:
        """The CPU its threads get: its cores (a cpuset's count), at most its quota's share of them."""
        cores = float(len(self.cpuset) if self.cpuset else self.cores or 1)
        return min(cores, self.quota_us / self.period_us) if self.quota_us > 0 else cores

    def validate(self, path: str) -> None:
        if self.cores is not None and self.cpuset is not None and self.cores != len(self.cpuset):
            raise ScenarioError(f"{path}.cores", f"{self.cores} cores but cpuset.cpus lists {len(self.cpuset)}")


def parse_hosts(value: Any, path: str) -> tuple[Host, ...]:
    if not isinstance(value, list):
        raise ScenarioError(path, f"expected a list of hosts like [{{name: node-a, cores: 4}}], got {value!r}")
    hosts = tuple(f.build(Host, raw, f"{path}[{i}]") for i, raw in enumerate(value))
    f.said_once(hosts, path, "host {value!r} is listed twice")
    for i, host in enumerate(hosts):
        host.validate(f"{path}[{i}]")
    return hosts


def _on(value: Any, path: str) -> str | tuple[str, ...]:
    """One host name for every component of the kind, or a list of them by index."""
    if isinstance(value, list):
        if not value:
            raise ScenarioError(path, "expected a host name or a non-empty list of them")
        return tuple(f.text(v, f"{path}[{i}]") for i, v in enumerate(value))
    return f.text(value, path)


def _by_name(value: Any, path: str) -> str | dict[str, str]:
    """One host name for every neighbour, or a mapping neighbour name -> host name."""
    if isinstance(value, dict):
        return {str(k): f.text(v, f.join(path, str(k))) for k, v in value.items()}
    return f.text(value, path)


@dataclass(frozen=True)
class Placement:
    """Which host each component runs on; a component not placed has a host of its own."""

    brokers: str | tuple[str, ...] | None = f.prop(parse=_on, default=None, unset_unsaid=True)
    executors: str | tuple[str, ...] | None = f.prop(parse=_on, default=None, unset_unsaid=True)
    neighbours: str | dict[str, str] | None = f.prop(parse=_by_name, default=None, unset_unsaid=True)

    def broker(self, broker: int) -> str | None:
        return _index(self.brokers, broker)

    def executor(self, executor: int) -> str | None:
        return _index(self.executors, executor)

    def neighbour(self, name: str) -> str | None:
        return self.neighbours.get(name) if isinstance(self.neighbours, dict) else self.neighbours

    def validate(self, hosts: tuple[Host, ...], brokers: int, executors: int, neighbours: list[str],
                 path: str = "placement") -> None:
        """Every name placed is a host of ``hosts``, a list has one host per component, a neighbour
        named is one of the scenario's; else a ScenarioError naming the field."""
        known = {h.name for h in hosts}
        for kind, placed, count in (("brokers", self.brokers, brokers), ("executors", self.executors, executors)):
            if isinstance(placed, tuple) and len(placed) != count:
                raise ScenarioError(f"{path}.{kind}", f"lists {len(placed)} hosts for {count} {kind}")
            for i, name in enumerate((placed,) if isinstance(placed, str) else placed or ()):
                where = f"{path}.{kind}" if isinstance(placed, str) else f"{path}.{kind}[{i}]"
                _known(name, known, where)
        if isinstance(self.neighbours, dict):
            for name, host in self.neighbours.items():
                if name not in neighbours:
                    raise ScenarioError(f"{path}.neighbours.{name}", f"no neighbour named {name!r} (tenants: "
                                        f"{', '.join(neighbours) or 'none'})")
                _known(host, known, f"{path}.neighbours.{name}")
        elif self.neighbours is not None:
            _known(self.neighbours, known, f"{path}.neighbours")


def _known(name: str, known: set[str], path: str) -> None:
    if name not in known:
        raise ScenarioError(path, f"no host named {name!r} in hosts (hosts: {', '.join(sorted(known)) or 'none'})")


def _index(placed: str | tuple[str, ...] | None, index: int) -> str | None:
    if placed is None or isinstance(placed, str):
        return placed
    return placed[index] if index < len(placed) else None


def parse_placement(value: Any, path: str) -> Placement:
    """A scenario's ``placement`` mapping (or a result's copy of it) as a ``Placement``."""
    return f.build(Placement, value, path)
