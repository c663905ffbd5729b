"""Tables as Markdown and HTML rows of text, and figures formatted for reading."""
from __future__ import annotations

import re
from html import escape


def format_figure(value: float | int | None, fmt: str) -> str:
    """One figure for reading: ``n/a`` when the run has none (e.g. idle % of a sub-second load);
    ``kb`` shows bytes in KB (bytes / 1024)."""
    if value is None:
        return "n/a"
    if fmt == "kb":
        return f"{value / 1024:,.1f}"
    return fmt.format(value)


def format_ms(value: float | None) -> str:
    return format_figure(value, "{:,.1f}")


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table's lines: the first column left-aligned, the others right-aligned."""
    def row(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
    aligns = ["---"] + ["---:"] * (len(header) - 1)
    return [row(header), "| " + " | ".join(aligns) + " |", *(row(r) for r in rows)]


def plain_markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table's lines, cells as they are and no alignment (readable as text too)."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(row) + " |" for row in rows)]


_NUMBER = re.compile(r"^[-+]?[\d,]*\.?\d+( ?[%x])?$|^(n/a|-)$")


def _cell(cell: str) -> str:
    """Numbers right-aligned (the table's default), words left-aligned, a breach in red."""
    if cell.startswith("OVER SLA"):
        return f'<td class="over">{escape(cell)}</td>'
    return f"<td>{escape(cell)}</td>" if _NUMBER.match(cell) else f'<td class="text">{escape(cell)}</td>'


def html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(_cell(cell) for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
