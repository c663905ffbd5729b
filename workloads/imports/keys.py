"""The column a Spark or Glue script keys its Kafka records by, in every form a script sets it.

Spark's Kafka writer takes the record's key from the DataFrame's column named ``key``; a script
names that column with ``col("x").alias("key")`` (or ``F.col``, ``df["x"]``, ``.cast("string")``,
``.name("key")``), ``selectExpr("x AS key")`` (or ``CAST(x AS STRING) AS key``), ``expr(...)``,
``withColumn("key", ...)`` or ``withColumnRenamed("x", "key")``; a Glue sink takes it as its
``key`` option. Read from the ``ast`` (never run); a key made of anything but one column (a
``concat``, a hash) is kept as the expression's text, and the import says so.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Callable

KEY = "key"
_IDENT = r"`?(?:[A-Za-z_][A-Za-z0-9_]*\.)?([A-Za-z_][A-Za-z0-9_]*)`?"
_SQL_COLUMN = re.compile(rf"\s*(?:{_IDENT}|CAST\s*\(\s*{_IDENT}\s+AS\s+[A-Za-z]+(?:\s*\(\s*\d+\s*\))?\s*\))\s*", re.I)
_SQL_AS_KEY = re.compile(r"(?P<expr>.*?)\s+(?:AS\s+)?`?key`?\s*", re.I | re.S)
_COLUMN_FUNCTIONS = ("col", "column")
_CASTS = ("cast", "astype")


@dataclass(frozen=True)
class Key:
    """The records' key: one column of the rows, or (column None) an expression quietload does not evaluate."""

    column: str | None
    expression: str | None = None


def sql_column(text: str) -> str | None:
    """The one column a SQL expression is (``x``, ``t.x``, ```x```, ``CAST(x AS STRING)``), else None."""
    match = _SQL_COLUMN.fullmatch(text)
    return (match.group(1) or match.group(2)) if match else None


def _sql_key(text: Any) -> Key | None:
    """``x AS key`` (any expression before it) as the key; None when the text names no key column."""
    if not isinstance(text, str):
        return None
    match = _SQL_AS_KEY.fullmatch(text)
    if match is None:
        return None
    column = sql_column(match.group("expr"))
    return Key(column) if column else Key(None, match.group("expr").strip())


def _column(node: ast.AST, value: Callable[[ast.AST], Any]) -> Key:
    """The column an expression is: ``col("x")``, ``F.col("x")``, ``df["x"]``, a cast of one, ``expr("x")``."""
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(node.func, ast.Name) else None
        if name in _COLUMN_FUNCTIONS and len(node.args) == 1 and isinstance(value(node.args[0]), str):
            return Key(value(node.args[0]))
        if name in _CASTS and isinstance(node.func, ast.Attribute):
            return _column(node.func.value, value)
        if name == "expr" and len(node.args) == 1 and isinstance(value(node.args[0]), str):
            column = sql_column(value(node.args[0]))
            if column:
                return Key(column)
    if isinstance(node, ast.Subscript) and isinstance(value(node.slice), str):    # df["x"]
        return Key(value(node.slice))
    return Key(None, ast.unparse(node))


def key_of(node: ast.Call, value: Callable[[ast.AST], Any]) -> Key | None:
    """The key this call sets, if it names the column ``key``; ``value`` resolves literals and constants."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name in ("alias", "name") and isinstance(func, ast.Attribute) and node.args and value(node.args[0]) == KEY:
        return _column(func.value, value)
    if name == "withColumn" and len(node.args) == 2 and value(node.args[0]) == KEY:
        return _column(node.args[1], value)
    if name == "withColumnRenamed" and len(node.args) == 2 and value(node.args[1]) == KEY:
        old = value(node.args[0])
        return Key(old) if isinstance(old, str) else Key(None, ast.unparse(node.args[0]))
    if name in ("selectExpr", "expr"):
        for arg in node.args:
            texts = value(arg)
            for text in texts if isinstance(texts, list) else [texts]:
                if (key := _sql_key(text)) is not None:
                    return key
    return None
