"""Amazon MSK broker types by their MSK names, with the hardware each one gives a broker.

Every figure names where it comes from (``SOURCES``). A broker type becomes ``cluster.broker.*``
values through ``broker_settings``: vCPUs, NIC bandwidth and disk bandwidth. Thread pools are left
to the scenario (they are server.properties, not hardware; MSK's defaults, num.io.threads 8 and
num.network.threads 5, are the same for every size).

Network and EBS bandwidth come in two figures for the smaller sizes: a baseline the instance
sustains and an "up to" burst it holds for minutes on credits (EC2: typically 5 to 60 minutes).
A batch load of a few minutes runs on the burst; an hour of back-to-back loads on the baseline,
so ``broker_settings(..., sustained=True)`` gives the baselines.

Disk: a Standard broker writes to one EBS volume with MSK's default storage throughput of
250 MiB/s (``provisioned_storage`` lifts it on kafka.m5.4xlarge / kafka.m7g.2xlarge and larger);
what a broker writes is bounded by the smaller of the volume and the instance's EBS bandwidth.
Express brokers have no customer-managed volume: MSK stores their data, recommends a maximum
ingress and egress throughput per broker (``express_ingress``: above it performance degrades)
and throttles each broker's client traffic at its quota (``express_ingress_quota``).
"""
from __future__ import annotations

from dataclasses import dataclass

from workloads.errors import ScenarioError

MIB = 1024**2
GBIT = 1e9 / 8       # bytes per second in one Gbit/s (EC2 quotes decimal bits)
MBIT = 1e6 / 8

SOURCES = {
    "ec2-m5": "Amazon EC2 instance types, general purpose: M5 (vCPUs, memory; network and EBS bandwidth, "
              "baseline and burst), https://docs.aws.amazon.com/ec2/latest/instancetypes/gp.html",
    "ec2-m7g": "Amazon EC2 instance types, general purpose: M7g (vCPUs, memory; network and EBS bandwidth, "
               "baseline and burst), https://docs.aws.amazon.com/ec2/latest/instancetypes/gp.html",
    "ec2-network": "Amazon EC2 instance network bandwidth: 'up to' sizes burst on network I/O credits for 5 to 60 "
                   "minutes, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-network-bandwidth.html",
    "msk-storage": "Amazon MSK Developer Guide, Manage storage throughput for Standard brokers: 250 MiB/s by default; "
                   "provisioned up to the maximum per size, https://docs.aws.amazon.com/msk/latest/developerguide/"
                   "msk-provision-throughput-management.html",
    "msk-express": "Amazon MSK Developer Guide, Best practices for Express brokers: the recommended maximum ingress "
                   "and egress throughput per broker by size (express.m7g.16xlarge 500 MBps ingress, as in the AWS News "
                   "Blog of 2024-11-07), https://docs.aws.amazon.com/msk/latest/developerguide/bestpractices-express.html",
    "msk-express-quota": "Amazon MSK Developer Guide, Amazon MSK quota, Express broker quota: the per-broker ingress and "
                         "egress throughput above which MSK throttles client traffic (1.5 x the recommended ingress), "
                         "https://docs.aws.amazon.com/msk/latest/developerguide/limits.html#msk-express-quota",
}

DEFAULT_STORAGE = 250 * MIB     # MSK's default EBS storage throughput (msk-storage)


@dataclass(frozen=True)
class BrokerType:
    """One MSK broker type: its instance's hardware and, for Express, MSK's per-broker throughput."""

    name: str
    vcpus: int
    memory_gib: int
    network_baseline: float           # bytes/s the instance sustains
    network_burst: float              # bytes/s it reaches on credits (= baseline for fixed-bandwidth sizes)
    ebs_baseline: float               # bytes/s of EBS bandwidth sustained
    ebs_burst: float
    provisioned_storage: float | None = None   # bytes/s: most storage throughput MSK provisions on it
    express_ingress: float | None = None       # bytes/s of client ingress per Express broker, recommended maximum
    express_egress: float | None = None
    express_ingress_quota: float | None = None  # bytes/s at which MSK throttles it
    express_egress_quota: float | None = None
    sources: tuple[str, ...] = ()

    @property
    def express(self) -> bool:
        return self.express_ingress is not None


def _standard(family: str, size: str, vcpus: int, network: tuple[float, float], ebs: tuple[float, float],
              provisioned: float | None = None) -> BrokerType:
    """network in Gbit/s and EBS in Mbit/s, (baseline, burst), as EC2 quotes them."""
    sources = (f"ec2-{family}", "ec2-network", "msk-storage")
    return BrokerType(f"kafka.{family}.{size}", vcpus, 4 * vcpus, network[0] * GBIT, network[1] * GBIT,
                      ebs[0] * MBIT, ebs[1] * MBIT, provisioned * MIB if provisioned else None, sources=sources)


