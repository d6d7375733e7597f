"""The report's figures, drawn with matplotlib (Agg: no display needed) as PNG and SVG.

Each function returns a Plot (files, caption, alt text) or None when the results hold nothing to
draw. Layers keep one colour and marker in every figure. Noise is drawn where it was measured:
error bars span median ×/÷ (1 + relative standard deviation of the samples).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

from . import fmt  # noqa: E402
from .results import MATMUL, VECTOR_WORKLOADS, Case, Results  # noqa: E402

DPI = 120

_STYLE = {
    "cpu": ("#505050", "s", "-"),
    "thrust-omp": ("#a6761d", "D", "-"),
    "runtime": ("#1f77b4", "o", "-"),
    "driver": ("#ff7f0e", "^", "--"),
    "graph": ("#9467bd", "P", "-"),
    "thrust": ("#2ca02c", "v", "-"),
}
_EXTRA = ["#e377c2", "#17becf", "#8c564b", "#bcbd22", "#7f7f7f"]
_MARKERS = ["P", "X", "*", "h", "<", ">"]
CEILING = "#d62728"
PEAK = "#7f7f7f"

WORKLOAD_WHAT = {
    "vector_add": "c = a + b (12 bytes moved per element)",
    "saxpy": "y = α·x + y (12 bytes moved per element)",
    "reduce": "s = Σ x (4 bytes moved per element)",
    MATMUL: "C = A·B, fp32 (2·M·N·K flops)",
}


@dataclass
class Plot:
    name: str
    png: Path
    svg: Path
    caption: str
    alt: str


def layer_style(results: Results, layer: str) -> tuple[str, str, str]:
    if layer in _STYLE:
        return _STYLE[layer]
    extra = [name for name in results.layers if name not in _STYLE]
    i = extra.index(layer) if layer in extra else 0
    return _EXTRA[i % len(_EXTRA)], _MARKERS[i % len(_MARKERS)], "-"


def _setup() -> None:
    plt.rcParams.update({
        "font.size": 10.5, "axes.titlesize": 12, "axes.labelsize": 10.5, "legend.fontsize": 9.5,
        "axes.grid": True, "grid.alpha": 0.35, "grid.linewidth": 0.6,
        "axes.spines.top": False, "axes.spines.right": False,
        "svg.hashsalt": "layerbench", "svg.fonttype": "path",
    })


def _save(fig, out: Path, name: str, caption: str, alt: str) -> Plot:
    out.mkdir(parents=True, exist_ok=True)
    png, svg = out / f"{name}.png", out / f"{name}.svg"
    fig.savefig(png, dpi=DPI, metadata={"Software": None})
    fig.savefig(svg, metadata={"Date": None})
    plt.close(fig)
    return Plot(name, png, svg, caption, alt)


def _plain_number(value: float, _pos=None) -> str:
    if value <= 0:
        return ""
    if value >= 1:
        return f"{value:,.0f}".replace(",", " ")
    return f"{value:g}"


def _log_y(ax, minor_labels: bool = True) -> None:
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(_plain_number))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _noise_bars(values: list[float], rels: list[float | None]) -> list[list[float]]:
    """Asymmetric error bars for value ×/÷ (1 + rel); zero where the noise was not measured."""
    lower = [v - v / (1 + r) if r else 0.0 for v, r in zip(values, rels)]
    upper = [v * r if r else 0.0 for v, r in zip(values, rels)]
    return [lower, upper]


def _headroom(ax, factor: float = 1.6) -> None:
    """Room above the highest point (log axes), so markers and bars do not touch the frame."""
    low, high = ax.get_ylim()
    ax.set_ylim(low, high * factor)


def _unmeasured(cases: list[Case]) -> str:
    """A caption sentence naming the plotted cases whose noise was not measured, or ''."""
    names = [f"{c.layer} {fmt.size_label(c.size)}" for c in cases if c.noise is None]
    if not names:
        return ""
    return (f" No bar where a case has a single sample, so no noise estimate: {', '.join(names)}.")


def _legend_outside(ax, **kw) -> None:
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False, **kw)


def _rate(case: Case, field: str) -> float | None:
    value = case.get(field)
    if value is None and case.median_ms:
        count = case.bytes_moved if field == "gbps" else case.flops
        value = count / (case.median_ms * 1e6) if count else None
    return value


def _jitter(results: Results, layers: list[str], layer: str) -> float:
    """A small multiplicative x offset per layer so that equal points do not hide each other."""
    i, count = layers.index(layer), len(layers)
    return 2 ** (0.09 * (i - (count - 1) / 2))


def _layer_line(ax, results: Results, layer: str, x: list[float], y: list[float], rel: list[float | None]) -> None:
    """One layer's figures as a line, with the measured noise as error bars."""
    color, marker, ls = layer_style(results, layer)
    ax.errorbar(x, y, yerr=_noise_bars(y, rel), color=color, marker=marker, ls=ls, lw=1.8, ms=7,
                capsize=3, elinewidth=1.1, label=layer, zorder=3)


