"""Output paths checked before a command's work starts, so that minutes of simulation or a live
run never end in "Is a directory", a write never blocks on a named pipe, and no command overwrites
one of its own inputs. ``-`` names standard output where a command offers it.

Writability is probed by creating a file (removed at once) rather than read from permission
bits: those do not tell about read-only mounts, pseudo file systems, or what root may do.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from workloads import ScenarioError
from workloads.reader import not_a_file, read_json, read_yaml
from workloads.text import has_control, one_line

Inputs = Iterable[tuple[str, "Path | str | None"]]   # (the option that named it, a file the command reads)

STDOUT = "-"


def is_stdout(path: Path | str | None) -> bool:
    return path is not None and str(path) == STDOUT


def _existing_ancestor(path: Path) -> Path:
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    return ancestor


def _probe(directory: Path, option: str, target: Path) -> None:
    """A file can be created in ``directory`` (the nearest existing ancestor of ``target``)."""
    if not directory.is_dir():
        raise ScenarioError(option, f"{target}: {directory} is not a directory")
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".quietload-probe-"):
            pass
    except OSError as error:
        raise ScenarioError(option, f"{target}: cannot create files in {directory} ({error.strerror or error})") from None


def _status(path: Path | str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _same(path: Path, other: Path | str) -> bool:
    """Whether two names are one file: by the file itself where both exist (a link, another spelling), else by name."""
    first, second = _status(path), _status(other)
    if first is not None and second is not None:
        return os.path.samestat(first, second)
    return first is None and second is None and Path(path).resolve() == Path(other).resolve()


def _one_line(path: Path, option: str) -> None:
    """A path the command will say it wrote: on one line of the terminal, as it is (no line break to forge a line)."""
    if has_control(str(path)):
        raise ScenarioError(option, f"{one_line(str(path))} holds a line break or a control character; name another")


def refuse_same(path: Path, option: str, others: Inputs, verb: str = "reads") -> None:
    """``path`` is none of ``others`` (the files the command reads, or writes besides)."""
    for named, given in others:
        if given is not None and not is_stdout(given) and _same(path, given):
            raise ScenarioError(option, f"{path} is the file {named} {verb}; name another")


def check_output_file(path: Path | None, option: str, stdout: bool = False, inputs: Inputs = (),
                      outputs: Inputs = ()) -> None:
    """``path`` (a file the command will write) can be written: a regular file or none yet, none of
    the command's ``inputs`` or other ``outputs``; ``-`` only where ``stdout``."""
    if path is None:
        return
    if is_stdout(path):
        if not stdout:
            raise ScenarioError(option, "cannot write to standard output (-); name a file")
        return
    _one_line(path, option)
    status = _status(path)
    if status is not None and (kind := not_a_file(status.st_mode)) is not None:   # a named pipe would block the write
        raise ScenarioError(option, f"{path} is {kind}; name a file")
    refuse_same(path, option, inputs)
    refuse_same(path, option, outputs, "writes")
    if status is not None:
        try:
            with path.open("ab"):
                pass
        except OSError as error:
            raise ScenarioError(option, f"{path}: cannot write it ({error.strerror or error})") from None
        return
    _probe(_existing_ancestor(path), option, path)


def check_output_dir(path: Path | None, option: str, inputs: Inputs = (), names: Iterable[str] = ()) -> None:
    """``path`` (a directory the command will create or write into) can be written, and each of the
    files ``names`` it will write there can be (none a pipe, a device or a directory, none one of the
    command's ``inputs``)."""
    if path is None:
        return
    _one_line(path, option)
    if path.exists() and not path.is_dir():
        raise ScenarioError(option, f"{path} is not a directory")
    _probe(path if path.is_dir() else _existing_ancestor(path), option, path)
    inputs = list(inputs)
    for name in names:
        check_output_file(path / name, option, inputs=inputs)


def check_default_outputs(paths: Iterable[Path], option: str, inputs: Inputs = (),
                          run_of: tuple[Path, list[str]] | None = None, noun: str = "run",
                          also: dict[str, Any] | None = None) -> None:
    """The files a command names itself (``results/<scenario>-seed1.json``, ``results/<scenario>-plan.json``)
    checked as if ``option`` had named them: a scenario kept at such a path is refused, not overwritten.
    With ``run_of`` (a scenario file and its ``--set`` values), a file already there is replaced only
    by a run of that same file with the same values (``refuse_other_run``)."""
    for path in paths:
        check_output_file(path, option, inputs=inputs)
        if run_of is not None:
            refuse_other_run(path, option, *run_of, noun=noun, also=also)


def _held_run(path: Path) -> tuple[str, list[str], dict[str, Any]] | None:
    """The scenario file, ``--set`` values and document of the run (or plan, study, policy, schedule) a
    file holds, if it holds one: a run and a study name their file in ``scenario.source``, the others in
    ``source``; a study keeps its ``--set`` values beside it in ``scenario.overrides``."""
    try:
        document = read_json(path, "--json")
        scenario = document["scenario"]
        named = scenario if isinstance(scenario, dict) else document
        overrides = document["overrides"] if "overrides" in document else named.get("overrides")
        return str(named.get("source") or ""), list(overrides or []), named
    except (ScenarioError, KeyError, TypeError, AttributeError):
        return None


def refuse_other_run(path: Path, option: str, scenario_file: Path, overrides: list[str], noun: str = "run",
                     also: dict[str, Any] | None = None) -> None:
    """A file at ``path`` (a default result name) is another scenario's unless it holds a ``noun`` (a
    run, a plan) of ``scenario_file`` with the same ``overrides`` (and the values ``also`` names, where the
    file holds them: a study's levers and policy): two scenario files of one stem in two folders, or --set
    values whose names read alike, would otherwise replace each other's results silently."""
    if not path.is_file():
        return
    held = _held_run(path)
    if held is not None and held[0] and _same(Path(held[0]), scenario_file) and held[1] == list(overrides):
        differs = [key for key, value in (also or {}).items() if key in held[2] and held[2][key] != value]
        if not differs:
            return
        raise ScenarioError(option, f"{path} holds a {noun} of {held[0]} with "
                                    + ", ".join(f"{key} {held[2][key]}" for key in differs) + ", not with "
                                    + ", ".join(f"{key} {(also or {})[key]}" for key in differs)
                                    + f"; name another {'directory' if option == '--out' else 'file'} with {option} or remove it")
    what = f"no {noun}" if held is None or not held[0] else \
        f"a {noun} of {held[0]}" + (f" with --set {' '.join(held[1])}" if held[1] else "")
    raise ScenarioError(option, f"{path} holds {what}, not of {scenario_file}"
                                + (f" with --set {' '.join(overrides)}" if overrides else "")
                                + f"; name another {'directory' if option == '--out' else 'file'} with {option} or remove it")


def refuse_other_scenario(path: Path, option: str, name: str) -> None:
    """A scenario file at ``path`` that a command would write is replaced only when it is the one named
    ``name`` (that command's own, written before): a scenario kept there by hand, or another's, is refused."""
    if not path.is_file():
        return
    try:
        held = read_yaml(path, option)
    except ScenarioError:
        held = None
    found = held.get("name") if isinstance(held, dict) else None
    if found != name:
        raise ScenarioError(option, f"{path} holds " + (f"scenario {found!r}" if found else "no scenario")
                                    + f", not {name!r}; name another file with {option} or remove it")
