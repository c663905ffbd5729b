"""The HTML page around a report's sections: its head and style, then the sections' parts in
the order given. The page is built from parts; nothing is inserted into finished HTML."""
from __future__ import annotations

from html import escape

STYLE = """
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; }
figcaption { font-size: 0.95em; color: #444; }
.over { color: #b00020; font-weight: bold; }
td.text { text-align: left; }
.pass { color: #1b5e20; font-weight: bold; }
.meta { color: #444; }
.verdict { font-size: 1.15em; }
.code-label { margin: 0.7em 0 0.2em; color: #444; }
pre { background: #f6f8fa; border: 1px solid #ddd; padding: 0.5em 0.8em; margin: 0 0 0.6em; overflow-x: auto; }
"""


def page(title: str, body: list[str]) -> str:
    """A self-contained page: one part (an element or a run of them) per line."""
    return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                      f"<title>{escape(title)}</title>", f"<style>{STYLE}</style></head><body>",
                      *body, "</body></html>"]) + "\n"
