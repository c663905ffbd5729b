"""Reading scenario files and applying ``--set key=value`` overrides before validation.

Override paths follow the file's own keys; Kafka and Spark property names keep their dots
(``batch.producer.linger.ms=10``), list items are addressed by index (``tenants.0.rate``).
"""
from __future__ import annotations

import copy
import types
import typing
from pathlib import Path
from typing import Any

import yaml

from workloads import _fields as f
from workloads.errors import ScenarioError


MAX_TEXT_BYTES = 4 * 1024**2   # the catalog's files are a few KB
MAX_NESTING = 32   # a scenario nests 5 levels deep; deeper input is an attack on the parser's stack


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases (``*name`` repeats a node: nested, a few lines grow to
    gigabytes, the "billion laughs") and without nesting deeper than ``MAX_NESTING``."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed", mark)
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_NESTING} levels deep",
                                                  self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


_LIBYAML = getattr(yaml, "CSafeLoader", None)   # PyYAML's safe loader on libyaml's parser, where it is built
_NODES = (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent, yaml.AliasEvent)
_NOT_PLAIN = object()


def _plain_yaml(text: str) -> Any:
    """``text`` parsed by libyaml (ten times PyYAML's own speed), when it is plain: printable
    characters only and no tab (libyaml takes some that PyYAML refuses), no alias, nesting short
    of ``MAX_NESTING``, nothing either parser would refuse; else ``_NOT_PLAIN``, and
    ``_StrictLoader`` parses it and says what is wrong as it always has. Both build the values
    with PyYAML's own constructor and resolver (tests/workloads/test_strict_input.py)."""
    if _LIBYAML is None or "\t" in text or yaml.reader.Reader.NON_PRINTABLE.search(text):
        return _NOT_PLAIN
    try:
        open_collections = 0
        for event in yaml.parse(text, Loader=_LIBYAML):   # libyaml's parser keeps its own stack, not Python's
            if isinstance(event, _NODES):
                if isinstance(event, yaml.AliasEvent) or open_collections + 1 >= MAX_NESTING:
                    return _NOT_PLAIN
                if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                    open_collections += 1
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                open_collections -= 1
        return yaml.load(text, Loader=_LIBYAML)
    except Exception:   # refused, or past what libyaml takes: the strict loader words it
        return _NOT_PLAIN


def safe_yaml(text: str, field: str, what: str) -> Any:
    """``text`` parsed as YAML (no aliases, bounded nesting), or one error line naming ``field``."""
    if (plain := _plain_yaml(text)) is not _NOT_PLAIN:
        return plain
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ScenarioError(field, f"{what} is not valid YAML{where}: {problem}") from None


class _PlainDumper(yaml.SafeDumper):
    """Writes a value shared by two keys twice rather than as an anchor and an alias, which
    ``safe_yaml`` refuses."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(document: Any, width: int = 120) -> str:
    """The project's files (recommendations, profiles) in YAML that ``safe_yaml`` reads back."""
    return yaml.dump(document, Dumper=_PlainDumper, sort_keys=False, width=width)


def read_text(path: Path, field: str) -> str:
    """A text file's contents, or one error line naming ``field`` (binary files, unreadable files,
    files far larger than any scenario or profile: YAML parses in pure Python, ~1 MB a second)."""
    size = path.stat().st_size
    if size > MAX_TEXT_BYTES:
        raise ScenarioError(field, f"{path} holds {size:,} bytes; a scenario or profile file is at most {MAX_TEXT_BYTES:,}")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(field, f"{path} is not a UTF-8 text file") from None


def load_mapping(path: str | Path, overrides: list[str], schema: type) -> dict:
    """The file's mapping (``extends`` resolved) with ``overrides`` laid over it, checked against
    ``schema``'s keys (the Scenario class)."""
    mapping = apply_overrides(_read(Path(path), []), overrides, schema)
    f.refuse_non_finite(mapping, "")
    return mapping


def _read(path: Path, seen: list[Path]) -> dict:
    """The file's mapping; ``extends: other.yaml`` first loads that file (relative to this
    one) and lays this file's keys over it, mappings merged key by key."""
    if not path.is_file():
        raise ScenarioError("scenario", f"{path}: no such file")
    raw = safe_yaml(read_text(path, "scenario"), "scenario", str(path))
    if not isinstance(raw, dict):
        raise ScenarioError("scenario", f"{path} must hold a mapping of scenario keys")
    base = raw.pop("extends", None)
    if base is None:
        return raw
    parent = (path.parent / str(base)).resolve()
    if parent in seen or parent == path.resolve():
        raise ScenarioError("extends", f"{path} extends itself through {parent.name}")
    return merge(_read(parent, seen + [path.resolve()]), raw)


def merge(base: dict, top: dict) -> dict:
    """``base`` with ``top`` laid over it, nested mappings merged key by key."""
    merged = copy.deepcopy(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def apply_overrides(raw: dict, overrides: list[str], schema: type) -> dict:
    result = copy.deepcopy(raw)
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ScenarioError("--set", f"expected key=value, got {item!r}")
        value = safe_yaml(text, f"--set {key.strip()}", repr(text)) if text.strip() else None
        f.refuse_non_finite(value, f"--set {key.strip()}")
        _assign(result, schema, key.strip().split("."), value, "")
    return result


def _assign(node: dict, cls: type, segments: list[str], value: Any, path: str) -> None:
    known = f.keys_of(cls)
    for end in range(len(segments), 0, -1):
        key = ".".join(segments[:end])
        if key in known:
            break
    else:
        raise ScenarioError(f.join(path, ".".join(segments)), f"unknown key (known keys: {', '.join(sorted(known))})")
    where, rest = f.join(path, key), segments[end:]
    if not rest:
        node[key] = value
        return
    child = _value_type(cls, known[key].name)
    if typing.get_origin(child) in (tuple, list):
        items = node.get(key)
        index = rest[0]
        if not index.isdigit() or not isinstance(items, list) or int(index) >= len(items):
            raise ScenarioError(f"{where}.{index}", "no such list item")
        kind_of = known[key].metadata.get("element")
        element = kind_of(items[int(index)]) if kind_of else typing.get_args(child)[0]
        _assign(items[int(index)], element, rest[1:], value, f"{where}[{index}]")
        return
    if not isinstance(child, type) or not hasattr(child, "__dataclass_fields__") or child.__name__ == "CostProfile":
        raise ScenarioError(where, f"has no key {'.'.join(rest)!r}")
    sub = node.get(key)
    if sub is None:
        sub = node[key] = {}
    _assign(sub, child, rest, value, where)


def _value_type(cls: type, attribute: str) -> Any:
    hint = typing.get_type_hints(cls)[attribute]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return hint
