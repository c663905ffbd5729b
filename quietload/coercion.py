"""Command-line values converted without pydantic where the conversion is plain.

typer (0.29) converts every parameter's value, given or default, through a pydantic
TypeAdapter, and the first one built imports pydantic: about a third of the CPU a command
spends before its work starts. The values a command line holds are nearly always plain: a
string, a path, a decimal integer or number, a value already of the parameter's type (a
default), no value at all. Those convert here to exactly what typer's own conversion returns;
anything else (another type, a sign or an exponent, a number out of range, a path that fails
a check) and so every error, with its message, goes through typer's conversion as before.
The parameters typer builds take this conversion as a subclass overriding click's public
``Parameter.process_value``; tests/quietload/test_coercion.py holds both to the same answers.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any, get_args, get_origin

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")          # within int64, no '+', '_' or spaces
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?")
_NOT_PLAIN = object()


def _number(value: Any, kind: type, info: Any) -> Any:
    if info.clamp:
        return _NOT_PLAIN
    if type(value) is kind:
        number = value
    elif type(value) is str and (_INTEGER if kind is int else _DECIMAL).fullmatch(value):
        number = kind(value)
    else:
        return _NOT_PLAIN
    if (info.min is not None and not number >= info.min) or (info.max is not None and not number <= info.max):
        return _NOT_PLAIN
    return number


def _path(value: Any, info: Any) -> Any:
    """The path, when it passes the checks typer's path conversion makes (existence, a file or a
    directory, readable, writable); a path that fails one is left to typer, for its message."""
    if type(value) is str and value and "\x00" not in value:
        value = Path(value)
    if not isinstance(value, Path) or info.resolve_path:
        return _NOT_PLAIN
    try:
        mode = os.stat(value).st_mode
    except OSError:
        return _NOT_PLAIN if info.exists else value
    if ((not info.file_okay and stat.S_ISREG(mode)) or (not info.dir_okay and stat.S_ISDIR(mode))
            or (info.readable and not os.access(value, os.R_OK)) or (info.writable and not os.access(value, os.W_OK))):
        return _NOT_PLAIN
    return value


def _leaf(annotation: Any, value: Any, info: Any) -> Any:
    if info.parser is not None:
        return _NOT_PLAIN
    if annotation is int or annotation is float:
        return _number(value, annotation, info)
    if annotation is str or annotation is bool:
        return value if type(value) is annotation else _NOT_PLAIN
    if annotation is Path and info.path_type in (None, Path):
        return _path(value, info)
    return _NOT_PLAIN


def plain_value(annotation: Any, value: Any, info: Any) -> Any:
    """``value`` converted as typer would for ``annotation``, or ``_NOT_PLAIN``."""
    if get_origin(annotation) is list:
        [item_type] = get_args(annotation)
        if not isinstance(value, (list, tuple)):
            return _NOT_PLAIN
        items = [_leaf(item_type, item, info) for item in value]
        return _NOT_PLAIN if any(item is _NOT_PLAIN for item in items) else items
    return _leaf(annotation, value, info)


def _plain_of(param: Any, value: Any) -> Any:
    """What typer's conversion makes of ``value`` for ``param``, when it is plain."""
    several = param.multiple or param.nargs == -1
    if value is None:   # no value given and no default: typer converts nothing either
        return () if several else None
    if several and isinstance(value, str):
        return _NOT_PLAIN
    descriptor = param.type_descriptor
    if descriptor.file_annotation is not None:
        return _NOT_PLAIN
    return plain_value(descriptor.annotation, value, descriptor.parameter_info)


def _plain_kind(base: type) -> type:
    """``base`` (a parameter class typer builds) whose plain value converts here; then, as typer's
    ``process_value`` does, a missing required value is refused (by typer) and the parameter's
    callback gets the value. A direct subclass: the parameters typer built can take it as their class."""
    def process_value(self: Any, ctx: Any, value: Any) -> Any:
        plain = _plain_of(self, value)
        if plain is _NOT_PLAIN or (self.required and self.value_is_missing(plain)):
            return base.process_value(self, ctx, value)  # type: ignore[attr-defined]
        return plain if self.callback is None else self.callback(ctx, self, plain)

    return type(f"Plain{base.__name__}", (base,), {"process_value": process_value, "__module__": __name__})


_PLAIN = {base: _plain_kind(base) for base in (TyperOption, TyperArgument)}


class _PlainParameters:
    """A command whose parameters (its own, its --help, a group's completion options: click's
    ``get_params``) take the plain conversion before click processes their values."""

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            if (plain := _PLAIN.get(type(param))) is not None:
                param.__class__ = plain
        return params


class PlainCommand(_PlainParameters, TyperCommand):
    pass


class PlainGroup(_PlainParameters, TyperGroup):
    pass


class PlainTyper(typer.Typer):
    """A typer app whose groups and commands take the plain conversion (unless given another class)."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**{"cls": PlainGroup, **settings})

    def command(self, name: str | None = None, **settings: Any) -> Any:
        return super().command(name, **{"cls": PlainCommand, **settings})
