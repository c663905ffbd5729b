"""The scenario vocabulary: cluster, dataset, batch job, tenants, and the scenario itself."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads import kinds
from workloads.broker_types import broker_settings, broker_type
from workloads.check_plan import Gate, Plan, parse_broker_type
from workloads import loader
from workloads.batch import SINGLE_JOB, BatchJob, Dataset, FileGroup, Spark, job_path, parse_jobs
from workloads.placement import Host, Placement, parse_hosts, parse_placement
from workloads.profile import CostProfile
from workloads.quota import QUOTA_CLIENT_ID, Quota
from workloads.tenant import Tenant
from workloads.tuning import Tuning
from workloads.versions import kafka_version, parse_version
from workloads.units import parse_byte_rate, parse_bytes, parse_int_milliseconds, parse_seconds

_seconds = parse_seconds
_positive_bytes = f.positive(parse_bytes)


def _vcpus(value: Any, path: str) -> int | float:
    """CPUs of a host, whole or a fraction of one (0.5); a whole number stays an int."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ScenarioError(path, f"expected a number of vCPUs greater than zero like 2 or 0.5, got {value!r}")
    return value


@dataclass(frozen=True)
class Broker:
    """One broker's hardware and thread pools (the server.properties that matter here)."""

    vcpus: float = f.prop(parse=_vcpus, default=2)      # a live run holds each broker to it
    nic_bandwidth: float = f.prop(parse=f.positive(parse_byte_rate), default=125 * 1024**2)
    disk_bandwidth: float = f.prop(parse=f.positive(parse_byte_rate), default=250 * 1024**2)
    num_network_threads: int = f.prop("num.network.threads", f.positive_int, default=3)
    num_io_threads: int = f.prop("num.io.threads", f.positive_int, default=8)
    num_replica_fetchers: int = f.prop("num.replica.fetchers", f.positive_int, default=1)
    queued_max_requests: int = f.prop("queued.max.requests", f.positive_int, default=500)
    replica_fetch_wait_max_ms: float = f.prop("replica.fetch.wait.max.ms", parse_int_milliseconds, default=500.0)
    replica_fetch_max_bytes: int = f.prop("replica.fetch.max.bytes", _positive_bytes, default=1_048_576)
    dirty_cache: int = f.prop(parse=_positive_bytes, default=1024**3)
    # an MSK broker type (kafka.m5.xlarge, express.m7g.large): its vcpus, nic_bandwidth and
    # disk_bandwidth from workloads.broker_types, over any the scenario states
    type: str | None = f.prop(parse=parse_broker_type, default=None, unset_unsaid=True)

    @classmethod
    def build(cls, raw: Any, path: str) -> "Broker":
        raw = f.require_mapping(raw, path)
        if raw.get("type") is not None:
            kind = broker_type(f.text(raw["type"], f.join(path, "type")), f.join(path, "type"))
            raw = {**raw, **broker_settings(kind)}
        return f.build(cls, raw, path)

    def with_values(self, values: dict[str, Any], path: str) -> "Broker":
        """This broker with ``values`` (file keys, parsed values) set; a new ``type`` brings its vCPUs and bandwidths."""
        known = f.keys_of(Broker)
        if values.get("type") is not None:
            kind = broker_type(values["type"], f.join(path, "type"))
            typed = f.build(Broker, broker_settings(kind), path)
            values = {**{key: getattr(typed, known[key].name) for key in broker_settings(kind)}, **values}
        return dataclasses.replace(self, **{known[key].name: value for key, value in values.items()})


@dataclass(frozen=True)
class Topic:
    name: str = f.prop(parse=f.topic_name)
    partitions: int = f.prop(parse=f.positive_int)
    replication_factor: int | None = f.prop("replication.factor", f.positive_int, default=None)
    leaders: tuple[int, ...] | None = f.prop(parse=lambda v, p: tuple(f.non_negative_int(x, p) for x in v)
                                             if isinstance(v, list) else _bad_leaders(v, p), default=None)


def _bad_leaders(value: Any, path: str) -> None:
    raise ScenarioError(path, f"expected a list of broker ids, one per partition, got {value!r}")


