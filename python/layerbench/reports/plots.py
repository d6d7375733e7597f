"""The per-workload rate figures (bandwidth against size, GFLOP/s against size) and what every
figure of a layer shares: its colour and marker (python/layerbench/reports/palette.py), its noise bars, its rate.

Each function returns a Plot (files, caption, alt text) or None when the results hold nothing to
draw. Layers keep one colour and marker in every figure. Noise is drawn where it was measured:
error bars span median ×/÷ (1 + relative standard deviation of the samples).

With more than PANEL_MAX layers, a rate figure has one panel per layer family on a shared y axis:
fifteen lines in one panel pile on each other near the ceiling, where the memory-bound kernels all
end (docs/reports.md says why this and not another remedy).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

from . import fmt, palette
from .figure import Plot, log_y, save, setup
from .palette import CEILING, PEAK
from .results import Case, Results

PANEL_MAX = 6  # layers one panel holds readably; past it, one panel per family


def elements(size: tuple[int, ...]) -> int:
    """The elements a size spans: n, M·N or M·N·K."""
    return math.prod(size)


def per_element(results: Results, workload: str, count: str) -> float | None:
    """bytes_moved ("bytes") or flops ("flops") per element of the size (n, M·N, M·N·K), where
    every case of the workload that records it gives the same; else None."""
    ratios = {round(counted / elements(c.size), 9) for c in results.of(workload)
              if (counted := c.bytes_moved if count == "bytes" else c.flops) and elements(c.size)}
    return ratios.pop() if len(ratios) == 1 else None


def workload_what(results: Results, workload: str) -> str:
    """What the workload computes, for a title: its descriptor's summary and what its rate counts,
    "c = a + b, n fp32 (12 bytes moved per element)", "C = A*B, ... (2·M·N·K flops)"."""
    d = results.descriptor(workload)
    if d.figure == "gflops":
        ratio = per_element(results, workload, "flops")
        count = f"{ratio:g}·{d.size_product} flops" if ratio else ""
    else:
        ratio = per_element(results, workload, "bytes")
        count = f"{ratio:g} bytes moved per element" if ratio else ""
    return d.summary + (f" ({count})" if count and d.summary else count)


def layer_style(results: Results, layer: str) -> tuple[str, str, str]:
    """(colour, marker, line style) of a layer, the same in every figure of a report."""
    colour, marker = palette.style(layer, results.layers)
    return colour, marker, "-"


def noise_bars(values: list[float], rels: list[float | None]) -> list[list[float]]:
    """Asymmetric error bars for value ×/÷ (1 + rel); zero where the noise was not measured."""
    lower = [v - v / (1 + r) if r else 0.0 for v, r in zip(values, rels)]
    upper = [v * r if r else 0.0 for v, r in zip(values, rels)]
    return [lower, upper]


def headroom(ax, factor: float = 1.6) -> None:
    """Room above the highest point (log axes), so markers and bars do not touch the frame."""
    low, high = ax.get_ylim()
    ax.set_ylim(low, high * factor)


def unmeasured(cases: list[Case]) -> str:
    """A caption sentence naming the plotted cases whose noise was not measured, or ''."""
    names = [f"{c.layer} {fmt.size_label(c.size)}" for c in cases if c.noise is None]
    if not names:
        return ""
    return f" No bar where a case has a single sample, so no noise estimate: {', '.join(names)}."


def legend_outside(ax, **kw) -> None:
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False, **kw)


def rate(case: Case, field: str) -> float | None:
    """The case's GB/s ("gbps") or GFLOP/s ("gflops"): as written, else from its counts and median."""
    value = case.get(field)
    if value is None and case.median_ms:
        count = case.bytes_moved if field == "gbps" else case.flops
        value = count / (case.median_ms * 1e6) if count else None
    return value


def _jitter(layers: list[str], layer: str) -> float:
    """A small multiplicative x offset per layer so that equal points do not hide each other."""
    i, count = layers.index(layer), len(layers)
    return 2 ** (0.12 * (i - (count - 1) / 2))


