#!/usr/bin/env python3
"""Prints two results files side by side for the memory-bound cases at the largest size, launch
overhead and matmul: median, noise, whether the noise target was reached, and the difference.
Used by scripts/device-check.sh to check that back-to-back runs agree.

  scripts/compare-runs.py RUN1.json RUN2.json
"""
import json
import sys
from collections import Counter


def cases(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or "median_ms" not in b:
            continue
        size = f'{b["m"]}x{b["n"]}x{b["k"]}' if "m" in b else str(b["n"])
        out[(b["workload"], b["layer"], size)] = b
    return data["context"], out


def figure(ctx, workload):
    """The workload's figure as the file records it (schema 2); older files: guessed from the name."""
    recorded = ctx.get("workloads", {}).get(workload, {}).get("figure")
    if recorded:
        return recorded
    return "us_per_launch" if workload.startswith("launch") else "gflops" if workload == "matmul" else "gbps"


def on_gpu(ctx, layer):
    """Whether the layer runs on the GPU, as the file records it (schema 2); older files: by name."""
    recorded = ctx.get("layers", {}).get(layer, {}).get("on_gpu")
    return recorded if recorded is not None else layer not in ("cpu", "thrust-omp")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    (ctx1, a), (ctx2, b) = cases(sys.argv[1]), cases(sys.argv[2])
    for name, ctx in (("run 1", ctx1), ("run 2", ctx2)):
        c = ctx.get("ceilings", {})
        print(f'{name}: copy {c.get("copy_gbps", 0):.1f} GB/s, cuBLAS SGEMM {c.get("sgemm_gflops", 0):.0f} GFLOP/s, '
              f'wall {ctx["layerbench"].get("suite_wall_s", 0):.1f} s')
    print(f'{"case":38} {"run 1":>22} {"run 2":>22} {"diff":>7}')
    worst = 0.0
    for key in sorted(a):
        w, layer, size = key
        kind = figure(ctx1, w)
        interesting = (size == str(2**28) and kind == "gbps") or kind == "us_per_launch" \
            or (kind == "gflops" and size.startswith("4096"))
        if not interesting or key not in b:
            continue
        x, y = a[key], b[key]
        diff = (y["median_ms"] - x["median_ms"]) / x["median_ms"] * 100
        rate = lambda r: (f'{r["us_per_launch"]:.2f}us' if kind == "us_per_launch" else
                          f'{r["gflops"]:.0f}GF' if kind == "gflops" else f'{r["gbps"]:.0f}GB/s')
        cell = lambda r: f'{rate(r)} {100 * r["rel_stddev"]:.2f}%{"" if r["noise_target_reached"] else "*"}'
        print(f'{"/".join(key):38} {cell(x):>22} {cell(y):>22} {diff:+6.2f}%')
        if kind == "gbps" and on_gpu(ctx1, layer):
            worst = max(worst, abs(diff))
    print(f"largest difference, GPU memory-bound cases at 2^28: {worst:.2f}% (* = noise target not reached)")
    for name, run in (("run 1", a), ("run 2", b)):
        reasons = Counter(r.get("stop_reason", "?") for r in run.values())
        print(f"{name} stop reasons: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
