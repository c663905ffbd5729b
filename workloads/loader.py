"""Reading scenario files and applying ``--set key=value`` overrides before validation.

Override paths follow the file's own keys; Kafka and Spark property names keep their dots
(``batch.producer.linger.ms=10``), list items are addressed by index (``tenants.0.rate``,
``tenants[0].rate``) and a night's jobs also by name (``batch.hourly-export.producer.linger.ms``);
``batch.`` keys of one job given as a mapping address that job.
"""
from __future__ import annotations

import copy
import re
import types
import typing
from pathlib import Path
from typing import Any

from workloads import _fields as f
from workloads.errors import ScenarioError
from workloads.reader import read_yaml, safe_yaml


def load_mapping(path: str | Path, overrides: list[str], schema: type) -> dict:
    """The file's mapping (``extends`` resolved) with ``overrides`` laid over it, checked against
    ``schema``'s keys (the Scenario class)."""
    mapping = apply_overrides(_read(Path(path), []), overrides, schema)
    f.refuse_non_finite(mapping, "")
    return mapping


def _read(path: Path, seen: list[Path]) -> dict:
    """The file's mapping; ``extends: other.yaml`` first loads that file (relative to this
    one) and lays this file's keys over it, mappings merged key by key."""
    raw = read_yaml(path, "scenario")
    if not isinstance(raw, dict):
        raise ScenarioError("scenario", f"{path} must hold a mapping of scenario keys")
    base = raw.pop("extends", None)
    if base is None:
        return raw
    if not isinstance(base, str) or not base.strip():
        raise ScenarioError(f"{path}: extends", f"expected the path of one scenario file, got {f._short(base)}")
    parent = (path.parent / base).resolve()
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
        value = safe_yaml(text, f"--set {key.strip()}", f._short(text)) if text.strip() else None
        f.refuse_non_finite(value, f"--set {key.strip()}")
        _assign(result, schema, _segments(key.strip()), value, "")
    return result


def set_values(raw: dict, changes: dict[tuple[str, ...], Any], schema: type) -> dict:
    """``raw`` with values set at their paths of file keys (a list's item by its index), each key checked:
    a typed edit of the file's mapping, no text read back."""
    result = copy.deepcopy(raw)
    for path, value in changes.items():
        _assign(result, schema, [str(key) for key in path], value, "")
    return result


def _segments(key: str) -> list[str]:
    """``batch[1].producer.linger.ms`` as ``batch``, ``1``, ``producer``, ``linger``, ``ms``."""
    return [part for segment in key.split(".") for part in _INDEXED.sub(r"\1.\2", segment).split(".")]


_INDEXED = re.compile(r"^(.+?)\[(\d+)\]$")


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
        kind_of, one = known[key].metadata.get("element"), known[key].metadata.get("one")
        if items is None and one and kind_of and not rest[0].isdigit():
            items = node[key] = {}   # a fragment's (a tuned file's) batch.producer...: one item's keys
        if isinstance(items, dict) and kind_of:   # one item given as a mapping: its keys are the item's
            _assign(items, kind_of(items), rest, value, where)
            return
        index, rest = _item(items, rest)
        if index is None and kind_of and isinstance(items, list) and items and isinstance(items[0], dict) \
                and any(k in f.keys_of(kind_of(items[0])) for k in (rest[0], ".".join(rest[:2]))):
            # batch.producer... on a night's list: a key of every item, not the name of one
            names = [str(item.get("name")) for item in items if isinstance(item, dict)]
            raise ScenarioError(f"{where}.{rest[0]}", f"{where} lists {len(items)} {one + 's' if one else 'entries'}: address one as "
                                                      f"{where}[0].{'.'.join(rest)} or {where}.{names[0]}.{'.'.join(rest)}")
        if index is None:
            raise ScenarioError(f"{where}.{rest[0]}", "no such list item")
        element = kind_of(items[index]) if kind_of else typing.get_args(child)[0]
        _assign(items[index], element, rest, value, f"{where}[{index}]")
        return
    if child is dict:   # a mapping of one entry (batch.platform: {glue: 4.0}): the key set replaces it
        node[key] = {".".join(rest): value}
        return
    if not isinstance(child, type) or not hasattr(child, "__dataclass_fields__") or child.__name__ == "CostProfile":
        raise ScenarioError(where, f"has no key {'.'.join(rest)!r}")
    sub = node.get(key)
    if sub is None:
        sub = node[key] = {}
    _assign(sub, child, rest, value, where)


def _item(items: Any, rest: list[str]) -> tuple[int | None, list[str]]:
    """The list item ``rest`` starts with (by index, or by a name that may hold dots), and what follows it."""
    if not isinstance(items, list):
        return None, rest
    if rest[0].isdigit():
        return (int(rest[0]), rest[1:]) if int(rest[0]) < len(items) else (None, rest)
    for end in range(len(rest), 0, -1):
        name = ".".join(rest[:end])
        for i, item in enumerate(items):
            if isinstance(item, dict) and item.get("name") == name:
                return i, rest[end:]
    return None, rest


def _value_type(cls: type, attribute: str) -> Any:
    hint = typing.get_type_hints(cls)[attribute]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return hint
