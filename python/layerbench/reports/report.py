"""The report: report.md, a self-contained report.html and the plots, from one results file.

A merged file (`layerbench merge`) gets a section of its own, "Runs side by side", first: a picture
of the fleet (python/layerbench/reports/fleetmap.py: one row per GPU, each workload relative to the fleet's median,
outliers marked), then every case in every run, one column per GPU, host or task, outliers flagged
(python/layerbench/reports/fleet.py). The rest of the report is the first run's, as if made from that run's file.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from . import bars, costs, csvout, document, fleetmap, fmt, heatmap, machine, output, plots
from .document import Document, Figure
from .figure import Plot
from .fleet import side_by_side
from .results import Case, Results, size_order



def case_name(case: Case) -> str:
    return case.name


def write(results: Results, out: Path, csv: bool = False) -> list[Path]:
    """Writes the report into `out`; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    plot_dir = out / "plots"
    doc = build(results, out, plot_dir)
    written = [out / "report.md", out / "report.html"]
    output.write_output(out / "report.md", document.to_markdown(doc, out))
    output.write_output(out / "report.html", document.to_html(doc))
    for block in doc.blocks:
        if isinstance(block, Figure):
            written += [block.png] + ([block.svg] if block.svg else [])
            if block.clipped:  # a layout this tool did not foresee: say so rather than ship it quietly
                print(f"layerbench report: warning: {block.png.name}: text cut off by the figure's edge: "
                      f"{'; '.join(block.clipped)}", file=sys.stderr)
    if csv:
        csv_path = out / "results.csv"
        csvout.write(results, csv_path)
        written.append(csv_path)
    return written


def _fig(doc: Document, plot: Plot | None) -> bool:
    if plot is None:
        return False
    doc.figure(Figure(plot.png, plot.svg, plot.caption, plot.alt, plot.clipped))
    return True


def results_link(source: Path, out: Path) -> str:
    """The results file as a link from the report's folder (where report.md and report.html are),
    not from where the command ran: a relative path (../run.json), so the pair can move together;
    an absolute file path only where none exists (another drive)."""
    try:
        return Path(os.path.relpath(source.resolve(), out.resolve())).as_posix()
    except ValueError:
        return source.resolve().as_uri()