def _limit_lines(ax, peak: float | None, peak_label: str, ceiling: float | None, ceiling_label: str) -> None:
    """The theoretical peak (dotted) and the ceiling measured in the run (dashed)."""
    if peak:
        ax.axhline(peak, color=PEAK, ls=":", lw=1.4, zorder=2, label=peak_label)
    if ceiling:
        ax.axhline(ceiling, color=CEILING, ls=(0, (6, 3)), lw=1.6, zorder=2, label=ceiling_label)


def cpu_baseline(results: Results, workload: str | None = None) -> str:
    """What the CPU baseline was, in words, from context.layers.cpu and context.host: for matmul
    its BLAS (or loop nest), for the other workloads its threads and vectorisation, for None both."""
    cpu = results.layer_info("cpu")
    parts = []
    threads = cpu.get("threads") or results.ctx("host", "openmp_threads")
    if threads and workload != MATMUL:
        parts.append(f"{threads} OpenMP threads")
    if cpu.get("vectorised_for") and workload != MATMUL:
        parts.append(f"loops vectorised for `{cpu['vectorised_for']}`")
    if cpu.get("matmul") and workload in (None, MATMUL):
        parts.append(f"matmul: {cpu['matmul']}")
    elif workload == MATMUL and threads:
        parts.append(f"{threads} OpenMP threads")
    host = results.ctx("host", "cpu_model")
    where = f" on {host}" if host else ""
    logical = results.ctx("host", "logical_cpus")
    if logical:
        where += f" ({logical} logical CPUs)"
    return "the `cpu` layer — " + ("; ".join(parts) if parts else "no details recorded") + where


# --- bandwidth and GFLOP/s -------------------------------------------------------------------

