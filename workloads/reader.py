"""The one reader of every file quietload reads: scenarios, cost profiles, run results, studies,
plans, gate results, recommendations, metric histories and an import's inputs (a Glue job's and an
MSK cluster's JSON, a PySpark script, a broker's server.properties).

``read_text`` gives a file's text, ``read_yaml`` and ``read_json`` its document; each refuses in one
line naming the file (and, inside it, the field):

- what is not a regular file: a directory, a named pipe (FIFO), a device, a socket, named as such
  (``os.stat`` before the file is opened, so that a named pipe never blocks);
- more bytes than its kind holds, text that is not UTF-8;
- a key given twice in one mapping, at any level (YAML's and JSON's parsers keep the last silently);
- YAML 1.1's surprises: ``1:30`` (base 60, i.e. 90) and ``010`` (octal, i.e. 8) are texts here,
  which a number's field refuses; an unquoted ``yes``/``no``/``on``/``off`` is a boolean, which a
  text's field refuses (``_fields``);
- aliases (``*name``: a few lines grow to gigabytes) and nesting past ``MAX_NESTING``;
- whole numbers past 2^53 and numbers that are not finite (NaN, Infinity, ``.inf``, ``1e400``).

``safe_yaml`` parses a text given on the command line (``--set``, a list option) as strictly.
"""
from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from workloads.errors import ScenarioError

MAX_TEXT_BYTES = 4 * 1024**2    # a scenario, profile or script: the catalog's files are a few KB
MAX_JSON_BYTES = 128 * 1024**2  # a run's result is tens of KB; two weeks of a cluster's metrics, tens of MB
MAX_NESTING = 32   # a scenario nests 5 levels deep; deeper input is an attack on the parser's stack
MAX_JSON_NESTING = 64   # AWS's JSON nests deeper than a scenario, still far short of this
LARGEST_WHOLE = 2**53   # past it a JSON reader (and a float) no longer keeps a whole number exact


def not_a_file(mode: int) -> str | None:
    """What a file that is not a regular one is, in a refusal's words."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def regular_file(path: str | Path, field: str) -> os.stat_result:
    """``path``'s status if it is a regular file; else one ScenarioError naming what it is instead."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise ScenarioError(field, f"{path}: no such file") from None
    except OSError as error:
        raise ScenarioError(field, f"{path}: cannot be read ({error.strerror or error})") from None
    if (kind := not_a_file(status.st_mode)) is not None:
        raise ScenarioError(field, f"{path} is {kind}, not a file")
    return status


