"""Text for a terminal: whatever a user wrote (a scenario's name, a path, a value quoted in an
error) is shown, never obeyed. Control characters (an ANSI escape such as ``\\x1b]0;title``,
a carriage return, a backspace), invisible format characters (zero-width spaces, right-to-left
overrides) and lone surrogates are written as Python writes them in a string literal."""
from __future__ import annotations

import re
import unicodedata

import typer

_CANDIDATE = re.compile(r"[^\x20-\x7e]")      # everything but printable ASCII is looked at
_SHOWN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}    # control, format, surrogate, private, unassigned, separators


def _escaped(match: re.Match) -> str:
    char = match.group()
    if char in _KEPT or (ord(char) > 0x9f and unicodedata.category(char) not in _SHOWN):
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


_KEPT = "\n\t"


def printable(text: str, lines: bool = True) -> str:
    """``text`` with every character a terminal would act on escaped; ``lines=False`` escapes line
    breaks and tabs too (an error is one line)."""
    if lines:
        return _CANDIDATE.sub(_escaped, text)
    return _CANDIDATE.sub(lambda m: _escaped(m) if m.group() not in _KEPT else repr(m.group())[1:-1], text)


def echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    """``typer.echo`` of user-facing text, escaped (a machine-readable output is echoed as it is)."""
    typer.echo(printable(text), err=err, nl=nl)