def bandwidth(results: Results, workload: str, out: Path) -> Plot | None:
    layers = [layer for layer in results.layers if results.of(workload, layer, ok_only=True)]
    if not layers:
        return None
    _setup()
    fig, ax = plt.subplots(figsize=(10, 5.2), layout="constrained")
    sizes = sorted({c.size[0] for layer in layers for c in results.of(workload, layer, ok_only=True)})
    noisy = False
    for layer in layers:
        cases = [c for c in results.of(workload, layer, ok_only=True) if _rate(c, "gbps")]
        if not cases:
            continue
        x = [c.size[0] * _jitter(results, layers, layer) for c in cases]
        y = [_rate(c, "gbps") for c in cases]
        rel = [c.noise for c in cases]
        noisy |= any(rel)
        _layer_line(ax, results, layer, x, y, rel)
    ceiling, peak = results.copy_gbps, results.theoretical_gbps
    _limit_lines(ax, peak, f"theoretical\n{fmt.rate(peak)} GB/s" if peak else "",
                 ceiling, f"copy ceiling\n{fmt.rate(ceiling)} GB/s" if ceiling else "")
    hot = results.gpu_cache_mode == "hot"
    if hot:
        _shade_l2(ax, results, workload, sizes)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: fmt.size_mathtext((int(round(v)),))))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(sizes[0] / 2 ** 0.8, sizes[-1] * 2 ** 0.8)
    _log_y(ax)
    _headroom(ax)
    ax.set_xlabel("vector length n, fp32 elements (log scale)")
    ax.set_ylabel("bandwidth, GB/s (decimal; log scale)")
    ax.set_title(f"{workload}: {WORKLOAD_WHAT.get(workload, '')} — bandwidth by layer (higher is better)")
    _legend_outside(ax)
    caption = (f"**{workload}** bandwidth per layer: bytes moved ÷ median sample time, decimal GB/s, "
               f"log–log axes. GPU layers are timed on the device (CUDA events, no host↔device "
               f"copies); CPU layers on the host clock.")
    if noisy:
        caption += (" Error bars: median ×/÷ (1 + relative standard deviation of the samples); "
                    "where none shows, the noise is smaller than the marker.")
    if ceiling:
        caption += (f" Dashed red line: the device-to-device copy bandwidth measured at the start of "
                    f"the run ({fmt.rate(ceiling)} GB/s), what a memory-bound kernel can hope to reach")
        caption += f"; dotted grey: the theoretical peak ({fmt.rate(peak)} GB/s)." if peak else "."
    caption += _unmeasured(results.of(workload, ok_only=True))
    if hot and results.device and results.device.get("l2_cache_bytes"):
        caption += (" GPU samples were taken back to back (hot): shaded, the sizes whose working set fits "
                    "in the GPU's L2 cache, where samples can be served from cache.")
    elif results.gpu_cache_mode == "cold":
        caption += (" GPU samples are cold: the harness flushes the L2 before each one, so every size "
                    "reads from device memory; the CPU layers run hot (their caches stay warm).")
    return _save(fig, out, f"bandwidth_{workload}", caption,
                 f"{workload} bandwidth in GB/s against vector length for each layer")


def _shade_l2(ax, results: Results, workload: str, sizes: list[int]) -> None:
    l2 = results.device.get("l2_cache_bytes") if results.device else None
    per_element = None
    for case in results.of(workload):
        if case.bytes_moved and case.size[0]:
            per_element = case.bytes_moved / case.size[0]
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


