"""A cluster's policy for its batch jobs: classes of job, each with its producer template, the quota
per client.id and the worst night it was proven for; and whether a job keeps to it.

A platform team keeps the file in git and every job's CI reads it (``quietload check --policy``).
It is read as strictly as a scenario (workloads.reader, workloads._fields): an unknown rule or a
value of the wrong type is one line naming the field. Names are Kafka's own: the producer's
properties (``linger.ms``, ``batch.size``, ``compression.type``, ``acks``, ``enable.idempotence``,
``max.in.flight.requests.per.connection``) and the client quota's (``producer_byte_rate``,
``request_percentage``). Each rule is a bound a job's setting must keep:

- ``linger.ms``, ``batch.size``: the least allowed (a job may batch longer and larger);
- ``acks``, ``enable.idempotence``: the least durability allowed (0 < 1 < all, false < true): the job's
  own is a floor a policy never weakens;
- ``compression.type``: the codecs allowed;
- ``max.in.flight.requests.per.connection``, ``producer_byte_rate``, ``request_percentage``: the
  most allowed (a job without a quota has none: no bound at all).

A job belongs to the first class whose ``match`` it fits: its ``client.id`` against the class's
patterns (shell-style: ``daily-*``), and its topic when the class names topics.
"""
from __future__ import annotations

import dataclasses
import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workloads import _fields as f
from workloads.batch import job_mappings
from workloads.errors import ScenarioError
from workloads.producer import Client
from workloads.quota import QUOTA_CLIENT_ID, Quota
from workloads.reader import read_yaml
from workloads.versions import parse_version
from workloads.settings import CEILING, FLOOR, ONE_OF, REQUIRED, SETTINGS, Setting, producer_setting, quota_setting

_WORDS = {FLOOR: "allows at least", CEILING: "allows at most", REQUIRED: "requires", ONE_OF: "allows"}


def _patterns(value: Any, path: str) -> tuple[str, ...]:
    """A list of shell-style patterns (or one), each a text."""
    items = value if isinstance(value, list) else [value]
    if not items:
        raise ScenarioError(path, "expected at least one pattern, got an empty list")
    return tuple(f.text(item, f"{path}[{i}]" if isinstance(value, list) else path) for i, item in enumerate(items))


_SEEDS = re.compile(r"([0-9]{1,9})(?:-([0-9]{1,9}))?")


SEEDS_MAX = 100_000   # held-out seeds a proof runs, each a model run: more is no proof that ran


def _seeds(value: Any, path: str) -> tuple[int, ...]:
    """``4-23`` (a range) or ``7`` (one seed)."""
    match = _SEEDS.fullmatch(str(value).strip()) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if match is None or int(match.group(2) or match.group(1)) < int(match.group(1)):
        raise ScenarioError(path, f"expected model seeds like 4-23 or 7, got {value!r}")
    first, last = int(match.group(1)), int(match.group(2) or match.group(1))
    if last - first + 1 > SEEDS_MAX:
        raise ScenarioError(path, f"{value!r} is {last - first + 1:,} seeds, more than a proof runs (at most {SEEDS_MAX:,})")
    return tuple(range(first, last + 1))


@dataclass(frozen=True)
class Match:
    """Which jobs a class holds: client.id patterns, and topics when given (both must fit)."""

    client_id: tuple[str, ...] = f.prop("client.id", _patterns)
    topic: tuple[str, ...] = f.prop(parse=_patterns, default=())

    def fits(self, client_id: str, topic: str) -> bool:
        return (any(fnmatch.fnmatchcase(client_id, p) for p in self.client_id)
                and (not self.topic or any(fnmatch.fnmatchcase(topic, p) for p in self.topic)))


class _Rules:
    """The producer settings a class's jobs must keep (unset: no rule), each bounded in its setting's
    direction (workloads.settings: a floor, a ceiling, a required value, the codecs allowed): a field
    for each producer setting whose record has a rule."""

    @classmethod
    def at(cls, values: dict[str, Any]) -> Any:
        """The template whose rules are ``values`` (a setting's name -> the value a job keeps to: a floor's
        least, a ceiling's most, a required value, one codec allowed), with the settings that go with each
        (``acks=all`` brings ``enable.idempotence=true``; another acks no rule on it)."""
        rules: dict[str, Any] = {}
        for name, value in values.items():
            setting = SETTINGS[name]
            if setting.section != "producer":
                continue
            parsed = setting.parse(value, name)
            rules[setting.attribute] = (parsed,) if setting.rule == ONE_OF else parsed
            rules.update({SETTINGS[key].attribute: bound or None for key, bound in setting.also(value)})
        return cls(**rules)


