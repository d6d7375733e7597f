"""Two results files, case by case: the ratio of medians and a verdict that holds.

For a case present and `ok` in both files, verdict.decide gives `faster`, `slower`, `same` or
`unclear`, and why: the threshold on the ratio of medians, the spread between runs (from the
results database's history of the device, or the case's timing kind's allowance), a rank test
over the samples with robust noise, and whether either machine was busy (verdict.py says how).
The same rule serves `layerbench compare`, `layerbench db compare` (db/compare.py, with the
history) and the API's `layerbench.compare`.

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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Mapping

from . import fmt, run_ids, verdict as verdict_mod
from .results import Case, Results, size_order
from .verdict import FASTER, SLOWER, SAME, UNCLEAR, Decision, Policy, Sample, TIMING_KINDS


# --- the verdict's options: `compare` and `db compare` ----------------------------------------

def small_threshold(percent: float) -> str | None:
    """What to say of a threshold under 1 percent, which a writer of fractions (0.05 for 5%) may
    not have meant: "0.05 is 0.05%; for 5% give 5"; None for 0 and from 1 up."""
    if not 0 < percent < 1:
        return None
    return f"{percent:g} is {percent:g}%; for {percent * 100:g}% give {percent * 100:g}"


class Threshold(float):
    """--threshold's value, a fraction (0.05 for `--threshold 5`), with `note`: small_threshold's
    line where the text gave a number under 1 without a % sign (`--threshold 0.05`)."""

    note: str | None = None


def _percent(text: str) -> float:
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a percentage (e.g. 5 or 2.5%)") from None
    if not 0 <= value < 1000:
        raise argparse.ArgumentTypeError(f"'{text}' is out of range (0 to 1000 percent)")
    threshold = Threshold(value / 100.0)
    if not text.strip().endswith("%"):
        threshold.note = small_threshold(value)
    return threshold


def threshold_note(threshold: float) -> str | None:
    """The one line `compare` and `db compare` print on stderr for `--threshold 0.05`, and go on."""
    note = getattr(threshold, "note", None)
    return f"warning: --threshold {note}" if note else None


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
    parser.add_argument("--noise-k", metavar="K", type=_positive, default=1.0,
                        help="how many times the uncertainty of the two medians (each run's MAD-based "
                             "noise over the square root of its samples) a change must exceed (default: 1)")


# --- the gate: which verdicts make `compare` and `db compare` exit 1 --------------------------------

# The verdicts a gate may fail on (--fail-on): slower, and what it could not decide (unclear), or a
# change for the better it did not expect (faster). `same` fails no gate.
GATE_VERDICTS = (SLOWER, UNCLEAR, FASTER)
DEFAULT_FAIL_ON = (SLOWER,)


def fail_on_verdicts(value: str | Iterable[str]) -> tuple[str, ...]:
    """--fail-on's verdicts ("slower,unclear", or a list of names), in GATE_VERDICTS' order, each
    once. ValueError naming the first bad one."""
    words = value.split(",") if isinstance(value, str) else list(value)
    if not words:
        raise ValueError(f"no verdict given (name one or more of {', '.join(GATE_VERDICTS)})")
    found = set()
    for word in words:
        name = word.strip().lower() if isinstance(word, str) else word
        if name not in GATE_VERDICTS:
            why = "fails no gate" if name == SAME else "is not a verdict"
            raise ValueError(f"{word!r} {why} (give one or more of {', '.join(GATE_VERDICTS)}, "
                             "separated by commas)")
        found.add(name)
    return tuple(v for v in GATE_VERDICTS if v in found)


def _fail_on(text: str) -> tuple[str, ...]:
    try:
        return fail_on_verdicts(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_gate_option(parser: argparse.ArgumentParser) -> None:
    """--fail-on VERDICTS (args.fail_on): which verdicts make the command exit 1."""
    parser.add_argument("--fail-on", metavar="VERDICTS", type=_fail_on, default=DEFAULT_FAIL_ON,
                        help="exit 1 when a case's verdict is one of these, separated by commas: slower, "
                             "unclear (what it could not decide: noise, too few samples, a busy machine), "
                             "faster (default: slower)")


def gate_lines(counts: Mapping[str, int], fail_on: Iterable[str], threshold: float) -> list[str]:
    """What the gate says on stderr when it fails: one line per verdict of `fail_on` that `counts`
    (verdict -> cases) holds; [] when it passes. `threshold` is a fraction."""
    lines = []
    for verdict in fail_on:
        n = counts.get(verdict, 0)
        if not n:
            continue
        if verdict == SLOWER:
            lines.append(f"{n} case(s) slower beyond {threshold * 100:g}% with confidence")
        elif verdict == FASTER:
            lines.append(f"{n} case(s) faster beyond {threshold * 100:g}% with confidence, "
                         "which --fail-on faster fails")
        else:
            lines.append(f"{n} case(s) {verdict}, which --fail-on {verdict} fails (the table says why)")
    return lines

# How far earlier runs of one device differed on a case: (largest / smallest median − 1, the
# number of runs), by Case.key; db/compare.py reads it from the database.
History = Mapping[tuple, tuple[float, int]]


@dataclass
class Row:
    """One case of both files, and the verdict on it (verdict.decide)."""

    base: Case
    new: Case
    ratio: float  # NEW / BASE medians: above 1, NEW took longer
    noise: float | None  # the two runs' combined robust noise (a fraction), where both had samples
    verdict: str  # faster, slower, same or unclear
    why: str  # the rule's reason, in words
    p_value: float | None = None  # the rank test's, where it ran
    allowance: float = 0.0  # the runs' spread the change was held to (a fraction, at least the threshold)
    timing: str = "device"  # whose clock: "device", "cpu" or "host-feeds-gpu" (verdict.TIMING_KINDS)

    @property
    def busy(self) -> list[str]:
        """Why either run's machine was busy on this case ("BASE: ..."); [] when neither was."""
        return [f"{label}: {why}" for label, c in (("BASE", self.base), ("NEW", self.new)) for why in c.busy]


