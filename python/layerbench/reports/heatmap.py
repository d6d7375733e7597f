"""The report's first figure: one heat map, layer × workload at each workload's largest size,
coloured by the fraction of the ceiling the layer reached, each cell with its figure written in it.

Which ceiling a workload is read against comes from its descriptor (results.Descriptor): GB/s
workloads against the copy bandwidth measured in the run (fraction_of_copy), GFLOP/s workloads
against cuBLAS SGEMM (fraction_of_cublas). Cells with no ceiling —
launch-overhead workloads (µs per launch) and the CPU layers (the GPU's ceilings are not theirs,
and the host's bandwidth is not measured) — are drawn in a neutral grey with their figure, and the
caption says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle
from matplotlib.transforms import blended_transform_factory

from . import fmt, palette
from .figure import Plot, save, setup
from .results import Case, Results

NEUTRAL = "#e9e9e9"  # a cell with a figure but no ceiling
EMPTY = "#ffffff"  # no case: the layer does not run this workload (or not at this size)
CMAP = "YlGnBu"

@dataclass
class Cell:
    text: str  # the figure, as written in the cell
    fraction: float | None  # of the ceiling; None: no ceiling (neutral colour) or no figure
    status: str  # "ok", "missing", or the case's status (failed, skipped, ...)


def ceiling_fraction(r: Results, case: Case) -> float | None:
    """The case's fraction of its ceiling (Results.fraction): fraction_of_copy (GB/s workloads) or
    fraction_of_cublas (GFLOP/s), as the harness wrote them, else computed from the run's ceilings;
    None for CPU layers, launch workloads and runs without the ceiling."""
    return r.fraction(case) if case.ok else None


def figure_value(r: Results, case: Case) -> float | None:
    figure = r.figure(case.workload)
    if figure is None:  # never: the map's columns are the workloads with a figure
        return None
    if figure == "us_per_launch":
        value = case.get("us_per_launch")
        return value if value is not None else (case.median_ms * 1000.0 if case.median_ms else None)
    value = case.get(figure)
    if value is None and case.median_ms:
        count = case.bytes_moved if figure == "gbps" else case.flops
        value = count / (case.median_ms * 1e6) if count else None
    return value


def columns(r: Results) -> list[tuple[str, tuple[int, ...]]]:
    """(workload, its largest size) for the workloads the map shows, in report order: the GB/s
    ones, the GFLOP/s ones, then launch overhead; workloads whose figure the file does not give
    are left to the tables."""
    known = [w for w in r.workloads if r.figure(w) == "gbps"] + [w for w in r.workloads if r.figure(w) == "gflops"]
    known += [w for w in r.workloads if r.figure(w) == "us_per_launch"]
    return [(w, r.sizes(w)[-1]) for w in known if r.sizes(w)]


def cells(r: Results) -> tuple[list[str], list[tuple[str, tuple[int, ...]]], dict[tuple[str, str], Cell]]:
    """(rows: layers in family order, columns, cell per (layer, workload))."""
    cols = columns(r)
    found: dict[tuple[str, str], Cell] = {}
    for layer in r.layers:
        for workload, size in cols:
            case = r.find(workload, layer, size)
            if case is None:
                ran = bool(r.of(workload, layer))
                found[(layer, workload)] = Cell(f"not run at {fmt.size_label(size)}" if ran else "–", None, "missing")
                continue
            if not case.ok:
                found[(layer, workload)] = Cell(case.status, None, case.status)
                continue
            value = figure_value(r, case)
            text = fmt.sig(value, 3) if r.figure(workload) == "us_per_launch" else fmt.rate(value)
            frac = ceiling_fraction(r, case)
            if frac is not None:
                text += f"  ·  {fmt.pct(frac, 0)}"
            found[(layer, workload)] = Cell(text, frac, "ok")
    return list(r.layers), cols, found


def heatmap(r: Results, out: Path) -> Plot | None:
    rows, cols, grid = cells(r)
    if not rows or not cols:
        return None
    setup()
    groups = palette.groups(rows, r.ctx("layers") or {})
    fracs = [c.fraction for c in grid.values() if c.fraction is not None]
    norm = Normalize(0.0, max([1.0] + fracs))
    cmap = plt.get_cmap(CMAP)

    width = min(11.4, max(5.6, 2.4 + 1.7 * len(cols) + (1.3 if fracs else 0.0)))  # few columns: narrower
    # Rows top to bottom: a family's heading, then its layers; y grows downwards.
    heading_h, row_h = 0.62, 1.0
    placed: list[tuple[str, float, str]] = []  # (kind, y, text)
    y = 0.0
    for fam, layers in groups:
        # What the family is, beside its name, where the map is wide enough to hold it.
        placed.append(("family", y, f"{fam.title} — {fam.what}" if width > 10 else fam.title))
        y += heading_h
        for layer in layers:
            placed.append(("layer", y, layer))
            y += row_h
    height_units = y
    fig_h = min(max(0.265 * height_units + 1.45, 3.4 if fracs else 2.4), 7.45)
    fig, ax = plt.subplots(figsize=(width, fig_h), layout="constrained")
    col_w = 1.0
    marks = blended_transform_factory(ax.transAxes, ax.transData)  # x in axes, y in data units
    for kind, y0, text in placed:
        if kind == "family":
            ax.text(0.01, y0 + heading_h * 0.55, text, ha="left", va="center", fontsize=9.5,
                    fontweight="bold", color="#333333")
            continue
        layer = text
        colour, marker = palette.style(layer, r.layers)
        # The layer's colour and marker, as in every other plot of the report, beside its name.
        ax.plot([-0.012], [y0 + row_h / 2], marker=marker, color=colour, ms=8, transform=marks, clip_on=False)
        for j, (workload, _size) in enumerate(cols):
            cell = grid[(layer, workload)]
            face: str | tuple[float, float, float, float]  # a colour: the colour map's RGBA, or by name
            if cell.fraction is not None:
                face = cmap(norm(cell.fraction))
            elif cell.status == "ok":
                face = NEUTRAL
            else:
                face = EMPTY
            ax.add_patch(Rectangle((j * col_w, y0), col_w, row_h, facecolor=face, edgecolor="white", lw=1.5))
            dark = cell.fraction is not None and norm(cell.fraction) > 0.55
            colour_text = "white" if dark else ("#b00020" if cell.status not in ("ok", "missing") else "#1d1d1f")
            ax.text(j * col_w + col_w / 2, y0 + row_h / 2, cell.text, ha="center", va="center",
                    fontsize=8.2 if cell.status == "missing" else 9.5, color=colour_text, linespacing=1.15)
    ax.set_xlim(0, len(cols) * col_w)
    ax.set_ylim(height_units, 0)
    ax.set_xticks([j + 0.5 for j in range(len(cols))])
    ax.set_xticklabels([_column_label(r, w, s) for w, s in cols], fontsize=9.5)
    ax.xaxis.tick_top()
    ax.tick_params(axis="x", length=0, pad=4)
    layer_rows = [(y0 + row_h / 2, text) for kind, y0, text in placed if kind == "layer"]
    ax.set_yticks([y for y, _t in layer_rows])
    ax.set_yticklabels([t for _y, t in layer_rows], fontsize=10)
    ax.tick_params(axis="y", length=0, pad=18)
    ax.grid(False)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    if fracs:  # nothing coloured (no GPU, no ceilings): no scale to show
        bar = fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, fraction=0.025, pad=0.01,
                           aspect=35)
        bar.set_label("fraction of the ceiling\n(GB/s: copy; GFLOP/s: cuBLAS)", fontsize=9.5)
        bar.ax.yaxis.set_major_formatter(lambda v, _p: f"{v * 100:.0f}%")
    title = "Every layer × workload at the workload's largest size: figure and fraction of the ceiling"
    fig.suptitle(title if width > 9 else "Layer × workload at the largest size:\nfigure and fraction of the ceiling",
                 fontsize=12)
    caption = _caption(r, cols, grid)
    return save(fig, out, "heatmap", caption,
                "heat map of each layer's figure and fraction of the ceiling for each workload at its largest size")


def _column_label(r: Results, workload: str, size: tuple[int, ...]) -> str:
    d = r.descriptor(workload)
    where = "launches: " + str(size[0]) if d.is_launch else fmt.size_label(size)
    return f"{workload}\n{where}\n{d.unit}"


def _caption(r: Results, cols, grid) -> str:
    parts = ["Each layer (rows, grouped by family: docs/reports.md) against each workload (columns) at "
             "the workload's largest size. Each cell holds the figure — GB/s, GFLOP/s, or µs per launch"]
    gpu = {w: [c for (layer, w2), c in grid.items() if w2 == w and r.on_gpu(layer) and c.status == "ok"]
           for w, _s in cols}
    if any(c.fraction is not None for c in grid.values()):
        bandwidth = [w for w, _s in cols if r.figure(w) == "gbps"]
        compute = [w for w, _s in cols if r.figure(w) == "gflops"]
        reads = [w for w in bandwidth if r.descriptor(w).output_is_one_value]
        against = []
        if bandwidth:
            against.append(f"the device-to-device copy bandwidth measured in this run for the GB/s workloads "
                           f"(`fraction_of_copy`" + (f"; a kernel that only reads, like {', '.join(reads)}, can "
                                                     f"pass 100%" if reads else "") + ")")
        if compute:
            against.append(f"cuBLAS SGEMM for {', '.join(compute)} (`fraction_of_cublas`)")
        parts[0] += (" — and, for GPU layers, the fraction of the ceiling it reached, which is what the colour "
                     "shows: " + ", ".join(against) + ".")
    else:
        parts[0] += "; no cell is coloured: no GPU layer ran against a ceiling."
    launch = [w for w, _s in cols if r.figure(w) == "us_per_launch"]
    if launch:
        parts.append(f"Launch overhead ({', '.join(launch)}: µs per launch, lower is better) has no "
                     f"ceiling: grey.")
    cpu = [layer for layer in r.layers if not r.on_gpu(layer)]
    if cpu:
        parts.append(f"CPU layers ({', '.join(cpu)}) are grey: the GPU's ceilings are not theirs and "
                     f"the host's own bandwidth is not measured.")
    if not r.copy_gbps and any(gpu[w] for w, _s in cols if r.figure(w) == "gbps"):
        parts.append("This results file holds no copy ceiling, so bandwidth cells are not coloured.")
    if not isinstance(r.cublas_gflops, float) and any(c.fraction is None for w, _s in cols
                                                       if r.figure(w) == "gflops" for c in gpu[w]):
        parts.append("This results file holds no single cuBLAS ceiling, so GFLOP/s cells without the "
                     "harness's `fraction_of_cublas` are not coloured.")
    if any(c.status == "missing" for c in grid.values()):
        parts.append("White cells: the layer has no case of that workload (–) or none at that size.")
    bad = sorted({c.status for c in grid.values() if c.status not in ("ok", "missing")})
    if bad:
        parts.append(f"Cells in red: the case did not pass ({', '.join(bad)}); the tables give the reason.")
    return " ".join(parts)
