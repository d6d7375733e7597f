"""The report's bar charts: speed-up over the cpu layer, the first run's extra time, launch
overhead, and the optimisation ladders. Layers keep the colours and markers of python/layerbench/reports/palette.py
(hatched: layers that run on the CPU); noise bars as in plots.py."""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt

from . import fmt
from .costs import first_runs
from .figure import Plot, log_y, save, setup
from .palette import CEILING
from .plots import cpu_baseline, headroom, layer_style, legend_outside, noise_bars, rate
from .results import Case, Results


# --- speed-up over the cpu layer -------------------------------------------------------------

def speedups(results: Results, workload: str) -> list[dict]:
    """Per size and non-cpu layer: speed-up over the cpu layer on device time and end to end."""
    rows = []
    for size in results.sizes(workload):
        base = results.find(workload, "cpu", size)
        if not base or not base.ok or not base.median_ms:
            continue
        for layer in results.layers:
            if layer == "cpu":
                continue
            case = results.find(workload, layer, size)
            if not case or not case.ok or not case.median_ms:
                continue
            e2e_base, e2e = base.get("end_to_end_ms"), case.get("end_to_end_ms")
            noise = None
            if base.noise is not None and case.noise is not None:
                noise = math.hypot(base.noise, case.noise)
            rows.append({
                "size": size, "layer": layer, "device": base.median_ms / case.median_ms, "noise": noise,
                "e2e": e2e_base / e2e if e2e_base and e2e else None,
            })
    return rows


def speedup(results: Results, workload: str, out: Path) -> Plot | None:
    rows = speedups(results, workload)
    if not rows:
        return None
    setup()
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    layers = [layer for layer in results.layers if any(r["layer"] == layer for r in rows)]
    fig, axes = plt.subplots(2, 1, figsize=(11.5, 7.4), sharey=True, sharex=True, layout="constrained")
    width = 0.8 / len(layers)
    upright = len(sizes) * len(layers) > 24  # many narrow bars: turn their labels upright
    values = [r[k] for r in rows for k in ("device", "e2e") if r[k]]
    lo, hi = min(values + [1.0]), max(values + [1.0])
    for ax, key, title in ((axes[0], "device", "on device time only (median sample; GPU layers: no copies)"),
                           (axes[1], "e2e", "end to end: upload + run + download (host↔device copies included)")):
        for j, layer in enumerate(layers):
            color, _marker, _ls = layer_style(results, layer)
            xs, heights, bottoms, labels = [], [], [], []
            errs: list[list[float]] = [[], []]  # below, above
            for i, size in enumerate(sizes):
                row = next((r for r in rows if r["size"] == size and r["layer"] == layer), None)
                if not row or not row[key]:
                    continue
                v = row[key]
                xs.append(i + (j - (len(layers) - 1) / 2) * width)
                bottoms.append(min(v, 1.0))
                heights.append(abs(v - 1.0) or 1e-9)
                rel = row["noise"] if key == "device" else None
                errs[0].append(v - v / (1 + rel) if rel else 0.0)
                errs[1].append(v * rel if rel else 0.0)
                labels.append((xs[-1], v))
            if not xs:
                continue
            hatch = "//" if not results.on_gpu(layer) else None
            ax.bar(xs, heights, width * 0.92, bottom=bottoms, color=color, label=layer, zorder=3,
                   hatch=hatch, edgecolor="white" if hatch else color, linewidth=0.5)
            if key == "device" and any(errs[0] + errs[1]):
                tops = [b + h if b >= 1.0 else b for b, h in zip(bottoms, heights)]
                ax.errorbar(xs, tops, yerr=errs, fmt="none", ecolor="#222", elinewidth=0.9, capsize=2.5, zorder=4)
            for (x, v), low, high in zip(labels, errs[0], errs[1]):
                end = v + high if v >= 1 else v - low  # past the error bar, so the two do not collide
                ax.annotate(fmt.times_short(v), (x, end), xytext=(0, 2 if v >= 1 else -2), textcoords="offset points",
                            ha="center", va="bottom" if v >= 1 else "top", fontsize=7.5,
                            rotation=90 if upright else 0, zorder=5)
        ax.axhline(1.0, color="black", lw=1.2, zorder=4)
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([fmt.size_mathtext(s) for s in sizes])
        ax.set_xlim(-0.6, len(sizes) - 0.4)
        ax.set_title(title, loc="left")
        ax.set_ylabel("speed-up over the cpu layer, ×\n(log scale; 1× = as fast)")
        ax.grid(axis="x", visible=False)
    log_y(axes[0])
    axes[0].set_ylim(lo / 5, hi * 8)
    axes[1].set_xlabel(results.descriptor(workload).size_words)
    axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.suptitle(f"{workload}: speed-up over the cpu layer — bars above the line are faster, below slower",
                 fontsize=12.5)
    best_dev = max(rows, key=lambda r: r["device"])
    e2e_rows = [r for r in rows if r["e2e"] and results.on_gpu(r["layer"])]
    best_e2e = max(e2e_rows, key=lambda r: r["e2e"]) if e2e_rows else None
    caption = (f"**{workload}** speed-up = time of the `cpu` layer ÷ time of the layer, same size. "
               f"Top: median sample (GPU layers: device time only). Bottom: `end_to_end_ms`, one verified "
               f"run on the host clock including the host↔device copies over pageable memory (for CPU "
               f"layers: the run alone, as the harness records it). Baseline: {cpu_baseline(results, workload)}. "
               f"Best on device time: {best_dev['layer']} at {fmt.size_label(best_dev['size'])}, "
               f"{fmt.times(best_dev['device'])}")
    if best_e2e:
        caption += (f"; best GPU layer end to end: {best_e2e['layer']} at {fmt.size_label(best_e2e['size'])}, "
                    f"{fmt.times(best_e2e['e2e'])}")
        if best_e2e["e2e"] < 1:
            caption += " — **end to end, no GPU layer beats the CPU: the copies cost more than the GPU saves**"
    # (case, end-to-end ms, median ms) of the cpu layer's cases that record an end-to-end run
    cpu_runs = [(c, e2e, median) for c in results.of(workload, "cpu", ok_only=True)
                if (e2e := c.get("end_to_end_ms")) and (median := c.median_ms) is not None]
    if cpu_runs:
        worst, worst_e2e, worst_median = max(cpu_runs, key=lambda run: run[1] / run[2])
        if worst_e2e > 2 * worst_median:
            caption += (f". The cpu layer's end-to-end run can take several times its median (one run, "
                        f"with the cold caches and page faults the median's repeated samples leave out): at "
                        f"{fmt.size_label(worst.size)}, {fmt.ms(worst_e2e)} ms against "
                        f"{fmt.ms(worst_median)} ms, which raises the end-to-end speed-ups there")
    caption += (". Error bars (top): ×/÷ (1 + the two cases' relative standard deviations combined); "
                "the end-to-end times are single runs with no noise estimate. Hatched bars: layers that run on the CPU.")
    return save(fig, out, f"speedup_{workload}", caption,
                 f"{workload} speed-up over the cpu layer, device time and end to end")