def build(results: Results, out: Path, plot_dir: Path) -> Document:
    merged = results if results.runs else None
    if merged:  # everything but the side-by-side section is the first run's
        results = merged.for_run(merged.runs[0]["run"])
    title = f"layerbench results — {_fleet_devices(merged) if merged else results.device_name}"
    doc = Document(title)
    schema = results.ctx("layerbench", "schema_version")
    link = results_link(Path(results.path), out)
    doc.p(f"Made by `layerbench report` from [`{Path(results.path).name}`]({link}) "
          f"(layerbench's JSON results, schema version {schema}). Times are medians of many samples; "
          f"rates are decimal (1 GB/s = 10⁹ bytes/s). See the project's docs/methodology.md for how "
          f"each case was run, timed and verified.")
    if merged:
        plot = fleetmap.fleet_map(merged, plot_dir)
        side_by_side(doc, merged, picture=Figure(plot.png, plot.svg, plot.caption, plot.alt, plot.clipped)
                     if plot else None)

    doc.h(1, "At a glance")
    if not _fig(doc, heatmap.heatmap(results, plot_dir)):
        doc.p("This results file holds no cases to draw.")
    _findings(doc, results)
    _run_section(doc, results)
    _not_ok(doc, results)

    # The rate figures, one per workload, by the figure its descriptor gives.
    bandwidth = _by_figure(results, "gbps")
    doc.h(1, "Bandwidth: " + ", ".join(bandwidth) if bandwidth else "Bandwidth")
    drawn = [w for w in bandwidth if _fig(doc, plots.bandwidth(results, w, plot_dir))]
    if not drawn:
        doc.p("This results file holds no bandwidth (GB/s) cases that ran.")

    compute = _by_figure(results, "gflops")
    doc.h(1, "GFLOP/s: " + ", ".join(compute) if compute else "GFLOP/s")
    drawn = [w for w in compute if _fig(doc, plots.gflops(results, w, plot_dir))]
    if not drawn:
        doc.p("This results file holds no compute (GFLOP/s) cases that ran.")

    doc.h(1, "Speed-up over the CPU")
    if "cpu" not in results.layers:
        doc.p("No `cpu` layer in this results file, so there is no baseline to compare with.")
    else:
        doc.p("Each layer against the `cpu` layer, twice: on the timed work alone (for GPU layers, "
              "device time) and end to end, with the copies between host and device that a program "
              "starting from host data pays. The second is the honest one for a single operation: "
              "a memory-bound kernel touches each byte once on the GPU, but every byte has to be "
              f"shipped from host memory and back first. CPU baseline: {plots.cpu_baseline(results)}.")
        for workload in _by_figure(results, "gbps") + _by_figure(results, "gflops"):
            _fig(doc, bars.speedup(results, workload, plot_dir))
        _speedup_table(doc, results)

    if results.ladders:
        doc.h(1, "Optimisation ladders")
        doc.p("Ladder rungs run through a layer in place of its own kernel (`layerbench ladder`, or "
              "`run --rung`): one kernel file per rung, each a step from the naive kernel towards the "
              "vendor library (docs/ladders.md).")
        for (workload, layer, size), cases in results.ladders.items():
            _fig(doc, bars.ladder(results, workload, layer, size, plot_dir))
            _ladder_table(doc, results, workload, size, cases)

    _one_time_section(doc, results, plot_dir)
    _all_cases(doc, results)
    _layers_section(doc, results)
    _reading(doc, results)
    return doc


def _fleet_devices(r: Results) -> str:
    """A merged file's devices: "4 runs: NVIDIA H200 ×4"."""
    names = [r.for_run(run["run"]).device_name for run in r.runs]
    return f"{len(r.runs)} runs: " + ", ".join(f"{n} ×{names.count(n)}" for n in dict.fromkeys(names))


def _by_figure(r: Results, figure: str) -> list[str]:
    """The run's workloads whose descriptor gives this figure, in the order they ran."""
    return [w for w in r.workloads if r.figure(w) == figure]


# --- sections --------------------------------------------------------------------------------

def _kv(doc: Document, rows: list[tuple[str, str]]) -> None:
    doc.table(["", ""], [[k, v] for k, v in rows if v not in (None, "")])