def _topics(value: Any, path: str) -> tuple[Topic, ...]:
    if not isinstance(value, list) or not value:
        raise ScenarioError(path, "expected a non-empty list of topics")
    topics = tuple(f.build(Topic, raw, f"{path}[{i}]") for i, raw in enumerate(value))
    names = [t.name for t in topics]
    for name in names:
        if names.count(name) > 1:
            raise ScenarioError(path, f"topic {name!r} is listed twice")
    return topics


def insync_within_replicas(min_insync: int, replication_factor: int, field: str, of: str = "") -> None:
    """Kafka's rule, for a scenario and an import alike: min.insync.replicas at most the replication factor
    (more, and no acks=all produce is ever acknowledged: NotEnoughReplicas)."""
    if min_insync > replication_factor:
        raise ScenarioError(field, f"{min_insync} is more than replication.factor {replication_factor}{of}")


@dataclass(frozen=True)
class Cluster:
    brokers: int = f.prop(parse=f.positive_int)
    topics: tuple[Topic, ...] = f.prop(parse=_topics)
    broker: Broker = f.prop(parse=Broker.build, default_factory=Broker)
    replication_factor: int = f.prop("replication.factor", f.positive_int, default=1)
    min_insync_replicas: int = f.prop("min.insync.replicas", f.positive_int, default=1)
    network_rtt: float = f.prop(parse=_seconds, default=0.0005)
    kafka_version: str | None = f.prop(parse=lambda v, p: ".".join(map(str, kafka_version(v, p))), default=None,
                                       unset_unsaid=True)
    # TLS between clients and brokers and between brokers (MSK's default); unset: as the cost
    # profile was measured (CostProfile.tls)
    tls: bool | None = f.prop(parse=f.boolean, default=None, unset_unsaid=True)

    def topic(self, name: str) -> Topic:
        for topic in self.topics:
            if topic.name == name:
                return topic
        raise KeyError(name)

    def replicas(self, topic: Topic) -> list[list[int]]:
        """Replica lists per partition, leader first (Kafka's round-robin placement)."""
        rf = topic.replication_factor or self.replication_factor
        offset = self.topics.index(topic)
        leaders = topic.leaders or tuple((p + offset) % self.brokers for p in range(topic.partitions))
        return [[(leader + i) % self.brokers for i in range(rf)] for leader in leaders]

    def validate(self, path: str) -> None:
        for i, topic in enumerate(self.topics):
            where = f"{path}.topics[{i}]"
            rf = topic.replication_factor or self.replication_factor
            if rf > self.brokers:
                raise ScenarioError(f"{where}.replication.factor", f"{rf} is more than the {self.brokers} brokers")
            insync_within_replicas(self.min_insync_replicas, rf, f"{path}.min.insync.replicas", f" of topic {topic.name!r}")
            if topic.leaders is not None:
                if len(topic.leaders) != topic.partitions:
                    raise ScenarioError(f"{where}.leaders", f"lists {len(topic.leaders)} leaders for {topic.partitions} partitions")
                if max(topic.leaders) >= self.brokers:
                    raise ScenarioError(f"{where}.leaders", f"broker {max(topic.leaders)} does not exist (brokers are 0-{self.brokers - 1})")


@dataclass(frozen=True)
class TenantHost:
    """The host the neighbours' producers run on; a live run holds them to its CPUs."""

    vcpus: float = f.prop(parse=_vcpus, default=1)


@dataclass(frozen=True)
class Windows:
    """Measurement windows: neighbours run alone ``before`` the load and ``after`` it ends."""

    before: float = f.prop(parse=f.positive(_seconds), default=10.0)
    after: float = f.prop(parse=f.positive(_seconds), default=10.0)
    max_duration: float = f.prop(parse=f.positive(_seconds), default=3600.0)


@dataclass(frozen=True)
class Jitter:
    """Seeded run-to-run variation: relative spread of append rates and broker service times."""

    append_rate: float = f.prop(parse=f.fraction, default=0.05)
    service_time: float = f.prop(parse=f.fraction, default=0.05)


NAME_MAX = 100   # a scenario's name names its files: with the overrides' 120 characters, within a file name's 255


