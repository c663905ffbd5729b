"""Strict building of frozen value objects from YAML mappings.

Each dataclass field may carry metadata ``key`` (its name in the file, e.g. Kafka's
``batch.size``) and ``parse`` (a function ``(value, field_path) -> value``). Unknown keys
and missing required keys are errors naming the field; nothing is ignored silently.
"""
from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Callable, Sequence

from workloads.errors import ScenarioError
from workloads.text import has_control

Parser = Callable[[Any, str], Any]


def prop(key: str | None = None, parse: Parser | None = None, default: Any = dataclasses.MISSING,
         default_factory: Any = dataclasses.MISSING, element: Callable[[Any], type] | None = None,
         unset_unsaid: bool = False, internal: bool = False, one: str | None = None) -> Any:
    """A field named ``key`` in the file, converted by ``parse``; a list field's ``element`` names the
    class one item's mapping builds (for ``--set`` paths into it) where the items differ in kind.
    ``unset_unsaid``: left at its default, the field is not written back (``as_mapping``), so a
    setting added later leaves the files of scenarios that do not use it as they were. ``internal``:
    no key of the file (how the file said something, e.g. ``batch:`` as a list), never written back.
    ``one``: a list field that a mapping may also give as its only item, and the word for an item
    (``batch:`` a job or a night's jobs)."""
    metadata = {"key": key, "parse": parse, "element": element, "unset_unsaid": unset_unsaid, "internal": internal,
                "one": one}
    if default_factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def file_key(field: dataclasses.Field) -> str:
    return field.metadata.get("key") or field.name


def keys_of(cls: type) -> dict[str, dataclasses.Field]:
    return {file_key(f): f for f in dataclasses.fields(cls) if f.init and not f.metadata.get("internal")}


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def require_mapping(raw: Any, path: str) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ScenarioError(path or "scenario", f"expected a mapping, got {type(raw).__name__}")
    return raw


def build(cls: type, raw: Any, path: str, **given: Any) -> Any:
    """Build ``cls`` from ``raw``; ``given`` supplies already-built fields (by attribute name)."""
    raw = require_mapping(raw, path)
    known = keys_of(cls)
    for key in raw:
        if key not in known:
            names = ", ".join(sorted(known))
            raise ScenarioError(join(path, str(key)), f"unknown key (known keys: {names})")
    refuse_non_finite(raw, path)
    values: dict[str, Any] = {}
    for key, field in known.items():
        if field.name in given:
            continue
        if key in raw:
            parse = field.metadata.get("parse")
            values[field.name] = parse(raw[key], join(path, key)) if parse else raw[key]
            _refuse_parsed_non_finite(values[field.name], raw[key], join(path, key))
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise ScenarioError(join(path, key), "required but missing")
    return cls(**values, **given)


def _refuse_parsed_non_finite(value: Any, raw: Any, path: str) -> None:
    """A number a parser made of a text (``1e309``, ``inf%``) is finite too: whatever field's parser missed it."""
    numbers = value if isinstance(value, tuple) else (value,)
    if any(isinstance(number, float) and not math.isfinite(number) for number in numbers):
        raise ScenarioError(path, f"expected a finite number, got {_short(raw)}")


def said_once(items: Sequence[Any], path: str, twice: str, field: str = "name") -> None:
    """No two of ``items`` (built from the list at ``path``) share their ``field`` (an attribute); else an
    error at the later one's key, ``twice`` formatted with the ``value``, the ``first`` one's index and the ``key``."""
    seen: dict[Any, int] = {}
    for i, item in enumerate(items):
        value = getattr(item, field)
        if value in seen:
            key = next(file_key(f) for f in dataclasses.fields(item) if f.name == field)
            raise ScenarioError(f"{path}[{i}].{key}", twice.format(value=value, first=seen[value], key=key))
        seen[value] = i


def unsaid(field: dataclasses.Field, value: Any) -> bool:
    """Whether ``value`` of ``field`` goes unwritten: a field marked ``unset_unsaid`` at its default."""
    if not field.metadata.get("unset_unsaid"):
        return False
    default = field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default
    return bool(value == default)