def _run_section(doc: Document, r: Results) -> None:
    lb = r.ctx("layerbench") or {}
    counts = {s: sum(1 for c in r.cases if c.status == s) for s in ("ok", "failed", "skipped")}
    other = len(r.cases) - sum(counts.values())
    tally = f"{len(r.cases)}: {counts['ok']} ok, {counts['failed']} failed, {counts['skipped']} skipped"
    if other:
        tally += f", {other} with another status"
    doc.h(1, "Run")
    _kv(doc, [
        ("harness", f"layerbench {lb.get('version', '?')} (results schema {lb.get('schema_version')})"),
        ("commit", lb.get("source_commit") or "not recorded (results from before layerbench recorded it)"),
        ("date", str(r.ctx("date") or "")),
        ("command", f"`{lb['command_line']}`" if lb.get("command_line") else ""),
        ("seed", str(lb.get("seed", ""))),
        ("wall time of all cases", f"{lb['suite_wall_s']:.1f} s" if isinstance(lb.get("suite_wall_s"), (int, float)) else ""),
        ("cases", tally),
        ("workloads", ", ".join(r.workloads)),
        ("layers", ", ".join(r.layers)),
    ] + _measurement_rows(r))
    for note in r.notes:
        doc.p(f"Note: {note}")

    doc.h(2, "Device")
    d = r.device
    if not d:
        doc.p(machine.no_gpu_sentence(r))
    else:
        theo = d.get("theoretical_bandwidth_gbps")
        copy = r.copy_gbps
        copy_text = ""
        if copy:
            copy_text = f"{fmt.rate(copy)} GB/s"
            if theo:
                copy_text += f" ({fmt.pct(copy / theo, 0)} of theoretical)"
            method = r.ctx("ceilings", "copy_method")
            if method:
                copy_text += f"; {method}"
        mem = d.get("memory_bytes")
        _kv(doc, [
            ("GPU", f"{d.get('name', '?')} (compute capability {d.get('compute_capability', '?')}, "
                    f"{d.get('sm_count', '?')} SMs, PCI {d.get('pci_bus_id', '?')})"),
            ("clocks (peak)", f"SM {fmt.sig(d.get('sm_clock_mhz'), 4)} MHz, memory "
                              f"{fmt.sig(d.get('memory_clock_mhz'), 4)} MHz, {d.get('memory_bus_width_bits', '?')}-bit bus"),
            ("memory", f"{mem / 2**30:.1f} GiB; L2 {fmt.bytes_h(d.get('l2_cache_bytes'))}" if mem else ""),
            ("theoretical bandwidth", f"{fmt.rate(theo)} GB/s" if theo else ""),
            ("measured copy ceiling", copy_text),
            ("theoretical fp32", f"{fmt.rate(r.theoretical_gflops)} GFLOP/s" if r.theoretical_gflops else ""),
            ("measured cuBLAS SGEMM", _cublas_text(r)),
            ("CUDA driver / runtime", f"{d.get('driver_version', '?')} / {d.get('runtime_version', '?')}"),
            ("context creation", f"{fmt.ms(d.get('context_creation_ms'))} ms"
             if d.get("context_creation_ms") is not None else ""),
        ])

    doc.h(2, "Host")
    h = r.ctx("host") or {}
    _kv(doc, [
        ("CPU", f"{h.get('cpu_model', '?')}, {h.get('logical_cpus', '?')} logical CPUs, "
                f"{h.get('openmp_threads', '?')} OpenMP threads"),
        ("memory", f"{h['memory_bytes'] / 2**30:.1f} GiB" if isinstance(h.get("memory_bytes"), (int, float)) else ""),
        ("OS", str(h.get("os", ""))),
        ("host name", str(h.get("hostname", r.ctx("host_name") or ""))),
        ("CPU baseline", plots.cpu_baseline(r) if "cpu" in r.layers else "no `cpu` layer in this run"),
        ("BLAS (cpu layer)", machine.cpu_blas(r) if "cpu" in r.layers or r.layer_info("cpu") else ""),
    ])


def _cublas_text(r: Results) -> str:
    cublas = r.cublas_gflops
    if not isinstance(cublas, float):
        return "measured per size (see the GFLOP/s plots)" if cublas else ""
    text = f"{fmt.rate(cublas)} GFLOP/s"
    if r.cublas_size:
        text += f" at {fmt.size_label(r.cublas_size)}"
    if r.theoretical_gflops:
        text += f" ({fmt.pct(cublas / r.theoretical_gflops, 0)} of the fp32 peak)"
    method = r.ctx("ceilings", "sgemm_method")
    return text + (f"; {method}" if method else "")