def read_text(path: str | Path, field: str, limit: int = MAX_TEXT_BYTES) -> str:
    """A text file's contents, or one error line naming ``field``: what is not a regular file, a
    file of more than ``limit`` bytes (YAML parses in pure Python, ~1 MB a second), binary files."""
    size = regular_file(path, field).st_size
    if size > limit:
        raise ScenarioError(field, f"{path} holds {size:,} bytes; a file of this kind is at most {limit:,}")
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise ScenarioError(field, f"{path}: cannot be read ({error.strerror or error})") from None
    if len(data) > limit:   # it grew since
        raise ScenarioError(field, f"{path} holds more than {limit:,} bytes; a file of this kind is at most {limit:,}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(field, f"{path} is not a UTF-8 text file") from None


# -- YAML ----------------------------------------------------------------------------------------

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
# YAML 1.1's numbers without base 60 (1:30) and without octal by a leading zero (010): those stay texts
_NUMBERS = {
    _INT: re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0|[-+]?[1-9][0-9_]*|[-+]?0x[0-9a-fA-F_]+)$"),
    _FLOAT: re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                           |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                           |[-+]?\.(?:inf|Inf|INF)
                           |\.(?:nan|NaN|NAN))$""", re.X),
}


# PyYAML's resolver with ``_NUMBERS`` in place of YAML 1.1's number patterns, for both loaders
_RESOLVERS = {first: [(tag, _NUMBERS.get(tag, pattern)) for tag, pattern in resolvers]
              for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()}


class _Checking:
    """A document's keys checked before its values are built: no key twice in one mapping, no whole
    number of more digits than ``LARGEST_WHOLE`` (Python refuses to build one of 4,300)."""

    def construct_document(self, node: Any) -> Any:
        _check_nodes(node, "")
        return super().construct_document(node)   # type: ignore[misc]


def _check_nodes(node: Any, where: str) -> None:
    stack = [(node, where)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key, value in node.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else None
                inner = f"{where}.{name}" if where else str(name)
                if name is not None and name != "<<":
                    same = _key_identity(key)
                    if same in seen:
                        raise _Refused(f"{inner} is given twice (lines {seen[same]} and {key.start_mark.line + 1}); "
                                       "a key is said once")
                    seen[same] = key.start_mark.line + 1
                stack.append((value, inner))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(node.value))
        elif node.tag == _INT and len(node.value) > 20:
            line = f"line {node.start_mark.line + 1}"
            raise _Refused(f"{where} ({line}): {_past_largest(node.value)}" if where else f"{line}: {_past_largest(node.value)}")


def _key_identity(key: yaml.ScalarNode) -> tuple[str, Any]:
    """The key as the mapping will hold it: ``yes``, ``true`` and ``On`` are one key (True), ``~`` and
    ``null`` one (None), ``1`` and ``0x1`` one (1)."""
    if key.tag == _BOOL:
        return _BOOL, key.value.lower() in ("yes", "y", "true", "on")
    if key.tag == _NULL:
        return _NULL, None
    if key.tag == _INT:
        try:
            return _INT, int(key.value.replace("_", ""), 0)
        except ValueError:
            return _INT, key.value
    return key.tag, key.value


class _Refused(yaml.YAMLError):
    """A document refused for its keys or numbers: the sentence says where."""


class _StrictLoader(_Checking, yaml.SafeLoader):
    """PyYAML's safe loader without aliases (``*name`` repeats a node: nested, a few lines grow to
    gigabytes, the "billion laughs") and without nesting deeper than ``MAX_NESTING``."""

    yaml_implicit_resolvers = _RESOLVERS
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


_LIBYAML = None
if hasattr(yaml, "CSafeLoader"):   # PyYAML's safe loader on libyaml's parser, where it is built
    class _FastLoader(_Checking, yaml.CSafeLoader):   # type: ignore[name-defined,misc]
        yaml_implicit_resolvers = _RESOLVERS
    _LIBYAML = _FastLoader

_NODES = (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent, yaml.AliasEvent)
_NOT_PLAIN = object()


def _plain_yaml(text: str) -> Any:
    """``text`` parsed by libyaml (ten times PyYAML's own speed), when it is plain: printable
    characters only and no tab (libyaml takes some that PyYAML refuses), no alias, nesting short
    of ``MAX_NESTING``, nothing either parser would refuse; else ``_NOT_PLAIN``, and
    ``_StrictLoader`` parses it and says what is wrong as it always has. Both build the values
    with the same constructor and resolver (tests/workloads/test_strict_input.py)."""
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
    """``text`` parsed as YAML (no aliases, bounded nesting, no key twice, finite numbers), or one
    error line naming ``field``."""
    if (plain := _plain_yaml(text)) is _NOT_PLAIN:
        try:
            plain = yaml.load(text, Loader=_StrictLoader)
        except _Refused as error:
            raise ScenarioError(field, f"{what}: {error}") from None
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark else ""
            problem = getattr(error, "problem", None) or str(error).splitlines()[0]
            raise ScenarioError(field, f"{what} is not valid YAML{where}: {problem}") from None
    return plain


class _PlainDumper(yaml.SafeDumper):
    """Writes a value shared by two keys twice rather than as an anchor and an alias, which
    ``safe_yaml`` refuses."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(document: Any, width: int = 120) -> str:
    """The project's files (recommendations, profiles, scenarios) in YAML that ``safe_yaml`` reads back."""
    return yaml.dump(document, Dumper=_PlainDumper, sort_keys=False, width=width)


def read_yaml(path: str | Path, field: str, limit: int = MAX_TEXT_BYTES) -> Any:
    """The YAML document in ``path``, or one error line naming ``field``, the file and the place in it."""
    document = safe_yaml(read_text(path, field, limit), field, str(path))
    _check_values(document, field, str(path))
    return document


# -- JSON ----------------------------------------------------------------------------------------

class _Twice(dict):
    """A JSON object that named ``key`` more than once (the walk names where)."""

    key: str = ""


class _Digits(str):
    """A number past what any figure is: more digits than a whole number has, or past a float's
    range (``1e400``); the walk names where."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict:
    mapping = dict(pairs)
    if len(mapping) == len(pairs):
        return mapping
    seen: set[str] = set()
    twice = _Twice(mapping)
    twice.key = next(key for key, _ in pairs if key in seen or seen.add(key))   # type: ignore[func-returns-value]
    return twice


def _whole(text: str) -> Any:
    return _Digits(text) if len(text) > 20 else int(text)


def _decimal(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _Digits(text)


def _constant(name: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def read_json(path: str | Path, field: str = "", limit: int = MAX_JSON_BYTES) -> Any:
    """The JSON document in ``path``, or one error line naming ``field``, the file and the place in it."""
    text = read_text(path, field, limit)
    try:
        document = json.loads(text, object_pairs_hook=_pairs, parse_int=_whole, parse_float=_decimal,
                              parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise ScenarioError(field, f"{path}: not JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except RecursionError:
        raise ScenarioError(field, f"{path}: nested more than {MAX_JSON_NESTING} levels deep") from None
    _check_values(document, field, str(path), MAX_JSON_NESTING)
    return document


# -- what every document's values must be ------------------------------------------------------

def _past_largest(digits: str) -> str:
    shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits.lstrip('+-'))} digits)"
    return f"{shown} is past the largest number quietload reads (2^53 for a whole number)"


def _check_values(document: Any, field: str, what: str, nesting: int = MAX_NESTING + 1) -> None:
    """No key twice, no whole number past ``LARGEST_WHOLE``, no number that is not finite, no nesting
    past ``nesting``: one ScenarioError naming ``what`` and the value's place."""
    def refuse(where: str, problem: str) -> None:
        raise ScenarioError(field, f"{what}: {where}: {problem}" if where else f"{what}: {problem}")
    stack = [(document, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > nesting:
            refuse("", f"nested more than {nesting} levels deep")
        if isinstance(value, _Twice):
            raise ScenarioError(field, f"{what}: {where + '.' if where else ''}{value.key} is given twice; a key is said once")
        if isinstance(value, dict):
            stack.extend((item, f"{where}.{key}" if where else str(key), depth + 1) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value))
        elif isinstance(value, _Digits):
            refuse(where, _past_largest(value))
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int) and abs(value) > LARGEST_WHOLE:
            refuse(where, _past_largest(str(value)))
        elif isinstance(value, float) and not math.isfinite(value):
            refuse(where, f"expected a finite number, got {value!r}")