def as_mapping(obj: Any) -> Any:
    """The value object back as plain data, keyed as in the file (for result files)."""
    if dataclasses.is_dataclass(obj):
        return {file_key(f): as_mapping(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if not unsaid(f, getattr(obj, f.name)) and not f.metadata.get("internal")}
    if isinstance(obj, (list, tuple)):
        return [as_mapping(item) for item in obj]
    if hasattr(obj, "as_value"):   # a value written as one text in the file (an SLA: ``1.5x``)
        return obj.as_value()
    return obj


def refuse_non_finite(value: Any, path: str) -> None:
    """NaN and infinities (YAML's ``.nan``, ``.inf``) are no setting's value, and JSON cannot hold them."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(path or "scenario", f"expected a finite number, got {value!r}")
    if isinstance(value, dict):
        for key, item in value.items():
            refuse_non_finite(item, join(path, str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            refuse_non_finite(item, f"{path}[{i}]")


# Small parsers shared by the value objects.

INT_MAX = 2**31 - 1   # Java's int: the largest count a Kafka or Spark setting holds


def _whole(value: Any, path: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ScenarioError(path, f"expected a whole number of at least {least}, got {_short(value)}")
    if value > INT_MAX:
        raise ScenarioError(path, f"{str(value)[:20]}{'...' if len(str(value)) > 20 else ''} is more than Kafka and Spark take (2^31-1)")
    return value


def positive_int(value: Any, path: str) -> int:
    return _whole(value, path, 1)


def non_negative_int(value: Any, path: str) -> int:
    return _whole(value, path, 0)


def boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioError(path, f"expected true or false, got {value!r}")
    return value


def text(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ScenarioError(path, f"expected a non-empty text, got {_short(value)}")
    if _lone_surrogate(value):     # half of a character (a bad escape, or bytes that were no UTF-8): no text
        raise ScenarioError(path, f"{_short(value)} holds a lone surrogate, half of a character")
    return value


def one_line(limit: int) -> Parser:
    """A name shown on a terminal and in the comments of generated files: one line of text (no line
    break, no control or invisible character that could forge a line or a command), at most ``limit``
    characters."""
    def parse(value: Any, path: str) -> str:
        name = text(value, path)
        if has_control(name):
            raise ScenarioError(path, f"{_short(name)} holds a line break or a control character; a name is one line of text")
        if len(name) > limit:
            raise ScenarioError(path, f"{_short(name)} is {len(name):,} characters long; at most {limit}")
        return name
    return parse


def _lone_surrogate(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_TOPIC = re.compile(r"[a-zA-Z0-9._-]{1,249}")      # Kafka's Topic.validate: legal characters, at most 249
_CLIENT_ID = re.compile(r"[a-zA-Z0-9._-]{1,249}")  # Kafka's legal client-id characters (its quota entity names)


def topic_name(value: Any, path: str) -> str:
    """A Kafka topic's name as Kafka takes it: ASCII letters, digits, '.', '_' and '-', at most 249, not '.' or '..'."""
    name = text(value, path)
    if not _TOPIC.fullmatch(name) or name in (".", ".."):
        raise ScenarioError(path, f"{_short(name)} is no Kafka topic name (ASCII letters, digits, '.', '_' and '-', "
                                  "at most 249, not '.' or '..')")
    return name


def client_id(value: Any, path: str) -> str:
    """A name that becomes a Kafka client.id: ASCII letters, digits, '.', '_' and '-'."""
    name = text(value, path)
    if not _CLIENT_ID.fullmatch(name):
        raise ScenarioError(path, f"{_short(name)} is no Kafka client.id (ASCII letters, digits, '.', '_' and '-', at most 249)")
    return name


def _short(value: Any) -> str:
    """A bad value as the error line shows it: its start, when long; a boolean with why it is one."""
    if isinstance(value, bool):   # YAML reads an unquoted yes, no, on, off as a boolean
        return f"{value} (YAML reads an unquoted yes, no, on or off as a boolean: quote a text)"
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def sentence(value: Any, path: str) -> str:
    """A free text (``description``): a string, or nothing."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ScenarioError(path, f"expected a text, got {type(value).__name__} {_short(value)}")
    return value


def sentences(value: Any, path: str) -> tuple[str, ...]:
    """A list of texts (``assumptions``)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ScenarioError(path, f"expected a list of sentences, got {type(value).__name__} {_short(value)}")
    return tuple(sentence(item, f"{path}[{i}]") for i, item in enumerate(value))


def one_of(*choices: str) -> Parser:
    def parse(value: Any, path: str) -> str:
        if str(value) not in choices:
            raise ScenarioError(path, f"expected one of {', '.join(choices)}, got {_short(value)}")
        return str(value)
    return parse


def fraction(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ScenarioError(path, f"expected a fraction from 0 to below 1, got {value!r}")
    return float(value)


def positive(parse: Parser) -> Parser:
    def check(value: Any, path: str) -> Any:
        parsed = parse(value, path)
        if parsed <= 0:
            raise ScenarioError(path, f"must be greater than zero, got {value!r}")
        return parsed
    return check


def or_none(parse: Parser) -> Parser:
    """``parse``, or None for a value left unset (null, or ``none`` as in ``repartition: none``)."""
    def parse_or_none(value: Any, path: str) -> Any:
        return None if value is None or value == "none" else parse(value, path)
    return parse_or_none
