"""Every Kafka setting of a batch job's producer and client quota, described once, as Kafka's ``ConfigDef``
defines a property (its name, type, default, validator, importance and documentation in one place).

A ``Setting`` holds Kafka's name and librdkafka's, the parser (its type and validator), the unit, the
default for each client and version, the range a study searches and on which scale, the policy's
direction (a floor, a ceiling, a required value, the values allowed), what one value applies to
(``per broker``) and a line of documentation. The producer's and the quota's value objects, the
clients' defaults, the live clients' configurations, the tuner's knobs, the policy's template and its
judge, the snippets and the import's script reader all read the records; a new tunable producer
setting is a record here and its mechanism in the model.

The producer's records are in the order a study suggests their knobs (a stored study resumes only
in the same order); the value objects keep their own field order (their files' order).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.units import finite, format_bytes, parse_byte_rate, parse_bytes, parse_milliseconds

KB, MB = 1024, 1024**2
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
CLIENT_KINDS = ("java", "librdkafka")
# the policy's direction for a setting: a job may go above a floor, below a ceiling
FLOOR, CEILING, REQUIRED, ONE_OF = "floor", "ceiling", "required", "one of"
# Kafka's names of the settings others read from result files by name (ProducerConfig's *_CONFIG)
LINGER_MS_CONFIG, BATCH_SIZE_CONFIG, BUFFER_MEMORY_CONFIG = "linger.ms", "batch.size", "buffer.memory"
COMPRESSION_TYPE_CONFIG, MAX_IN_FLIGHT_CONFIG = "compression.type", "max.in.flight.requests.per.connection"
LINGER_MS_MAX = 100
MAX_IN_FLIGHT_MAX = 5            # above 5 the idempotent producer gives up its ordering guarantee


def parse_acks(value: Any, path: str) -> str:
    """``acks`` as Kafka takes it: 0, 1, all, or -1 (all)."""
    text = str(value).strip().lower()
    text = "all" if text == "-1" else text
    if text not in ("0", "1", "all"):
        raise ScenarioError(path, f"expected 0, 1 or all, got {value!r}")
    return text


def parse_codec(value: Any, path: str) -> str:
    if str(value) not in CODECS:
        raise ScenarioError(path, f"expected one of {', '.join(CODECS)}, got unknown codec {value!r}")
    return str(value)


def _codecs(value: Any, path: str) -> tuple[str, ...]:
    """The codecs a policy allows: a list of codecs (or one)."""
    items = value if isinstance(value, list) else [value]
    if not items:
        raise ScenarioError(path, "expected at least one codec, got an empty list")
    return tuple(dict.fromkeys(parse_codec(item, f"{path}[{i}]" if isinstance(value, list) else path)
                               for i, item in enumerate(items)))


def _request_percentage(value: Any, path: str) -> float:
    """Kafka's request_percentage: percent of one thread, so above 100 when several threads may be used."""
    try:
        number = float(str(value).strip().rstrip("%").strip())
    except ValueError:
        raise ScenarioError(path, f"expected a percentage of one thread's time like 50 or 250%, got {value!r}") from None
    if not number > 0:
        raise ScenarioError(path, f"must be greater than zero, got {value!r}")
    return finite(number, path, value)


@dataclass(frozen=True)
class Default:
    """A setting's value when the job does not set it, per client kind: a value, or a function of the
    client's version (a tuple like (3, 9, 0))."""

    java: Any
    librdkafka: Any

    def of(self, client: Any) -> Any:
        value = getattr(self, client.kind.replace("-", "_"))
        return value(client.version) if callable(value) else value


@dataclass(frozen=True)
class Tune:
    """How a study searches a setting: a choice or a range, its default range for a scenario (choices,
    or (low, high)), on a log scale or not, in whole numbers or not, and whether its lever class's
    default search has it (else only a study whose ``tune.knobs`` names it)."""

    kind: str                                     # "choice" or "range"
    bounds: Callable[[Any], tuple]                # of a Scenario
    log: bool = False
    integer: bool = True
    searched: bool = True


