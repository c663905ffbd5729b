"""The job's PySpark script, read statically with ``ast`` (never run): its Kafka writer's options
(``kafka.*`` producer properties, ``kafka.client.id``, ``kafka.bootstrap.servers`` and ``topic``),
``repartition(N)``, the input path, and the column the records' key comes from, in every form a
Spark or Glue script sets it (workloads.imports.keys).

A value may be a literal, a module-level name bound to a literal, or a job parameter
(``args["name"]`` after ``getResolvedOptions``), resolved from the Glue job's parameters. A
producer property read from anything else is named in a note, not guessed. Security settings
(``kafka.sasl.*``, ``kafka.ssl.*``, ``kafka.security.protocol``) are never read: they hold secrets.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from workloads.errors import ScenarioError
from workloads.imports.keys import Key, key_of
from workloads.settings import PRODUCER
from workloads.units import whole_number

# the producer properties a Spark job's Kafka sink (kafka-clients) takes from ``kafka.*`` options
PRODUCER_PROPERTIES = tuple(setting.name for setting in PRODUCER if "java" in setting.clients)
_READERS = ("csv", "load", "text", "json")
_SECRET_PREFIXES = ("kafka.sasl.", "kafka.ssl.", "kafka.security.")
_NUMERAL = re.compile(r"[+-]?[0-9.eE+-]+")     # a count written as text: "60", "-3", "2.5"


@dataclass(frozen=True)
class ScriptFacts:
    producer: dict[str, Any]
    topic: str | None
    repartition: Any             # a literal as written (int, float or numeral text); the loader judges it
    input_paths: tuple[str, ...]
    notes: tuple[str, ...]
    key: Key | None = None       # the records' key: a column, or an expression not evaluated
    client_id: str | None = None             # kafka.client.id
    bootstrap_servers: tuple[str, ...] = ()  # kafka.bootstrap.servers, host:port each


def _typed(value: Any) -> Any:
    """Spark passes option values as strings; a Kafka property's number or boolean as the scenario takes it."""
    if isinstance(value, str):
        text = value.strip()
        if whole_number(text) is not None:
            return whole_number(text)
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
    return value


