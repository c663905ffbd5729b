"""The model's parts are built from typed values: no constructor in simulator/model/ takes a
parameter annotated ``Any``.

The signatures are read from the sources, not from the imported classes: the compiled modules
(``make native``) do not keep their annotations.
"""
from __future__ import annotations

import ast
from pathlib import Path

MODEL = Path(__file__).resolve().parents[3] / "simulator" / "model"


def _mentions_any(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "Any":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _mentions_any(
                ast.parse(node.value, mode="eval").body):
            return True
    return False


def _is_dataclass(cls: ast.ClassDef) -> bool:
    for decorator in cls.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (isinstance(target, ast.Name) and target.id == "dataclass") or \
                (isinstance(target, ast.Attribute) and target.attr == "dataclass"):
            return True
    return False


def constructor_parameters(source: str) -> list[tuple[str, str, ast.expr | None]]:
    """(class, parameter, annotation) of every class's ``__init__``, classmethod constructors
    and dataclass fields in ``source``."""
    found = []
    for cls in ast.walk(ast.parse(source)):
        if not isinstance(cls, ast.ClassDef):
            continue
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                named_constructor = any(isinstance(d, ast.Name) and d.id == "classmethod" for d in item.decorator_list)
                if item.name == "__init__" or named_constructor:
                    arguments = item.args
                    for argument in [*arguments.posonlyargs, *arguments.args[1:], *arguments.kwonlyargs,
                                     *filter(None, (arguments.vararg, arguments.kwarg))]:
                        found.append((cls.name, f"{item.name}({argument.arg})", argument.annotation))
            elif isinstance(item, ast.AnnAssign) and _is_dataclass(cls) and isinstance(item.target, ast.Name):
                found.append((cls.name, item.target.id, item.annotation))
    return found


def test_the_check_sees_any_wherever_it_is_written():
    source = '''
from dataclasses import dataclass
class A:
    def __init__(self, a: int, b: Any, *, c: list["Any"] | None = None, **d: typing.Any): ...
    @classmethod
    def of(cls, e: Any) -> "A": ...
    def method(self, f: Any) -> None: ...
@dataclass(frozen=True)
class B:
    g: dict[str, Any]
    h: float
'''
    flagged = [(cls, name) for cls, name, annotation in constructor_parameters(source) if _mentions_any(annotation)]
    assert flagged == [("A", "__init__(b)"), ("A", "__init__(c)"), ("A", "__init__(d)"), ("A", "of(e)"), ("B", "g")]


def test_no_constructor_in_the_model_takes_any():
    modules = sorted(MODEL.glob("*.py"))
    assert len(modules) > 15
    checked, flagged = 0, []
    for module in modules:
        for cls, name, annotation in constructor_parameters(module.read_text()):
            checked += 1
            if _mentions_any(annotation):
                flagged.append(f"{module.name}: {cls}.{name}")
    assert checked > 50
    assert flagged == []