def _express(size: str, standard: BrokerType, recommended: tuple[float, float], quota: tuple[float, float]) -> BrokerType:
    """(ingress, egress) in MBps as MSK publishes them (decimal megabytes per second)."""
    return BrokerType(f"express.m7g.{size}", standard.vcpus, standard.memory_gib, standard.network_baseline,
                      standard.network_burst, standard.ebs_baseline, standard.ebs_burst,
                      express_ingress=recommended[0] * 1e6, express_egress=recommended[1] * 1e6,
                      express_ingress_quota=quota[0] * 1e6, express_egress_quota=quota[1] * 1e6,
                      sources=("ec2-m7g", "ec2-network", "msk-express", "msk-express-quota"))


_M5 = [_standard("m5", "large", 2, (0.75, 10), (650, 4750)),
       _standard("m5", "xlarge", 4, (1.25, 10), (1150, 4750)),
       _standard("m5", "2xlarge", 8, (2.5, 10), (2300, 4750)),
       _standard("m5", "4xlarge", 16, (5, 10), (4750, 4750), 593),
       _standard("m5", "8xlarge", 32, (10, 10), (6800, 6800), 850),
       _standard("m5", "12xlarge", 48, (12, 12), (9500, 9500), 1000),
       _standard("m5", "16xlarge", 64, (20, 20), (13600, 13600), 1000),
       _standard("m5", "24xlarge", 96, (25, 25), (19000, 19000), 1000)]
_M7G = [_standard("m7g", "large", 2, (0.937, 12.5), (630, 10000)),
        _standard("m7g", "xlarge", 4, (1.876, 12.5), (1250, 10000)),
        _standard("m7g", "2xlarge", 8, (3.75, 15), (2500, 10000), 312.5),
        _standard("m7g", "4xlarge", 16, (7.5, 15), (5000, 10000), 625),
        _standard("m7g", "8xlarge", 32, (15, 15), (10000, 10000), 1000),
        _standard("m7g", "12xlarge", 48, (22.5, 22.5), (15000, 15000), 1000),
        _standard("m7g", "16xlarge", 64, (30, 30), (20000, 20000), 1000)]
_EXPRESS = [_express(m.name.rsplit(".", 1)[1], m, recommended, quota) for m, recommended, quota in
            zip(_M7G, [(15.6, 31.2), (31.2, 62.5), (62.5, 125.0), (124.9, 249.8), (250.0, 500.0), (375.0, 750.0),
                       (500.0, 1000.0)],
                [(23.4, 58.5), (46.8, 117.0), (93.7, 234.2), (187.5, 468.7), (375.0, 937.5), (562.5, 1406.2),
                 (750.0, 1875.0)])]

BROKER_TYPES: dict[str, BrokerType] = {t.name: t for t in _M5 + _M7G + _EXPRESS}


def broker_type(name: str, field: str = "--broker-type") -> BrokerType:
    """The broker type called ``name`` (its MSK name); an unknown name is one line listing the known."""
    try:
        return BROKER_TYPES[name]
    except KeyError:
        raise ScenarioError(field, f"unknown broker type {name!r} (known: {', '.join(BROKER_TYPES)})") from None


def broker_settings(kind: BrokerType, sustained: bool = False) -> dict[str, object]:
    """``cluster.broker.*`` values for ``kind``: on its bursts (a load of minutes) or, ``sustained``,
    on its baselines. A Standard broker's disk is the smaller of MSK's default volume throughput and
    the instance's EBS bandwidth; an Express broker has no volume, so its disk is the instance's EBS
    bandwidth and MSK's per-broker ingress throttle stays in ``kind.express_ingress_quota`` (plan's
    what-if meters the load by it, ``tuner.planning.whatif``)."""
    network = kind.network_baseline if sustained else kind.network_burst
    ebs = kind.ebs_baseline if sustained else kind.ebs_burst
    disk = ebs if kind.express else min(DEFAULT_STORAGE, ebs)
    return {"vcpus": kind.vcpus, "nic_bandwidth": f"{network:.0f}B/s", "disk_bandwidth": f"{disk:.0f}B/s"}


def table_rows() -> list[dict[str, object]]:
    """The table as rows for a document or a report: figures in the units AWS publishes them."""
    return [{"broker type": t.name, "vCPUs": t.vcpus, "memory GiB": t.memory_gib,
             "network Gbit/s": f"{t.network_baseline / GBIT:g} (burst {t.network_burst / GBIT:g})",
             "EBS Mbit/s": f"{t.ebs_baseline / MBIT:g} (burst {t.ebs_burst / MBIT:g})",
             "storage MiB/s": ("managed" if t.express else f"250 (up to {t.provisioned_storage / MIB:g})"
                               if t.provisioned_storage else "250"),
             "Express MBps in/out": (f"{t.express_ingress / 1e6:g} / {t.express_egress / 1e6:g} (throttled above "
                                     f"{t.express_ingress_quota / 1e6:g} / {t.express_egress_quota / 1e6:g})"
                                     if t.express else ""),
             "sources": ", ".join(t.sources)} for t in BROKER_TYPES.values()]