def _measurement_rows(r: Results) -> list[tuple[str, str]]:
    """How samples were taken and when sampling stopped (context.measurement), where recorded."""
    m = r.ctx("measurement")
    rows = []
    if not isinstance(m, dict):
        if r.min_time_s is not None:
            rows.append(("sampling", f"samples back to back (hot) for at least {r.min_time_s:g} s per case"))
        return rows
    gpu, cpu = m.get("gpu_cache_mode"), m.get("cpu_cache_mode")
    if gpu == "cold":
        flush = f" (a kernel reads {fmt.bytes_h(m.get('l2_flush_bytes'))})" if m.get("l2_flush_bytes") else ""
        rows.append(("GPU samples", f"cold: the L2 is flushed before each sample{flush}"))
    elif gpu:
        rows.append(("GPU samples", f"{gpu}: back to back"))
    if cpu:
        rows.append(("CPU samples", f"{cpu}" + (": back to back" if cpu == "hot" else "")))
    target = m.get("noise_target")
    if isinstance(target, (int, float)):
        rule = f"until the noise is under {fmt.pct(target, 1)}"
        if m.get("min_samples"):
            rule += f", with at least {m['min_samples']} samples"
        if m.get("min_time_s") is not None:
            rule += f" and {m['min_time_s']:g} s measured"
            if m.get("enough_samples"):
                rule += f" (or {m['enough_samples']} samples, where that comes first)"
        if m.get("stops_early_above_target"):
            rule += ", or once more samples could not bring it under (settled, or out of reach)"
        if m.get("max_time_s") is not None:
            rule += f"; at most {m['max_time_s']:g} s of wall time per case"
        missed = sum(1 for c in r.cases if c.noise_target_missed)
        rule += f" ({missed} of {len(r.cases)} cases stopped above the target, marked * below)" if missed else ""
        rows.append(("sampling stops", rule))
    clock = m.get("sm_clock")
    if isinstance(clock, dict):
        if clock.get("unavailable"):
            rows.append(("SM clock", f"not read: {clock['unavailable']}"))
        elif clock.get("source"):
            text = f"{clock['source']}"
            if clock.get("throttle_below_mhz"):
                text += (f"; samples under {fmt.sig(clock['throttle_below_mhz'], 4)} MHz are discarded "
                         f"(default clock {fmt.sig(clock.get('default_mhz'), 4)} MHz)")
            throttled = sum(int(c.get("throttled_samples") or 0) for c in r.cases)
            text += f"; {throttled} samples discarded in this run" if throttled else "; none discarded in this run"
            rows.append(("SM clock", text))
    return rows


def _best(cases: list[Case], figure: str) -> tuple[Case, float, float] | None:
    """(case, its `figure`, its median ms) of the case with the highest figure, among the cases with
    that figure and a median (the ok ones); None where there is none."""
    found = [(c, value, c.median_ms) for c in cases if (value := c.get(figure)) is not None and c.median_ms is not None]
    return max(found, key=lambda t: t[1]) if found else None


