"""Output paths checked before a command's work starts, so that minutes of simulation or a live
run never end in "Is a directory". ``-`` names standard output where a command offers it.

Writability is probed by creating a file (removed at once) rather than read from permission
bits: those do not tell about read-only mounts, pseudo file systems, or what root may do.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from workloads import ScenarioError

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


def check_output_file(path: Path | None, option: str, stdout: bool = False) -> None:
    """``path`` (a file the command will write) can be written; ``-`` only where ``stdout``."""
    if path is None:
        return
    if is_stdout(path):
        if not stdout:
            raise ScenarioError(option, "cannot write to standard output (-); name a file")
        return
    if path.is_dir():
        raise ScenarioError(option, f"{path} is a directory; name a file")
    if path.exists():
        try:
            with path.open("ab"):
                pass
        except OSError as error:
            raise ScenarioError(option, f"{path}: cannot write it ({error.strerror or error})") from None
        return
    _probe(_existing_ancestor(path), option, path)


def check_output_dir(path: Path | None, option: str) -> None:
    """``path`` (a directory the command will create or write into) can be written."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise ScenarioError(option, f"{path} is not a directory")
    _probe(path if path.is_dir() else _existing_ancestor(path), option, path)