@dataclass(frozen=True)
class Setting:
    name: str                        # Kafka's (ProducerConfig, kafka-configs), the file's key
    attribute: str                   # the value object's (ProducerConfig.linger_ms, Quota.producer_byte_rate)
    section: str                     # "producer" or "quota": where a job's file holds it
    parse: f.Parser                  # the type and its validator: a file's value -> the value object's
    doc: str
    unit: str = ""                   # bytes, byte_rate, ms, percent, or "" (printed as it is)
    default: Default | None = None   # the client's own, when the job does not set it (None: unset)
    librdkafka: str = ""             # librdkafka's property ("": none)
    to_librdkafka: Callable[[Any], Any] = lambda value: value
    clients: tuple[str, ...] = CLIENT_KINDS  # the clients that have it
    tune: Tune | None = None         # None: no study searches it
    rule: str = ""                   # the policy's direction (FLOOR, CEILING, REQUIRED, ONE_OF); "": no rule
    rule_parse: f.Parser | None = None   # a rule's bound as a policy file gives it, when not as ``parse``
    per: str = ""                    # what one value applies to, said after it ("per broker": Kafka meters a quota on each)
    also: Callable[[Any], tuple[tuple[str, Any], ...]] = lambda value: ()   # (setting, value) that go with a value
    # the check the client makes of the value against the others' (the resolved producer, the job's own
    # keys, its path) -> the producer it runs with, or a ScenarioError (Kafka's ConfigException)
    check: Callable[[Any, dict, str], Any] | None = None
    # added after result files were written: unset (None) unless the job sets it, the client's default
    # in force (``in_force``), so the files of the jobs that leave it unset read and write as before
    late: bool = False
    order: Callable[[Any], Any] = lambda value: value   # a floor's or a ceiling's order of values (acks: 0 < 1 < all)

    def prop(self, default: Any = dataclasses.MISSING) -> Any:
        """The value object's field: the file's key, the parser (a late setting: unset, and unwritten while unset)."""
        if self.late:
            return f.prop(self.name, self.parse, default=None, unset_unsaid=True)
        return f.prop(self.name, self.parse, default=default)

    def in_force(self, value: Any, client: Any) -> Any:
        """The value a client runs with: the job's, else the client's own default."""
        return value if value is not None or self.default is None else self.default.of(client)

    def rule_prop(self) -> Any:
        """A policy template's field for the rule on this setting (unset: no rule)."""
        return f.prop(self.name, self.rule_parse or self.parse, default=None)

    def keeps(self, value: Any, bound: Any) -> bool:
        """Whether a job's ``value`` keeps the rule's ``bound`` (a job without a value keeps no floor nor ceiling)."""
        if self.rule in (FLOOR, CEILING) and value is None:
            return False
        if self.rule == FLOOR:
            return bool(self.order(value) >= self.order(bound))
        if self.rule == CEILING:
            return bool(self.order(value) <= self.order(bound))
        if self.rule == ONE_OF:
            return value in bound
        return value == bound

    def at_bound(self, bound: Any) -> Any:
        """The value a job sets to keep the rule: the bound, or the first value allowed."""
        return bound[0] if self.rule == ONE_OF else bound

    def render(self, value: Any) -> str:
        """As people read it: ``1.0 MB``, ``50 ms``, ``20.0 MB/s per broker``, ``true``."""
        return rendered(self.unit, value) + (f" {self.per}" if self.per and value is not None else "")


def rendered(unit: str, value: Any) -> str:
    """A value in its unit as people read it (without what it applies to)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if unit == "bytes":
        return format_bytes(value)
    if unit == "byte_rate":
        return f"{format_bytes(value)}/s"
    if unit == "ms":
        return f"{value:g} ms"
    if unit == "percent":
        return f"{value:g} %"
    return str(value)


def property_text(value: Any, unit: str = "") -> str:
    """A value as Kafka's or Spark's configuration takes it: ``131072``, ``zstd``, ``true``, ``20971520``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if unit == "byte_rate":
        return str(int(round(value)))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _producer(scenario: Any) -> Any:
    return scenario.batch.producer


def _idempotence(acks: Any) -> tuple[tuple[str, Any], ...]:
    """acks=all with the idempotent producer (no duplicates on retry), as the published fix set them."""
    return (("enable.idempotence", acks == "all"),)