def _findings(doc: Document, r: Results) -> None:
    items = []
    copy = r.copy_gbps
    for workload in _by_figure(r, "gbps"):
        sizes = r.sizes(workload)
        if not sizes:
            continue
        size = sizes[-1]
        at = [c for c in r.of(workload, ok_only=True) if c.size == size]
        gpu = [c for c in at if r.on_gpu(c.layer)]
        cpu = r.find(workload, "cpu", size)
        found = _best(gpu or at, "gbps")
        if not found:
            continue
        best, gbps, best_ms = found
        where = f"n = {fmt.size_label(size)}" if r.descriptor(workload).size_form == "n" else fmt.size_label(size)
        text = f"**{workload}** at {where}: {best.layer} is fastest at {fmt.rate(gbps)} GB/s"
        if copy and r.on_gpu(best.layer):
            text += f" ({fmt.pct(gbps / copy, 0)} of the copy ceiling)"
        if cpu and cpu.ok and cpu.get("gbps") and cpu.median_ms is not None and best.layer != "cpu":
            on_gpu = r.on_gpu(best.layer)
            text += (f", the cpu layer {fmt.rate(cpu.get('gbps'))} GB/s: {fmt.times(cpu.median_ms / best_ms)} "
                     f"{'on device time' if on_gpu else 'on the timed run'}")
            e2e, e2e_cpu = best.get("end_to_end_ms"), cpu.get("end_to_end_ms")
            if e2e and e2e_cpu:
                text += f", {fmt.times(e2e_cpu / e2e)} end to end"
                if e2e_cpu / e2e < 1 and on_gpu:
                    text += " (slower than the CPU once the copies count)"
                if e2e > best_ms and on_gpu:
                    text += (f". Of {best.layer}'s {fmt.ms(e2e)} ms end to end, the kernel is {fmt.ms(best_ms)} ms: "
                             f"the copies and their overhead take {fmt.pct(1 - best_ms / e2e)}")
        items.append(text + ".")
    for workload in _by_figure(r, "gflops"):
        sizes = r.sizes(workload)
        if not sizes:
            continue
        size = sizes[-1]
        at = [c for c in r.of(workload, ok_only=True) if c.size == size]
        found = _best(at, "gflops")
        cpu = r.find(workload, "cpu", size)
        if found:
            best, gflops, best_ms = found
            text = f"**{workload}** at {fmt.size_label(size)}: {best.layer} is fastest at {fmt.rate(gflops)} GFLOP/s"
            frac = r.fraction(best)
            if frac is not None:
                text += f" ({fmt.pct(frac, 0)} of cuBLAS SGEMM)"
            if cpu and cpu.ok and cpu.median_ms and best.layer != "cpu":
                text += (f", the cpu layer ({_short_backend(r, workload)}) {fmt.rate(cpu.get('gflops'))} GFLOP/s: "
                         f"{fmt.times(cpu.median_ms / best_ms)} on device time")
                e2e, e2e_cpu = best.get("end_to_end_ms"), cpu.get("end_to_end_ms")
                if e2e and e2e_cpu:
                    text += f", {fmt.times(e2e_cpu / e2e)} end to end"
            thrust = r.find(workload, "thrust", size)
            if thrust and thrust.ok and thrust.get("gflops") and best.layer != "thrust":
                text += f"; the thrust layer (Thrust's algorithms, no kernel of ours) reaches {fmt.rate(thrust.get('gflops'))} GFLOP/s"
            items.append(text + ".")
    launch = _launch_sentence(r)
    if launch:
        items.append(launch)
    costs_found = costs.one_time_items(r)
    if costs_found:
        layer, what, ms = max(costs_found, key=lambda t: t[2])
        total: dict[str, float] = {}
        for lay, _w, m in costs_found:
            total[lay] = total.get(lay, 0.0) + m
        items.append(f"Largest one-time cost: {layer}, {what}: {fmt.ms(ms)} ms. In all: " +
                     ", ".join(f"{lay} {fmt.ms(t)} ms" for lay, t in total.items()) + ".")
    not_ok = r.not_ok
    items.append(f"{len(not_ok)} of {len(r.cases)} cases failed or were skipped" +
                 (" (listed below)." if not_ok else "."))
    doc.h(1, "What this run shows")
    doc.ul(items)


def _launch_sentence(r: Results) -> str:
    parts = []
    for workload in bars.launch_workloads(r):
        cases = [c for c in r.of(workload, ok_only=True) if bars.us_per_launch(c) and r.on_gpu(c.layer)]
        if cases:
            cells = ", ".join(f"{c.layer} {fmt.sig(bars.us_per_launch(c), 2)}" for c in
                              sorted(cases, key=lambda c: r.layers.index(c.layer)))
            parts.append(f"`{workload}` {cells}")
    if not parts:
        return ""
    return "**Launch overhead**, µs per launch: " + "; ".join(parts) + "."


def _short_backend(r: Results, workload: str) -> str:
    """What the cpu layer runs the workload with, short: 'OpenBLAS cblas_sgemm' (Results.cpu_backends)."""
    text = next((t for _w, t in r.cpu_backends(workload)), "") or "cpu"
    return text.split(" (")[0] if "(" in text else text


def _not_ok(doc: Document, r: Results) -> None:
    doc.h(1, "Failed and skipped cases")
    left_out = machine.layers_left_out(r)
    if left_out:
        doc.p("Layers that could not run here, and why (`context.layers_unavailable`): " +
              "; ".join(f"{', '.join(layers)}: {reason}" for reason, layers in left_out) + ".")
    bad = r.not_ok
    if not bad:
        doc.p(f"None: all {len(r.cases)} cases ran and passed verification.")
        return
    doc.p("Every case that did not pass, with the harness's reason. They are left out of the plots "
          "and kept in every table.")
    doc.table(["case", "status", "reason"],
              [[f"`{case_name(c)}`", c.status, c.message or "(no reason recorded)"] for c in bad])