class _Reader(ast.NodeVisitor):
    def __init__(self, parameters: dict[str, str]) -> None:
        self.parameters = parameters
        self.constants: dict[str, Any] = {}
        self.dicts: dict[str, ast.Dict] = {}
        self.producer: dict[str, Any] = {}
        self.topic: str | None = None
        self.repartition: Any = None
        self.inputs: list[str] = []
        self.notes: list[str] = []
        self.key: Key | None = None
        self.client_id: str | None = None
        self.bootstrap: tuple[str, ...] = ()

    def value(self, node: ast.AST) -> Any:
        """A literal, a module-level constant or a job parameter; ``...`` when it cannot be known statically."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(node.operand, ast.Constant):
            return ast.literal_eval(node)     # -3: a literal too
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            name = node.slice.value
            if isinstance(name, str) and name in self.parameters:
                return self.parameters[name]
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(item) for item in node.elts]
            return ... if ... in items else items
        return ...

    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.value(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if value is not ...:
                    self.constants[target.id] = value
                if isinstance(node.value, ast.Dict):     # a sink's options, named before the call that takes them
                    self.dicts[target.id] = node.value
        self.generic_visit(node)

    def option(self, key: Any, node: ast.AST) -> None:
        if not isinstance(key, str) or key.startswith(_SECRET_PREFIXES):
            return
        if key in ("topic", "topicName"):      # Spark's writer option; Glue's Kafka sink's connection option
            value = self.value(node)
            if isinstance(value, str):
                self.topic = value
        elif key == "key":                      # a Glue sink's key option: the column its records are keyed by
            value = self.value(node)
            self.found_key(Key(value) if isinstance(value, str) else Key(None, ast.unparse(node)))
        elif key == "kafka.client.id":
            value = self.value(node)
            if isinstance(value, str):
                self.client_id = value
            else:
                self.notes.append("The script sets kafka.client.id from an expression quietload does not evaluate; "
                                  "the job's name is its client.id.")
        elif key in ("kafka.bootstrap.servers", "bootstrap.servers"):
            value = self.value(node)
            if isinstance(value, str):
                self.bootstrap = tuple(s.strip() for s in value.split(",") if s.strip())
        elif key.startswith("kafka.") and key[6:] in PRODUCER_PROPERTIES:
            value = self.value(node)
            if value is ...:
                self.notes.append(f"The script sets {key} from an expression quietload does not evaluate; its value is assumed.")
            else:
                self.producer[key[6:]] = _typed(value)
        elif key == "path" or key == "paths":
            self.input(node)

    def input(self, node: ast.AST) -> None:
        value = self.value(node)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str) and path.startswith(("s3://", "s3a://", "s3n://")):
                self.inputs.append(path)

    def found_key(self, key: Key) -> None:
        if self.key is None or (self.key.column is None and key.column is not None):
            self.key = key

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if (key := key_of(node, self.value)) is not None:
            self.found_key(key)
        if name == "option" and len(node.args) == 2:
            self.option(self.value(node.args[0]), node.args[1])
        elif name == "options":
            for keyword in node.keywords:
                if keyword.arg is None and isinstance(keyword.value, ast.Dict):
                    for k, v in zip(keyword.value.keys, keyword.value.values):
                        if k is not None:
                            self.option(self.value(k), v)
                elif keyword.arg is not None:
                    self.option(keyword.arg, keyword.value)
        elif name == "repartition" and node.args:
            count = self.value(node.args[0])
            if isinstance(count, str) and _NUMERAL.fullmatch(count.strip()):
                count = _typed(count.strip())
            if isinstance(count, (int, float)) or (isinstance(count, str) and _NUMERAL.fullmatch(count)):
                self.repartition = count     # as written: the scenario's loader judges it, as it would in a file
            elif not isinstance(count, str):   # repartition("col") partitions by a column
                self.notes.append("The script repartitions by an expression quietload does not evaluate; no repartition is assumed.")
        elif name in _READERS and node.args:
            self.input(node.args[0])
        elif name in ("from_options", "from_catalog", "getSink", "getSource", "getCatalogSink"):
            # Glue's sources and sinks: connection_options, additional_options or options (a dict)
            for keyword in node.keywords:
                options = keyword.value if isinstance(keyword.value, ast.Dict) else self.dicts.get(_name_of(keyword.value) or "")
                if keyword.arg in ("connection_options", "additional_options", "options") and options is not None:
                    for k, v in zip(options.keys, options.values):
                        if k is not None:
                            self.option(self.value(k), v)
        self.generic_visit(node)


def _name_of(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def read_script(text: str, parameters: dict[str, str] | None = None, where: str = "--script") -> ScriptFacts:
    """The Kafka writer's settings, repartition and input paths of a PySpark script's source."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise ScenarioError(where, f"not a Python script quietload can read: {error.msg} at line {error.lineno}") from None
    reader = _Reader(parameters or {})
    for statement in tree.body:     # module-level constants first, so a later call sees them
        if isinstance(statement, ast.Assign):
            reader.visit_Assign(statement)
    reader.visit(tree)
    return ScriptFacts(reader.producer, reader.topic, reader.repartition, tuple(dict.fromkeys(reader.inputs)),
                       tuple(dict.fromkeys(reader.notes)), reader.key, reader.client_id, reader.bootstrap)


def input_files(paths: tuple[str, ...], s3: Any) -> list[tuple[str, int]]:
    """(key, size) of every object under the input paths, through an S3 client."""
    files = []
    for path in paths:
        bucket, _, prefix = path.split("://", 1)[1].partition("/")
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            files += [(o["Key"], o["Size"]) for o in page.get("Contents", []) if o["Size"] > 0 and not o["Key"].endswith("/")]
    if not files:
        raise ScenarioError("--script", f"no input file under {', '.join(paths)}")
    return files
