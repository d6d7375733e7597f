"""`db trend`: per workload, each case's figure over time (PNG, SVG)."""
from __future__ import annotations

import json
import math
import re
import textwrap
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..reports import fmt, results
from .store import Database, open_db
from .ingest import normal_date

if TYPE_CHECKING:  # matplotlib is imported where a trend is drawn
    from matplotlib.axes import Axes


# --- trend plots -----------------------------------------------------------------------------

def _file_name(workload: str) -> str:
    return "trend-" + re.sub(r"[^A-Za-z0-9_.-]", "_", workload)


MAX_PANELS = 9  # sizes per figure (3 × 3); a workload with more draws nine spread over its range
DEVICE_STYLES = ("-", (0, (5, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2)), (0, (3, 1, 1, 1, 1, 1)), (0, (8, 3)))


def write_trend(db_url: str, since: str | None, out_dir: str | Path) -> list[Path]:
    """For each workload with runs since `since` (a date 'YYYY-MM-DD' or ISO time; None: all), a
    figure of each case's figure (GB/s or GFLOP/s; median ms for the others) over time, one panel per
    size, one line per (device, layer), written as out_dir/plots/trend-<workload>.png and .svg, and
    out_dir/trend.md listing them. Returns the files written."""
    out_dir = Path(out_dir)
    since_norm = normal_date(since + "T00:00:00Z" if since and len(since) == 10 else since) if since else None
    if since and since_norm is None:
        raise results.ResultsError("--since", f"'{since}' is not a date (YYYY-MM-DD)")
    db = open_db(db_url, create=False)
    try:
        series = _trend_series(db, since_norm)
        label = db.label
    finally:
        db.close()
    from ..reports import figure, output  # matplotlib only when plots are made

    figure.setup()
    written: list[Path] = []
    doc = ["# layerbench trend", "",
           f"From `{label}`" + (f", runs since {since}" if since else "") + ": each case's figure over time, one "
           "panel per size, one line per device (line style) and layer (colour, marker). Bars: the noise "
           "(median ×/÷ 1 + relative standard deviation of the samples) where it was measured.", ""]
    if not series:
        doc += ["No runs" + (f" since {since}" if since else "") + " in the database.", ""]
    for workload, data in series.items():
        plot = _trend_figure(workload, data, out_dir / "plots")
        written += [plot.png, plot.svg]
        doc += [f"## {workload}", "", f"![{plot.alt}](plots/{plot.png.name})", "",
                plot.caption + f" ([SVG](plots/{plot.svg.name}))", ""]
    md = out_dir / "trend.md"
    output.write_output(md, "\n".join(doc).rstrip() + "\n")
    written.append(md)
    return written


@dataclass
class _Point:
    when: datetime
    value: float
    noise: float | None