@dataclass(frozen=True)
class Scenario:
    name: str = f.prop(parse=f.one_line(NAME_MAX))
    cluster: Cluster = f.prop(parse=lambda v, p: f.build(Cluster, v, p))
    # the files Spark jobs read (a scenario of producer jobs alone needs none)
    dataset: Dataset = f.prop(parse=lambda v, p: f.build(Dataset, v, p), default_factory=Dataset, unset_unsaid=True)
    # the batch jobs in file order (``batch:`` a mapping gives one; a list, a night's several)
    jobs: tuple[BatchJob, ...] = f.prop("batch", parse=parse_jobs, element=lambda raw: BatchJob, one="job",
                                        default=())   # required: from_mapping says so when it is missing
    tenants: tuple[Tenant, ...] = f.prop(element=kinds.kind_class, parse=lambda v, p: tuple(kinds.tenant(x, f"{p}[{i}]") for i, x in enumerate(v or [])),
                                         default=())
    tenant_host: TenantHost = f.prop(parse=lambda v, p: f.build(TenantHost, v, p), default_factory=TenantHost)
    # where the components run (workloads.placement); unsaid: every one on a host of its own
    hosts: tuple[Host, ...] = f.prop(parse=parse_hosts, default=(), unset_unsaid=True)
    placement: Placement = f.prop(parse=parse_placement, default_factory=Placement,
                                  unset_unsaid=True)
    profile: CostProfile = f.prop(parse=lambda v, p: CostProfile.load(f.text(v, p), p), default=None)
    windows: Windows = f.prop(parse=lambda v, p: f.build(Windows, v, p), default_factory=Windows)
    jitter: Jitter = f.prop(parse=lambda v, p: f.build(Jitter, v, p), default_factory=Jitter)
    check: Gate = f.prop(parse=lambda v, p: f.build(Gate, v, p), default_factory=Gate)
    tune: Tuning = f.prop(parse=lambda v, p: f.build(Tuning, v, p), default_factory=Tuning)
    plan: Plan = f.prop(parse=lambda v, p: f.build(Plan, v, p), default_factory=Plan)
    description: str = f.prop(parse=f.sentence, default="")
    assumptions: tuple[str, ...] = f.prop(parse=f.sentences, default=())
    source: str = f.prop(default="")
    listed: bool = f.prop(default=False, internal=True)   # ``batch:`` was a list in the file

    def __post_init__(self) -> None:
        # a job without files of its own reads the scenario's (again after a replace of the dataset)
        resolved = tuple(job if job.own_dataset or job.dataset == self.dataset
                         else dataclasses.replace(job, dataset=self.dataset) for job in self.jobs)
        if resolved != self.jobs:
            object.__setattr__(self, "jobs", resolved)

    @property
    def batch(self) -> BatchJob:
        """The first job (the only one, unless ``batch:`` lists a night's)."""
        return self.jobs[0]

    @classmethod
    def from_mapping(cls, raw: Any, source: str = "") -> "Scenario":
        raw = f.require_mapping(raw, "")
        scenario = f.build(cls, raw, "")
        if not scenario.jobs:
            raise ScenarioError("batch", "required but missing")
        if scenario.profile is None:
            scenario = dataclasses.replace(scenario, profile=CostProfile.load("default"))
        if scenario.cluster.tls is not None:
            scenario = dataclasses.replace(scenario, profile=scenario.profile.with_tls(scenario.cluster.tls))
        # a list of one job named batch with client.id batch-load is the mapping form, written as one
        listed = isinstance(raw.get("batch"), list) and \
            (len(scenario.jobs) > 1 or (scenario.batch.name, scenario.batch.client_id) != (SINGLE_JOB, QUOTA_CLIENT_ID))
        scenario = dataclasses.replace(scenario, source=source, listed=listed,
                                       jobs=tuple(_express_throttle(scenario, job) for job in scenario.jobs))
        scenario.validate()
        return scenario

    @classmethod
    def from_yaml(cls, path: str | Path, overrides: list[str] | None = None) -> "Scenario":
        return cls.from_mapping(load_mapping(path, overrides or []), source=str(path))

    def validate(self) -> None:
        self.cluster.validate("cluster")
        names = {t.name for t in self.cluster.topics}
        for i, job in enumerate(self.jobs):
            self._check_job(job, job_path(i, self.listed), names)
        for i, tenant in enumerate(self.tenants):
            if tenant.topic not in names:
                raise ScenarioError(f"tenants[{i}].topic", f"topic {tenant.topic!r} is not in cluster.topics")
            if tenant.record_size > tenant.producer.max_request_size:
                raise ScenarioError(f"tenants[{i}].record_size", "is larger than the tenant's max.request.size")
            tenant.validate(self.cluster, f"tenants[{i}]")
            if tenant.sla.relative and tenant.rate * self.windows.before < 1:   # no p99 alone to be relative to
                raise ScenarioError(f"tenants[{i}].sla_p99", f"{tenant.sla.describe()} needs a p99 alone, but at {tenant.rate:g}/s "
                                                             f"{tenant.name} sends no record in windows.before's {self.windows.before:g} s; "
                                                             "give an absolute SLA like 20ms, or a rate or a windows.before that sends some")
        tenant_names = [t.name for t in self.tenants]
        client_ids = {job.client_id: j for j, job in enumerate(self.jobs)}
        for i, name in enumerate(tenant_names):
            if tenant_names.count(name) > 1:
                raise ScenarioError("tenants", f"tenant {name!r} is listed twice")
            if name in client_ids:   # a tenant's client.id is its name
                if self.listed:
                    raise ScenarioError(f"batch[{client_ids[name]}].client.id", f"{name!r} is also tenants[{i}]'s name: "
                                                                                "the brokers would meter and log the tenant as the load")
                raise ScenarioError(f"tenants[{i}].name", f"{name!r} is the batch job's client.id: the brokers "
                                                          "would meter and log the tenant as the load")
        kinds.check_inputs(self)
        self.placement.validate(self.hosts, self.cluster.brokers, max(job.instances for job in self.jobs), tenant_names)
        self._check_protocol()

    def _check_job(self, job: BatchJob, where: str, topics: set[str]) -> None:
        start = self.job_start(job)
        if start >= self.windows.max_duration:
            field = f"{where}.start" if job.start is not None else "windows.before"
            raise ScenarioError(field, f"the load would start at {start:g} s, not before windows.max_duration "
                                       f"({self.windows.max_duration:g} s) ends the run")
        last = start + (job.loads - 1) * job.spacing
        if job.loads > 1 and last >= self.windows.max_duration:
            raise ScenarioError(f"{where}.spacing", f"load {job.loads} of {job.loads} would start at {last:g} s, not "
                                                    f"before windows.max_duration ({self.windows.max_duration:g} s) ends the run")
        if job.topic not in topics:
            raise ScenarioError(f"{where}.topic", f"topic {job.topic!r} is not in cluster.topics")
        if job.kind == "spark" and not (job.dataset or self.dataset).files:
            raise ScenarioError(f"{where}.dataset.files" if job.own_dataset else "dataset.files",
                                "required but missing (the files a Spark job reads)")
        if job.record_size is not None and job.record_size > job.producer.max_request_size:
            raise ScenarioError(f"{where}.record_size", "is larger than the job's max.request.size")

    def _check_protocol(self) -> None:
        """Kafka 4.0 brokers refuse the produce and fetch versions of Java clients before 2.1 (KIP-896)."""
        if self.cluster.kafka_version is None or parse_version(self.cluster.kafka_version, "") < (4, 0, 0):
            return
        for where, client in (*((f"{job_path(i, self.listed)}.client", job.client) for i, job in enumerate(self.jobs)),
                              *((f"tenants[{i}].client", t.client) for i, t in enumerate(self.tenants))):
            if client.kind == "java" and client.version < (2, 1, 0):
                raise ScenarioError(f"{where}.version", f"kafka-clients {'.'.join(map(str, client.version))} cannot talk to "
                                                        f"Kafka {self.cluster.kafka_version} brokers, which need 2.1 or later (KIP-896)")

    @property
    def load_start(self) -> float:
        """When the first job's first load starts."""
        return self.job_start(self.batch)

    def job_start(self, job: BatchJob) -> float:
        """When ``job``'s first load starts, from the run's start."""
        return job.start if job.start is not None else self.windows.before

    def with_values(self, changes: dict[tuple[str, ...], Any]) -> "Scenario":
        """This scenario with settings changed, each at its path of file keys (``("batch", "quota",
        "producer_byte_rate")``; ``batch``: the first job) to a value as its parser gives it, and checked as the
        file would be: a typed edit (a knob's value), never a ``--set`` text read back."""
        grouped: dict[tuple[str, ...], dict[str, Any]] = {}
        for path, value in changes.items():
            grouped.setdefault(tuple(path[:-1]), {})[path[-1]] = value
        # each job's quota as stated, so that an Express broker's throttle is laid again on the new values
        edited = dataclasses.replace(self, jobs=tuple(dataclasses.replace(job, quota=job.stated_quota or job.quota,
                                                                          stated_quota=None) for job in self.jobs))
        for parent, values in grouped.items():
            edited = _edited(edited, parent, values, "")
        edited = dataclasses.replace(edited, jobs=tuple(_express_throttle(edited, job) for job in edited.jobs))
        edited.validate()
        return edited

    def as_mapping(self) -> dict:
        data = f.as_mapping(self)
        data["profile"] = self.profile.name
        for job, written in zip(self.jobs, data["batch"]):
            if not job.own_dataset:
                written.pop("dataset", None)
            if self.listed:
                written["name"] = job.name   # a list's jobs are named, even one named batch
        if not self.listed:
            data["batch"] = data["batch"][0]
        return data


