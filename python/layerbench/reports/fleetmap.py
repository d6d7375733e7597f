"""The picture a merged file's report opens with (docs/fleet.md): one row per run — "GPU <index> ·
<short UUID>" (fleet.gpu_label) — and one column per workload; each cell is the run's speed on that
workload relative to the fleet's median, and its outliers (fleet.fleet_flags) are marked.

A cell's value: for each case of the workload (every layer, size and rung) that the run and at
least one other run measured, the fleet's median time of the case over the run's time (above 1:
faster than the fleet's median; the same as the run's GB/s, GFLOP/s or launches per µs over the
fleet's median of them, since a case's work is fixed), then the geometric mean of those ratios.
The cell is marked ⚑ N when N of those cases are flagged (with three runs or more; with two runs
nothing is flagged, fleet.flag_rule). The full tables follow it in the report."""
from __future__ import annotations

import math
import statistics
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.colors import TwoSlopeNorm
from matplotlib.patches import Rectangle

from .figure import SCREEN_PX, DPI, Plot, save, setup
from .fleet import FLAG, MIN_RUNS_TO_FLAG, fleet_flags, flag_rule, run_labels, two_differ
from .results import Case, Results

CMAP = "RdBu"  # red: slower than the fleet's median, blue: faster
MIN_RANGE = 0.1  # the colour scale spans at least ±10%
MAX_RANGE = 0.5  # and at most ±50% (a cell beyond it takes the end colour)
TEXT_ROWS = 24  # more rows than this: no figures written in the cells, only the marks


def _time(c: Case | None) -> float | None:
    return c.median_ms if c is not None and c.ok and c.median_ms else None


def grid(r: Results) -> tuple[list[str], list[str], dict[tuple[int, str], tuple[float, int, int]]]:
    """(row labels, workloads, {(run index, workload): (geometric-mean ratio, cases, flagged)})."""
    runs = [run["run"] for run in r.runs]
    index = {run: i for i, run in enumerate(runs)}
    by_case: dict[tuple, list[Case | None]] = {}
    workloads: list[str] = []
    for c in sorted(r.cases, key=lambda c: c.order):
        if c.workload not in workloads:
            workloads.append(c.workload)
        by_case.setdefault((c.workload, c.key), [None] * len(runs))[index[c.run]] = c
    logs: dict[tuple[int, str], list[float]] = {}
    flagged: dict[tuple[int, str], int] = {}
    for (workload, _key), row in by_case.items():
        times = [_time(c) for c in row]
        if sum(t is not None for t in times) < 2:
            continue
        middle = statistics.median(t for t in times if t is not None)
        flags = fleet_flags(row)
        for i, t in enumerate(times):
            if t is None:
                continue
            logs.setdefault((i, workload), []).append(math.log(middle / t))
            flagged[(i, workload)] = flagged.get((i, workload), 0) + (flags[i] is not None)
    cells = {k: (math.exp(sum(v) / len(v)), len(v), flagged[k]) for k, v in logs.items()}
    workloads = [w for w in workloads if any((i, w) in cells for i in range(len(runs)))]
    return run_labels(r), workloads, cells


def fleet_map(r: Results, out: Path) -> Plot | None:
    labels, workloads, cells = grid(r)
    if not cells or not workloads:
        return None
    setup()
    n = len(labels)
    many = n > TEXT_ROWS
    largest = max(abs(v[0] - 1) for v in cells.values())
    span = min(MAX_RANGE, max(MIN_RANGE, largest))
    norm = TwoSlopeNorm(vcenter=1.0, vmin=1 - span, vmax=1 + span)
    cmap = plt.get_cmap(CMAP)
    width = min(SCREEN_PX[0] / DPI, max(6.4, 3.4 + 1.45 * len(workloads)))
    height = min(SCREEN_PX[1] / DPI - 0.2, max(2.6, 1.75 + (0.16 if many else 0.42) * n))
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    for i in range(n):
        for j, workload in enumerate(workloads):
            cell = cells.get((i, workload))
            if cell is None:
                ax.add_patch(Rectangle((j, i), 1, 1, facecolor="#ffffff", edgecolor="#dddddd", lw=0.8))
                if not many:
                    ax.text(j + 0.5, i + 0.5, "–", ha="center", va="center", fontsize=9, color="#888888")
                continue
            ratio, _count, flags = cell
            face = cmap(norm(min(max(ratio, 1 - span), 1 + span)))
            ax.add_patch(Rectangle((j, i), 1, 1, facecolor=face, edgecolor="white", lw=1.2 if not many else 0.4))
            if flags:
                ax.add_patch(Rectangle((j + 0.04, i + 0.06), 0.92, 0.88, facecolor="none", edgecolor="#111111",
                                       lw=1.6 if not many else 0.9))
            dark = abs(norm(ratio) - 0.5) > 0.33
            colour = "white" if dark else "#1d1d1f"
            if not many:
                text = f"{ratio:.3f}" + (f"  {FLAG} {flags}" if flags else "")
                ax.text(j + 0.5, i + 0.5, text, ha="center", va="center", fontsize=9.5, color=colour,
                        fontweight="bold" if flags else "normal")
            elif flags:
                ax.text(j + 0.5, i + 0.5, FLAG, ha="center", va="center", fontsize=6.5, color=colour)
    ax.set_xlim(0, len(workloads))
    ax.set_ylim(n, 0)
    ax.set_xticks([j + 0.5 for j in range(len(workloads))])
    ax.set_xticklabels(workloads, fontsize=9.5)
    ax.xaxis.tick_top()
    ax.set_yticks([i + 0.5 for i in range(n)])
    ax.set_yticklabels(labels, fontsize=9.5 if not many else 6.5)
    ax.tick_params(length=0)
    ax.grid(False)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    bar = fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, fraction=0.03, pad=0.01, aspect=30)
    bar.set_label("speed ÷ the fleet's median\n(geometric mean over the cases)", fontsize=9.5)
    bar.ax.yaxis.set_major_formatter(lambda v, _p: f"{v:.2f}")
    fig.suptitle(f"{n} runs against the fleet's median, workload by workload", fontsize=12)
    return save(fig, out, "fleet", _caption(r, n, cells),
                f"one row per GPU ({n}), one column per workload, coloured by speed relative to the fleet's median")


def _caption(r: Results, runs: int, cells) -> str:
    parts = ["One row per run, named by its GPU's index and the first 8 hex digits of its UUID (the runs table "
             "below gives the whole RUN_ID); one column per workload. Each cell is the run's speed on the "
             "workload against the fleet: for every case (layer, size, rung) that at least one other run also "
             "measured, the fleet's median time over the run's time, then the geometric mean over the "
             "workload's cases. Above 1 (blue): faster than the fleet's median; below 1 (red): slower. "
             "– : the run has no case of that workload."]
    if runs >= MIN_RUNS_TO_FLAG:
        total = sum(v[2] for v in cells.values())
        parts.append(f"A framed cell, {FLAG} N, holds N flagged cases ({total} in all): {flag_rule(runs)}")
    else:
        keys: dict[tuple, list] = {}
        for c in r.cases:
            keys.setdefault(c.key, []).append(c)
        differ = sum(two_differ(v) is not None for v in keys.values())
        parts.append(f"Nothing is framed: {flag_rule(runs)} " +
                     (f"{differ} case{'s' if differ != 1 else ''} differ{'s' if differ == 1 else ''} so." if differ
                      else "No case differs so."))
    return " ".join(parts)
