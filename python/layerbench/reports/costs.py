"""One-time costs: what each layer pays before its first useful result, as one stacked bar per
layer (segments: Python start and imports, CUDA context, compile, module load, setup, first run), on two linear axes: the whole range, and a zoom on the small end.

Why linear: the costs run from microseconds (a context retain) to seconds (cuda.compute's builds).
A log axis would fit them, but a stacked bar on a log axis draws each segment's length as a ratio
of the segments before it, not as its time: the second segment of 1 + 1 ms would look as long as
the first of a 1 + 99 ms bar. So both panels are linear, the second zoomed in, with the bars that
run past it marked; each bar's total is written beside it.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, MaxNLocator

from . import fmt, palette
from .figure import Plot, save, setup
from .results import Case, Results

if TYPE_CHECKING:  # matplotlib.typing is newer than the oldest matplotlib the tool takes (3.6)
    from matplotlib.typing import HashableList

# (key, legend label, colour): the stacking order, left to right. The first six are the kinds the
# harness writes on each cost (`kind`: variants/one_time_cost.cpp); "first run" is the report's.
SEGMENTS = (
    ("import", "Python start + imports", "#6a51a3"),
    ("context", "CUDA context", "#636363"),
    ("compile", "compile (NVRTC, nvcc, Numba, cuda.compute, torch.compile, Triton, XLA)", "#e6550d"),
    ("autotune", "autotune (Triton)", "#fdae6b"),
    ("load", "module load", "#31a354"),
    ("setup", "setup (graph capture, temporary storage)", "#bdbdbd"),
    ("first run", "first run over the median", "#3182bd"),
)
KINDS = ("import", "context", "compile", "autotune", "load", "setup")
# For files written before the harness recorded `kind`: its rules (variants/one_time_cost.cpp),
# the same words in the same order, the first that the lower-cased `what` holds wins. A compile
# that includes its load ("SourceModule ... with the module load") is a compile.
_RULES = (
    ("autotune", "autotune"), ("import ", "import"), ("interpreter start", "import"), ("context", "context"),
    ("nvrtc", "compile"), ("compile", "compile"), ("sourcemodule", "compile"), (".jit ", "compile"),
    ("@vectorize", "compile"), ("@cuda.reduce", "compile"), ("cuda.compute build", "compile"),
    ("rawmodule", "compile"), ("cumoduleload", "load"), ("module load", "load"), ("load", "load"),
)
PROCESS = "process"  # the CUDA context creation, paid once per process, before any layer ran


def segment_of(what: str, kind: Any = None) -> str:
    """The cost's kind: as the harness recorded it, else by the harness's rules from its name."""
    if kind in KINDS:
        return kind
    text = what.lower()
    return next((segment for word, segment in _RULES if word in text), "setup")


def one_time_items(results: Results) -> list[tuple[str, str, float]]:
    """(layer or 'process', what, ms) for every one-time cost the results hold."""
    return [(who, what, ms) for who, what, ms, _kind in one_time_costs_with_kinds(results)]


def one_time_costs_with_kinds(results: Results) -> list[tuple[str, str, float, str]]:
    """(layer or 'process', what, ms, kind) for every one-time cost the results hold."""
    items = []
    ctx_ms = results.device.get("context_creation_ms") if results.device else None
    if isinstance(ctx_ms, (int, float)):
        items.append((PROCESS, "CUDA context creation (first CUDA call)", float(ctx_ms), "context"))

    def add(layer: str, costs: Any, where: str = "") -> None:
        if isinstance(costs, list):
            for cost in costs:
                if isinstance(cost, dict) and isinstance(cost.get("ms"), (int, float)):
                    what = str(cost.get("what", ""))
                    items.append((layer, what + where, float(cost["ms"]), segment_of(what, cost.get("kind"))))

    # Paid when the layer's session opened (context.layers), then during a case (schema 2: the
    # case's own one_time_costs, named after the case).
    for layer in list(results.layers) + [name for name in (results.ctx("layers") or {}) if name not in results.layers]:
        add(layer, results.layer_info(layer).get("one_time_costs"))
    for case in results.cases:
        add(case.layer, case.entry.get("one_time_costs"), f" ({case.workload} {fmt.size_label(case.size)})")
    return items


def first_runs(results: Results) -> list[tuple[Case, float]]:
    """Per (layer, workload read as a rate: GB/s or GFLOP/s, not launch overhead): the first case
    that ran, with first_run_ms − median_ms."""
    seen, found = set(), []
    for case in sorted(results.cases, key=lambda c: c.order):
        key = (case.layer, case.workload)
        if key in seen or not case.ok or not results.descriptor(case.workload).is_rate:
            continue
        first, median = case.get("first_run_ms"), case.median_ms
        if first is None or median is None:
            continue
        seen.add(key)
        found.append((case, first - median))
    return found


def bars(results: Results) -> list[tuple[str, dict[str, float]]]:
    """(who, {segment: ms}) per bar: the process's context first, then the layers in report order.
    A layer's first-run segment is the sum, over its workloads, of its first run's time over the
    median at the first size (where positive)."""
    found: dict[str, dict[str, float]] = {}
    for who, _what, ms, segment in one_time_costs_with_kinds(results):
        found.setdefault(who, {}).setdefault(segment, 0.0)
        found[who][segment] += ms
    for case, extra in first_runs(results):
        if extra > 0:
            found.setdefault(case.layer, {}).setdefault("first run", 0.0)
            found[case.layer]["first run"] += extra
    layers = results.layers + [name for name in found if name not in results.layers and name != PROCESS]
    order = ([PROCESS] if PROCESS in found else []) + [layer for layer in layers if layer in found]
    return [(who, found[who]) for who in order]


def _nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 5 × 10^k at least `value`."""
    exp = math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if step * 10 ** exp >= value:
            return step * 10 ** exp
    return 10 ** (exp + 1)


