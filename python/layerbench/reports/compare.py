"""Two results files, case by case: the ratio of medians and a verdict that accounts for noise.

For a case present and `ok` in both files, with medians b (BASE) and n (NEW):

    ratio  r = n / b                  (> 1: NEW takes longer)
    noise  s = sqrt(sb² + sn²)        (each file's relative standard deviation of the samples)

    same     |r − 1| ≤ threshold                          the medians differ by less than the threshold
    slower   r > 1 + threshold  and  ln r > k·s            beyond the threshold and beyond the noise
    faster   r < 1/(1 + threshold)  and  −ln r > k·s       likewise
    unclear  beyond the threshold but within k·s, or the noise was not measured (fewer than two
             samples in either file)

(The threshold test is symmetric in log terms: a case is outside it when r > 1 + t or r < 1/(1 + t).)
The noise used is the spread of single samples, not the standard error of the median: two runs of
the same build differ by more than the standard error suggests (clocks, memory placement, other
processes), and the spread of samples is the conservative measure the files record. Defaults: a
threshold of 5% and k = 2.

Merged files (`layerbench merge`, python/layerbench/reports/merge.py) hold several runs. When both files are merged,
a case is matched by its run's host and device (the RUN_ID without its run id, task or date: the same GPU
in both) and its name; a run whose host and device another run of its file shares is matched by
its whole RUN_ID. When one file is merged and the other not, cases are matched by name: the plain
file's case against that case in each run of the merged one. A case found in one file only is
listed as such.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field

from . import fmt, run_ids
from .results import Case, Results, size_order


# --- the verdict's options: `compare` and `db compare` ----------------------------------------

def _percent(text: str) -> float:
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a percentage (e.g. 5 or 2.5%)") from None
    if not 0 <= value < 1000:
        raise argparse.ArgumentTypeError(f"'{text}' is out of range (0 to 1000 percent)")
    return value / 100.0


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be above 0")
    return value


def add_verdict_options(parser: argparse.ArgumentParser) -> None:
    """--threshold and --noise-k, the verdict's two parameters (args.threshold, args.noise_k)."""
    parser.add_argument("--threshold", "-t", metavar="PCT", type=_percent, default=0.05,
                        help="smallest change that counts, in percent (default: 5)")
    parser.add_argument("--noise-k", metavar="K", type=_positive, default=2.0,
                        help="how many times the combined noise a change must exceed (default: 2)")

FASTER, SLOWER, SAME, UNCLEAR = "faster", "slower", "same", "unclear"


@dataclass
class Row:
    base: Case
    new: Case
    ratio: float
    noise: float | None
    verdict: str
    why: str


@dataclass
class Comparison:
    base: Results
    new: Results
    threshold: float
    k: float
    rows: list[Row] = field(default_factory=list)
    only_base: list[Case] = field(default_factory=list)
    only_new: list[Case] = field(default_factory=list)
    not_compared: list[tuple[Case, Case, str]] = field(default_factory=list)
    where: dict[str, str] = field(default_factory=dict)  # RUN_ID -> the run as matched (merged files)

    def count(self, verdict: str) -> int:
        return sum(1 for row in self.rows if row.verdict == verdict)

    @property
    def regressed(self) -> bool:
        return self.count(SLOWER) > 0


def verdict(ratio: float, noise: float | None, threshold: float, k: float) -> tuple[str, str]:
    change = math.log(ratio)
    if abs(change) <= math.log1p(threshold):
        return SAME, f"within the {fmt.pct(threshold, 0)} threshold"
    direction = SLOWER if change > 0 else FASTER
    if noise is None:
        return UNCLEAR, "noise not measured (fewer than two samples)"
    if abs(change) > k * noise:
        return direction, f"beyond the threshold and {k:g}× the noise"
    return UNCLEAR, f"beyond the threshold but within {k:g}× the noise ({fmt.noise(noise)})"


def _identities(r: Results) -> dict[str, str]:
    """RUN_ID -> what a run is matched on across two merged files: its host and device
    (run_ids.machine_id), or its whole RUN_ID where another run of the file has the same host and device."""
    machine = {run["run"]: run_ids.machine_id(run["context"]) for run in r.runs}
    shared = {m for m in machine.values() if list(machine.values()).count(m) > 1}
    return {run: (run if m in shared else m) for run, m in machine.items()}


def compare(base: Results, new: Results, threshold: float = 0.05, k: float = 2.0) -> Comparison:
    result = Comparison(base, new, threshold, k)
    on_base, on_new = _identities(base), _identities(new)
    result.where = {**on_new, **on_base}
    both = bool(base.runs and new.runs)  # two merged files: the same GPU's case; else by name

    def key(c: Case, on: dict[str, str]) -> tuple:
        return (on.get(c.run, c.run), c.key) if both else c.key

    new_by_key: dict[tuple, list[Case]] = {}  # a merged file's case, once per run, against a plain file's
    for c in sorted(new.cases, key=lambda c: c.order):
        new_by_key.setdefault(key(c, on_new), []).append(c)
    base_keys = {key(c, on_base) for c in base.cases}
    pairs = []
    for b in sorted(base.cases, key=lambda c: c.order):
        found = new_by_key.get(key(b, on_base))
        if not found:
            result.only_base.append(b)
            continue
        pairs += [(b, n) for n in found]
    for b, n in pairs:
        if not b.ok or not n.ok:
            why = "; ".join(f"{label}: {c.status}" + (f" ({c.message})" if c.message else "")
                            for label, c in (("BASE", b), ("NEW", n)) if not c.ok)
            result.not_compared.append((b, n, why))
            continue
        if not b.median_ms or not n.median_ms:
            result.not_compared.append((b, n, "no median time recorded"))
            continue
        ratio = n.median_ms / b.median_ms
        if not 0 < ratio < math.inf:  # too far apart for a float (5e-324 against 1e12): no ratio to judge
            result.not_compared.append((b, n, "the median times have no ratio (too far apart)"))
            continue
        noise = math.hypot(b.noise, n.noise) if b.noise is not None and n.noise is not None else None
        v, why = verdict(ratio, noise, threshold, k)
        result.rows.append(Row(b, n, ratio, noise, v, why))
    result.only_new = [c for c in sorted(new.cases, key=lambda c: c.order) if key(c, on_new) not in base_keys]
    return result