def _layer_line(ax, results: Results, layer: str, x: list[float], y: list[float], rel: list[float | None]) -> None:
    """One layer's figures as a line, with the measured noise as error bars."""
    color, marker, ls = layer_style(results, layer)
    ax.errorbar(x, y, yerr=noise_bars(y, rel), color=color, marker=marker, ls=ls, lw=1.8, ms=7,
                capsize=3, elinewidth=1.1, label=layer, zorder=3)


def _limit_lines(ax, peak: float | None, peak_label: str, ceiling: float | None, ceiling_label: str) -> None:
    """The theoretical peak (dotted) and the ceiling measured in the run (dashed)."""
    if peak:
        ax.axhline(peak, color=PEAK, ls=":", lw=1.4, zorder=2, label=peak_label)
    if ceiling:
        ax.axhline(ceiling, color=CEILING, ls=(0, (6, 3)), lw=1.6, zorder=2, label=ceiling_label)


def cpu_baseline(results: Results, workload: str | None = None) -> str:
    """What the CPU baseline was, in words, from context.layers.cpu and context.host: for a
    GFLOP/s workload what the cpu layer runs it with (its BLAS or loop nest:
    Results.cpu_backends), for the other workloads its threads and vectorisation, for None both."""
    cpu = results.layer_info("cpu")
    parts = []
    threads = cpu.get("threads") or results.ctx("host", "openmp_threads")
    compute = workload is not None and results.figure(workload) == "gflops"
    if threads and not compute:
        parts.append(f"{threads} OpenMP threads")
    if cpu.get("vectorised_for") and not compute:
        parts.append(f"loops vectorised for `{cpu['vectorised_for']}`")
    backends = results.cpu_backends(workload)
    if backends:
        parts += [f"{w}: {text}" for w, text in backends]
    elif compute and threads:
        parts.append(f"{threads} OpenMP threads")
    host = results.ctx("host", "cpu_model")
    where = f" on {host}" if host else ""
    logical = results.ctx("host", "logical_cpus")
    if logical:
        where += f" ({logical} logical CPUs)"
    return "the `cpu` layer — " + ("; ".join(parts) if parts else "no details recorded") + where


# --- rate against size: one panel, or one per family ------------------------------------------

def _panels(results: Results, layers: list[str]) -> Sequence[tuple[palette.Family | None, list[str]]]:
    if len(layers) <= PANEL_MAX:
        return [(None, layers)]
    return palette.groups(layers, results.ctx("layers") or {})


def _rate_axes(results: Results, layers: list[str]):
    """(figure, axes, panels): one wide panel with the legend beside it, or a row of panels, a
    legend in each. The GPU panels share their y axis; a CPU panel has its own, without the GPU's
    ceilings (they are not the CPU's), so that the GPU panels' axis spans only the GPU layers'
    figures and their lines spread out instead of piling up under the ceiling."""
    panels = _panels(results, layers)
    if len(panels) == 1:
        fig, ax = plt.subplots(figsize=(10, 5.2), layout="constrained")
        return fig, [ax], panels
    fig, axes = plt.subplots(1, len(panels), figsize=(11.5, 6.4), layout="constrained")
    axes = list(axes)
    gpu = [ax for ax, (fam, _g) in zip(axes, panels) if not _cpu_panel(fam)]
    for ax in gpu[1:]:
        ax.sharey(gpu[0])
        ax.tick_params(labelleft=False)
    return fig, axes, panels


def _cpu_panel(fam: palette.Family | None) -> bool:
    return fam is not None and fam.key == "cpu"


def _reference_panel(panels) -> int:
    """The panel whose legend names the ceiling lines: the first that draws them (a GPU panel)."""
    return next((i for i, (fam, _g) in enumerate(panels) if not _cpu_panel(fam)), 0)


# Characters a title holds on one line: over one panel (the legend beside it), over a row of panels.
TITLE_CHARS = (88, 120)