# the template's rules in the order its file writes them; a ruled setting not named here follows, in the records' order
_TEMPLATE_ORDER = ("linger_ms", "batch_size", "compression_type", "acks", "enable_idempotence", "max_in_flight")
_TEMPLATE_RULES = sorted((s for s in SETTINGS.values() if s.rule and s.section == "producer"),
                         key=lambda s: _TEMPLATE_ORDER.index(s.attribute) if s.attribute in _TEMPLATE_ORDER else len(_TEMPLATE_ORDER))
Template = dataclasses.make_dataclass("Template", [(s.attribute, Any, s.rule_prop()) for s in _TEMPLATE_RULES],
                                      bases=(_Rules,), frozen=True, namespace={"__module__": __name__})
Template.__doc__ = _Rules.__doc__


def rules_of(job_class: "JobClass") -> list[tuple[Setting, Any]]:
    """The class's rules: each setting it bounds, with its bound, in the file's order (the template's, then the quota's)."""
    return [(setting, getattr(part, item.name)) for part, of in ((job_class.producer, producer_setting),
                                                                 (job_class.quota, quota_setting))
            for item in dataclasses.fields(part) if getattr(part, item.name) is not None
            for setting in (of(item.name),)]


def bounds_of(job_class: "JobClass") -> dict[str, Any]:
    """The values of a class's rules at their bounds (the floors, the ceilings, the first codec allowed)."""
    return {setting.name: setting.at_bound(bound) for setting, bound in rules_of(job_class)}


@dataclass(frozen=True)
class Proven:
    """The worst night the class was proven for: its jobs at once, on which scenario and model seeds."""

    jobs_at_once: int = f.prop(parse=f.positive_int)
    scenario: str = f.prop(parse=f.sentence, default="")
    seeds: tuple[int, ...] = f.prop(parse=_seeds, default=())   # written back as 4-23 (Policy.as_mapping)


@dataclass(frozen=True)
class JobClass:
    name: str = f.prop(parse=f.client_id)
    match: Match = f.prop(parse=lambda v, p: f.build(Match, v, p))
    producer: Template = f.prop(parse=lambda v, p: f.build(Template, v, p), default_factory=Template)
    quota: Quota = f.prop(parse=lambda v, p: f.build(Quota, v, p), default_factory=Quota)
    proven: Proven | None = f.prop(parse=lambda v, p: f.build(Proven, v, p), default=None)
    description: str = f.prop(parse=f.sentence, default="")


def _classes(value: Any, path: str) -> tuple[JobClass, ...]:
    if not isinstance(value, list) or not value:
        raise ScenarioError(path, f"expected a list of classes, got {f._short(value)}")
    classes = tuple(f.build(JobClass, item, f"{path}[{i}]") for i, item in enumerate(value))
    f.said_once(classes, path, "{value!r} names two classes; a class's name is unique")
    return classes


@dataclass(frozen=True)
class Policy:
    name: str = f.prop(parse=f.one_line(249))   # a scenario's name and -policy
    classes: tuple[JobClass, ...] = f.prop(parse=_classes)
    description: str = f.prop(parse=f.sentence, default="")

    @classmethod
    def from_yaml(cls, path: str | Path, option: str = "--policy") -> "Policy":
        """The policy in ``path``, or one ScenarioError naming the file and the field."""
        document = read_yaml(path, option)
        try:
            return f.build(cls, document, "")
        except ScenarioError as error:
            raise ScenarioError(f"{option} {path}: {error.field}", error.problem) from None

    def class_of(self, client_id: str, topic: str) -> JobClass | None:
        return next((c for c in self.classes if c.match.fits(client_id, topic)), None)

    def as_mapping(self) -> dict[str, Any]:
        """The policy as its file holds it, as a person writes it (``128KB``, ``40MB/s``); unset rules left out."""
        return _unset_left_out(f.as_mapping(self))