def matmul_gflops(results: Results, out: Path) -> Plot | None:
    # Only layers with a case that can be drawn (a rate and a flop count): the axes come from them.
    layers = [layer for layer in results.layers
              if any(_rate(c, "gflops") and c.flops for c in results.of(MATMUL, layer, ok_only=True))]
    if not layers:
        return None
    _setup()
    fig, ax = plt.subplots(figsize=(10, 5.2), layout="constrained")
    ticks: dict[float, str] = {}
    noisy = False
    for layer in layers:
        cases = [c for c in results.of(MATMUL, layer, ok_only=True) if _rate(c, "gflops") and c.flops]
        for c in cases:
            label = fmt.size_label(c.size)
            if label not in ticks.get(c.flops, "").split("\n"):  # equal flops, other shapes: stack labels
                ticks[c.flops] = f"{ticks[c.flops]}\n{label}" if c.flops in ticks else label
        x = [c.flops * _jitter(results, layers, layer) ** 2 for c in cases]
        y = [_rate(c, "gflops") for c in cases]
        rel = [c.noise for c in cases]
        noisy |= any(rel)
        _layer_line(ax, results, layer, x, y, rel)
    cublas, peak = results.cublas_gflops, results.theoretical_gflops
    single = cublas if isinstance(cublas, float) else None  # one size; a dict holds one per size
    at = f" at {fmt.size_label(results.cublas_size)}" if results.cublas_size else ""
    _limit_lines(ax, peak, f"fp32 peak\n{fmt.rate(peak)} GFLOP/s" if peak else "",
                 single, f"cuBLAS SGEMM{at}\n{fmt.rate(single)} GFLOP/s" if single else "")
    if isinstance(cublas, dict):
        by_label = {label: flops for flops, labels in ticks.items() for label in labels.split("\n")}
        points = [(by_label[k], v) for k, v in cublas.items() if k in by_label]
        points += [(by_label[fmt.size_label(_parse_size(k))], v) for k, v in cublas.items()
                   if k not in by_label and _parse_size(k) and fmt.size_label(_parse_size(k)) in by_label]
        if points:
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], color=CEILING, ls=(0, (6, 3)),
                    marker="x", lw=1.6, label="cuBLAS sgemm", zorder=2)
    xs = sorted(ticks)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(xs))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: ticks.get(v, "")))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(xs[0] / 3, xs[-1] * 3)
    _log_y(ax)
    _headroom(ax)
    ax.set_xlabel("matrix size M×N×K (placed by its 2·M·N·K flops; log scale)")
    ax.set_ylabel("GFLOP/s (log scale)")
    ax.set_title("matmul: C = A·B, fp32 — GFLOP/s by layer (higher is better)")
    _legend_outside(ax)
    caption = ("**matmul** throughput per layer: 2·M·N·K flops ÷ median sample time, GFLOP/s, "
               "log–log axes. GPU layers timed on the device (CUDA events), CPU layers on the host "
               f"clock. CPU baseline: {cpu_baseline(results, MATMUL)}.")
    if noisy:
        caption += " Error bars: median ×/÷ (1 + relative standard deviation of the samples)."
    caption += _unmeasured(results.of(MATMUL, ok_only=True))
    if isinstance(cublas, float):
        at = f" at {fmt.size_label(results.cublas_size)}" if results.cublas_size else ""
        caption += (f" Dashed red: cuBLAS SGEMM (plain fp32) measured on the same device{at}, "
                    f"{fmt.rate(cublas)} GFLOP/s — the practical ceiling")
    elif cublas is not None:
        caption += " Dashed red: cuBLAS SGEMM measured on the same device at each size, the practical ceiling"
    else:
        caption += " This results file holds no cuBLAS ceiling, so none is drawn"
    caption += f"; dotted grey: the fp32 peak ({fmt.rate(peak)} GFLOP/s)." if peak else "."
    return _save(fig, out, "gflops_matmul", caption, "matmul GFLOP/s against matrix size for each layer")


def _parse_size(label: str | None) -> tuple[int, ...] | None:
    if not label:
        return None
    try:
        return tuple(int(p) for p in label.lower().split("x"))
    except ValueError:
        return None


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
    _setup()
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    layers = [layer for layer in results.layers if any(r["layer"] == layer for r in rows)]
    fig, axes = plt.subplots(2, 1, figsize=(11, 8.6), sharey=True, sharex=True, layout="constrained")
    width = 0.8 / len(layers)
    upright = len(sizes) * len(layers) > 24  # many narrow bars: turn their labels upright
    values = [r[k] for r in rows for k in ("device", "e2e") if r[k]]
    lo, hi = min(values + [1.0]), max(values + [1.0])
    for ax, key, title in ((axes[0], "device", "on device time only (median sample; GPU layers: no copies)"),
                           (axes[1], "e2e", "end to end: upload + run + download (host↔device copies included)")):
        for j, layer in enumerate(layers):
            color, _marker, _ls = layer_style(results, layer)
            xs, heights, bottoms, errs, labels = [], [], [], [[], []], []
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
    _log_y(axes[0])
    axes[0].set_ylim(lo / 5, hi * 8)
    axes[1].set_xlabel("vector length n" if workload != MATMUL else "matrix size M×N×K")
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
    cpu_cases = [c for c in results.of(workload, "cpu", ok_only=True) if c.get("end_to_end_ms")]
    if cpu_cases:
        worst = max(cpu_cases, key=lambda c: c.get("end_to_end_ms") / c.median_ms)
        if worst.get("end_to_end_ms") > 2 * worst.median_ms:
            caption += (f". The cpu layer's end-to-end run can take several times its median (one run, "
                        f"with the cold caches and page faults the median's repeated samples leave out): at "
                        f"{fmt.size_label(worst.size)}, {fmt.ms(worst.get('end_to_end_ms'))} ms against "
                        f"{fmt.ms(worst.median_ms)} ms, which raises the end-to-end speed-ups there")
    caption += (". Error bars (top): ×/÷ (1 + the two cases' relative standard deviations combined); "
                "the end-to-end times are single runs with no noise estimate. Hatched bars: layers that run on the CPU.")
    return _save(fig, out, f"speedup_{workload}", caption,
                 f"{workload} speed-up over the cpu layer, device time and end to end")