def _finish_panels(fig, axes, panels, xlabel: str, ylabel: str, title: str) -> None:
    if len(title) > TITLE_CHARS[len(axes) > 1]:  # a long summary: what is drawn on a line of its own
        title = title.replace(" — ", "\n", 1)
    if len(axes) == 1:
        log_y(axes[0])
        headroom(axes[0])
        axes[0].set_ylabel(ylabel)
        axes[0].set_xlabel(xlabel)
        axes[0].set_title(title)
        legend_outside(axes[0])
        return
    first_gpu = _reference_panel(panels)
    for i, (ax, (fam, group)) in enumerate(zip(axes, panels)):
        if _cpu_panel(fam) or i == first_gpu:
            log_y(ax)
            low, high = ax.get_ylim()
            # A narrow range (the GPU panels: from launch-bound small sizes to the ceiling) would
            # show one or two ticks of 1, 2, 5 × 10^k: denser ticks there.
            if high / low < 4:
                ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)))
            elif high / low < 12:
                ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.5, 2.0, 3.0, 5.0, 7.0)))
            headroom(ax, 1.25 if high / low < 12 else 1.6)
            ax.set_ylabel(ylabel if i == 0 else "")
        ax.set_title(f"{fam.title} ({len(group)})" + (": own y axis" if _cpu_panel(fam) else ""),
                     loc="left", fontsize=10.5)
        # Under the panel, not in it: a legend inside covers some panel's lines whatever its place.
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=2, fontsize=8.5, frameon=False,
                  handlelength=1.8, columnspacing=0.8, handletextpad=0.4, labelspacing=0.3)
    fig.supxlabel(xlabel, fontsize=10.5)
    fig.suptitle(title, fontsize=12)


def _panel_sentence(panels) -> str:
    if len(panels) == 1:
        return ""
    names = "; ".join(f"{fam.title}: {fam.what}" for fam, _g in panels)
    return (f" One panel per layer family ({names}), on the same axes, so that no more than a few "
            f"lines share a panel; colours and markers are the layers' own in every figure.")


def bandwidth(results: Results, workload: str, out: Path) -> Plot | None:
    layers = [layer for layer in results.layers if any(rate(c, "gbps") for c in results.of(workload, layer, ok_only=True))]
    if not layers:
        return None
    setup()
    fig, axes, panels = _rate_axes(results, layers)
    d = results.descriptor(workload)
    # x: the elements a size spans (n, or M·N), labelled with the size itself
    ticks = {elements(c.size): fmt.size_mathtext(c.size) for layer in layers for c in results.of(workload, layer, ok_only=True)}
    sizes = sorted(ticks)
    ceiling, peak = results.copy_gbps, results.theoretical_gbps
    hot = results.gpu_cache_mode == "hot"
    noisy = False
    for i, (ax, (fam, group)) in enumerate(zip(axes, panels)):
        for layer in group:
            drawn = [(c, gbps) for c in results.of(workload, layer, ok_only=True) if (gbps := rate(c, "gbps"))]
            x = [elements(c.size) * _jitter(group, layer) for c, _ in drawn]
            rel = [c.noise for c, _ in drawn]
            noisy |= any(rel)
            _layer_line(ax, results, layer, x, [gbps for _, gbps in drawn], rel)
        first = i == _reference_panel(panels)  # the reference lines are named once, in one legend
        if not _cpu_panel(fam):
            _limit_lines(ax, peak, f"theoretical\n{fmt.rate(peak)} GB/s" if peak and first else "_peak",
                         ceiling, f"copy ceiling\n{fmt.rate(ceiling)} GB/s" if ceiling and first else "_ceiling")
        if hot and not _cpu_panel(fam):
            _shade_l2(ax, results, workload, sizes)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(sizes))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: ticks.get(int(round(v)), "")))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(sizes[0] / 2 ** 0.8, sizes[-1] * 2 ** 0.8)
    xlabel = (f"{d.size_words}, fp32 elements (log scale)" if d.size_form == "n" else
              f"{d.size_words} (placed by its {d.size_product} fp32 elements; log scale)")
    _finish_panels(fig, axes, panels, xlabel, "bandwidth, GB/s (decimal; log scale)",
                   f"{workload}: {workload_what(results, workload)} — bandwidth by layer (higher is better)")
    caption = (f"**{workload}** bandwidth per layer: bytes moved ÷ median sample time, decimal GB/s, "
               f"log–log axes. GPU layers are timed on the device (CUDA events, no host↔device "
               f"copies); CPU layers on the host clock.")
    caption += _panel_sentence(panels)
    if noisy:
        caption += (" Error bars: median ×/÷ (1 + relative standard deviation of the samples); "
                    "where none shows, the noise is smaller than the marker.")
    if ceiling:
        caption += (f" Dashed red line: the device-to-device copy bandwidth measured at the start of "
                    f"the run ({fmt.rate(ceiling)} GB/s), what a memory-bound kernel can hope to reach")
        caption += f"; dotted grey: the theoretical peak ({fmt.rate(peak)} GB/s)." if peak else "."
        if len(panels) > 1:
            caption += " The heat map at the top gives each layer's fraction of it at the largest size."
    caption += unmeasured(results.of(workload, ok_only=True))
    if hot and results.device and results.device.get("l2_cache_bytes"):
        caption += (" GPU samples were taken back to back (hot): shaded, the sizes whose working set fits "
                    "in the GPU's L2 cache, where samples can be served from cache.")
    elif results.gpu_cache_mode == "cold":
        caption += (" GPU samples are cold: the harness flushes the L2 before each one, so every size "
                    "reads from device memory; the CPU layers run hot (their caches stay warm).")
    return save(fig, out, f"bandwidth_{workload}", caption,
                f"{workload} bandwidth in GB/s against {d.size_words} for each layer")


