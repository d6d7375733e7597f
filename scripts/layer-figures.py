#!/usr/bin/env python3
"""The figures a closing note or a comparison quotes, from a results file: per layer, GB/s at the
largest vector size (with the fraction of the copy ceiling), matmul GFLOP/s at the largest size
(with the fraction of cuBLAS), launch overhead; then every one-time cost, and, given a second
results file of the same suite run with warm kernel caches, the same costs side by side.

  scripts/layer-figures.py RESULTS.json [CACHED.json]

The figures are printed in the docs' formats (scripts/doc-figures.py's). The docs themselves take
theirs from the committed results: copy RESULTS.json over docs/results/<gpu>/results.json (and
CACHED.json over docs/results/<gpu>/warm-caches.json), then run scripts/doc-figures.py.
"""
import importlib.util
import json
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("doc_figures", Path(__file__).with_name("doc-figures.py"))
figures = importlib.util.module_from_spec(_spec)
sys.modules["doc_figures"] = figures  # its dataclasses look their module up
_spec.loader.exec_module(figures)


def load(path):
    with open(path) as f:
        data = json.load(f)
    cases = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
    return data["context"], cases


def largest(cases, workload):
    sizes = [c["n"] * c.get("m", 1) * c.get("k", 1) for c in cases if c["workload"] == workload]
    return max(sizes, default=None)


def cell(cases, layer, workload, field, fraction=None):
    size = largest(cases, workload)
    for c in cases:
        if c["layer"] == layer and c["workload"] == workload and c["n"] * c.get("m", 1) * c.get("k", 1) == size:
            if c.get("status") != "ok" or field not in c:
                return c.get("status", "?")
            text = {"gbps": figures.fmt_gbps, "gflops": figures.grouped}.get(field, lambda x: figures.sig(x, 3))(c[field])
            if fraction and isinstance(c.get(fraction), (int, float)):
                text += f" ({c[fraction]:.2f})"
            return text
    return "-"


def costs(context, cases):
    found = {}
    for layer, info in context.get("layers", {}).items():
        for cost in info.get("one_time_costs", []):
            found[(layer, cost["what"])] = cost["ms"]
    for c in cases:
        for cost in c.get("one_time_costs", []):
            found.setdefault((c["layer"], cost["what"]), cost["ms"])  # the first case that paid it
    return found


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    context, cases = load(sys.argv[1])
    device, ceilings = context.get("device") or {}, context.get("ceilings") or {}
    print(f"{device.get('name', 'no GPU')}: copy {figures.fmt_gbps(ceilings.get('copy_gbps', 0))} GB/s, "
          f"cuBLAS SGEMM {figures.grouped(ceilings.get('sgemm_gflops', 0))} GFLOP/s; "
          f"suite {context['layerbench']['suite_wall_s']:.1f} s")
    layers = list(dict.fromkeys(c["layer"] for c in cases))
    columns = [("vector_add", "gbps", "fraction_of_copy"), ("saxpy", "gbps", "fraction_of_copy"),
               ("reduce", "gbps", "fraction_of_copy"), ("matmul", "gflops", "fraction_of_cublas"),
               ("launch_async", "us_per_launch", None), ("launch_sync", "us_per_launch", None)]
    print("| layer | " + " | ".join(w for w, *_ in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for layer in layers:
        print(f"| {layer} | " + " | ".join(cell(cases, layer, *column) for column in columns) + " |")
    first = costs(context, cases)
    second = costs(*load(sys.argv[2])) if len(sys.argv) == 3 else {}
    print("\nOne-time costs" + (" (this run | the cached run)" if second else ""))
    for (layer, what), ms in first.items():
        again = second.get((layer, what.replace("compiled", "cache hit")), second.get((layer, what)))
        print(f"  {layer:14s} {what[:70]:70s} {figures.fmt_ms_cost([ms]):>9s}"
              + (f" | {figures.fmt_ms_cost([again]):>9s}" if again is not None else ""))
    print("\nFor the docs: copy the results over docs/results/<gpu>/results.json (the cached run over "
          "warm-caches.json), then run scripts/doc-figures.py (docs/results/README.md).")


if __name__ == "__main__":
    main()