# --- one-time costs, first runs, launch overhead ---------------------------------------------

def one_time_items(results: Results) -> list[tuple[str, str, float]]:
    """(layer or 'process', what, ms) for every one-time cost the results hold."""
    items = []
    ctx_ms = results.device.get("context_creation_ms") if results.device else None
    if isinstance(ctx_ms, (int, float)):
        items.append(("process", "CUDA context creation (first CUDA call)", float(ctx_ms)))
    def add(layer: str, costs: Any, where: str = "") -> None:
        if isinstance(costs, list):
            for cost in costs:
                if isinstance(cost, dict) and isinstance(cost.get("ms"), (int, float)):
                    items.append((layer, str(cost.get("what", "")) + where, float(cost["ms"])))

    # Paid when the layer's session opened (context.layers), then during a case (schema 2: the
    # case's own one_time_costs, named after the case).
    for layer in list(results.layers) + [name for name in (results.ctx("layers") or {}) if name not in results.layers]:
        add(layer, results.layer_info(layer).get("one_time_costs"))
    for case in results.cases:
        add(case.layer, case.entry.get("one_time_costs"), f" ({case.workload} {fmt.size_label(case.size)})")
    return items


def one_time_costs(results: Results, out: Path) -> Plot | None:
    items = one_time_items(results)
    if not items:
        return None
    _setup()
    fig, ax = plt.subplots(figsize=(10, 0.8 + 0.36 * len(items)), layout="constrained")
    ys = list(range(len(items)))[::-1]
    for y, (layer, what, ms) in zip(ys, items):
        color = "#222222" if layer == "process" else layer_style(results, layer)[0]
        ax.barh(y, max(ms, 1e-4), color=color, height=0.7, zorder=3)
        ax.annotate(f"{fmt.ms(ms)} ms", (max(ms, 1e-4), y), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8.5)
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{layer}: {what}" for layer, what, _ms in items], fontsize=9)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(_plain_number))
    longest = max(ms for *_x, ms in items)
    ax.set_xlim(min(ms for *_x, ms in items if ms > 0) / 3 if any(ms > 0 for *_x, ms in items) else 1e-3,
                longest * 8)
    ax.set_xlabel("milliseconds, host clock (log scale)")
    ax.set_title("One-time costs paid before the first result (shorter is better)")
    ax.grid(axis="y", visible=False)
    caption = ("One-time costs, in milliseconds on the host clock, log scale: creating the CUDA context "
               "(paid once per process, by whichever layer makes the first CUDA call) and what each layer "
               "records about itself (run-time compiles, module loads). Each is a single measurement, so "
               "no noise is shown; a warm kernel cache turns the driver layer's compiles into file reads.")
    return _save(fig, out, "one_time_costs", caption, "bar chart of one-time costs per layer in milliseconds")


def first_runs(results: Results) -> list[tuple[Case, float]]:
    """Per (layer, compute workload): the first case that ran, with first_run_ms − median_ms."""
    seen, found = set(), []
    for case in sorted(results.cases, key=lambda c: c.order):
        key = (case.layer, case.workload)
        if key in seen or not case.ok or case.workload not in VECTOR_WORKLOADS + (MATMUL,):
            continue
        first, median = case.get("first_run_ms"), case.median_ms
        if first is None or median is None:
            continue
        seen.add(key)
        found.append((case, first - median))
    return found


