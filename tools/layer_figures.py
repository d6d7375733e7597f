#!/usr/bin/env python3
"""The figures a closing note or a comparison quotes, from a results file: per layer and workload,
at the workload's largest size, its figure as its descriptor gives it (python/layerbench/reports/results.py): GB/s
with the fraction of the copy ceiling, GFLOP/s with the fraction of cuBLAS, µs per launch; then
every one-time cost, and, given a second results file of the same suite run with warm kernel
caches, the same costs side by side.

  tools/layer-figures RESULTS.json [CACHED.json]

The figures are printed in the docs' formats (python/layerbench/reports/fmt.py's docs_* formats, as tools/doc-figures writes them). The docs themselves take
theirs from the committed results: copy RESULTS.json over docs/results/<gpu>/results.json (and
CACHED.json over docs/results/<gpu>/warm-caches.json), then run tools/doc-figures.
"""
import sys

from layerbench.reports import fmt, results as results_mod  # no matplotlib: the reader needs none


def cell(r, layer, workload):
    """The layer's figure at the workload's largest size, with its fraction of the ceiling."""
    d = r.descriptor(workload)
    case = r.find(workload, layer, r.sizes(workload)[-1])
    if case is None:
        return "-"
    c = case.entry
    if case.status != "ok" or d.figure not in c:
        return case.status
    text = {"gbps": fmt.docs_rate, "gflops": fmt.grouped}.get(d.figure, lambda x: fmt.sig_kept(x, 3))(c[d.figure])
    if d.fraction_field and isinstance(c.get(d.fraction_field), (int, float)):
        text += f" ({c[d.fraction_field]:.2f})"
    return text


def costs(r):
    """{(layer, what): ms}: each layer's one-time costs, from its context, then from its cases."""
    found = {}
    for layer, info in (r.ctx("layers") or {}).items():
        for cost in info.get("one_time_costs", []):
            found[(layer, cost["what"])] = cost["ms"]
    for c in r.cases:
        for cost in c.entry.get("one_time_costs", []):
            found.setdefault((c.layer, cost["what"]), cost["ms"])  # the first case that paid it
    return found


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    try:
        r = results_mod.load(sys.argv[1])
        cached = results_mod.load(sys.argv[2]) if len(sys.argv) == 3 else None
    except results_mod.ResultsError as e:
        sys.exit(f"layer-figures: {e}")
    context = r.context
    device, ceilings = context.get("device") or {}, context.get("ceilings") or {}
    print(f"{device.get('name', 'no GPU')}: copy {fmt.docs_rate(ceilings.get('copy_gbps', 0))} GB/s, "
          f"cuBLAS SGEMM {fmt.grouped(ceilings.get('sgemm_gflops', 0))} GFLOP/s; "
          f"suite {context['layerbench']['suite_wall_s']:.1f} s")
    layers = list(dict.fromkeys(c.layer for c in r.cases))
    # The columns: GB/s workloads, GFLOP/s ones, then launch overhead, each in the order they ran.
    columns = [w for figure in results_mod.FIGURES for w in r.workloads if r.figure(w) == figure and r.sizes(w)]
    print("| layer | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for layer in layers:
        print(f"| {layer} | " + " | ".join(cell(r, layer, w) for w in columns) + " |")
    first = costs(r)
    second = costs(cached) if cached else {}
    print("\nOne-time costs" + (" (this run | the cached run)" if second else ""))
    for (layer, what), ms in first.items():
        again = second.get((layer, what.replace("compiled", "cache hit")), second.get((layer, what)))
        print(f"  {layer:14s} {what[:70]:70s} {fmt.docs_cost_ms([ms]):>9s}"
              + (f" | {fmt.docs_cost_ms([again]):>9s}" if again is not None else ""))
    print("\nFor the docs: copy the results over docs/results/<gpu>/results.json (the cached run over "
          "warm-caches.json), then run tools/doc-figures (docs/results/README.md).")


if __name__ == "__main__":
    main()
