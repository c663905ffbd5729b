"""A long shell command as lines a shell reads as one, so that no line of it is cut on a page."""
from __future__ import annotations

import re

WIDTH = 76   # characters: a line of code fits a printed page and a narrow window


def continued(command: str, width: int = WIDTH) -> list[str]:
    """``command`` broken before its options (`` --x``) into lines of at most ``width`` characters
    where it can, each but the last ending in `` \\``, the rest indented by two spaces."""
    parts = re.split(r" (?=--)", command)
    lines, line = [], parts[0]
    for part in parts[1:]:
        if len(line) + 1 + len(part) + 2 > width:
            lines.append(line + " \\")
            line = "  " + part
        else:
            line += " " + part
    return [*lines, line]
