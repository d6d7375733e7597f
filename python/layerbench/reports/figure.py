"""What every figure of the report shares: matplotlib set up headless (Agg), the style, saving as
PNG and SVG, and the check that no text was cut off by the figure's edge."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

DPI = 120
# One screen: plots are drawn to at most about this many pixels (at DPI), so each reads whole
# without scrolling (docs/reports.md).
SCREEN_PX = (1400, 900)


@dataclass
class Plot:
    name: str
    png: Path
    svg: Path
    caption: str
    alt: str
    clipped: list[str] = field(default_factory=list)  # texts that reach past the figure's edge


def setup() -> None:
    plt.rcParams.update({
        "font.size": 10.5, "axes.titlesize": 12, "axes.labelsize": 10.5, "legend.fontsize": 9.5,
        "axes.grid": True, "grid.alpha": 0.35, "grid.linewidth": 0.6,
        "axes.spines.top": False, "axes.spines.right": False,
        # SVG text as text (DejaVu Sans where the viewer has it): a third smaller than glyph outlines.
        "svg.hashsalt": "layerbench", "svg.fonttype": "none",
    })


def save(fig, out: Path, name: str, caption: str, alt: str) -> Plot:
    out.mkdir(parents=True, exist_ok=True)
    png, svg = out / f"{name}.png", out / f"{name}.svg"
    # Checked as the PNG was drawn (text extents move a little with the resolution): the figure is
    # set to the PNG's resolution and stays at it after savefig, with the texts where the PNG's
    # layout put them, so the check needs no drawing of its own (a draw is most of a figure's cost).
    # The SVG, drawn next, takes the figure's own resolution, as it always did.
    fig.set_dpi(DPI)
    fig.savefig(png, dpi=DPI, metadata={"Software": None})
    clipped = texts_outside(fig)
    fig.savefig(svg, metadata={"Date": None})
    plt.close(fig)
    return Plot(name, png, svg, caption, alt, clipped)


def clipped_texts(fig, tolerance_px: float = 1.0) -> list[str]:
    """Every drawn text of the figure (titles, axis labels, tick labels, legends, annotations) whose
    extent is not inside the figure, once drawn: [] when nothing is cut off."""
    fig.canvas.draw()
    return texts_outside(fig, tolerance_px)


def texts_outside(fig, tolerance_px: float = 1.0) -> list[str]:
    """clipped_texts of a figure as its last draw laid it out. Tick labels count only where their
    tick is drawn (inside the axis' view)."""
    renderer = fig.canvas.get_renderer()
    bounds = fig.bbox
    ticks: dict[int, bool] = {}  # id(label) -> drawn
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                drawn = tick.get_visible() and low - 1e-9 * abs(high - low) <= tick.get_loc() <= high * (1 + 1e-9) + 1e-12
                for label in (tick.label1, tick.label2):
                    ticks[id(label)] = drawn and label.get_visible()
    found = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or not ticks.get(id(text), True):
            continue
        if text.get_clip_on() and (text.get_clip_box() is not None or text.get_clip_path() is not None):
            continue  # clipped to its axes on purpose: only its part inside them is drawn
        box = text.get_window_extent(renderer)
        if (box.x0 < bounds.x0 - tolerance_px or box.y0 < bounds.y0 - tolerance_px
                or box.x1 > bounds.x1 + tolerance_px or box.y1 > bounds.y1 + tolerance_px):
            found.append(text.get_text().replace("\n", " ")[:60])
    return found


def plain_number(value: float, _pos=None) -> str:
    if value <= 0:
        return ""
    if value >= 1:
        return f"{value:,.0f}".replace(",", " ")
    return f"{value:g}"


def log_y(ax) -> None:
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(plain_number))
    ax.yaxis.set_minor_formatter(NullFormatter())


def log_x(ax) -> None:
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(plain_number))
    ax.xaxis.set_minor_formatter(NullFormatter())
