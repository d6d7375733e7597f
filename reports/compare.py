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
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import fmt
from .results import Case, Results, size_order

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


def compare(base: Results, new: Results, threshold: float = 0.05, k: float = 2.0) -> Comparison:
    result = Comparison(base, new, threshold, k)
    new_by_key = {c.key: c for c in new.cases}
    base_keys = {c.key for c in base.cases}
    for b in sorted(base.cases, key=lambda c: c.order):
        n = new_by_key.get(b.key)
        if n is None:
            result.only_base.append(b)
            continue
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
    result.only_new = [c for c in sorted(new.cases, key=lambda c: c.order) if c.key not in base_keys]
    return result


def _run_line(label: str, r: Results) -> str:
    lb = r.ctx("layerbench") or {}
    return (f"| {label} | `{r.path}` | {r.device_name} | layerbench {lb.get('version', '?')} | "
            f"{r.ctx('date') or '?'} | {len(r.cases)} |")


_MARK = {FASTER: "**faster**", SLOWER: "**slower**", SAME: "same", UNCLEAR: "unclear"}


def _change(ratio: float) -> str:
    change = (ratio - 1) * 100
    return "0.0%" if abs(change) < 0.05 else f"{change:+.1f}%"


def to_markdown(c: Comparison) -> str:
    out = ["# layerbench compare", "",
           "| | file | device | harness | date | cases |", "|---|---|---|---|---|---|",
           _run_line("BASE", c.base), _run_line("NEW", c.new), ""]
    if c.base.device_name != c.new.device_name:
        out += [f"Note: the runs used different devices ({c.base.device_name} and {c.new.device_name}); "
                "differences include the hardware.", ""]
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
            out.append(f"| `{b.name}` | {fmt.size_label(b.size)} | {fmt.ms(b.median_ms)} | "
                       f"{fmt.noise(b.noise, b.samples)} | {fmt.ms(n.median_ms)} | {fmt.noise(n.noise, n.samples)} | "
                       f"{row.ratio:.3f} | {_change(row.ratio)} | {_MARK[row.verdict]}: {row.why} |")
        out.append("")
    if c.not_compared:
        out += ["## Not compared (not ok in one of the files)", "", "| case | why |", "|---|---|"]
        out += [f"| `{b.name}` | {why.replace('|', '/')} |" for b, _n, why in c.not_compared]
        out.append("")
    for title, cases in (("Only in BASE", c.only_base), ("Only in NEW", c.only_new)):
        if cases:
            out += [f"## {title}", "", "| case | status | median ms |", "|---|---|---:|"]
            out += [f"| `{x.name}` | {x.status} | {fmt.ms(x.median_ms)} |" for x in cases]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def summary(c: Comparison) -> str:
    return (f"{c.count(FASTER)} faster, {c.count(SLOWER)} slower, {c.count(SAME)} same, {c.count(UNCLEAR)} unclear, "
            f"{len(c.only_base)} only in BASE, {len(c.only_new)} only in NEW, {len(c.not_compared)} not compared")
