"""The plain conversion of command-line values gives typer's own answer, or leaves the value to typer."""
from pathlib import Path

import pytest
from typer import _coercion
from typer.models import ArgumentInfo, OptionInfo

from quietload.coercion import _NOT_PLAIN, plain_value

VALUES = ["0", "-0", "7", "007", "+7", "-12", "1_000", " 3", "3 ", "1.5", "-0.25", "1e3", ".5", "5.", "1.0",
          "123456789012345678", "1234567890123456789", "9" * 30, "inf", "nan", "-inf", "abc", "", "-", "true", "\x00",
          "x.yaml", "results/out.json", "/", ".", "does/not/exist", "a b", "ü", 0, 1, -3, 2.5, True, False, None, Path("p")]
INFOS = [OptionInfo(), OptionInfo(exists=True), OptionInfo(dir_okay=False), OptionInfo(file_okay=False), OptionInfo(min=1), OptionInfo(min=0, max=100), OptionInfo(min=1, max=3), OptionInfo(clamp=True, min=0, max=5),
         ArgumentInfo()]
ANNOTATIONS = [int, float, str, bool, Path, list[str], list[Path]]


def typer_answer(annotation, info, value):
    descriptor = _coercion.resolve_type_descriptor(annotation, info)
    try:
        return "value", _coercion.build_runtime_param(descriptor)._coerce_value(value, param=None, ctx=None)
    except Exception as error:   # noqa: BLE001 - typer's refusal, whatever it is
        return "refused", type(error).__name__


@pytest.mark.parametrize("annotation", ANNOTATIONS, ids=str)
def test_a_plain_value_converts_as_typer_converts_it(annotation):
    plain = 0
    for info in INFOS:
        for raw in VALUES:
            value = [raw, raw] if annotation in (list[str], list[Path]) else raw
            answer = plain_value(annotation, value, info)
            if answer is _NOT_PLAIN:
                continue
            plain += 1
            kind, expected = typer_answer(annotation, info, value)
            assert kind == "value", (annotation, info, value, expected)
            assert answer == expected and type(answer) is type(expected), (annotation, info, value)
            if isinstance(answer, list):
                assert [type(a) for a in answer] == [type(e) for e in expected]
    assert plain > 0


def test_what_is_not_plain_is_left_to_typer():
    info = OptionInfo(min=1)
    for annotation, value in ((int, "+7"), (int, "1e3"), (int, "0"), (int, True), (float, 1), (float, "nan"),
                              (str, None), (bool, "yes"), (Path, ""), (list[str], "a"), (int, "9" * 30)):
        assert plain_value(annotation, value, info) is _NOT_PLAIN