ACKS = ("0", "1", "all")   # the durability of each, weakest first: a policy's floor, a study's least


def _acks_at_least_the_jobs(scenario: Any) -> tuple[str, ...]:
    """The acks a study tries: the jobs' own and any stronger (a study never weakens a job's durability;
    a night's knobs are laid over every job: none weaker than the most durable's)."""
    least = max(ACKS.index(job.producer.acks) for job in scenario.jobs)
    return tuple(acks for acks in ("1", "all") if ACKS.index(acks) >= least)


def _is_modern(version: tuple[int, int, int]) -> bool:
    return version >= (3, 0, 0)


REQUEST_TIMEOUT_MS = 30_000.0    # the Java client's request.timeout.ms (a scenario does not set it)


def _delivery_timeout(config: Any, raw: dict, path: str) -> Any:
    """KafkaProducer.configureDeliveryTimeout: a Java client's delivery.timeout.ms is at least linger.ms +
    request.timeout.ms; a job's own lower value is a ConfigException, the default is raised to it."""
    least = config.linger_ms + REQUEST_TIMEOUT_MS
    value = config.delivery_timeout_ms
    if value is None or value >= least:
        return config
    if "delivery.timeout.ms" in raw:
        raise ScenarioError(f.join(path, "delivery.timeout.ms"), f"{value:g} ms is less than linger.ms + request.timeout.ms "
                                                                 f"({config.linger_ms:g} + {REQUEST_TIMEOUT_MS:g} ms)")
    return dataclasses.replace(config, delivery_timeout_ms=least)