def _edited(value: Any, parent: tuple[str, ...], values: dict[str, Any], where: str) -> Any:
    """``value`` (a value object) with ``values`` set on the object at ``parent`` below it."""
    if not parent:
        if isinstance(value, Broker):
            return value.with_values(values, where)
        known = f.keys_of(type(value))
        return dataclasses.replace(value, **{known[key].name: item for key, item in values.items()})
    key, rest = parent[0], parent[1:]
    if isinstance(value, Scenario) and key == "batch":
        if value.listed:   # a night's jobs: ``batch`` is no one of them
            rest_key = ".".join((*rest, next(iter(values))))
            raise ScenarioError(f"batch.{rest[0] if rest else rest_key}", f"batch lists {len(value.jobs)} jobs: address one as "
                                                         f"batch[0].{rest_key} or batch.{value.batch.name}.{rest_key}")
        return dataclasses.replace(value, jobs=(_edited(value.batch, rest, values, key), *value.jobs[1:]))
    if isinstance(value, BatchJob) and key == "producer" and not rest:
        return dataclasses.replace(value, producer=value.producer.evolve(values, value.client, f.join(where, key)))
    attribute = f.keys_of(type(value))[key].name
    return dataclasses.replace(value, **{attribute: _edited(getattr(value, attribute), rest, values, f.join(where, key))})


