"""A merged file's runs side by side (layerbench merge, docs/fleet.md): one row per case, one column
per run (GPU, host or task), and the rule that flags a run's median on a case. The report's section
and `merge --side-by-side`'s table; no matplotlib here, so that merge needs none (the report's
picture of the fleet is fleetmap.py's).

How a median is flagged (FLAG_RULE, printed with every table that flags):
- With three runs or more of a case, a run's median is flagged (⚑) when it lies further from the
  median of the other runs' medians than FLEET_SPREAD (5%), than NOISE_TIMES (3) × its own noise
  (the relative standard deviation of its samples), and than NOISE_TIMES × the other runs' spread
  (1.4826 × their median absolute deviation from their median, relative: the standard deviation
  a normal spread would have). A case that varies as much from GPU to GPU is not an outlier.
- With two runs there is no "other runs' median": neither run is flagged. The case is marked ≠
  when the two differ by more than FLEET_SPREAD and more than NOISE_TIMES × both runs' noise
  together (√(s₁² + s₂²)): they differ, and the data does not say which one is off.
"""
from __future__ import annotations

import math
import statistics
from pathlib import Path

from . import fmt
from .document import Document
from .results import Case, Results, size_order
from .run_ids import task_id

FLEET_SPREAD = 0.05  # no flag for a difference under 5%, whatever the noise
NOISE_TIMES = 3.0  # a flag needs a deviation this many times the noise (the samples' and the fleet's)
MAD_TO_SD = 1.4826  # median absolute deviation to standard deviation, for a normal spread
MIN_RUNS_TO_FLAG = 3  # fewer runs have no "others' median" to flag a run against
FLAG = "⚑"
DIFFERS = "≠"


def flag_rule(runs: int) -> str:
    """How flags are decided, in one paragraph, for a table of `runs` runs (module docstring)."""
    if runs >= MIN_RUNS_TO_FLAG:
        return (f"{FLAG} flags a run's median that lies further from the median of the other runs' medians "
                f"on the same case than {fmt.pct(FLEET_SPREAD, 0)}, than {NOISE_TIMES:g} × its own noise "
                f"(relative standard deviation of its samples) and than {NOISE_TIMES:g} × the other runs' "
                f"spread ({MAD_TO_SD} × their median absolute deviation, relative), with how far. A case "
                f"that only some runs have is judged among those (three at least).")
    return (f"with {runs} run{'s' if runs != 1 else ''} there is no median of the other runs to hold a run "
            f"against, so no run is flagged; {DIFFERS} in the spread column marks a case whose two medians "
            f"differ by more than {fmt.pct(FLEET_SPREAD, 0)} and more than {NOISE_TIMES:g} × both runs' noise "
            f"together (√(s₁² + s₂²), s: the relative standard deviation of a run's samples): they differ, "
            f"and two runs cannot say which one is off.")


def _median_and_noise(c: Case | None) -> tuple[float, float] | None:
    if c is None or not c.ok or not c.median_ms:
        return None
    return c.median_ms, c.noise or 0.0


def fleet_flags(cases: list[Case | None]) -> list[float | None]:
    """For one case's cells across the runs (None: not in that run): each run's deviation from the
    median of the other runs' medians where it is flagged (module docstring); None elsewhere, and
    everywhere when fewer than MIN_RUNS_TO_FLAG runs have the case."""
    cells = [_median_and_noise(c) for c in cases]
    if sum(cell is not None for cell in cells) < MIN_RUNS_TO_FLAG:
        return [None] * len(cases)
    flags: list[float | None] = []
    for i, cell in enumerate(cells):
        others = [x[0] for j, x in enumerate(cells) if j != i and x is not None]
        if cell is None:
            flags.append(None)
            continue
        middle = statistics.median(others)
        spread = MAD_TO_SD * statistics.median(abs(x / middle - 1) for x in others)
        deviation = cell[0] / middle - 1
        limit = max(FLEET_SPREAD, NOISE_TIMES * cell[1], NOISE_TIMES * spread)
        flags.append(deviation if abs(deviation) > limit else None)
    return flags


def two_differ(cases: list[Case | None]) -> float | None:
    """Two runs of a case (no more, no fewer with a median): the slower over the faster, less one,
    where that is beyond FLEET_SPREAD and NOISE_TIMES × their noise together; else None."""
    cells = [x for x in map(_median_and_noise, cases) if x is not None]
    if len(cells) != 2:
        return None
    (a, sa), (b, sb) = cells
    difference = max(a, b) / min(a, b) - 1
    return difference if difference > max(FLEET_SPREAD, NOISE_TIMES * math.hypot(sa, sb)) else None