PRODUCER: tuple[Setting, ...] = (
    Setting(COMPRESSION_TYPE_CONFIG, "compression_type", "producer", parse_codec, unit="",
            doc="The codec of each batch, applied on the appending thread (ProducerConfig COMPRESSION_TYPE_CONFIG)",
            default=Default(java="none", librdkafka="none"), librdkafka=COMPRESSION_TYPE_CONFIG,
            tune=Tune("choice", lambda s: CODECS), rule=ONE_OF, rule_parse=_codecs),
    Setting("acks", "acks", "producer", parse_acks,
            doc="The replicas that must have a batch before it is acknowledged: 0, 1 or all",
            default=Default(java=lambda v: "all" if _is_modern(v) else "1", librdkafka="all"), librdkafka="acks",
            tune=Tune("choice", _acks_at_least_the_jobs), rule=FLOOR, also=_idempotence, order=ACKS.index),
    Setting(LINGER_MS_CONFIG, "linger_ms", "producer", parse_milliseconds, unit="ms",
            doc="How long a batch waits for more records before it is ready (4.x: 5 ms, KIP-1030)",
            default=Default(java=lambda v: 5.0 if v >= (4, 0, 0) else 0.0, librdkafka=lambda v: 5.0 if v >= (1, 5, 0) else 0.5),
            librdkafka=LINGER_MS_CONFIG,
            tune=Tune("range", lambda s: (0, max(LINGER_MS_MAX, int(_producer(s).linger_ms)))), rule=FLOOR),
    Setting(BATCH_SIZE_CONFIG, "batch_size", "producer", f.positive(parse_bytes), unit="bytes",
            doc="The most bytes of one partition's batch",
            default=Default(java=16_384, librdkafka=1_000_000), librdkafka=BATCH_SIZE_CONFIG,
            tune=Tune("range", lambda s: (min(16 * KB, _producer(s).batch_size), _producer(s).max_request_size), log=True),
            rule=FLOOR),
    Setting(BUFFER_MEMORY_CONFIG, "buffer_memory", "producer", f.positive(parse_bytes), unit="bytes",
            doc="The bytes of records a producer holds before send() blocks",
            default=Default(java=32 * MB, librdkafka=MB * 1024), librdkafka="queue.buffering.max.kbytes",
            to_librdkafka=lambda value: min(max(value // 1024, 1), 2_097_151),
            tune=Tune("range", lambda s: (min(32 * MB, _producer(s).buffer_memory), max(512 * MB, _producer(s).buffer_memory)),
                      log=True)),
    Setting(MAX_IN_FLIGHT_CONFIG, "max_in_flight", "producer", f.positive_int,
            doc="Produce requests a connection may have unanswered",
            default=Default(java=5, librdkafka=1_000_000), librdkafka=MAX_IN_FLIGHT_CONFIG,
            tune=Tune("range", lambda s: (1, MAX_IN_FLIGHT_MAX)), rule=CEILING),
    Setting("enable.idempotence", "enable_idempotence", "producer", f.boolean,
            doc="Sequence numbers that keep retries from writing a batch twice (3.x: on, with acks=all)",
            default=Default(java=_is_modern, librdkafka=False), librdkafka="enable.idempotence", rule=FLOOR),
    Setting("max.request.size", "max_request_size", "producer", f.positive(parse_bytes), unit="bytes",
            doc="The most bytes of one produce request (librdkafka: message.max.bytes)",
            default=Default(java=1_048_576, librdkafka=1_000_000), librdkafka="message.max.bytes",
            to_librdkafka=lambda value: max(value, 1000)),
    Setting("batch.num.messages", "batch_num_messages", "producer", f.positive_int,
            doc="librdkafka's most records of one batch",
            default=Default(java=None, librdkafka=10_000), librdkafka="batch.num.messages", clients=("librdkafka",)),
    # a study searches it only when tune.knobs names it: in the default search it would change every study
    Setting("delivery.timeout.ms", "delivery_timeout_ms", "producer", f.positive(parse_milliseconds), unit="ms",
            doc="How long a record may wait, from send() to its acknowledgement, before its batch expires and "
                "the record fails with a TimeoutException (librdkafka: message.timeout.ms)",
            default=Default(java=lambda v: 120_000.0 if v >= (2, 1, 0) else None, librdkafka=300_000.0),
            librdkafka="message.timeout.ms",
            tune=Tune("range", lambda s: (REQUEST_TIMEOUT_MS + LINGER_MS_MAX, 600_000.0), log=True, searched=False),
            rule=FLOOR, check=_delivery_timeout, late=True),
)

QUOTA: tuple[Setting, ...] = (
    # from a sliver of the broker's NIC to a fifth of it
    Setting("producer_byte_rate", "producer_byte_rate", "quota", f.positive(parse_byte_rate), unit="byte_rate",
            doc="The bytes per second a client.id may produce to each broker before it is throttled",
            tune=Tune("range", lambda s: (float(max(MB, round(s.cluster.broker.nic_bandwidth / 250))),
                                          float(round(s.cluster.broker.nic_bandwidth / 5))), log=True, integer=False),
            rule=CEILING, per="per broker"),
    # % of one thread's time per quota window (Kafka: may exceed 100)
    Setting("request_percentage", "request_percentage", "quota", _request_percentage, unit="percent",
            doc="The share of one request-handler thread's time a client.id may take on each broker",
            tune=Tune("range", lambda s: (10.0, 200.0), integer=False), rule=CEILING, per="per broker"),
)

SETTINGS: dict[str, Setting] = {s.name: s for s in (*PRODUCER, *QUOTA)}
_BY_ATTRIBUTE: dict[tuple[str, str], Setting] = {(s.section, s.attribute): s for s in SETTINGS.values()}


def producer_setting(attribute: str) -> Setting:
    """The producer's setting held by ``ProducerConfig.<attribute>``."""
    return _BY_ATTRIBUTE[("producer", attribute)]


def quota_setting(attribute: str) -> Setting:
    """The client quota's setting held by ``Quota.<attribute>``."""
    return _BY_ATTRIBUTE[("quota", attribute)]


def ruled() -> list[Setting]:
    """The settings a policy bounds, the producer's then the quota's."""
    return [s for s in SETTINGS.values() if s.rule]


def librdkafka_properties(producer: Any) -> dict[str, Any]:
    """A ``ProducerConfig`` under librdkafka's property names (a setting unset, or librdkafka has none, left out)."""
    values = {s.librdkafka: s.to_librdkafka(getattr(producer, s.attribute)) for s in PRODUCER
              if s.librdkafka and getattr(producer, s.attribute) is not None}
    return values