def _express_throttle(scenario: Scenario, job: BatchJob) -> BatchJob:
    """MSK throttles an Express broker's client ingress at its quota; a batch load is nearly all of
    that ingress, so the model meters it as the job's producer_byte_rate per broker (a lower quota
    of the scenario's stays), as plan's what-if and import do."""
    kind = broker_type(scenario.cluster.broker.type, "cluster.broker.type") if scenario.cluster.broker.type else None
    if kind is None or not kind.express_ingress_quota:
        return job
    own = job.quota.producer_byte_rate
    if own is not None and own <= kind.express_ingress_quota:
        return job
    return dataclasses.replace(job, quota=dataclasses.replace(job.quota, producer_byte_rate=kind.express_ingress_quota),
                               stated_quota=job.quota)


def load_mapping(path: str | Path, overrides: list[str]) -> dict:
    """A scenario file's mapping (``extends`` resolved) with ``--set`` overrides laid over it."""
    return loader.load_mapping(path, overrides, Scenario)


def apply_overrides(raw: dict, overrides: list[str]) -> dict:
    """``--set KEY=VALUE`` overrides laid over a scenario mapping, each key checked."""
    return loader.apply_overrides(raw, overrides, Scenario)


def with_file_values(raw: dict, changes: dict[tuple[str, ...], Any]) -> dict:
    """A scenario mapping with values set at their paths of file keys (``batch``, ``1``, ``producer``, then
    the setting's key: the night's second job's), each key checked, as its parsers take them."""
    return loader.set_values(raw, changes, Scenario)
