"""The plain conversion of command-line values gives typer's own answer, or leaves the value to typer;
a command line whose values are plain runs without importing pydantic."""
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
import typer
from typer.main import get_command

from quietload.coercion import _NOT_PLAIN, PlainTyper, plain_value

ROOT = Path(__file__).parent.parent.parent
WORDS = ["0", "-0", "7", "007", "+7", "-12", "1_000", " 3", "3 ", "1.5", "-0.25", "1e3", ".5", "5.", "1.0",
         "123456789012345678", "1234567890123456789", "9" * 30, "inf", "nan", "-inf", "abc", "", "-", "true", "\x00",
         "x.yaml", "results/out.json", "results", "/", ".", "does/not/exist", "a b", "ü"]
DEFAULTS = [0, 1, -3, 2.5, True, False, None, Path("p"), Path("x.yaml")]
INFOS = {"option": typer.Option, "exists": lambda: typer.Option(exists=True),
         "no dir": lambda: typer.Option(dir_okay=False), "no file": lambda: typer.Option(file_okay=False),
         "min 1": lambda: typer.Option(min=1), "0..100": lambda: typer.Option(min=0, max=100),
         "1..3": lambda: typer.Option(min=1, max=3), "clamp": lambda: typer.Option(clamp=True, min=0, max=5),
         "argument": typer.Argument}
ANNOTATIONS = [int, float, str, bool, Path, list[str], list[Path]]


def _command(kind, annotation, info, default, seen):
    """One command of one parameter ``x``, whose value it keeps in ``seen``."""
    app = kind()

    @app.command()
    def command(x: Annotated[annotation, info] = default):
        seen.append(x)

    return get_command(app)


def _answer(command, words, seen):
    """What the command's parameter got from ``words`` (its repr: a NaN is one), with its type, or typer's refusal."""
    seen.clear()
    try:
        command.main(words, standalone_mode=False)
    except typer.TyperException as refusal:
        return "refused", refusal.exit_code, refusal.format_message()
    value = seen[0]
    return "value", repr(value), type(value), [type(item) for item in value] if isinstance(value, list) else None


def _cases(annotation, info_name):
    """(value, default, command words) for the parameter: each word given on the command line, each default alone."""
    several = annotation in (list[str], list[Path])
    if not (annotation is bool and info_name != "argument"):   # a bool option is a flag: no word to give it
        for word in WORDS:
            given = [word, word] if several else [word]
            words = ["--", *given] if info_name == "argument" else [w for g in given for w in ("--x", g)]
            yield (given if several else word), None, words
    for default in DEFAULTS:
        default = [default, default] if several and default is not None else default
        yield default, default, []


@pytest.mark.parametrize("annotation", ANNOTATIONS, ids=str)
def test_a_command_gets_what_typer_alone_gives_it(annotation, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.yaml").write_text("")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "out.json").write_text("{}")
    plain = []
    for info_name, info in INFOS.items():
        for value, default, words in _cases(annotation, info_name):
            seen = []
            answers = [_answer(_command(kind, annotation, info(), default, seen), words, seen)
                       for kind in (typer.Typer, PlainTyper)]
            assert answers[1] == answers[0], (annotation, info_name, default, words)
            plain.append(value is not None and plain_value(annotation, value, info()) is not _NOT_PLAIN)
    assert any(plain) and not all(plain)   # both ways taken


def test_what_is_not_plain_is_left_to_typer():
    info = typer.Option(min=1)
    for annotation, value in ((int, "+7"), (int, "1e3"), (int, "0"), (int, True), (float, 1), (float, "nan"),
                              (str, None), (bool, "yes"), (Path, ""), (list[str], "a"), (int, "9" * 30)):
        assert plain_value(annotation, value, info) is _NOT_PLAIN
    assert plain_value(Path, "does/not/exist", typer.Option(exists=True)) is _NOT_PLAIN
    assert plain_value(Path, "/", typer.Option(dir_okay=False)) is _NOT_PLAIN


def test_a_command_line_of_plain_values_runs_without_pydantic(tmp_path):
    run = ("import sys\nfrom quietload.cli import main\n"
           "sys.argv = ['quietload', 'simulate', 'nothere.yaml', '--seed', '3', '--repeat', '2', '--set', 'a=1']\n"
           "try:\n    main()\nfinally:\n    print('pydantic' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", run], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "QUIETLOAD_PURE_PYTHON": "1"})
    assert (done.returncode, done.stdout, done.stderr) == (2, "False\n", "error: scenario: nothere.yaml: no such file\n")
