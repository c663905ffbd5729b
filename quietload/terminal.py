"""Text for a terminal: whatever a user wrote is shown, never obeyed (``workloads.text``)."""
from __future__ import annotations

import typer

from workloads.text import printable

__all__ = ["echo", "printable"]


def echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    """``typer.echo`` of user-facing text, escaped (a machine-readable output is echoed as it is)."""
    typer.echo(printable(text), err=err, nl=nl)
