"""A merged file's runs side by side (layerbench merge, docs/fleet.md): one row per case, one column
per run (GPU, host or task), each median that lies more than FLEET_SPREAD from the median of the
other runs' on the same case, and beyond the case's own noise, flagged. The report's section and
`merge --side-by-side`'s table; no matplotlib here, so that merge needs none."""
from __future__ import annotations

import statistics

from . import fmt
from .document import Document
from .results import Case, Results, size_order

FLEET_SPREAD = 0.05  # a run's median this far from the median of the other runs' is flagged
FLAG = "⚑"


def fleet_flags(cases: list[Case | None]) -> list[float | None]:
    """For one case's cells across the runs (None: not in that run): each ok median's deviation
    from the median of its siblings' (the other runs' ok medians) where it lies more than
    FLEET_SPREAD from it and beyond the case's own noise (rel_stddev); None elsewhere."""
    medians = [c.median_ms if c is not None and c.ok and c.median_ms else None for c in cases]
    flags: list[float | None] = []
    for i, (c, m) in enumerate(zip(cases, medians)):
        siblings = [x for j, x in enumerate(medians) if j != i and x is not None]
        if m is None or not siblings:
            flags.append(None)
            continue
        middle = statistics.median(siblings)
        deviation = m / middle - 1
        noise = c.noise or 0.0
        flags.append(deviation if abs(deviation) > FLEET_SPREAD and abs(deviation) > noise else None)
    return flags


def side_by_side(doc: Document, r: Results, in_report: bool = True) -> None:
    """A merged file's runs side by side: the runs, then one row per case, one column per run.
    in_report: the report's section (whose later sections are the first run's)."""
    runs = [run["run"] for run in r.runs]
    views = {run: r.for_run(run) for run in runs}
    doc.h(1, "Runs side by side")
    doc.p(f"This file merges {len(runs)} runs (`layerbench merge`; each named host/device/task, see the "
          f"project's docs/fleet.md). The table below has every case of every run" +
          (f"; the sections after it are the first run's, `{runs[0]}`." if in_report else "."))
    doc.table(["run", "RUN_ID", "device", "host", "date", "file", "cases"],
              [[f"run {i + 1}", f"`{run}`", views[run].device_name, str(views[run].ctx("host_name") or "?"),
                str(views[run].ctx("date") or "?"), f"`{r.runs[i].get('file', '?')}`", str(len(views[run].cases))]
               for i, run in enumerate(runs)], "llllllr")
    keys: dict[tuple, str] = {}
    cells: dict[tuple, dict[str, Case]] = {}
    workloads = {w: i for i, w in enumerate(dict.fromkeys(c.workload for c in sorted(r.cases, key=lambda c: c.order)))}
    for c in sorted(r.cases, key=lambda c: (workloads[c.workload], size_order(c), c.layer_label, c.order)):
        label = c.name if not c.rung else f"{c.workload}/{c.layer_label}/{fmt.size_label(c.size, False)}"
        keys.setdefault(c.key, label)
        cells.setdefault(c.key, {})[c.run] = c
    rows, flagged = [], 0
    for key in keys:
        row_cases = [cells[key].get(run) for run in runs]
        flags = fleet_flags(row_cases)
        row = [f"`{keys[key]}`"]
        for c, flag in zip(row_cases, flags):
            if c is None:
                row.append("–")
            elif not c.ok or not c.median_ms:
                row.append(c.status if not c.ok else "–")
            elif flag is not None:
                flagged += 1
                row.append(f"**{fmt.ms(c.median_ms)}** {FLAG} {flag * 100:+.1f}%")
            else:
                row.append(fmt.ms(c.median_ms))
        ok = [c.median_ms for c in row_cases if c is not None and c.ok and c.median_ms]
        row.append(f"{fmt.pct(max(ok) / min(ok) - 1)}" if len(ok) >= 2 else "–")
        rows.append(row)
    doc.p(f"Median time in ms of each case in each run. {FLAG} flags a median more than "
          f"{fmt.pct(FLEET_SPREAD, 0)} from the median of the other runs' on the same case and beyond the "
          f"case's own noise (relative standard deviation of its samples), with how far; spread: the slowest "
          f"run over the fastest, less one. –: not in that run. " +
          (f"{flagged} median{'s' if flagged != 1 else ''} flagged." if flagged else "No median is flagged."))
    doc.table(["case"] + [f"run {i + 1}" for i in range(len(runs))] + ["spread"], rows,
              "l" + "r" * (len(runs) + 1))