def _speedup_table(doc: Document, r: Results) -> None:
    rows = []
    for workload in _by_figure(r, "gbps") + _by_figure(r, "gflops"):
        for row in bars.speedups(r, workload):
            rows.append([workload, fmt.size_label(row["size"]), row["layer"], fmt.times(row["device"]),
                         fmt.noise(row["noise"]) if row["noise"] is not None else "not measured",
                         fmt.times(row["e2e"])])
    if rows:
        doc.p("The same speed-ups as numbers (noise: the two cases' relative standard deviations combined; "
              "end-to-end times are single runs):")
        doc.table(["workload", "size", "layer", "device time", "noise", "end to end"], rows, "lllrrr")


def _one_time_section(doc: Document, r: Results, plot_dir: Path) -> None:
    doc.h(1, "One-time costs and launch overhead")
    items = costs.one_time_costs_with_kinds(r)
    if _fig(doc, costs.one_time_costs(r, plot_dir)):
        doc.table(["who", "what", "kind", "ms"], [[who, what, kind, fmt.ms(ms)] for who, what, ms, kind in items],
                  "lllr")
    else:
        doc.p("This results file records no one-time costs (no GPU context, no run-time compiles).")
    kernels = r.layer_info("driver").get("kernels")
    if isinstance(kernels, dict) and kernels:
        doc.p("The driver layer's run-time compiled kernels (NVRTC), from `context.layers.driver.kernels`:")
        rows = []
        for workload, k in kernels.items():
            if isinstance(k, dict):
                rows.append([workload, fmt.ms(k.get("nvrtc_compile_ms")), "yes" if k.get("from_cache") else "no",
                             str(k.get("cubin_bytes", "–")), fmt.ms(k.get("module_load_ms"))])
        doc.table(["workload", "NVRTC compile ms", "from cache", "CUBIN bytes", "module load ms"], rows, "lrlrr")
    if _fig(doc, bars.first_run(r, plot_dir)):
        doc.table(["layer", "first case", "first run ms", "median ms", "extra ms"],
                  [[c.layer, f"`{case_name(c)}`", fmt.ms(c.get("first_run_ms")), fmt.ms(c.median_ms), fmt.ms(extra)]
                   for c, extra in costs.first_runs(r)], "llrrr")
    if _fig(doc, bars.launch_overhead(r, plot_dir)):
        rows = []
        for workload in bars.launch_workloads(r):
            for c in r.of(workload):
                rows.append([workload, c.layer, str(c.size[0]), fmt.sig(bars.us_per_launch(c)) if c.ok else "–",
                             _noise_cell(c), c.status if c.ok else f"**{c.status}**: {c.message}"])
        doc.table(["workload", "layer", "launches", "µs per launch", "noise", "status"], rows, "llrrrl")
    else:
        gpu_small = []
        for layer in r.layers:
            if not r.on_gpu(layer):
                continue
            timed = [(c, median) for c in r.cases if c.layer == layer and c.ok and (median := c.median_ms)]
            if timed:
                fastest, fastest_ms = min(timed, key=lambda pair: pair[1])
                gpu_small.append(f"{layer} {fmt.ms(fastest_ms * 1000)} µs (`{case_name(fastest)}`)")
        text = "This results file holds no launch-overhead cases, so launch overhead is not measured on its own."
        if gpu_small:
            text += (" An upper bound per GPU layer is its fastest case's median device time: " +
                     ", ".join(gpu_small) + ".")
        doc.p(text)


def _noise_cell(c: Case) -> str:
    if c.median_ms is None:
        return "–"
    return fmt.noise(c.noise, c.samples) + ("*" if c.noise_target_missed else "")


