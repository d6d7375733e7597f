"""One case of two runs: faster, slower, same or unclear, and why. `decide` is the one rule that
`layerbench compare`, `layerbench db compare` and the API's `compare()` give (compare.py applies
it case by case); docs/reports.md ("Comparing two runs") explains it with its figures.

For medians b (BASE) and n (NEW), r = n / b, change c = |ln r|, threshold t:

1. **busy** — either run says its machine was busy while the case ran (the results' `busy`:
   another process on the GPU, or on a host-timed case's CPUs). A host-timed case: `unclear`,
   saying why. A device-timed case is decided by the rules below with its allowance widened by a
   measured bound on what the other process could have added: interference adds time to a sample
   and never takes any away, so where the busy run's fastest sample ran undisturbed, that run's
   median stands at most median / min above what it would have been alone (BUSY_BOUND: above
   that, or without a recorded minimum, `unclear` as before).
2. **same** — c ≤ ln(1 + t): the medians moved by less than the threshold.
3. **within the runs' spread** — c ≤ ln(1 + a), where a is how much runs of this case differ
   from one another with nothing changed: from earlier runs of the same device (`spread`, which
   `db compare` takes from the database when it holds at least MIN_HISTORY runs with the case),
   else the allowance of the case's timing kind (TIMING_KINDS: the host's clock differs far more
   between runs than within one; device-timed work the more, the shorter it is). `unclear`: "host-timed (a CPU layer): runs differ by ±300%".
4. **the evidence** — beyond both, the change must stand out of the samples:
   - with at least MIN_SAMPLES samples on each side (`samples_ms`): a two-sided Mann-Whitney U
     test (as Google Benchmark's tools/compare.py) at `alpha`, and c above k (default 1) times
     the uncertainty of the two medians (each run's robust noise s, 1.4826 × MAD / median, over
     the square root of its sample count, times 1.2533, the median's standard error for normal
     samples; combined as √(u_b² + u_n²)); then `slower` / `faster`, else `unclear` with the
     p-value or the uncertainty. The spread between runs (rule 3) already holds what moves a
     run's samples all together; what is left to the samples is how well each median is known,
     and a case sampled 200 times at ±30% knows its median to ±3%;
   - with fewer samples than MIN_SAMPLES: `unclear`, "too few samples for the rank test",
     unless the runs' ranges (min_ms, max_ms) do not overlap and the change is over GROSS times
     the runs' spread, (1 + a) × GROSS;
   - a file written before `samples_ms` (its `samples` enough): `slower` / `faster` when the
     runs' ranges do not overlap (every NEW sample beyond every BASE sample) or the change is over
     GROSS times the runs' spread (a median of many samples is not moved by a few outliers, as
     the range is), else `unclear`.

The rank test is computed here (mann_whitney_u: scipy's method="asymptotic", tie- and
continuity-corrected; tests/reports/test_verdict.py checks it against scipy where scipy is
installed), so that reading and comparing results needs no scientific stack.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

FASTER, SLOWER, SAME, UNCLEAR = "faster", "slower", "same", "unclear"
VERDICTS = (FASTER, SLOWER, SAME, UNCLEAR)

MIN_SAMPLES = 6  # per side: with 6 and 6 the rank test's smallest two-sided p-value is 0.005; with 5 and 5, 0.012
MIN_HISTORY = 3  # earlier runs of the device holding the case before their spread replaces the allowance
MAD_TO_SIGMA = 1.4826  # the MAD of normal samples is 0.6745 sigma
MEDIAN_SE = 1.2533  # the standard error of the median of n normal samples is sqrt(pi / 2) sigma / sqrt(n)
# With too few samples for the rank test, a change decides only when the ranges do not overlap and
# it is over GROSS times the runs' spread (a 140x slow-down is no noise; 1.5x from 3 samples may be).
GROSS = 10.0
# A busy device-timed run whose median stands more than this far above its fastest sample was
# disturbed too much for its minimum to bound the interference (rule 1): `unclear`.
BUSY_BOUND = 0.5


@dataclass(frozen=True)
class TimingKind:
    """Whose clock a case's time is, and how much two runs of it may differ with nothing changed:
    `allowance` (a fraction: 3.0 is up to 4x apart), or for a median under a band's limit (ms) that
    band's allowance: the shorter the work, the more two runs' medians differ."""

    name: str
    what: str  # in words, for the verdict's reason
    allowance: float
    bands: tuple[tuple[float, float], ...] = ()  # (median under this many ms, allowance), shortest first

    def allowance_for(self, median_ms: float) -> float:
        return next((a for limit, a in self.bands if median_ms < limit), self.allowance)


# The documented allowances (docs/reports.md): the largest change between the two runs of each
# same-build pair of the default suite (tests/reports/fixtures/same-build/: the H200's, with
# samples; docs/results/h100/: results.json and warm-caches.json) with room above it. Device-timed
# medians moved by up to 16.3% under 12 us (reduce at 2^20), 7.3% under 50 us, 1.9% above;
# launch-overhead cases by 1.83x (the H100's pair). The room above 12 us holds a real 3% change on
# top of that spread below the band (1.073 x 1.03 < 1.13, 1.019 x 1.03 < 1.06), so that it is never
# called slower across runs; under 12 us the band stays below 20%, so that a 1.2x change of a run is
# still slower (tests/reports/test_verdict.py). CPU layers, by duration (P29: their threads pinned,
# docs/methodology.md "Host-timed cases"): under 0.1 ms a pass is mostly the OpenMP team's fork and
# join, and three runs of one case on the H100's host differed by 3.17x; under 1 ms the same-build
# pairs moved by up to 2.13x (unpinned); above, by up to 1.41x in the quiet pair of a 2-core machine
# (tests/reports/fixtures/quiet/cpu-2core: memory-bound passes; matmuls within 1.15x, transposes
# within 1.04x) and 1.57x in an earlier pair there the same hour. Each band holds a real 3% change on
# top of those (2.13 x 1.03 < 2.3, 1.57 x 1.03 < 1.7), so that only a change of about 2x or more of a
# CPU case is told from the host's own moves: the host's memory bandwidth, shared with other
# machines, is what moves (one process's repetitions moved by 1.45x).
TIMING_KINDS = {
    "device": TimingKind("device", "device-timed", 0.06, bands=((0.012, 0.18), (0.05, 0.13))),
    "cpu": TimingKind("cpu", "host-timed (a CPU layer)", 0.7, bands=((0.1, 3.0), (1.0, 1.3))),
    "host-feeds-gpu": TimingKind("host-feeds-gpu", "host-timed (the host feeding the GPU)", 1.0),
}


@dataclass(frozen=True)
class Sample:
    """What the rule reads of one side's case."""

    median_ms: float
    samples_ms: Sequence[float] | None = None  # the kept samples (results' samples_ms), or None
    min_ms: float | None = None
    max_ms: float | None = None
    busy: Sequence[str] = ()  # why its machine was busy (results' busy); empty when it was not
    count: int = 0  # how many samples the case took (results' samples), kept or not

    def __post_init__(self) -> None:
        if not self.count and self.samples_ms:
            object.__setattr__(self, "count", len(self.samples_ms))

    def scaled(self, factor: float, busy: Sequence[str] | None = None) -> "Sample":
        """This side as it would read had every sample taken `factor` times as long (and, given
        `busy`, on a machine that busy): what `compare` would say of a known change."""
        times = lambda v: None if v is None else v * factor  # noqa: E731
        return Sample(median_ms=self.median_ms * factor,
                      samples_ms=None if self.samples_ms is None else [v * factor for v in self.samples_ms],
                      min_ms=times(self.min_ms), max_ms=times(self.max_ms),
                      busy=self.busy if busy is None else tuple(busy), count=self.count)