def _shade_l2(ax, results: Results, workload: str, sizes: list[int]) -> None:
    l2 = results.device.get("l2_cache_bytes") if results.device else None
    per_element = None
    for case in results.of(workload):
        if case.bytes_moved and elements(case.size):
            per_element = case.bytes_moved / elements(case.size)
            break
    if not l2 or not per_element:
        return
    limit = l2 / per_element
    if limit < sizes[0] / 2 ** 0.8:
        return
    ax.axvspan(sizes[0] / 2 ** 0.8, min(limit, sizes[-1] * 2 ** 0.8), color="#f5e6a8", alpha=0.45,
               zorder=0, lw=0)
    ax.text(sizes[0] / 2 ** 0.7, 0.02, f"fits in the\nGPU's L2\n({fmt.bytes_h(l2)})", transform=ax.get_xaxis_transform(),
            fontsize=8.5, color="#7a6420", va="bottom")


def gflops(results: Results, workload: str, out: Path) -> Plot | None:
    """A GFLOP/s workload's rate against its size, placed by its flops, with cuBLAS SGEMM's ceiling."""
    # Only layers with a case that can be drawn (a rate and a flop count): the axes come from them.
    layers = [layer for layer in results.layers
              if any(rate(c, "gflops") and c.flops for c in results.of(workload, layer, ok_only=True))]
    if not layers:
        return None
    setup()
    fig, axes, panels = _rate_axes(results, layers)
    ticks: dict[float, str] = {}
    d = results.descriptor(workload)
    for c in results.of(workload, ok_only=True):
        if c.layer in layers and rate(c, "gflops") and c.flops:
            label = fmt.size_label(c.size)
            if label not in ticks.get(c.flops, "").split("\n"):  # equal flops, other shapes: stack labels
                ticks[c.flops] = f"{ticks[c.flops]}\n{label}" if c.flops in ticks else label
    cublas, peak = results.cublas_gflops, results.theoretical_gflops
    single = cublas if isinstance(cublas, float) else None  # one size; a dict holds one per size
    at = f" at {fmt.size_label(results.cublas_size)}" if results.cublas_size else ""
    points = _cublas_points(cublas, ticks)
    xs = sorted(ticks)
    narrow = len(axes) > 1 and any(len(label) > 6 for label in ticks.values())
    noisy = False
    for i, (ax, (fam, group)) in enumerate(zip(axes, panels)):
        for layer in group:
            drawn = [(c, flops, gflops) for c in results.of(workload, layer, ok_only=True)
                     if (gflops := rate(c, "gflops")) and (flops := c.flops)]
            rel = [c.noise for c, _, _ in drawn]
            noisy |= any(rel)
            _layer_line(ax, results, layer, [flops * _jitter(group, layer) ** 2 for _, flops, _ in drawn],
                        [gflops for _, _, gflops in drawn], rel)
        first = i == _reference_panel(panels)
        if not _cpu_panel(fam):
            _limit_lines(ax, peak, f"fp32 peak\n{fmt.rate(peak)} GFLOP/s" if peak and first else "_peak",
                         single, f"cuBLAS SGEMM{at}\n{fmt.rate(single)} GFLOP/s" if single and first else "_cublas")
        if points and not _cpu_panel(fam):
            ax.plot([p[0] for p in points], [p[1] for p in points], color=CEILING, ls=(0, (6, 3)),
                    marker="x", lw=1.6, label="cuBLAS sgemm" if first else "_cublas", zorder=2)
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator(xs))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: ticks.get(v, "")))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(xs[0] / 3, xs[-1] * 3)
        if narrow:
            ax.tick_params(axis="x", labelrotation=35, labelsize=8.5)
    ratio = per_element(results, workload, "flops")
    counted = f"{ratio:g}·{d.size_product} flops" if ratio else "flops"
    _finish_panels(fig, axes, panels, f"{d.size_words} (placed by its {counted}; log scale)",
                   "GFLOP/s (log scale)", f"{workload}: {workload_what(results, workload)} — GFLOP/s by layer "
                                          "(higher is better)")
    caption = (f"**{workload}** throughput per layer: {counted} ÷ median sample time, GFLOP/s, "
               "log–log axes. GPU layers timed on the device (CUDA events), CPU layers on the host "
               f"clock. CPU baseline: {cpu_baseline(results, workload)}.")
    caption += _panel_sentence(panels)
    if noisy:
        caption += " Error bars: median ×/÷ (1 + relative standard deviation of the samples)."
    caption += unmeasured(results.of(workload, ok_only=True))
    if isinstance(cublas, float):
        caption += (f" Dashed red: cuBLAS SGEMM (plain fp32) measured on the same device{at}, "
                    f"{fmt.rate(cublas)} GFLOP/s — the practical ceiling")
    elif cublas is not None:
        caption += " Dashed red: cuBLAS SGEMM measured on the same device at each size, the practical ceiling"
    else:
        caption += " This results file holds no cuBLAS ceiling, so none is drawn"
    caption += f"; dotted grey: the fp32 peak ({fmt.rate(peak)} GFLOP/s)." if peak else "."
    return save(fig, out, f"gflops_{workload}", caption, f"{workload} GFLOP/s against {d.size_words} for each layer")


def _cublas_points(cublas, ticks: dict[float, str]) -> list[tuple[float, float]]:
    """A per-size cuBLAS ceiling (a mapping from size label to GFLOP/s) as (flops, GFLOP/s) points
    at the sizes drawn."""
    if not isinstance(cublas, dict):
        return []
    by_label = {label: flops for flops, labels in ticks.items() for label in labels.split("\n")}
    points = [(by_label[k], v) for k, v in cublas.items() if k in by_label]
    for k, v in cublas.items():  # the rest: a key written as a size (MxNxK), found by that size's label
        size = _parse_size(k)
        if k not in by_label and size and fmt.size_label(size) in by_label:
            points.append((by_label[fmt.size_label(size)], v))
    return sorted(points)


def _parse_size(label: str | None) -> tuple[int, ...] | None:
    if not label:
        return None
    try:
        return tuple(int(p) for p in label.lower().split("x"))
    except ValueError:
        return None