def first_run(results: Results, out: Path) -> Plot | None:
    found = first_runs(results)
    if not found:
        return None
    _setup()
    workloads = list(dict.fromkeys(c.workload for c, _ in found))
    layers = [layer for layer in results.layers if any(c.layer == layer for c, _ in found)]
    fig, ax = plt.subplots(figsize=(10, 4.8), layout="constrained")
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
    _log_y(ax)
    ax.set_ylim(floor, max(positive + [floor]) * 8)
    ax.set_ylabel("first run − median run, ms (log scale)")
    ax.set_title("What the first run of each kernel costs over a steady-state run (shorter is better)")
    ax.grid(axis="x", visible=False)
    _legend_outside(ax)
    caption = ("Extra time of each layer's first run of a workload (`first_run_ms`, host clock, from the "
               "call to the end of the work: lazy module loading, first-touch of pages, library "
               "initialisation) over its median sample, at the first size the workload ran. The first "
               "run is a single measurement; for GPU layers it also includes one launch and the wait for "
               "it, which the device-time median does not.")
    return _save(fig, out, "first_run", caption, "bar chart of first-run extra time per layer and workload")


LAUNCH_WHAT = {
    "launch_async": "throughput: n launches\nqueued without waiting",
    "launch_sync": "round trip: launch,\nthen wait, n times",
}


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
    _setup()
    layers = [layer for layer in results.layers if any(c.layer == layer for c in cases)]
    fig, ax = plt.subplots(figsize=(10, 5.0), layout="constrained")
    groups = list(dict.fromkeys((c.workload, c.size) for c in cases))
    width = 0.8 / len(layers)
    noisy = False
    for j, layer in enumerate(layers):
        color, _m, _ls = layer_style(results, layer)
        xs, ys, rels = [], [], []
        for i, (workload, size) in enumerate(groups):
            case = results.find(workload, layer, size)
            if case and case.ok and us_per_launch(case):
                xs.append(i + (j - (len(layers) - 1) / 2) * width)
                ys.append(us_per_launch(case))
                rels.append(case.noise)
        if not xs:
            continue
        noisy |= any(rels)
        hatch = "//" if not results.on_gpu(layer) else None
        ax.bar(xs, ys, width * 0.92, color=color, label=layer, zorder=3, hatch=hatch,
               edgecolor="white" if hatch else color, linewidth=0.5,
               yerr=_noise_bars(ys, rels), error_kw={"elinewidth": 0.9, "capsize": 2.5, "zorder": 4})
        for x, y, rel in zip(xs, ys, rels):
            ax.annotate(f"{fmt.sig(y, 2 if y < 10 else 3)}", (x, y * (1 + (rel or 0))), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8.5)
    ax.set_xticks(range(len(groups)))
    sizes_differ = len({s for _w, s in groups}) > 1
    ax.set_xticklabels([f"{w}" + (f" {fmt.size_label(s)}" if sizes_differ else "") +
                        (f"\n({LAUNCH_WHAT[w]})" if w in LAUNCH_WHAT else "") for w, s in groups])
    ax.set_xlim(-0.6, len(groups) - 0.4)
    _log_y(ax)
    _headroom(ax, 1.8)
    ax.set_ylabel("µs per launch (log scale)")
    ax.set_title("Launch overhead per layer: time per kernel launch (shorter is better)")
    ax.grid(axis="x", visible=False)
    _legend_outside(ax)
    n = sorted({c.size[0] for c in cases})
    caption = ("Launch overhead per layer, in microseconds per launch (`us_per_launch`: the median time of "
               f"a case's n launches of a one-store kernel ÷ n, n = {', '.join(map(str, n))}), log scale. "
               "`launch_async` queues the launches without waiting: the launch path's throughput. "
               "`launch_sync` launches and waits, n times: the round trip a program pays when it needs "
               "each result before going on.")
    if "graph" in layers:
        caption += (" The `graph` layer replays one CUDA graph that holds all n launches, so the CPU side "
                    "of launching is paid once per graph, not once per kernel.")
    cpu = [layer for layer in layers if not results.on_gpu(layer)]
    if cpu:
        caption += f" Hatched: {', '.join(cpu)}, which runs on the CPU (a parallel loop, not a kernel launch)."
    if noisy:
        caption += " Error bars: median ×/÷ (1 + relative standard deviation of the samples)."
    return _save(fig, out, "launch_overhead", caption, "bar chart of microseconds per launch for each layer")