@dataclass
class Comparison:
    base: Results
    new: Results
    threshold: float
    k: float
    alpha: float = 0.01
    rows: list[Row] = field(default_factory=list)
    only_base: list[Case] = field(default_factory=list)
    only_new: list[Case] = field(default_factory=list)
    not_compared: list[tuple[Case, Case, str]] = field(default_factory=list)
    where: dict[str, str] = field(default_factory=dict)  # RUN_ID -> the run as matched (merged files)
    fail_on: tuple[str, ...] = DEFAULT_FAIL_ON  # the verdicts that fail the gate (--fail-on)

    def count(self, verdict: str) -> int:
        return sum(1 for row in self.rows if row.verdict == verdict)

    @property
    def regressed(self) -> bool:
        return self.count(SLOWER) > 0

    def failing(self, on: str | Iterable[str] | None = None) -> list[Row]:
        """The rows whose verdict fails the gate: one of `on` (fail_on_verdicts), else of fail_on."""
        verdicts = self.fail_on if on is None else fail_on_verdicts(on)
        return [row for row in self.rows if row.verdict in verdicts]

    def fails(self, on: str | Iterable[str] | None = None) -> bool:
        """Whether the gate fails (what makes `compare --fail-on` exit 1)."""
        return bool(self.failing(on))

    @property
    def busy(self) -> list[Row]:
        """The rows either of whose runs was on a busy machine (host-timed: unclear; device-timed:
        held to a spread widened by the busy run's median over its fastest sample)."""
        return [row for row in self.rows if row.busy]


def _sample(c: Case) -> Sample:
    return Sample(median_ms=c.median_ms or 0.0, samples_ms=c.samples_ms, min_ms=c.get("min_ms"),
                  max_ms=c.get("max_ms"), busy=c.busy, count=c.samples)


# What with_change(busy=True) marks NEW's cases with, by timing kind, as the harness words a busy
# machine (harness/machine_load.h's busy_reasons).
INJECTED_BUSY = {"device": "another process on the GPU (pid 4242)", "cpu": "other processes kept 3.1 of 16 CPUs busy",
                 "host-feeds-gpu": "other processes kept 3.1 of 16 CPUs busy"}


def with_change(c: Comparison, factor: float, busy: bool = False) -> list[tuple[Row, Decision]]:
    """What the comparison's rule says of each of its rows had NEW taken `factor` times as long
    (1.2: a 20% slow-down injected into every sample), and with `busy`, as run on a busy machine
    (INJECTED_BUSY): the verdict's power on a pair of runs of one build (docs/reports.md)."""
    policy = Policy(threshold=c.threshold, k=c.k, alpha=c.alpha)
    out = []
    for row in c.rows:
        new = _sample(row.new).scaled(factor, busy=[INJECTED_BUSY[row.timing]] if busy else None)
        out.append((row, verdict_mod.decide(_sample(row.base), new, TIMING_KINDS[row.timing], policy)))
    return out


def decide(base: Case, new: Case, timing: str, policy: Policy, history: History | None = None) -> Decision:
    """verdict.decide on two cases of the same (workload, layer, size); `history` gives the spread
    between earlier runs of the device, where known."""
    spread, runs = (history or {}).get(base.key, (None, 0))
    return verdict_mod.decide(_sample(base), _sample(new), TIMING_KINDS[timing], policy, spread, runs)


