"""What every figure of every file quietload writes must be, checked where a file is read, so that
no renderer, gate or report meets a string where it adds numbers, a negative count or a p99 of
-3 ms: one ResultError naming the file and the field.

A rule is a letter, a list (``[rule]``: a list of items each under ``rule``), a mapping (keys
not named are free, a key ending in ``!`` must be there, ``"*"`` is any key), ``("?", rule)``:
null, or a value under ``rule``, or ``("+", rule)``: a value under ``rule`` or a list of them (a
scenario's ``batch``: one job, or a night's):

| rule | the value must be |
|---|---|
| ``S`` | a text |
| ``I`` | a whole number |
| ``K`` | a whole number of at least 0 (a trial's number, a seed) |
| ``B`` | true, false or null |
| ``N`` | a finite number or null |
| ``C`` | a count or amount: a finite number of at least 0, or null |
| ``L`` | a latency, an SLA, a deadline, a limit: a finite number greater than 0, or null |
| ``P`` | a percentage: a finite number from 0 to 100, or null |

A function ``rule(value, where, source)`` checks what no letter says (a knob's values by the knob).

A RunResult's summary and brokers take their rules from their types (``simulator.contract.figures``):
a number is ``C`` unless its name is a latency (``LATENCIES``).
"""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any

from simulator.contract.errors import ResultError
from simulator.contract.figures import Figures

# The figures that are a latency or a limit on one: greater than zero where known.
LATENCIES = frozenset({"sla_p99_ms", "p99_ms_before", "p99_ms_during", "p99_ms_after", "neighbour_p99_ms"})

_NUMBERS: dict[str, tuple[Any, str]] = {"N": (None, ""), "C": (lambda v: v >= 0, "at least 0"),
                                         "L": (lambda v: v > 0, "greater than 0"),
                                         "P": (lambda v: 0 <= v <= 100, "from 0 to 100")}


def rule_of(hint: Any, name: str = "") -> Any:
    """The rule of one annotated type (a field ``name``), or None for a type the reader takes as it is."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        known = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        inner = rule_of(known[0], name) if len(known) == 1 else None
        return ("?", inner) if isinstance(inner, (list, dict)) else inner   # a list or mapping, or null
    if hint is bool:
        return "B"
    if hint is int or hint is float:
        return "L" if name in LATENCIES else "C"
    if hint is str:
        return "S"
    args = typing.get_args(hint)
    if typing.get_origin(hint) is Mapping:
        value = rule_of(args[1], name)
        return None if value is None else {"*": value}
    if typing.get_origin(hint) is tuple and isinstance(args[0], type) and issubclass(args[0], Figures):
        return [rules_of(args[0])]
    if typing.get_origin(hint) is tuple and args[0] in (int, float):
        return ["C"]
    return None


def rules_of(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: rule for f in dataclasses.fields(cls) if (rule := rule_of(hints[f.name], f.name)) is not None}


def check(value: Any, rule: Any, where: str, source: str) -> None:
    """``value`` against ``rule``, or one ResultError naming ``source`` and the field ``where``."""
    def fail(expected: str) -> None:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise ResultError(f"{source}: {where} must be {expected}, got {shown}")
    if callable(rule):
        rule(value, where, source)
    elif isinstance(rule, tuple) and rule[0] == "+":
        check(value, [rule[1]] if isinstance(value, list) else rule[1], where, source)
    elif isinstance(rule, tuple):
        if value is not None:
            check(value, rule[1], where, source)
    elif isinstance(rule, str):
        if rule == "S" and not isinstance(value, str):
            fail("a text")
        elif rule in ("I", "K") and (isinstance(value, bool) or not isinstance(value, int)):
            fail("a whole number")
        elif rule == "K" and value < 0:
            fail("at least 0")
        elif rule == "B" and value is not None and not isinstance(value, bool):
            fail("true or false")
        elif rule in _NUMBERS and value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                fail("a finite number or null")
            holds, words = _NUMBERS[rule]
            if holds is not None and not holds(value):
                fail(words)
    elif isinstance(rule, list):
        if not isinstance(value, list):
            fail("a list")
        for i, item in enumerate(value):
            check(item, rule[0], f"{where}[{i}]", source)
    elif isinstance(rule, dict):
        if not isinstance(value, dict):
            fail("a mapping")
        if missing := [key[:-1] for key in rule if key.endswith("!") and key[:-1] not in value]:
            raise ResultError(f"{source}: {where or 'the file'} lacks {', '.join(missing)}")
        for key, item in value.items():
            if (inner := rule.get(key, rule.get(f"{key}!", rule.get("*")))) is not None:
                check(item, inner, f"{where}.{key}" if where else key, source)