# --- first runs and launch overhead -----------------------------------------------------------

def first_run(results: Results, out: Path) -> Plot | None:
    found = first_runs(results)
    if not found:
        return None
    setup()
    workloads = list(dict.fromkeys(c.workload for c, _ in found))
    layers = [layer for layer in results.layers if any(c.layer == layer for c, _ in found)]
    fig, ax = plt.subplots(figsize=(11.5 if len(layers) > 8 else 10, 4.8), layout="constrained")
    width = 0.8 / len(layers)
    positive = [extra for _, extra in found if extra > 0]
    floor = min(positive) / 3 if positive else 1e-3
    for j, layer in enumerate(layers):
        color, _m, _ls = layer_style(results, layer)
        xs, hs = [], []
        for i, workload in enumerate(workloads):
            hit = next(((c, e) for c, e in found if c.layer == layer and c.workload == workload), None)
            if not hit:
                continue
            x = i + (j - (len(layers) - 1) / 2) * width
            extra = hit[1]
            if extra > 0:
                xs.append(x)
                hs.append(extra)
            ax.annotate(fmt.ms(extra) if extra > 0 else "≤0", (x, max(extra, floor)), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=7.5, rotation=90)
        ax.bar(xs, hs, width * 0.92, color=color, label=layer, zorder=3)
    ax.set_xticks(range(len(workloads)))
    labels = []
    for workload in workloads:
        size = next(c.size for c, _ in found if c.workload == workload)
        labels.append(f"{workload}\n(first size: {fmt.size_label(size)})")
    ax.set_xticklabels(labels)
    log_y(ax)
    ax.set_ylim(floor, max(positive + [floor]) * 8)
    ax.set_ylabel("first run − median run, ms (log scale)")
    ax.set_title("What the first run of each kernel costs over a steady-state run (shorter is better)")
    ax.grid(axis="x", visible=False)
    legend_outside(ax)
    caption = ("Extra time of each layer's first run of a workload (`first_run_ms`, host clock, from the "
               "call to the end of the work: lazy module loading, first-touch of pages, library "
               "initialisation) over its median sample, at the first size the workload ran. The first "
               "run is a single measurement; for GPU layers it also includes one launch and the wait for "
               "it, which the device-time median does not.")
    return save(fig, out, "first_run", caption, "bar chart of first-run extra time per layer and workload")