def one_time_costs(results: Results, out: Path) -> Plot | None:
    rows = bars(results)
    rows = [(who, segs) for who, segs in rows if sum(segs.values()) > 0]
    if not rows:
        return None
    setup()
    totals = [sum(segs.values()) for _who, segs in rows]
    longest = max(totals)
    # A zoom panel where some bars would be under 1/25 of the full axis (a few pixels): it shows
    # them whole, up to a round number past the longest of them (and past 1/40 of the longest bar).
    small = [t for t in totals if t < longest / 25]
    zoom = _nice_ceiling(max([longest / 40] + small) * 1.05) if small else None
    present = [s for s in SEGMENTS if any(segs.get(s[0]) for _w, segs in rows)]
    # Two columns of kinds where there are many (the compile kind's label is long): three side by
    # side ran past the figure's right edge at 20 layers; each row of the key gets its height.
    key_columns = min(len(present), 3 if len(present) <= 3 else 2)
    key_rows = -(-len(present) // key_columns)
    height = min(0.3 * len(rows) + 1.9, 7.4) + 0.22 * max(0, key_rows - 2)
    # A row under the panels holds the legend of the kinds (a figure legend "outside" the axes
    # needs matplotlib 3.7; this works from 3.6, as the report tool requires).
    mosaic: list[HashableList[str]] = [["full", "near"], ["key", "key"]] if zoom else [["full"], ["key"]]
    fig, axes = plt.subplot_mosaic(mosaic, figsize=(11.5, height), layout="constrained",
                                   gridspec_kw={"height_ratios": [1, 0.001],
                                                **({"width_ratios": [1.25, 1]} if zoom else {})})
    full = axes["full"]
    panels = [(full, longest * 1.22)]
    if zoom:
        near = axes["near"]
        near.sharey(full)
        near.tick_params(labelleft=False)
        panels.append((near, zoom))
    ys = list(range(len(rows)))[::-1]
    infos = results.ctx("layers") or {}
    for ax, limit in panels:
        for y, (who, segs) in zip(ys, rows):
            left = 0.0
            for key, _label, colour in SEGMENTS:
                ms = segs.get(key, 0.0)
                if ms > 0:
                    ax.barh(y, ms, left=left, height=0.68, color=colour, zorder=3, edgecolor="white", linewidth=0.4)
                    left += ms
            if ax is full:
                ax.annotate(f"{fmt.ms(left)} ms", (left, y), xytext=(4, 0), textcoords="offset points",
                            va="center", fontsize=8.5)
            elif left > limit:
                ax.annotate(f"{fmt.ms(left)} ms →", (limit, y), xytext=(-3, 0), textcoords="offset points",
                            va="center", ha="right", fontsize=8.5, annotation_clip=False, zorder=5,
                            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
        ax.set_xlim(0, limit)
        ax.xaxis.set_major_locator(MaxNLocator(7, steps=[1, 2, 2.5, 5, 10]))
        ax.xaxis.set_major_formatter(FuncFormatter(_tick))
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("milliseconds, host clock (linear)")
    # Lines between families, so the bars read in the same groups as the other plots.
    previous = None
    for y, (who, _segs) in zip(ys, rows):
        fam = "" if who == PROCESS else palette.family_of(who, infos.get(who)).key
        if previous is not None and fam != previous:
            for ax, _limit in panels:
                ax.axhline(y + 0.5, color="#999999", lw=0.8, zorder=1)
        previous = fam
    full.set_yticks(ys)
    full.set_yticklabels(["CUDA context (process)" if who == PROCESS else who for who, _s in rows])
    full.set_ylim(-0.6, len(rows) - 0.4)
    full.set_title("whole range", loc="left", fontsize=10.5)
    if zoom:
        near.set_title(f"zoom on 0–{fmt.ms(zoom)} ms (→: the bar runs on)", loc="left", fontsize=10.5)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour) for _k, _l, colour in present]
    axes["key"].axis("off")
    axes["key"].legend(handles, [label for _k, label, _c in present], loc="center", ncol=key_columns,
                       frameon=False, fontsize=9.5)
    fig.suptitle("One-time costs before the first result, per layer (shorter is better)", fontsize=12)
    return save(fig, out, "one_time_costs", _caption(results, rows, zoom),
                "stacked bars of each layer's one-time costs in milliseconds, by kind")


def _tick(value: float, _pos=None) -> str:
    return f"{value:,.0f}".replace(",", " ") if value >= 1000 else f"{value:g}"


def _caption(results: Results, rows, zoom: float | None) -> str:
    text = ("What each layer paid once, before its first useful result, in milliseconds on the host clock: "
            "one bar per layer, stacked by kind — Python interpreter start and imports, the CUDA context, "
            "compiles (NVRTC, nvcc, Numba's JIT, cuda.compute's builds), module loads, setup (graph "
            "capture, temporary storage), and the first run of each workload over its median "
            "(`first_run_ms − median_ms` at the first size, summed over workloads; lazy loading, first "
            "touch). Each cost is one measurement, so no noise is shown. The kind is the one the harness "
            "recorded with each cost (`kind`; for older files, read from its name by the harness's "
            "rules); the table below lists every cost with its kind. The CUDA context is created once per process, before any "
            "layer runs; the driver layer only retains it. A Python import is paid by the first layer "
            "that needs it (\"once per process\"), so the layers after it show none. A warm kernel cache "
            "turns compiles into file reads.")
    if zoom:
        text += (f" Both axes are linear (stacked bars on a log axis would misdraw the segments); the "
                 f"right panel zooms in on 0–{fmt.ms(zoom)} ms so the short bars can be read.")
    return text
