"""`db compare`: per device, one stored run against another, through the reports' compare, with each
case's spread between the device's earlier runs (case_history) in place of its timing kind's
allowance where the database holds MIN_HISTORY runs or more with the case."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..reports import compare as compare_mod
from ..reports import fmt, results
from ..reports.verdict import MIN_HISTORY
from .store import Database
from .queries import StoredRun, devices, load_run, parse_selector, select


@dataclass
class DeviceComparison:
    device: str
    base: StoredRun | None
    new: StoredRun | None
    comparison: compare_mod.Comparison | None
    note: str = ""


def case_history(db: Database, runs: list[StoredRun], new: StoredRun) -> compare_mod.History:
    """How far the device's runs before `new` (BASE among them) differed on each case: Case.key ->
    (largest / smallest median - 1, the number of runs), for the cases MIN_HISTORY runs or more
    measured ok."""
    earlier = [r.id for r in runs if (r.date, r.id) < (new.date, new.id)]
    if len(earlier) < MIN_HISTORY:
        return {}
    marks = ", ".join("?" for _ in earlier)
    medians: dict[tuple, list[float]] = {}
    for workload, layer, rung, size, median in db.rows(
            f"SELECT workload, layer, rung, size, median_ms FROM cases WHERE run_id IN ({marks}) "
            "AND status = 'ok' AND median_ms > 0", earlier):
        label = f"{layer}:{rung.split('/', 1)[-1]}" if rung else layer
        medians.setdefault((workload, label, tuple(int(v) for v in size.split("x"))), []).append(float(median))
    return {key: (max(values) / min(values) - 1, len(values))
            for key, values in medians.items() if len(values) >= MIN_HISTORY}


def compare_db(db: Database, baseline: str, new: str = "latest", threshold: float = 0.05, k: float = 1.0,
               gpu: str | None = None,
               fail_on: str | Iterable[str] = compare_mod.DEFAULT_FAIL_ON) -> list[DeviceComparison]:
    """Per device: the run `new` selects against the run `baseline` selects, with compare.py's
    verdicts and its gate (`fail_on`). ResultsError when a selector is unknown or matches no run of
    any device."""
    base_sel, new_sel = parse_selector(baseline, "--baseline"), parse_selector(new, "--new")
    groups = devices(db, gpu)
    if not groups:
        raise results.ResultsError(db.label, "holds no runs" + (f" of a GPU matching '{gpu}'" if gpu else ""))
    matched = {label: any(select(runs, sel) for runs in groups.values())
               for label, sel in (("--baseline", base_sel), ("--new", new_sel))}
    for label, text in (("--baseline", baseline), ("--new", new)):
        if not matched[label]:
            raise results.ResultsError(db.label, f"{label} {text}: no run in the database matches it")
    out = []
    for group, runs in groups.items():
        b, n = select(runs, base_sel), select(runs, new_sel)
        label = runs[-1].device_label
        if b is None or n is None:
            if base_sel[0] == "run" or new_sel[0] == "run":
                continue  # a run id names one device's run: the other devices are not asked about
            missing = "--baseline " + baseline if b is None else "--new " + new
            out.append(DeviceComparison(label, b, n, None, f"no run matches {missing}"))
            continue
        if b.id == n.id:
            out.append(DeviceComparison(label, b, n, None, f"{baseline} and {new} are the same run (run {b.id})"))
            continue
        c = compare_mod.compare(load_run(db, b.id), load_run(db, n.id), threshold=threshold, k=k,
                                history=case_history(db, runs, n), fail_on=fail_on)
        out.append(DeviceComparison(label, b, n, c))
    return out


def compare_markdown(found: list[DeviceComparison], db_label: str, baseline: str, new: str,
                     threshold: float, k: float, fail_on: Iterable[str] = compare_mod.DEFAULT_FAIL_ON) -> str:
    gate = compare_mod.fail_on_verdicts(fail_on)
    out = ["# layerbench db compare", "",
           f"Database `{db_label}`; per device, `{new}` (NEW) against `{baseline}` (BASE); threshold "
           f"{fmt.pct(threshold, 1)}, noise k = {k:g} (verdicts as in `layerbench compare`, docs/reports.md; a "
           f"case's spread between runs from the device's earlier runs where at least {MIN_HISTORY} hold it). "
           f"The gate (`--fail-on {','.join(gate)}`) fails, and the command exits 1, when a case on any device is "
           f"{' or '.join(gate)}.", ""]
    for d in found:
        if d.comparison is None or d.base is None or d.new is None:  # compared: both runs found
            out += [f"## {d.device}", "", f"Not compared: {d.note}.", ""]
            continue
        table = compare_mod.to_markdown(d.comparison).splitlines()
        # compare's document, one heading level down, under the device's heading
        table = [("#" + line if line.startswith("#") else line) for line in table[1:]]
        out += [f"## {d.device}", "", f"BASE run {d.base.id} ({d.base.date}, commit {d.base.source_commit or '?'}), "
                f"NEW run {d.new.id} ({d.new.date}, commit {d.new.source_commit or '?'})."] + table + [""]
    return "\n".join(out).rstrip() + "\n"