def _launch_what(results: Results, workload: str) -> str:
    """What a launch workload does, under its name on the axis: its descriptor's summary, wrapped."""
    summary = results.descriptor(workload).summary
    return "\n" + textwrap.fill(f"({summary})", 36) if summary else ""


def launch_workloads(results: Results) -> list[str]:
    return [w for w in results.workloads if results.is_launch(w)]


def us_per_launch(case: Case) -> float | None:
    """Microseconds per launch: the harness's us_per_launch, else the median time in µs."""
    value = case.get("us_per_launch")
    return value if value is not None else (case.median_ms * 1000.0 if case.median_ms else None)


def launch_overhead(results: Results, out: Path) -> Plot | None:
    workloads = launch_workloads(results)
    cases = [c for w in workloads for c in results.of(w, ok_only=True) if us_per_launch(c)]
    if not cases:
        return None
    setup()
    layers = [layer for layer in results.layers if any(c.layer == layer for c in cases)]
    fig, ax = plt.subplots(figsize=(11.5 if len(layers) > 8 else 10, 5.0), layout="constrained")
    upright = len(layers) > 8  # narrow bars: their labels upright, or neighbours' overlap
    groups = list(dict.fromkeys((c.workload, c.size) for c in cases))
    width = 0.8 / len(layers)
    noisy = False
    for j, layer in enumerate(layers):
        color, _m, _ls = layer_style(results, layer)
        xs, ys, rels = [], [], []
        for i, (workload, size) in enumerate(groups):
            case = results.find(workload, layer, size)
            if case and case.ok and (us := us_per_launch(case)):
                xs.append(i + (j - (len(layers) - 1) / 2) * width)
                ys.append(us)
                rels.append(case.noise)
        if not xs:
            continue
        noisy |= any(rels)
        hatch = "//" if not results.on_gpu(layer) else None
        ax.bar(xs, ys, width * 0.92, color=color, label=layer, zorder=3, hatch=hatch,
               edgecolor="white" if hatch else color, linewidth=0.5,
               yerr=noise_bars(ys, rels), error_kw={"elinewidth": 0.9, "capsize": 2.5, "zorder": 4})
        for x, y, rel in zip(xs, ys, rels):
            ax.annotate(f"{fmt.sig(y, 2 if y < 10 else 3)}", (x, y * (1 + (rel or 0))), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8.5,
                        rotation=90 if upright else 0)
    ax.set_xticks(range(len(groups)))
    sizes_differ = len({s for _w, s in groups}) > 1
    ax.set_xticklabels([f"{w}" + (f" {fmt.size_label(s)}" if sizes_differ else "") + _launch_what(results, w)
                        for w, s in groups])
    ax.set_xlim(-0.6, len(groups) - 0.4)
    log_y(ax)
    headroom(ax, 2.6 if upright else 1.8)
    ax.set_ylabel("µs per launch (log scale)")
    ax.set_title("Launch overhead per layer: time per kernel launch (shorter is better)")
    ax.grid(axis="x", visible=False)
    legend_outside(ax)
    n = sorted({c.size[0] for c in cases})
    caption = ("Launch overhead per layer, in microseconds per launch (`us_per_launch`: the median time of "
               f"a case's n launches ÷ n, n = {', '.join(map(str, n))}), log scale. " +
               " ".join(f"`{w}`: {results.descriptor(w).summary}." for w in workloads if results.descriptor(w).summary))
    if "graph" in layers:
        caption += (" The `graph` layer replays one CUDA graph that holds all n launches, so the CPU side "
                    "of launching is paid once per graph, not once per kernel.")
    cpu = [layer for layer in layers if not results.on_gpu(layer)]
    if cpu:
        caption += f" Hatched: {', '.join(cpu)}, which runs on the CPU (a parallel loop, not a kernel launch)."
    if noisy:
        caption += " Error bars: median ×/÷ (1 + relative standard deviation of the samples)."
    return save(fig, out, "launch_overhead", caption, "bar chart of microseconds per launch for each layer")


