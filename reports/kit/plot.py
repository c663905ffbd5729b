"""Plots: matplotlib (imported lazily, with Agg), a figure as SVG or PNG, and ``Plot``, one
embedded image with its caption. Callers reach ``svg`` and ``pyplot`` through this module
(``plot.svg(figure)``), so that a test can stand in for the drawing."""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from html import escape
from typing import Any

PNG_DPI = 150
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
LEGEND_ROW_INCHES = 0.25


@dataclass(frozen=True)
class Plot:
    """One embedded image (SVG or PNG) and the one-line caption that says what to read from it."""

    image: bytes
    alt: str
    caption: str

    @property
    def mime(self) -> str:
        return "image/png" if self.image.startswith(b"\x89PNG") else "image/svg+xml"

    @property
    def png(self) -> bytes:
        """The image of a PNG plot (``png``)."""
        return self.image

    def html(self) -> str:
        data = base64.b64encode(self.image).decode("ascii")
        return (f'<figure><img src="data:{self.mime};base64,{data}" alt="{escape(self.alt)}">'
                f"<figcaption>{escape(self.caption)}</figcaption></figure>")


def pyplot() -> Any:
    import matplotlib     # heavy: loaded when a plot is drawn
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt     # heavy: loaded when a plot is drawn
    return plt


def png(figure: Any) -> bytes:
    """The figure as PNG at ``PNG_DPI``, for a plot too dense for vector output."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=PNG_DPI, bbox_inches="tight")
    pyplot().close(figure)
    return buffer.getvalue()


def svg(figure: Any) -> bytes:
    """The figure as SVG with its text as text (searchable, sharp at any zoom) and no date or random
    ids in it, so that the same results give the same bytes."""
    import matplotlib     # heavy: loaded when a plot is drawn
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "quietload"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    pyplot().close(figure)
    return buffer.getvalue()


WIDE = 20     # figures spanning more than this many times need a log axis to show both ends


def log_axis_if_wide(axes: Any, which: str, values: list[float], label: str | None = None,
                     log_label: str | None = None) -> bool:
    """A log scale on the ``which`` ("x" or "y") axis, its ticks as plain numbers, when ``values``
    span more than ``WIDE`` times (a load that multiplies a p99 or a fix that cuts the requests
    tenfold), and the axis labelled ``log_label`` if so, else ``label`` (when given); whether it did."""
    wide = bool(values) and min(values) > 0 and max(values) > WIDE * min(values)
    if wide:
        getattr(axes, f"set_{which}scale")("log")
        getattr(axes, f"{which}axis").set_major_formatter(pyplot().FuncFormatter(lambda value, _: f"{value:,g}"))
    if label is not None:
        getattr(axes, f"set_{which}label")(log_label if wide else label)
    return wide


def legend_rows(entries: int) -> int:
    return (entries + 1) // 2


def legend_below(figure: Any, entries: int) -> None:
    """The legend under the plot (the figure's constrained layout makes room), never over the data."""
    figure.legend(loc="outside lower center", ncol=2, frameon=False, fontsize="small")