def _case(c: Comparison, *cases: Case) -> str:
    """The case's name, and in a merged file the run it is from (as matched)."""
    runs = list(dict.fromkeys(c.where.get(x.run, x.run) for x in cases if x.run))
    return f"`{cases[0].name}`" + (" on " + " / ".join(f"`{r}`" for r in runs) if runs else "")


def _devices(r: Results) -> str:
    """The device's name; for a merged file, its runs' devices: "4 runs: NVIDIA H200 ×4"."""
    if not r.runs:
        return r.device_name
    names = [r.for_run(run["run"]).device_name for run in r.runs]
    counted = ", ".join(f"{n} ×{names.count(n)}" for n in dict.fromkeys(names))
    return f"{len(r.runs)} runs: {counted}"


def _run_line(label: str, r: Results) -> str:
    lb = r.ctx("layerbench") or {}
    return (f"| {label} | `{r.path}` | {_devices(r)} | layerbench {lb.get('version', '?')} | "
            f"{r.ctx('date') or '?'} | {len(r.cases)} |")


_MARK = {FASTER: "**faster**", SLOWER: "**slower**", SAME: "same", UNCLEAR: "unclear"}


def _change(ratio: float) -> str:
    change = (ratio - 1) * 100
    return "0.0%" if abs(change) < 0.05 else f"{change:+.1f}%"


def to_markdown(c: Comparison) -> str:
    out = ["# layerbench compare", "",
           "| | file | device | harness | date | cases |", "|---|---|---|---|---|---|",
           _run_line("BASE", c.base), _run_line("NEW", c.new), ""]
    if _devices(c.base) != _devices(c.new):
        out += [f"Note: the runs used different devices ({_devices(c.base)} and {_devices(c.new)}); "
                "differences include the hardware.", ""]
    if c.base.runs and c.new.runs:
        out += ["Both files are merged (`layerbench merge`): each case is matched with the same case on the "
                "same host and device (the RUN_ID without its last part: run id, task or date).", ""]
    elif c.base.runs or c.new.runs:
        out += [f"{'BASE' if c.base.runs else 'NEW'} is merged (`layerbench merge`) and the other file is not: "
                "each case is matched by name with that case in every run of the merged file.", ""]
    out += [f"Verdicts: {c.count(FASTER)} faster, {c.count(SLOWER)} slower, {c.count(SAME)} same, "
            f"{c.count(UNCLEAR)} unclear; {len(c.only_base)} only in BASE, {len(c.only_new)} only in NEW, "
            f"{len(c.not_compared)} not compared. A case is slower or faster when its median time moved by "
            f"more than the threshold ({fmt.pct(c.threshold, 1)}) and by more than {c.k:g}× the two runs' "
            f"combined noise; same when it moved by less than the threshold; unclear otherwise.", ""]
    if c.rows:
        out += ["| case | size | BASE median ms | noise | NEW median ms | noise | NEW / BASE | change | verdict |",
                "|---|---|---:|---:|---:|---:|---:|---:|---|"]
        rank = {w: i for i, w in enumerate(c.base.workloads)}  # a workload with rung cases only is not in it
        for row in sorted(c.rows, key=lambda r: (rank.get(r.base.workload, len(rank)), r.base.workload,
                                                 size_order(r.base), r.base.order)):
            b, n = row.base, row.new
            out.append(f"| {_case(c, b, n)} | {fmt.size_label(b.size)} | {fmt.ms(b.median_ms)} | "
                       f"{fmt.noise(b.noise, b.samples)} | {fmt.ms(n.median_ms)} | {fmt.noise(n.noise, n.samples)} | "
                       f"{row.ratio:.3f} | {_change(row.ratio)} | {_MARK[row.verdict]}: {row.why} |")
        out.append("")
    if c.not_compared:
        out += ["## Not compared (not ok in one of the files)", "", "| case | why |", "|---|---|"]
        out += [f"| {_case(c, b, n)} | {why.replace('|', '/')} |" for b, n, why in c.not_compared]
        out.append("")
    for title, cases in (("Only in BASE", c.only_base), ("Only in NEW", c.only_new)):
        if cases:
            out += [f"## {title}", "", "| case | status | median ms |", "|---|---|---:|"]
            out += [f"| {_case(c, x)} | {x.status} | {fmt.ms(x.median_ms)} |" for x in cases]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def summary(c: Comparison) -> str:
    return (f"{c.count(FASTER)} faster, {c.count(SLOWER)} slower, {c.count(SAME)} same, {c.count(UNCLEAR)} unclear, "
            f"{len(c.only_base)} only in BASE, {len(c.only_new)} only in NEW, {len(c.not_compared)} not compared")