@dataclass(frozen=True)
class Policy:
    """The rule's parameters: `threshold` and `k` are `compare --threshold` (as a fraction) and
    `--noise-k`; `alpha` the rank test's level."""

    threshold: float = 0.05
    k: float = 1.0
    alpha: float = 0.01


@dataclass(frozen=True)
class Decision:
    verdict: str  # one of VERDICTS
    why: str
    ratio: float  # NEW / BASE medians
    noise: float | None  # the combined robust noise (relative), where both sides had samples
    p_value: float | None  # the rank test's, where it ran
    allowance: float  # the runs' spread the change was held to (a fraction)


def mann_whitney_u(x: Sequence[float], y: Sequence[float]) -> float:
    """The two-sided p-value of the Mann-Whitney U test of x against y, by the normal
    approximation with the tie correction and the continuity correction (scipy.stats.mannwhitneyu's
    method="asymptotic", use_continuity=True). 1.0 when every value is equal."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        raise ValueError("the rank test needs samples on both sides")
    values = sorted([(v, 0) for v in x] + [(v, 1) for v in y])
    n = n1 + n2
    rank_sum_x = 0.0
    tie_term = 0.0
    i = 0
    while i < n:  # average ranks over ties
        j = i
        while j + 1 < n and values[j + 1][0] == values[i][0]:
            j += 1
        rank = (i + j) / 2 + 1
        rank_sum_x += rank * sum(1 for m in range(i, j + 1) if values[m][1] == 0)
        t = j - i + 1
        tie_term += t ** 3 - t
        i = j + 1
    u1 = rank_sum_x - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    mu = n1 * n2 / 2
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    if sigma == 0:
        return 1.0
    z = (u - mu - 0.5) / sigma
    return min(1.0, math.erfc(z / math.sqrt(2)))  # 2 × the normal survival function


def robust_noise(samples: Sequence[float]) -> float | None:
    """1.4826 × the median absolute deviation over the median: the samples' spread as a fraction,
    as a standard deviation would be for normal samples, untouched by a few outliers."""
    if len(samples) < 2:
        return None
    median = statistics.median(samples)
    if median <= 0:
        return None
    return MAD_TO_SIGMA * statistics.median(abs(v - median) for v in samples) / median


def median_uncertainty(noise_b: float, count_b: int, noise_n: float, count_n: int) -> float:
    """How well the two runs' medians are known, as a fraction: each run's robust noise times
    MEDIAN_SE over the square root of its sample count, combined as √(u_b² + u_n²)."""
    return MEDIAN_SE * math.hypot(noise_b / math.sqrt(count_b), noise_n / math.sqrt(count_n))


def _pct(fraction: float) -> str:
    return f"{fraction * 100:.3g}%"


def _busy(side: str, s: Sample) -> str:
    return f"{side} ran on a busy machine ({'; '.join(s.busy)})"


def _interference_bound(base: Sample, new: Sample, kind: TimingKind) -> float | None:
    """How much another process on the GPU could have added to the busy runs' medians (rule 1),
    as a fraction: the product over the busy sides of median / min, less one. None where it cannot
    be stated: a host-timed case (the host's scheduler may slow every sample alike), a busy side
    without a recorded minimum, or a bound above BUSY_BOUND."""
    if kind.name != "device":
        return None
    factor = 1.0
    for s in (base, new):
        if not s.busy:
            continue
        if not s.min_ms or s.min_ms <= 0:
            return None
        factor *= max(1.0, s.median_ms / s.min_ms)
    return factor - 1 if factor - 1 <= BUSY_BOUND else None


def decide(base: Sample, new: Sample, kind: TimingKind, policy: Policy = Policy(),
           spread: float | None = None, spread_runs: int = 0) -> Decision:
    """The verdict on one case (the module's docstring says how). `spread` is how much earlier
    runs of this device differed on the case (largest / smallest median − 1) over `spread_runs`
    runs, or None to use the kind's allowance."""
    ratio = new.median_ms / base.median_ms
    change = abs(math.log(ratio))
    if spread is not None:
        allowance, spread_from = spread, f"{spread_runs} earlier runs of this device"
    else:
        allowance = kind.allowance_for(min(base.median_ms, new.median_ms))
        spread_from = f"the allowance for {kind.what} cases" + (
            " of this duration" if allowance != kind.allowance else "")
    allowance = max(allowance, policy.threshold)
    sb = sn = None
    if base.samples_ms and new.samples_ms:
        sb, sn = robust_noise(base.samples_ms), robust_noise(new.samples_ms)
    noise = math.hypot(sb, sn) if sb is not None and sn is not None else None

    def decision(verdict: str, why: str, p: float | None = None) -> Decision:
        return Decision(verdict, why, ratio, noise, p, allowance)

    busy = [_busy(side, s) for side, s in (("BASE", base), ("NEW", new)) if s.busy]
    busy_note = ""
    if busy:
        bound = _interference_bound(base, new, kind)
        if bound is None:
            return decision(UNCLEAR, "; ".join(busy))
        allowance = (1 + allowance) * (1 + bound) - 1
        spread_from += f", widened by {_pct(bound)}: the busy run's median over its fastest sample"
        busy_note = "; ".join(busy) + "; "
    if change <= math.log1p(policy.threshold):
        return decision(SAME, f"{busy_note}within the {_pct(policy.threshold)} threshold")
    direction = SLOWER if ratio > 1 else FASTER
    if change <= math.log1p(allowance):
        return decision(UNCLEAR, f"{busy_note}{kind.what}: runs differ by ±{_pct(allowance)} ({spread_from})")
    beyond = busy_note + "beyond the threshold" + (
        f" and the runs' spread (±{_pct(allowance)})" if allowance > policy.threshold else "")
    recorded = [len(s.samples_ms) if s.samples_ms else 0 for s in (base, new)]
    if min(recorded) >= MIN_SAMPLES:
        p = mann_whitney_u(base.samples_ms or (), new.samples_ms or ())
        if p >= policy.alpha:
            return decision(UNCLEAR, f"{beyond}, but the rank test does not tell the runs apart "
                                     f"(p = {p:.2g} ≥ {policy.alpha:g})", p)
        known = (median_uncertainty(sb, recorded[0], sn, recorded[1])
                 if sb is not None and sn is not None else None)
        if known is not None and change <= policy.k * known:
            return decision(UNCLEAR, f"{beyond}, but within {policy.k:g}× the medians' uncertainty (±{_pct(known)})", p)
        return decision(direction, f"{beyond}, {policy.k:g}× the medians' uncertainty and the rank test (p = {p:.2g})", p)
    low, high = (base, new) if ratio > 1 else (new, base)
    apart = low.max_ms is not None and high.min_ms is not None and high.min_ms > low.max_ms
    if min(base.count, new.count) < MIN_SAMPLES:
        few = f"too few samples for the rank test ({base.count} and {new.count}; {MIN_SAMPLES} needed)"
        if apart and change > math.log((1 + allowance) * GROSS):
            return decision(direction, f"{busy_note}{few}, but the ranges do not overlap and the change is over "
                                       f"{GROSS:g}× the runs' spread")
        return decision(UNCLEAR, f"{beyond}, but {few}")
    # A file written before samples_ms: its recorded range, or a gross change of its median (a
    # median of many samples stands above a few outliers, which a range does not), stands in.
    old = "no samples recorded (a file before samples_ms)"
    if apart:
        return decision(direction, f"{beyond}; {old}, but the runs' ranges do not overlap")
    if change > math.log((1 + allowance) * GROSS):
        return decision(direction, f"{beyond}; {old}, but the change is over {GROSS:g}× the runs' spread")
    return decision(UNCLEAR, f"{beyond}, but {old} and the runs' ranges overlap")