def _trend_series(db: Database, since: str | None) -> dict[str, dict[str, Any]]:
    """workload -> {"figure", "summary", "devices": {uuid: label}, "sizes": {size: {(uuid, layer): [points]}}}"""
    from ..reports import plots

    where, params = ["c.status = 'ok'", "c.rung = ''"], []
    if since:
        where.append("r.date >= ?")
        params.append(since)
    rows = db.rows("SELECT r.id, r.date, r.device_uuid, r.gpu_name, r.host, c.workload, c.layer, c.size, c.figure, "
                   "c.entry, r.context FROM runs r JOIN cases c ON c.run_id = r.id WHERE " + " AND ".join(where)
                   + " ORDER BY r.date, r.id, c.position", params)
    found: dict[str, dict[str, Any]] = {}
    contexts: dict[int, dict[str, Any]] = {}
    for run_id, when, uuid, gpu, host, workload, layer, size, figure, entry, context in rows:
        w = found.setdefault(workload, {"figure": figure, "devices": {}, "sizes": {}, "runs": set(), "layers": []})
        if run_id not in contexts:
            contexts[run_id] = json.loads(context)
        recorded = (contexts[run_id].get("workloads") or {}).get(workload) if isinstance(
            contexts[run_id].get("workloads"), dict) else None
        w["summary"] = results.describe(workload, recorded).summary or w.get("summary", "")
        w["figure"] = figure  # the newest run's
        device = uuid if uuid != "cpu" else f"cpu@{host}"
        w["devices"][device] = (gpu, host, uuid)
        w["runs"].add(run_id)
        if layer not in w["layers"]:
            w["layers"].append(layer)
        case = results.Case(workload, layer, tuple(int(v) for v in size.split("x")), json.loads(entry), 0)
        value = plots.rate(case, figure) if figure in results.RATES else case.median_ms
        if value is None or value <= 0:
            continue
        at = datetime.strptime(when, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        w["sizes"].setdefault(case.size, {}).setdefault((device, layer), []).append(_Point(at, value, case.noise))
    return {w: d for w, d in found.items() if d["sizes"]}


def _device_labels(devices: dict[str, tuple[str, str, str]]) -> dict[str, str]:
    """Short, distinct names for the devices of a figure: the GPU's name; with its host where two
    share a name; with the UUID's start where that is not enough either."""
    labels = {}
    names = [gpu for gpu, _h, _u in devices.values()]
    for key, (gpu, host, uuid) in devices.items():
        label = gpu if uuid != "cpu" else f"no GPU, {host}"
        if uuid != "cpu" and names.count(gpu) > 1:
            same_host = sum(1 for g, h, _u in devices.values() if g == gpu and h == host)
            label = f"{gpu}, {host}" + (f", {uuid[:12]}" if same_host > 1 else "")
        labels[key] = label
    return labels


def _trend_figure(workload: str, data: dict[str, Any], out: Path):
    import matplotlib.pyplot as plt
    from matplotlib import dates as mdates
    from matplotlib.lines import Line2D

    from ..reports import figure, palette, plots

    fig_key = data["figure"]
    rate = fig_key in results.RATES
    unit = {"gbps": "GB/s", "gflops": "GFLOP/s"}.get(fig_key, "median ms")
    sizes = sorted(data["sizes"], key=lambda s: (math.prod(s), s))
    shown = sizes
    if len(sizes) > MAX_PANELS:
        step = (len(sizes) - 1) / (MAX_PANELS - 1)
        shown = [sizes[round(i * step)] for i in range(MAX_PANELS)]
    cols = min(3, len(shown))
    rows = math.ceil(len(shown) / cols)
    layers = palette.order(data["layers"])
    devices = list(data["devices"])
    labels = _device_labels(data["devices"])
    styles = {d: DEVICE_STYLES[i % len(DEVICE_STYLES)] for i, d in enumerate(devices)}
    # the panels, and a last column for the legend (matplotlib 3.6 has no legend "outside" a figure)
    entries = len(layers) + len(devices) + 2  # the legend's lines, its two-line title included
    key_cols = 1 if entries <= 30 else 2
    height = max(1.5 + 2.5 * rows, 0.22 * math.ceil(entries / key_cols) + 1.2)
    fig = plt.figure(figsize=(min(4.2 + 2.6 * cols + 2.2 * (key_cols - 1), 11.6), min(height, 7.4)),
                     layout="constrained")
    grid = fig.add_gridspec(rows, cols + 1, width_ratios=[1.0] * cols + [(0.62 + 0.08 * (3 - cols)) * key_cols])
    flat: list[Axes] = []
    for i in range(rows * cols):
        flat.append(fig.add_subplot(grid[i // cols, i % cols], sharex=flat[0] if flat else None))
    key_ax = fig.add_subplot(grid[:, cols])
    key_ax.axis("off")
    for ax in flat[len(shown):]:
        ax.set_visible(False)
    for ax, size in zip(flat, shown):
        lines = data["sizes"][size]
        values = [p.value for pts in lines.values() for p in pts]
        for (device, layer), points in sorted(lines.items(), key=lambda kv: (devices.index(kv[0][0]), layers.index(kv[0][1]))):
            colour, marker = palette.style(layer, layers)
            ys = [p.value for p in points]
            ax.errorbar([p.when for p in points], ys, yerr=plots.noise_bars(ys, [p.noise for p in points]),
                        color=colour, marker=marker, ls=styles[device], lw=1.5, ms=5, capsize=2, elinewidth=0.9,
                        zorder=3)
        if max(values) / min(values) > 8:
            figure.log_y(ax)
        else:  # a linear axis from 0, room for the noise bars up to twice the highest point
            tops = [p.value * (1 + (p.noise or 0.0)) for pts in lines.values() for p in pts]
            ax.set_ylim(0, min(max(tops), 2 * max(values)) * 1.08)
        ax.set_title(f"{workload} {fmt.size_label(size)}", fontsize=10.5)
        # a narrow panel: at most 4 ticks, each only the part that changes (the rest once, at the end)
        locator = mdates.AutoDateLocator(tz=timezone.utc, minticks=2, maxticks=4)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=timezone.utc))
    for ax in flat[::cols]:
        ax.set_ylabel(unit + ("" if rate else " (lower is better)"))
    handles = [Line2D([], [], color=palette.style(l, layers)[0], marker=palette.style(l, layers)[1], ls="-", lw=1.5,
                      label=l) for l in layers]
    handles += [Line2D([], [], color="#555555", ls=styles[d], lw=1.5, label=labels[d]) for d in devices]
    key_ax.legend(handles=handles, loc="upper left", frameon=False, fontsize=9, borderaxespad=0.0, ncol=key_cols,
                  title="colour: layer\nline: device", title_fontsize=9, alignment="left")
    runs = len(data["runs"])
    what = f" — {data['summary']}" if data.get("summary") else ""
    title = f"{workload}: {unit} over time{what}"
    chars = int(fig.get_figwidth() * 8.5)  # at 12 points: the title on as many lines as it needs
    if len(title) > chars:
        title = "\n".join(textwrap.wrap(f"{workload}: {unit} over time", chars) +
                          textwrap.wrap(data.get("summary", ""), chars))
    fig.suptitle(title, fontsize=12)
    extra = (f" {len(shown)} of its {len(sizes)} sizes are drawn, spread over its range." if shown != sizes else "")
    caption = (f"{workload}: each case's {unit} over time, {runs} run{'s' * (runs != 1)} on {len(devices)} "
               f"device{'s' * (len(devices) != 1)} ({', '.join(labels[d] for d in devices)}), {len(layers)} "
               f"layer{'s' * (len(layers) != 1)}; one panel per size." + extra)
    alt = f"{workload}: {unit} over time per size, one line per device and layer"
    return figure.save(fig, out, _file_name(workload), caption, alt)
