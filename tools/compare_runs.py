#!/usr/bin/env python3
"""Prints two results files side by side for the rate workloads (GB/s, GFLOP/s) at their largest
size and for launch overhead: median, noise, whether the noise target was reached, and the
difference, and `layerbench compare`'s verdict on it (python/layerbench/reports/verdict.py). What each workload is (its figure, its size form) comes from the results' descriptors
(python/layerbench/reports/results.py). Used by scripts/device-check.sh to check that back-to-back runs agree.

  tools/compare-runs RUN1.json RUN2.json
"""
import sys
from collections import Counter

from layerbench.reports import compare as compare_mod
from layerbench.reports import results as results_mod  # no matplotlib: the reader needs none


def cases(path):
    """(the Results, {(workload, layer, size label): case}) for the cases with a median."""
    r = results_mod.load(path)
    out = {}
    for c in r.own_cases:
        if "median_ms" in c.entry:
            out[(c.workload, c.layer, "x".join(map(str, c.size)))] = c
    return r, out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        (r1, a), (r2, b) = cases(sys.argv[1]), cases(sys.argv[2])
    except results_mod.ResultsError as e:
        print(f"compare-runs.py: {e}", file=sys.stderr)
        return 2
    for name, r in (("run 1", r1), ("run 2", r2)):
        c = r.ctx("ceilings") or {}
        print(f'{name}: copy {c.get("copy_gbps", 0):.1f} GB/s, cuBLAS SGEMM {c.get("sgemm_gflops", 0):.0f} GFLOP/s, '
              f'wall {(r.ctx("layerbench", "suite_wall_s") or 0):.1f} s')
    largest = {w: "x".join(map(str, r1.sizes(w)[-1])) for w in r1.workloads if r1.sizes(w)}
    verdicts = {(row.base.workload, row.base.layer_label, "x".join(map(str, row.base.size))): row.verdict
                for row in compare_mod.compare(r1, r2).rows}
    print(f'{"case":38} {"run 1":>22} {"run 2":>22} {"diff":>7}  verdict')
    worst: float | None = None
    for key in sorted(a):
        w, layer, size = key
        d = r1.descriptor(w)
        interesting = d.is_launch or (d.is_rate and size == largest.get(w))
        if not interesting or key not in b:
            continue
        x, y = a[key].entry, b[key].entry
        diff = (y["median_ms"] - x["median_ms"]) / x["median_ms"] * 100
        rate = lambda e: (f'{e["us_per_launch"]:.2f}us' if d.is_launch else
                          f'{e["gflops"]:.0f}GF' if d.figure == "gflops" else f'{e["gbps"]:.0f}GB/s')
        cell = lambda e: f'{rate(e)} {100 * e["rel_stddev"]:.2f}%{"" if e.get("noise_target_reached") else "*"}'
        print(f'{"/".join(key):38} {cell(x):>22} {cell(y):>22} {diff:+6.2f}%  {verdicts.get(key, "-")}')
        if d.figure == "gbps" and r1.on_gpu(layer):
            worst = abs(diff) if worst is None else max(worst, abs(diff))
    largest_diff = "none in both runs" if worst is None else f"{worst:.2f}%"
    print(f"largest difference, GPU GB/s cases at each workload's largest size: {largest_diff} "
          f"(* = noise target not reached)")
    for name, run in (("run 1", a), ("run 2", b)):
        reasons = Counter(c.entry.get("stop_reason", "?") for c in run.values())
        print(f"{name} stop reasons: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