# --- optimisation ladders (layerbench ladder, run --rung) -------------------------------------

VENDOR_LIBRARY = {MATMUL: "cuBLAS", "reduce": "CUB"}


def ladder_top_line(results: Results, workload: str, size: tuple[int, ...]) -> tuple[float | None, str]:
    """What a ladder climbs towards: the vendor layer's case at the same size when it ran, else
    the run's ceiling (matmul: cuBLAS SGEMM; other workloads: the copy bandwidth); (rate, label)."""
    field = results.figure(workload)
    vendor = results.find(workload, "vendor", size)
    if vendor and vendor.ok and _rate(vendor, field):
        return _rate(vendor, field), f"{VENDOR_LIBRARY.get(workload, 'vendor')} (vendor layer)"
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
    cases = [c for c in results.ladders.get((workload, layer, size), []) if c.ok and _rate(c, field)]
    if not cases:
        return None
    _setup()
    unit = "GFLOP/s" if field == "gflops" else "GB/s"
    top, top_label = ladder_top_line(results, workload, size)
    rates = [_rate(c, field) for c in cases]
    fig, ax = plt.subplots(figsize=(max(7.0, 0.9 * len(cases) + 3), 5.2), layout="constrained")
    x = list(range(len(cases)))
    color = layer_style(results, layer)[0]
    ax.bar(x, rates, color=color, width=0.7, zorder=3, label=f"rungs through {layer}",
           yerr=_noise_bars(rates, [c.noise for c in cases]), capsize=3, error_kw={"elinewidth": 1.0})
    if top:
        ax.axhline(top, color=CEILING, ls=(0, (6, 3)), lw=1.6, zorder=2, label=f"{top_label}\n{fmt.rate(top)} {unit}")
        for xi, value in zip(x, rates):
            ax.annotate(fmt.pct(value / top, 0), (xi, value), textcoords="offset points", xytext=(0, 4),
                        ha="center", fontsize=8.5)
    if max(rates + [top or 0]) / min(rates) > 30:
        _log_y(ax)
        _headroom(ax, 2.0)
    else:
        ax.set_ylim(0, max(rates + [top or 0]) * 1.12)
    ax.set_xticks(x)
    ax.set_xticklabels([c.rung_label.replace("_", "\n", 1) for c in cases], fontsize=8.5)
    ax.set_ylabel(unit)
    ax.set_title(f"{workload} ladder at {fmt.size_label(size)} through {layer} — {unit} per rung (higher is better)")
    _legend_outside(ax)
    caption = (f"**{workload} ladder** at {fmt.size_label(size)} through the `{layer}` layer: each rung's {unit} "
               f"(median sample), in ladder order; docs/ladders.md says what each rung changes.")
    if top:
        caption += f" Dashed red: {top_label}, {fmt.rate(top)} {unit}; the figure over each bar is its fraction of that."
    failed = [c.rung_label for c in results.ladders.get((workload, layer, size), []) if not c.ok]
    if failed:
        caption += f" Not drawn (failed or skipped): {', '.join(failed)}."
    name = f"ladder_{workload}_{layer}_{fmt.size_label(size, unicode=False).replace('^', '')}"
    return _save(fig, out, name, caption, f"{workload} ladder: {unit} for each rung through {layer}")