def _identities(r: Results) -> dict[str, str]:
    """RUN_ID -> what a run is matched on across two merged files: its host and device
    (run_ids.machine_id), or its whole RUN_ID where another run of the file has the same host and device."""
    machine = {run["run"]: run_ids.machine_id(run["context"]) for run in r.runs}
    shared = {m for m in machine.values() if list(machine.values()).count(m) > 1}
    return {run: (run if m in shared else m) for run, m in machine.items()}


def compare(base: Results, new: Results, threshold: float = 0.05, k: float = 1.0, alpha: float = 0.01,
            history: History | None = None, fail_on: str | Iterable[str] = DEFAULT_FAIL_ON) -> Comparison:
    """NEW against BASE, case by case. `threshold`: the smallest change that counts, a fraction
    (0.05: 5%); `k`: how many times the medians' uncertainty (verdict.median_uncertainty) a change
    must exceed; `alpha`: the rank test's level; `history`: how far earlier runs of the device differed on each case (db compare);
    `fail_on`: the verdicts that fail the gate (ValueError naming a bad one)."""
    result = Comparison(base, new, float(threshold), k, alpha, fail_on=fail_on_verdicts(fail_on))
    policy = Policy(threshold=threshold, k=k, alpha=alpha)
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
        timing = base.for_run(b.run).timing(b) if b.run else base.timing(b)
        d = decide(b, n, timing, policy, history)
        result.rows.append(Row(b, n, d.ratio, d.noise, d.verdict, d.why, d.p_value, d.allowance, timing))
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
            f"{len(c.not_compared)} not compared. A case is same when its median time moved by less than the "
            f"threshold ({fmt.pct(c.threshold, 1)}); slower or faster when it moved by more than the threshold "
            f"and the spread between runs of its kind, by more than {c.k:g}× the uncertainty of the two medians, and the "
            f"rank test over the samples tells the runs apart (p < {c.alpha:g}); unclear otherwise, or when "
            f"either machine was busy on a host-timed case (docs/reports.md, \"Comparing two runs\").", "", gate(c), ""]
    busy = c.busy
    if busy:
        out += [f"**{len(busy)} case(s) ran on a busy machine** (host-timed: unclear; device-timed: a wider "
                "spread, the busy run's median over its fastest sample): "
                + "; ".join(f"{_case(c, row.base, row.new)}: {', '.join(row.busy)}" for row in busy[:10])
                + (f"; and {len(busy) - 10} more" if len(busy) > 10 else "") + ".", ""]
    if c.rows:
        out += ["| case | size | timed by | BASE median ms | noise | NEW median ms | noise | NEW / BASE | change | p | verdict |",
                "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        rank = {w: i for i, w in enumerate(c.base.workloads)}  # a workload with rung cases only is not in it
        for row in sorted(c.rows, key=lambda r: (rank.get(r.base.workload, len(rank)), r.base.workload,
                                                 size_order(r.base), r.base.order)):
            b, n = row.base, row.new
            p = "-" if row.p_value is None else f"{row.p_value:.2g}"
            out.append(f"| {_case(c, b, n)} | {fmt.size_label(b.size)} | {row.timing} | {fmt.ms(b.median_ms)} | "
                       f"{fmt.noise(b.noise, b.samples)} | {fmt.ms(n.median_ms)} | {fmt.noise(n.noise, n.samples)} | "
                       f"{row.ratio:.3f} | {_change(row.ratio)} | {p} | {_MARK[row.verdict]}: {row.why.replace('|', '/')} |")
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


def gate(c: Comparison) -> str:
    """The gate's line: which verdicts fail it (--fail-on), and whether it failed."""
    which = " or ".join(f"`{v}`" for v in c.fail_on)
    failing = c.failing()
    if not failing:
        verdict = f"it passes: no case is {' or '.join(c.fail_on)}"
    else:
        counts = ", ".join(f"{c.count(v)} {v}" for v in c.fail_on if c.count(v))
        verdict = f"it fails: {len(failing)} case(s) ({counts})"
    return (f"Gate (`--fail-on {','.join(c.fail_on)}`): a case whose verdict is {which} fails it, and the "
            f"command exits 1; {verdict}.")


def summary(c: Comparison) -> str:
    return (f"{c.count(FASTER)} faster, {c.count(SLOWER)} slower, {c.count(SAME)} same, {c.count(UNCLEAR)} unclear, "
            f"{len(c.only_base)} only in BASE, {len(c.only_new)} only in NEW, {len(c.not_compared)} not compared")
