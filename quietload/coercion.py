"""Command-line values converted without pydantic where the conversion is plain.

typer (0.29) converts every parameter's value, given or default, through a pydantic
TypeAdapter, and the first one built imports pydantic: about a third of the CPU a command
spends before its work starts. The values a command line holds are nearly always plain: a
string, a path, a decimal integer or number, a value already of the parameter's type (a
default). Those convert here to exactly what typer's own conversion returns; anything else
(another type, a sign or an exponent, a number out of range) and so every error, with its
message, goes through typer's conversion as before. tests/quietload/test_coercion.py holds
both to the same answers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

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


def _path(value: Any, info: Any, param: Any, ctx: Any) -> Any:
    from typer._param_types import coerce_cli_path

    if type(value) is str and value and "\x00" not in value:
        value = Path(value)
    if not isinstance(value, Path):
        return _NOT_PLAIN
    try:
        return coerce_cli_path(value, info, path_type=info.path_type or Path, param=param, ctx=ctx)
    except Exception:   # typer's own conversion says what is wrong, in its words
        return _NOT_PLAIN


def _leaf(annotation: Any, value: Any, info: Any, param: Any, ctx: Any) -> Any:
    if info.parser is not None:
        return _NOT_PLAIN
    if annotation is int or annotation is float:
        return _number(value, annotation, info)
    if annotation is str or annotation is bool:
        return value if type(value) is annotation else _NOT_PLAIN
    if annotation is Path and info.path_type in (None, Path):
        return _path(value, info, param, ctx)
    return _NOT_PLAIN


def plain_value(annotation: Any, value: Any, info: Any, param: Any = None, ctx: Any = None) -> Any:
    """``value`` converted as typer would for ``annotation``, or ``_NOT_PLAIN``."""
    if get_origin(annotation) is list:
        [item_type] = get_args(annotation)
        if not isinstance(value, (list, tuple)):
            return _NOT_PLAIN
        items = [_leaf(item_type, item, info, param, ctx) for item in value]
        return _NOT_PLAIN if any(item is _NOT_PLAIN for item in items) else items
    return _leaf(annotation, value, info, param, ctx)


def install() -> None:
    """Put the plain conversion in front of typer's, where this typer has the conversion it
    replaces (typer.core.build_runtime_param); elsewhere leave typer as it is."""
    try:
        from typer import _coercion, core
    except ImportError:
        return
    typer_param = getattr(core, "build_runtime_param", None)
    if typer_param is None or getattr(typer_param, "plain", False) or not hasattr(_coercion, "RuntimeParam"):
        return

    @dataclass(frozen=True)
    class PlainRuntimeParam(_coercion.RuntimeParam):  # type: ignore[misc, name-defined]
        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            plain = plain_value(self.annotation, value, self.parameter_info, param, ctx)
            if plain is not _NOT_PLAIN:
                return plain
            return typer_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

    def build_runtime_param(descriptor: Any) -> Any:
        if descriptor.file_annotation is not None:
            return typer_param(descriptor)
        return PlainRuntimeParam(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation,
                                 descriptor=descriptor)

    build_runtime_param.plain = True  # type: ignore[attr-defined]
    core.build_runtime_param = build_runtime_param