_SIZE_TEXT = (("MB", 1024**2), ("KB", 1024))
# a size or a byte rate a policy bounds, written as a person writes it
_AS_TEXT = {s.name: "/s" if s.unit == "byte_rate" else "" for s in SETTINGS.values() if s.rule and s.unit in ("bytes", "byte_rate")}


def _size_text(value: float, per: str) -> Any:
    """``131072`` -> ``128KB``, ``41943040`` -> ``40MB/s`` (with ``per``); a size of no whole unit as bytes."""
    for unit, scale in _SIZE_TEXT:
        if value >= scale and float(value / scale).is_integer():
            return f"{int(value // scale)}{unit}{per}"
    return f"{int(value)}B{per}" if per else int(value)


def _unset_left_out(value: Any, key: str = "") -> Any:
    if key in _AS_TEXT and isinstance(value, (int, float)) and not isinstance(value, bool):
        return _size_text(value, _AS_TEXT[key])
    if key == "seeds" and isinstance(value, list):
        return f"{value[0]}-{value[-1]}" if len(value) > 1 else value[0]
    if isinstance(value, dict):
        return {k: _unset_left_out(v, k) for k, v in value.items() if v not in (None, "", (), [], {})}
    if isinstance(value, (list, tuple)):
        return [_unset_left_out(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@dataclass(frozen=True)
class Breach:
    """One rule a job's setting keeps or breaks: the rule (Kafka's name), the job's value and the allowed."""

    job: str
    job_class: str
    rule: str
    value: str
    allowed: str
    kept: bool

    @property
    def sentence(self) -> str:
        """``batch: linger.ms=0 ms; class card-loads allows at least 10 ms`` (the verdict says kept or broken)."""
        if self.rule == "class":
            return f"{self.job}: client.id {self.value} fits no {self.allowed}"
        return f"{self.job}: {self.rule}={self.value}; class {self.job_class} {self.allowed}"


def judge(job: dict[str, Any], policy: Policy) -> list[Breach]:
    """Every rule of the job's class against the job's settings (kept or broken), in the file's order;
    a job of no class breaks the rule ``class``. ``job`` is a resolved job as a RunResult's scenario
    holds it (``batch``, or one of a night's jobs): Kafka's property names, defaults filled in."""
    name, client_id, topic = job_identity(job)
    job_class = policy.class_of(client_id, topic)
    if job_class is None:
        names = ", ".join(c.name for c in policy.classes)
        return [Breach(name, "none", "class", f"{client_id} (topic {topic})", f"class's match ({names})", False)]
    producer, quota = job.get("producer") or {}, job.get("quota") or {}
    client = _client_of(job)
    rules: list[Breach] = []
    for setting, bound in rules_of(job_class):
        value = (producer if setting.section == "producer" else quota).get(setting.name)
        value = setting.in_force(value, client) if client is not None else value   # a setting the job leaves to its client
        kept = setting.keeps(value, bound)
        shown = ", ".join(bound) if setting.rule == ONE_OF else setting.render(bound)
        rules.append(Breach(name, job_class.name, setting.name, setting.render(value), f"{_WORDS[setting.rule]} {shown}", kept))
    return rules


def _client_of(job: dict[str, Any]) -> Client | None:
    """The job's client as its resolved mapping states it (a version written as a list or a text), or None."""
    raw = job.get("client")
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
        return None
    version = raw.get("version")
    text = ".".join(map(str, version)) if isinstance(version, (list, tuple)) else version
    try:
        return Client(raw["kind"], parse_version(text, "client.version")) if text is not None else None
    except ScenarioError:
        return None


def jobs_judged(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """A resolved scenario's batch jobs (a RunResult's ``scenario``); one without any is judged as a
    job that states nothing (so it breaks the class rule, never passes unjudged)."""
    return job_mappings(scenario) or [{}]


def job_identity(job: dict[str, Any]) -> tuple[str, str, str]:
    """(name, client.id, topic) of a resolved job; a single job's are ``batch`` and ``batch-load``."""
    name = str(job.get("name") or "batch")
    return name, str(job.get("client.id") or (name if job.get("name") else QUOTA_CLIENT_ID)), str(job.get("topic"))


def judge_scenario(scenario: dict[str, Any], policy: Policy) -> list[Breach]:
    """Every job of a resolved scenario against the policy, job by job in the file's order."""
    return [breach for job in jobs_judged(scenario) for breach in judge(job, policy)]
