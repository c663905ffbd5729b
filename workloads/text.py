"""Text a user wrote (a scenario's name, a path, a value quoted in an error), shown but never obeyed:
on a terminal, in a comment of a generated script or file. Control characters (an ANSI escape such
as ``\\x1b]0;title``, a carriage return, a backspace), invisible format characters (zero-width
spaces, right-to-left overrides) and lone surrogates are written as Python writes them in a string
literal."""
from __future__ import annotations

import re
import unicodedata

_CANDIDATE = re.compile(r"[^\x20-\x7e]")      # everything but printable ASCII is looked at
_SHOWN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}    # control, format, surrogate, private, unassigned, separators
_KEPT = "\n\t"


def _escaped(match: re.Match) -> str:
    char = match.group()
    if char in _KEPT or (ord(char) > 0x9f and unicodedata.category(char) not in _SHOWN):
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str, lines: bool = True) -> str:
    """``text`` with every character a terminal would act on escaped; ``lines=False`` escapes line
    breaks and tabs too (an error line, a comment of a script)."""
    if lines:
        return _CANDIDATE.sub(_escaped, text)
    return _CANDIDATE.sub(lambda m: _escaped(m) if m.group() not in _KEPT else repr(m.group())[1:-1], text)


def one_line(text: str) -> str:
    """``text`` as it may stand in one line of a file a person or a shell reads (a comment)."""
    return printable(text, lines=False)


def has_control(text: str) -> bool:
    """Whether ``text`` holds a character ``printable`` escapes (a line break, an escape sequence)."""
    return printable(text, lines=False) != text


LINE_MAX = 600   # characters of an error line: a 3 MB name or path is named by its start and end


def capped(line: str, limit: int = LINE_MAX) -> str:
    """``line`` cut in its middle to at most about ``limit`` characters: its start names what, its end says why."""
    if len(line) <= limit:
        return line
    head, tail = limit * 2 // 3, limit // 3
    return f"{line[:head]} [... {len(line) - head - tail:,} characters ...] {line[-tail:]}"