# --- optimisation ladders (layerbench ladder, run --rung) -------------------------------------

def ladder_top_line(results: Results, workload: str, size: tuple[int, ...]) -> tuple[float | None, str]:
    """What a ladder climbs towards: the vendor layer's case at the same size when it ran (named by
    the workload's vendor library), else the run's ceiling (GFLOP/s: cuBLAS SGEMM; GB/s: the copy
    bandwidth); (rate, label)."""
    d = results.descriptor(workload)
    field = d.figure
    if field is None:  # never: ladders are drawn for rate workloads alone
        return None, ""
    vendor = results.find(workload, "vendor", size)
    if vendor and vendor.ok and rate(vendor, field):
        return rate(vendor, field), f"{d.vendor.library if d.vendor else 'vendor'} (vendor layer)"
    if field == "gflops":
        cublas = results.cublas_gflops
        if isinstance(cublas, float):
            at = f" at {fmt.size_label(results.cublas_size)}" if results.cublas_size else ""
            return cublas, f"cuBLAS SGEMM ceiling{at}"
        return None, ""
    copy = results.copy_gbps
    return (copy, "device-to-device copy") if copy else (None, "")


def ladder(results: Results, workload: str, layer: str, size: tuple[int, ...], out: Path) -> Plot | None:
    """One ladder as one chart: a bar per rung (its rate), the vendor line or the ceiling across."""
    field = results.figure(workload)
    if field is None or not results.descriptor(workload).is_rate:
        return None
    drawn = [(c, value) for c in results.ladders.get((workload, layer, size), []) if c.ok and (value := rate(c, field))]
    if not drawn:
        return None
    cases = [c for c, _ in drawn]
    setup()
    unit = "GFLOP/s" if field == "gflops" else "GB/s"
    top, top_label = ladder_top_line(results, workload, size)
    rates = [value for _, value in drawn]
    fig, ax = plt.subplots(figsize=(max(7.0, 0.9 * len(cases) + 3), 5.2), layout="constrained")
    x = list(range(len(cases)))
    color = layer_style(results, layer)[0]
    ax.bar(x, rates, color=color, width=0.7, zorder=3, label=f"rungs through {layer}",
           yerr=noise_bars(rates, [c.noise for c in cases]), capsize=3, error_kw={"elinewidth": 1.0})
    if top:
        ax.axhline(top, color=CEILING, ls=(0, (6, 3)), lw=1.6, zorder=2, label=f"{top_label}\n{fmt.rate(top)} {unit}")
        for xi, value in zip(x, rates):
            ax.annotate(fmt.pct(value / top, 0), (xi, value), textcoords="offset points", xytext=(0, 4),
                        ha="center", fontsize=8.5)
    if max(rates + [top or 0]) / min(rates) > 30:
        log_y(ax)
        headroom(ax, 2.0)
    else:
        ax.set_ylim(0, max(rates + [top or 0]) * 1.12)
    ax.set_xticks(x)
    # A ladder's cases are rung cases, each with its rung's label ("" never shows).
    ax.set_xticklabels([(c.rung_label or "").replace("_", "\n", 1) for c in cases], fontsize=8.5)
    ax.set_ylabel(unit)
    ax.set_title(f"{workload} ladder at {fmt.size_label(size)} through {layer} — {unit} per rung (higher is better)")
    legend_outside(ax)
    caption = (f"**{workload} ladder** at {fmt.size_label(size)} through the `{layer}` layer: each rung's {unit} "
               f"(median sample), in ladder order; docs/ladders.md says what each rung changes.")
    if top:
        caption += f" Dashed red: {top_label}, {fmt.rate(top)} {unit}; the figure over each bar is its fraction of that."
    failed = [c.rung_label or "" for c in results.ladders.get((workload, layer, size), []) if not c.ok]
    if failed:
        caption += f" Not drawn (failed or skipped): {', '.join(failed)}."
    name = f"ladder_{workload}_{layer}_{fmt.size_label(size, unicode=False).replace('^', '')}"
    return save(fig, out, name, caption, f"{workload} ladder: {unit} for each rung through {layer}")