def _columns(r: Results, workload: str) -> list[tuple[str, str, Callable[[Case], str]]]:
    """(header, alignment, cell function) for one workload's table of cases."""
    def status(c: Case) -> str:
        return c.status if c.ok else f"**{c.status}**: {c.message or 'no reason recorded'}"

    def pct(value) -> str:
        return fmt.pct(value, 0) if value is not None else "–"

    cols = [("case", "l", lambda c: f"`{case_name(c)}`"),
            ("launches" if r.is_launch(workload) else "size", "l", lambda c: fmt.size_label(c.size)),
            ("status", "l", status),
            ("median ms", "r", lambda c: fmt.ms(c.median_ms)),
            ("noise", "r", _noise_cell),
            ("samples", "r", lambda c: str(c.samples) if c.samples else "–")]
    figure = r.figure(workload)
    if r.is_launch(workload):
        cols.append(("µs per launch", "r", lambda c: fmt.sig(bars.us_per_launch(c)) if c.ok and c.median_ms else "–"))
    elif figure == "gflops":
        cols += [("GFLOP/s", "r", lambda c: fmt.rate(c.get("gflops"))),
                 ("% cuBLAS", "r", lambda c: pct(r.fraction(c)))]
    elif figure == "gbps":
        cols += [("GB/s", "r", lambda c: fmt.rate(c.get("gbps"))),
                 ("% copy", "r", lambda c: pct(c.get("fraction_of_copy")))]
    else:
        cols += [("GB/s", "r", lambda c: fmt.rate(c.get("gbps"))),
                 ("GFLOP/s", "r", lambda c: fmt.rate(c.get("gflops")))]
    cols += [("end to end ms", "r", lambda c: fmt.ms(c.get("end_to_end_ms"))),
             ("first run ms", "r", lambda c: fmt.ms(c.get("first_run_ms")))]
    if any(c.get("throttled_samples") for c in r.of(workload)):
        cols.append(("throttled", "r", lambda c: str(int(c.get("throttled_samples") or 0))))
    if any(c.busy for c in r.of(workload)):
        cols.append(("busy machine", "l", lambda c: "; ".join(c.busy).replace("|", "/") or "–"))
    return cols


def _all_cases(doc: Document, r: Results) -> None:
    doc.h(1, "All cases")
    text = ("Every case in the results file, failed and skipped ones included. Median: of the samples "
            "(device time for GPU layers); noise: relative standard deviation of the samples")
    if any(c.noise_target_missed for c in r.cases):
        text += (", marked * where sampling stopped with the noise above the target "
                 "(the median stands; the noise says how far to trust it)")
    text += ("; % copy: GB/s as a fraction of the measured copy ceiling; % cuBLAS: GFLOP/s as a fraction "
             "of cuBLAS SGEMM (GPU layers); end to end: upload + run + download of one verified run on the "
             "host clock; first run: the first run, host clock, lazy loading included.")
    if any(c.get("throttled_samples") for c in r.cases):
        text += " Throttled: samples discarded because the SM clock was under the throttle limit."
    busy = [c for c in r.cases if c.busy]
    if busy:
        text += (f" **Busy machine: {len(busy)} case(s) ran while another process used what they are timed on** "
                 "(another process on the GPU, or on a host-timed case's CPUs: the column says which); their "
                 "times are not the code's alone, and `layerbench compare` calls their verdicts unclear.")
    doc.p(text)
    for workload in r.workloads:
        doc.h(2, workload)
        d = r.descriptor(workload)
        if d.summary:
            doc.p(f"`{workload}`: {d.summary}" + (f" (vendor routine: {d.vendor.library} `{d.vendor.routine}`)"
                                                   if d.vendor and d.vendor.routine else "") + ".")
        if not d.known:
            doc.p(f"`{workload}` is a workload this report does not draw (the results file does not give its "
                  f"figure); its cases are listed as the results file holds them.")
        cols = _columns(r, workload)
        doc.table([h for h, _a, _f in cols], [[f(c) for _h, _a, f in cols] for c in r.of(workload)],
                  "".join(a for _h, a, _f in cols))