def gpu_label(context: dict) -> str:
    """A run's name where space is short: "GPU <index> · <first 8 hex digits of its UUID>", or the
    PCI bus id without a UUID; "cpu · <host>" for a run without a GPU."""
    device = context.get("device") if isinstance(context.get("device"), dict) else None
    if not device:
        return f"cpu · {context.get('host_name') or 'unknown-host'}"
    index = device.get("index")
    uuid = str(device.get("uuid") or "")
    short = uuid[4:12] if uuid.startswith("GPU-") else uuid[:8]
    return f"GPU {index if index is not None else '?'} · {short or device.get('pci_bus_id') or '?'}"


def run_labels(r: Results) -> list[str]:
    """gpu_label of each run of a merged file, in order; where two runs share one (the same GPU
    run twice, or CPU runs of one host), each is told apart by its run id's first 6 characters."""
    labels = [gpu_label(run.get("context") or {}) for run in r.runs]
    return [label if labels.count(label) == 1 else f"{label} · {str(run['run']).rsplit('/', 1)[-1][:6]}"
            for label, run in zip(labels, r.runs)]


def _task(context: dict) -> str:
    """The Slurm task a run was, as merge names tasks ("job4182.3"), or "–"."""
    task = task_id(context)
    return task if task.startswith(("job", "task")) and isinstance(context.get("task"), dict) else "–"


def side_by_side(doc: Document, r: Results, in_report: bool = True, picture=None) -> None:
    """A merged file's runs side by side: the runs, then one row per case, one column per run.
    in_report: the report's section (whose later sections are the first run's); picture: a
    document.Figure shown first (the report's picture of the fleet, fleetmap.py)."""
    runs = [run["run"] for run in r.runs]
    views = {run: r.for_run(run) for run in runs}
    labels = run_labels(r)
    doc.h(1, "Runs side by side")
    doc.p(f"This file merges {len(runs)} runs (`layerbench merge`; each named host/device/run id, see the "
          f"project's docs/fleet.md)." + (" The picture shows each GPU against the fleet; the tables after it "
                                          "have every case of every run" if picture else
                                          " The table below has every case of every run") +
          (f"; the sections after it are the first run's, `{runs[0]}`." if in_report else "."))
    if picture is not None:
        doc.figure(picture)
    # The file by its name (the folder is in the merged file's context.merged.runs): the RUN_ID is
    # long enough for one row.
    doc.table(["run", "GPU", "RUN_ID", "device", "host", "task", "date", "file", "cases"],
              [[f"run {i + 1}", labels[i], f"`{run}`", views[run].device_name,
                str(views[run].ctx("host_name") or "?"), _task(r.runs[i].get("context") or {}),
                str(views[run].ctx("date") or "?"), f"`{Path(str(r.runs[i].get('file', '?'))).name}`",
                str(len(views[run].cases))]
               for i, run in enumerate(runs)], "llllllllr")
    keys: dict[tuple, str] = {}
    cells: dict[tuple, dict[str, Case]] = {}
    workloads = {w: i for i, w in enumerate(dict.fromkeys(c.workload for c in sorted(r.cases, key=lambda c: c.order)))}
    for c in sorted(r.cases, key=lambda c: (workloads[c.workload], size_order(c), c.layer_label, c.order)):
        label = c.name if not c.rung else f"{c.workload}/{c.layer_label}/{fmt.size_label(c.size, False)}"
        keys.setdefault(c.key, label)
        cells.setdefault(c.key, {})[c.run] = c
    rows, flagged, differ = [], 0, 0
    for key in keys:
        row_cases = [cells[key].get(run) for run in runs]
        flags = fleet_flags(row_cases)
        row = [f"`{keys[key]}`"]
        for case, flag in zip(row_cases, flags):
            if case is None:
                row.append("–")
            elif not case.ok or not case.median_ms:
                row.append(case.status if not case.ok else "–")
            elif flag is not None:
                flagged += 1
                row.append(f"**{fmt.ms(case.median_ms)}** {FLAG} {flag * 100:+.1f}%")
            else:
                row.append(fmt.ms(case.median_ms))
        ok = [c.median_ms for c in row_cases if c is not None and c.ok and c.median_ms]
        spread = f"{fmt.pct(max(ok) / min(ok) - 1)}" if len(ok) >= 2 else "–"
        if len(runs) < MIN_RUNS_TO_FLAG and two_differ(row_cases) is not None:
            differ += 1
            spread = f"**{spread}** {DIFFERS}"
        rows.append(row + [spread])
    if len(runs) >= MIN_RUNS_TO_FLAG:
        counted = (f"{flagged} median{'s' if flagged != 1 else ''} flagged." if flagged else "No median is flagged.")
    else:
        counted = f"{differ} case{'s' if differ != 1 else ''} marked {DIFFERS}." if differ else f"No case is marked {DIFFERS}."
    doc.p(f"Median time in ms of each case in each run; spread: the slowest run over the fastest, less one; "
          f"–: not in that run. How flags are decided: {flag_rule(len(runs))} {counted}")
    doc.table(["case"] + [f"run {i + 1}" for i in range(len(runs))] + ["spread"], rows,
              "l" + "r" * (len(runs) + 1))