def _ladder_table(doc: Document, r: Results, workload: str, size: tuple[int, ...], cases: list[Case]) -> None:
    """Every rung case of one ladder (failed ones too): time, rate, fraction of the top line,
    speed-up over the rung below."""
    field = r.figure(workload)
    if field is None or not r.descriptor(workload).is_rate:
        return
    unit = "GFLOP/s" if field == "gflops" else "GB/s"
    top, top_label = bars.ladder_top_line(r, workload, size)
    rows, below = [], None
    for c in cases:
        value = plots.rate(c, field) if c.ok else None
        speedup = (f"{below.median_ms / c.median_ms:.2f}×" if below is not None and below.ok and c.ok
                   and below.median_ms and c.median_ms else "–")
        rung = c.rung or {}  # a ladder's cases are rung cases: never {}
        rows.append([f"`{c.rung_label}`", str(rung.get("title", "")), fmt.ms(c.median_ms) if c.ok else "–",
                     fmt.rate(value), fmt.pct(value / top) if value and top else "–", speedup,
                     "ok" if c.ok else f"{c.status}: {c.message}"])
        below = c
    doc.table(["rung", "what it does", "median ms", unit, f"of {top_label}" if top else "of the top line",
               "speed-up", "status"], rows, "llrrrrl")


def _flat(value, prefix="") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        rows = []
        for k, v in value.items():
            rows += _flat(v, f"{prefix}.{k}" if prefix else str(k))
        return rows
    if isinstance(value, list):
        return [(prefix, ", ".join(str(v) for v in value))]
    return [(prefix, "" if value is None else str(value))]


def _layers_section(doc: Document, r: Results) -> None:
    layers = r.ctx("layers")
    if not isinstance(layers, dict) or not layers:
        return
    doc.h(1, "Layers")
    doc.p("What each layer recorded about itself (`context.layers`); one-time costs and kernels are above.")
    for name, info in layers.items():
        if not isinstance(info, dict):
            continue
        rows = [(k, v) for k, v in _flat({k: v for k, v in info.items() if k not in ("one_time_costs", "kernels")})]
        if rows:
            doc.h(2, name, anchor=f"layer-{name}")
            doc.table(["field", "value"], [[k, v or "–"] for k, v in rows])


def _counts(r: Results) -> str:
    """What the rates count, per workload, from its cases: "**GB/s** counts the bytes a workload must
    move (vector_add 12 per element, ...), decimal. **GFLOP/s** counts 2·M·N·K for matmul."."""
    moved = [f"{w} {ratio:g}" for w in _by_figure(r, "gbps") if (ratio := plots.per_element(r, w, "bytes"))]
    text = ("**GB/s** counts the bytes a workload must move" +
            (f" per element of its size ({', '.join(moved)})" if moved else "") + ", decimal.")
    flops = [f"{ratio:g}·{r.descriptor(w).size_product} for {w}" for w in _by_figure(r, "gflops")
             if (ratio := plots.per_element(r, w, "flops"))]
    return text + (f" **GFLOP/s** counts {', '.join(flops)}." if flops else " **GFLOP/s** counts the flops a workload must do.")


def _reading(doc: Document, r: Results) -> None:
    doc.h(1, "How to read this report")
    doc.ul([
        "A **case** is one workload, layer and size. Its time is the median of many samples taken back "
        "to back: device time (CUDA events) for GPU layers, the host's steady clock for CPU layers.",
        "**Noise** is the relative standard deviation of a case's samples. Heavy tails (a few slow "
        "samples) inflate it for the shortest cases; the median is robust to them. With fewer than two "
        "samples it is not measured and the report says so.",
        _counts(r),
        "Compare layers inside one run; absolute figures move between machines, clocks and drivers. "
        "`layerbench compare BASE.json NEW.json` compares two runs case by case.",
    ])
