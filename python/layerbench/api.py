"""layerbench from Python: run cases, load a results file, compare two, write a report.

    import layerbench
    r = layerbench.run(workloads=["vector_add"], layers=["cpu"], sizes=[1000])
    print(r.cases[0].verified, r.cases[0].gbps)
    c = layerbench.compare(layerbench.load("base.json"), r, threshold=5)  # percent, as `compare --threshold 5`
    c.fails(on=("slower", "unclear"))  # the gate of `compare --fail-on slower,unclear`

The same engine as the command line: run() starts the native `layerbench run` (native.py), shows its
progress on stderr (or hands each line to a callback) and loads the file it wrote; load() is the
reports' one reader (reports/results.py), which validates the file against the shipped JSON Schema
(schemas/results.schema.json). Bad arguments raise UsageError (a ValueError) naming the bad value,
as the command line prints one line and exits 2; a misspelt keyword is Python's TypeError.
docs/python-api.md is the reference.
"""
from __future__ import annotations

import dataclasses
import errno
import math
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from . import native
from .reports import compare as _compare
from .reports import results as _results
from .reports import verdict as _verdict

__all__ = ["Case", "OneTimeCost", "Results", "Comparison", "ComparisonRow", "NotCompared", "UsageError", "RunError",
           "LayerUnavailableWarning", "ThresholdWarning", "GateVerdict", "run", "load", "compare", "compare_markdown",
           "report"]


class UsageError(ValueError):
    """A bad argument, named in the message; a results file that cannot be read is one too."""


class RunError(RuntimeError):
    """The native run stopped without results (not a bad argument: a crash, an interrupt, no binary)."""


class LayerUnavailableWarning(UserWarning):
    """run() was asked for a layer that ran no case here; the message says why (Results.unavailable)."""


class ThresholdWarning(UserWarning):
    """compare() was given a threshold under 1: it is in percent, so 0.05 is 0.05%, not 5%."""


# The verdicts a gate may fail on (compare's fail_on, Comparison.fails; `compare --fail-on`).
GateVerdict = Literal["slower", "unclear", "faster"]


@dataclass(frozen=True)
class OneTimeCost:
    """A cost the layer paid once (docs/json-schema.md, one_time_costs): an import, a context, a
    compile, a module load. `paid` says when: "layer" when its session opened (before its first
    case; context.layers.<layer>.one_time_costs), "case" during this case."""

    what: str
    ms: float
    kind: str | None  # "import", "context", "compile", "load", "setup"; None in files that lack it
    paid: Literal["layer", "case"]


@dataclass(frozen=True)
class Case:
    """One (workload, layer, size) of a results file. A figure that does not apply to the case is
    None: a failed or skipped case's times, a launch case's gbps and gflops, a bandwidth case's
    us_per_launch, the noise of a case of fewer than two samples."""

    workload: str
    layer: str  # with the ladder rung for a rung case: "runtime:03_smem_tiling"
    size: tuple[int, ...]  # (n,), (m, n) or (m, n, k): the workload's size form
    median_ms: float | None  # the median timed sample
    gbps: float | None
    gflops: float | None
    us_per_launch: float | None  # launch-overhead workloads: median time / launches, microseconds
    verified: bool
    status: str  # "ok", "failed", "skipped", ...
    message: str  # why the case is not ok ("" when it is)
    noise: float | None  # the timed samples' spread, relative (0.02: 2%): robust (MAD) over samples_ms where
    # the file keeps them, else their relative standard deviation; None below two samples
    samples: int | None  # how many timed samples the median is of
    samples_ms: tuple[float, ...] | None  # the timed samples the file keeps (all up to 500, else 500 evenly
    # spaced); None in files written before they were kept
    busy: tuple[str, ...]  # why the machine was busy while the case ran (another process on the GPU, ...)
    repetitions: int  # --benchmark_repetitions folded into this case
    end_to_end_ms: float | None  # one whole call as a user makes it: copies in and out, allocation
    first_run_ms: float | None  # the case's first (untimed) run: one-time work, a JIT
    allocate_ms: float | None  # the case's device allocations
    one_time_costs: tuple[OneTimeCost, ...]  # the layer's (paid "layer") and this case's ("case")


def _rate(c: _results.Case, name: str, amount: float | None) -> float | None:
    """A rate only where the case moves bytes (gbps) or does flops (gflops): a launch case's 0.0 is
    no rate."""
    return c.get(name) if amount else None


def _costs(entries: Any, paid: Literal["layer", "case"]) -> list[OneTimeCost]:
    costs = []
    for e in entries if isinstance(entries, list) else []:
        if isinstance(e, dict) and isinstance(e.get("what"), str) and isinstance(e.get("ms"), (int, float)):
            kind = e.get("kind")
            costs.append(OneTimeCost(what=e["what"], ms=float(e["ms"]), kind=kind if isinstance(kind, str) else None,
                                     paid=paid))
    return costs


def _case(c: _results.Case, loaded: _results.Results) -> Case:
    layer = (loaded.context.get("layers") or {}).get(c.layer)
    layer_costs = _costs(layer.get("one_time_costs") if isinstance(layer, dict) else None, "layer")
    samples = c.entry.get("samples")
    kept = c.samples_ms
    noise = _verdict.robust_noise(kept) if kept else c.noise
    return Case(workload=c.workload, layer=c.layer_label, size=tuple(c.size), median_ms=c.median_ms,
                gbps=_rate(c, "gbps", c.bytes_moved), gflops=_rate(c, "gflops", c.flops),
                us_per_launch=c.get("us_per_launch"), verified=c.entry.get("verified") is True,
                status=c.status, message=c.message, noise=noise,
                samples=samples if isinstance(samples, int) and not isinstance(samples, bool) else None,
                samples_ms=tuple(kept) if kept is not None else None, busy=tuple(c.busy),
                repetitions=c.repetitions, end_to_end_ms=c.get("end_to_end_ms"), first_run_ms=c.get("first_run_ms"),
                allocate_ms=c.get("allocate_ms"),
                one_time_costs=tuple(layer_costs + _costs(c.entry.get("one_time_costs"), "case")))


class Results:
    """A loaded results file: its cases, the layers that could not run, as rows, as a DataFrame."""

    def __init__(self, loaded: _results.Results, *, path: Path | None = None, kept: bool = True) -> None:
        self._loaded = loaded
        ordered = sorted(loaded.cases, key=lambda c: c.order)
        self.cases: list[Case] = [_case(c, loaded) for c in ordered]
        self._of: dict[int, Case] = {id(c): case for c, case in zip(ordered, self.cases)}
        self._path = (path or Path(loaded.path)) if kept else None

    @property
    def path(self) -> Path | None:
        """The file these results were read from; None for run() without `out`, whose file was a
        temporary one, removed (pass out= to keep it)."""
        return self._path

    @property
    def context(self) -> dict[str, Any]:
        """The file's context object: the machine, the device, the toolkit, the run's options."""
        return self._loaded.context

    @property
    def unavailable(self) -> dict[str, str]:
        """Each layer that could not run here, with why ("no CUDA driver (libcuda.so.1 not found)"):
        the file's context.layers_unavailable."""
        found = self._loaded.context.get("layers_unavailable")
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def to_rows(self) -> list[dict[str, Any]]:
        """One dict per case, the fields of Case (one_time_costs as a tuple of dicts)."""
        return [asdict(c) for c in self.cases]

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (pip install layerbench[pandas])."""
        try:
            import pandas  # type: ignore[import-untyped, unused-ignore]
        except ImportError:
            raise ModuleNotFoundError("Results.to_pandas() needs pandas, which is not installed "
                                      "(pip install pandas, or layerbench[pandas])", name="pandas") from None
        return pandas.DataFrame(self.to_rows())

    def __iter__(self) -> Iterator[Case]:
        return iter(self.cases)

    def __len__(self) -> int:
        return len(self.cases)

    def __repr__(self) -> str:
        where = self._path if self._path is not None else "run() results, file not kept"
        return f"<layerbench.Results {where}: {len(self.cases)} cases>"


# --- run -------------------------------------------------------------------------------------------

def _names(what: str, value: str | Iterable[str] | None) -> list[str]:
    """A list of names (workloads, layers, rungs), one name alone, or None for the default."""
    if value is None:
        return []
    items: Any = [value] if isinstance(value, str) else value
    try:
        items = list(items)
    except TypeError:
        raise UsageError(f"{what}: {value!r} is not a name or a list of names") from None
    if not items:
        raise UsageError(f"{what}: an empty list (leave it out for the default)")
    for item in items:
        if not isinstance(item, str) or not item.strip() or "," in item:
            raise UsageError(f"{what}: {item!r} is not a name")
    return list(items)


def _sizes(value: int | str | Iterable[int | str] | None) -> list[str]:
    if value is None:
        return []
    items: Any = [value] if isinstance(value, (int, str)) else value
    try:
        items = list(items)
    except TypeError:
        raise UsageError(f"sizes: {value!r} is not a size or a list of sizes") from None
    if not items:
        raise UsageError("sizes: an empty list (leave it out for each workload's sweep)")
    texts = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise UsageError(f"sizes: {item!r} is not a size (an int, or text such as '2^20' or '64x64x64')")
        text = str(item).strip()
        if not text or "," in text:
            raise UsageError(f"sizes: {item!r} is not a size")
        texts.append(text)
    return texts


def _switch(name: str, value: bool, flag: str) -> list[str]:
    if not isinstance(value, bool):
        raise UsageError(f"run(): {name}={value!r}: True or False")
    return [flag] if value else []


def _value(name: str, value: object, flag: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (bool, list, tuple, dict, set)):
        raise UsageError(f"run(): {name}={value!r}: one value")
    return [f"{flag}={os.fspath(value) if isinstance(value, os.PathLike) else value}"]  # one word: Google Benchmark's form


def _progress_sink(progress: bool | Callable[[str], object]) -> Callable[[str], object]:
    if progress is True:
        return lambda line: print(line, file=sys.stderr, flush=True)
    if progress is False:
        return lambda line: None
    if callable(progress):
        return progress
    raise UsageError(f"run(): progress={progress!r}: True (stderr), False, or a function of one line")


def run(workloads: str | Iterable[str] | None = None, layers: str | Iterable[str] | None = None,
        sizes: int | str | Iterable[int | str] | None = None, *, out: str | os.PathLike[str] | None = None,
        rungs: str | Iterable[str] | None = None, seed: int | None = None, mode: str | None = None,
        noise: float | None = None, min_samples: int | None = None, min_time: float | None = None,
        max_time: float | None = None, thorough: bool = False, to_cap: bool = False,
        kernel_cache: str | os.PathLike[str] | None = None, no_kernel_cache: bool = False,
        kernel_text: Mapping[str, str | os.PathLike[str]] | None = None, devices: str | None = None,
        concurrent: bool = False, check: bool = False, repetitions: int | None = None,
        progress: bool | Callable[[str], object] = True) -> Results:
    """Runs `layerbench run` on these workloads, layers and sizes (None: the command's default) and
    returns its results. Each keyword is `layerbench run`'s flag of that name (docs/python-api.md).
    `out` keeps the results file there; without it the file is a temporary one, removed, and
    Results.path is None. `progress`: True writes the run's progress lines to stderr as they come,
    False hides them, a function gets each line. Each layer of `layers` that ran no case gives a
    LayerUnavailableWarning saying why (Results.unavailable). A failed case is in the results
    (status "failed"); a bad name, size or value raises UsageError with the command's one line; a
    run that wrote no results raises RunError."""
    say = _progress_sink(progress)
    args = ["run"]
    if workloads is not None:
        args += ["-w", ",".join(_names("workloads", workloads))]
    asked_layers = _names("layers", layers)
    if layers is not None:
        args += ["-l", ",".join(asked_layers)]
    if sizes is not None:
        args += ["-s", ",".join(_sizes(sizes))]
    if rungs is not None:
        args += ["--rung", ",".join(_names("rungs", rungs))]
    for name, value, flag in (("seed", seed, "--seed"), ("mode", mode, "--mode"), ("noise", noise, "--noise"),
                              ("min_samples", min_samples, "--min-samples"), ("min_time", min_time, "--min-time"),
                              ("max_time", max_time, "--max-time"), ("kernel_cache", kernel_cache, "--kernel-cache"),
                              ("devices", devices, "--devices"),
                              ("repetitions", repetitions, "--benchmark_repetitions")):
        args += _value(name, value, flag)
    for name, on, flag in (("thorough", thorough, "--thorough"), ("to_cap", to_cap, "--to-cap"),
                           ("no_kernel_cache", no_kernel_cache, "--no-kernel-cache"),
                           ("concurrent", concurrent, "--concurrent"), ("check", check, "--check")):
        args += _switch(name, on, flag)
    if kernel_text is not None:
        if not isinstance(kernel_text, Mapping):
            raise UsageError(f"run(): kernel_text={kernel_text!r}: a dict of workload -> kernel file")
        for workload, path in kernel_text.items():
            args += ["--kernel-text", f"{workload}={os.fspath(path)}"]
    try:
        exe = native.executable()
    except native.NotInstalledError as e:
        raise RunError(str(e)) from None
    with tempfile.TemporaryDirectory(prefix="layerbench-") as scratch:
        path = Path(out) if out is not None else Path(scratch) / "results.json"
        code, lines = _stream([str(exe), *args, "-o", str(path)], say)
        if code == 2:
            raise UsageError(_last_line(lines) or f"layerbench {' '.join(args)}: bad input")
        if code not in (0, 1) or not path.is_file():
            raise RunError(f"layerbench {' '.join(args)} exited with {code}: {_last_line(lines) or 'no message'}")
        loaded = _results.load(path)
        if out is None:  # what the reports print as its file (compare's table): not the removed one
            loaded = dataclasses.replace(loaded, path="run() results, not kept")
        results = Results(loaded, path=path, kept=out is not None)
    for layer in asked_layers:
        if not any(c.layer.split(":", 1)[0] == layer for c in results.cases):
            why = results.unavailable.get(layer, "it runs none of the workloads and sizes asked")
            warnings.warn(f"layerbench.run(): layer {layer!r} ran no case: {why}", LayerUnavailableWarning,
                          stacklevel=2)
    return results


def _stream(command: list[str], say: Callable[[str], object]) -> tuple[int, list[str]]:
    """Runs the command, handing each line of its stderr (the progress, warnings, errors) to `say`
    as it comes; its stdout (the console table) is not kept. Its exit status and stderr's lines."""
    lines: list[str] = []
    with subprocess.Popen(command, env=native.environment(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, errors="replace", bufsize=1) as child:
        assert child.stderr is not None
        try:
            for line in child.stderr:
                line = line.rstrip("\n")
                lines.append(line)
                say(line)
        except BaseException:
            child.wait()  # an interrupt reaches the child too: it ends its sample and writes its file
            raise
        return child.wait(), lines


def _last_line(lines: list[str]) -> str:
    kept = [line for line in lines if line.strip()]
    return kept[-1].strip() if kept else ""


# --- load, compare, report -------------------------------------------------------------------------

def load(path: str | os.PathLike[str]) -> Results:
    """Reads a results file (plain or merged), checked against the results schema. A missing file
    raises FileNotFoundError; one that is no results file, UsageError naming what is wrong."""
    if not isinstance(path, (str, os.PathLike)):
        raise UsageError(f"load(): {path!r} is not a path")
    if not os.path.lexists(path):
        raise FileNotFoundError(errno.ENOENT, "no such results file", os.fspath(path))
    try:
        return Results(_results.load(Path(path)), path=Path(path))
    except _results.ResultsError as e:
        raise UsageError(str(e)) from None


def _loaded(what: str, value: Results) -> _results.Results:
    if not isinstance(value, Results):
        raise UsageError(f"{what}: {value!r} is not a layerbench.Results (layerbench.load(path) reads one)")
    return value._loaded


@dataclass(frozen=True)
class ComparisonRow:
    """One case in both files: NEW's median over BASE's (`ratio`, 1.10 is 10% slower) and the
    verdict, "faster", "slower", "same" or "unclear", with why (docs/reports.md, "Comparing two
    runs"), and what it rests on: the runs' combined robust noise, the rank test's p-value, the
    spread between runs the change was held to, whose clock timed the case, and why either machine
    was busy."""

    base: Case
    new: Case
    ratio: float
    noise: float | None  # the two runs' combined robust noise (relative); None where either had no samples
    verdict: Literal["faster", "slower", "same", "unclear"]
    why: str
    p_value: float | None  # the rank test's over the samples, where it ran
    allowance: float  # the spread between runs the change was held to (a fraction, at least the threshold)
    timing: str  # whose clock: "device", "cpu" or "host-feeds-gpu"
    busy: tuple[str, ...]  # why either run's machine was busy ("BASE: ..."): unclear if host-timed, else a wider allowance


@dataclass(frozen=True)
class NotCompared:
    """A case in both files that has no ratio: one of them failed or was skipped, or has no time."""

    base: Case
    new: Case
    why: str


@dataclass(frozen=True)
class Comparison:
    """compare()'s answer: `rows` (the cases both files ran, in BASE's order), `only_base` and
    `only_new` (cases in one file alone), `not_compared`, the `threshold` (percent), `k` and
    `alpha` it was judged with, and `fail_on` (the verdicts that fail its gate); count(verdict),
    `regressed` (any "slower"), fails() and failing() (the gate, as `compare --fail-on`), `busy` (the
    rows run on a busy machine) and to_markdown() (`layerbench compare`'s table)."""

    rows: tuple[ComparisonRow, ...]
    only_base: tuple[Case, ...]
    only_new: tuple[Case, ...]
    not_compared: tuple[NotCompared, ...]
    threshold: float
    k: float
    alpha: float
    fail_on: tuple[GateVerdict, ...]
    _source: _compare.Comparison = field(repr=False, compare=False)

    def count(self, verdict: str) -> int:
        """How many rows have this verdict."""
        return sum(1 for row in self.rows if row.verdict == verdict)

    @property
    def regressed(self) -> bool:
        """True when a case got slower (what makes `layerbench compare` exit 1)."""
        return self.count("slower") > 0

    def failing(self, on: str | Iterable[str] | None = None) -> tuple[ComparisonRow, ...]:
        """The rows whose verdict fails the gate: a verdict of `on` ("slower", "unclear", "faster";
        a list, or names separated by commas), or of `fail_on` when `on` is None. UsageError naming
        a bad verdict."""
        verdicts = self.fail_on if on is None else _gate_verdicts("Comparison.failing()", on)
        return tuple(row for row in self.rows if row.verdict in verdicts)

    def fails(self, on: str | Iterable[str] | None = None) -> bool:
        """True when a row's verdict is one of `on` (None: `fail_on`): what makes `layerbench
        compare --fail-on ...` exit 1. fails() with the default fail_on is `regressed`;
        fails(on=("slower", "unclear")) also fails on what could not be decided."""
        return bool(self.failing(on))

    @property
    def busy(self) -> tuple[ComparisonRow, ...]:
        """The rows either of whose runs was on a busy machine (host-timed: unclear; device-timed:
        held to a spread widened by the busy run's median over its fastest sample)."""
        return tuple(row for row in self.rows if row.busy)

    def to_markdown(self) -> str:
        """The comparison as `layerbench compare` prints it: a Markdown table and a summary."""
        return _compare.to_markdown(self._source)


def _number(what: str, value: object, low: float, high: float, hint: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value < high:
        raise UsageError(f"compare(): {what}={value!r}: {hint}")
    return float(value)


def _gate_verdicts(what: str, value: object) -> tuple[GateVerdict, ...]:
    if not isinstance(value, (str, Iterable)):
        raise UsageError(f"{what}: {value!r}: verdicts (\"slower,unclear\", or a list of them)")
    try:
        verdicts = _compare.fail_on_verdicts(value)
    except ValueError as e:
        raise UsageError(f"{what}: {e}") from None
    return verdicts  # type: ignore[return-value]  # fail_on_verdicts keeps GATE_VERDICTS only


def compare(base: Results, new: Results, *, threshold: float = 5.0, k: float = 1.0, alpha: float = 0.01,
            fail_on: str | Iterable[str] = ("slower",)) -> Comparison:
    """Case by case, NEW against BASE: the ratio of medians and a verdict (faster, slower, same,
    unclear), as `layerbench compare` (docs/reports.md, "Comparing two runs"). `threshold` is the
    smallest change that counts, in percent (5: 5%, the command's --threshold 5; one under 1 gives
    a ThresholdWarning: 0.05 is 0.05%); `k` how many times the uncertainty of the two medians a
    change must exceed (--noise-k); `alpha` the rank test's level; `fail_on` the verdicts that fail the gate
    (--fail-on: "slower", "unclear", "faster"; a list, or names separated by commas), which
    Comparison.fails() and to_markdown() go by."""
    percent = _number("threshold", threshold, 0, 1000, "a percentage from 0 to 1000 (5 is 5%)")
    small = _compare.small_threshold(percent)
    if small:
        warnings.warn(f"layerbench.compare(): threshold={small}", ThresholdWarning, stacklevel=2)
    gate = _gate_verdicts("compare(): fail_on", fail_on)
    times = _number("k", k, 0, math.inf, "a number above 0")
    if times == 0:
        raise UsageError(f"compare(): k={k!r}: a number above 0")
    level = _number("alpha", alpha, 0, 1, "a level between 0 and 1 (0.01)")
    if level == 0:
        raise UsageError(f"compare(): alpha={alpha!r}: a level between 0 and 1 (0.01)")
    source = _compare.compare(_loaded("base", base), _loaded("new", new), threshold=percent / 100, k=times,
                              alpha=level, fail_on=gate)
    case = {**base._of, **new._of}
    return Comparison(
        rows=tuple(ComparisonRow(base=case[id(r.base)], new=case[id(r.new)], ratio=r.ratio, noise=r.noise,
                                 verdict=r.verdict, why=r.why, p_value=r.p_value,  # type: ignore[arg-type]
                                 allowance=r.allowance, timing=r.timing, busy=tuple(r.busy))
                   for r in source.rows),
        only_base=tuple(case[id(c)] for c in source.only_base),
        only_new=tuple(case[id(c)] for c in source.only_new),
        not_compared=tuple(NotCompared(base=case[id(b)], new=case[id(n)], why=why) for b, n, why in source.not_compared),
        threshold=percent, k=times, alpha=level, fail_on=gate, _source=source)


def compare_markdown(comparison: Comparison) -> str:
    """The comparison as `layerbench compare` prints it (the same as comparison.to_markdown())."""
    if not isinstance(comparison, Comparison):
        raise UsageError(f"compare_markdown(): {comparison!r} is not a layerbench.Comparison")
    return comparison.to_markdown()


def report(results: Results, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Writes the report of `results` (report.md, report.html, plots/) into out_dir, as
    `layerbench report`; returns the files written. Needs matplotlib (layerbench[reports])."""
    loaded = _loaded("results", results)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UsageError(f"report(): {out}: exists and is not a folder")
    try:
        from .reports import report as _report  # imports matplotlib
    except ImportError as e:
        raise ModuleNotFoundError(f"layerbench.report() needs {e.name or 'matplotlib'}, which is not installed "
                                  "(pip install layerbench[reports])", name=e.name) from None
    written: list[Path] = _report.write(loaded, out)
    return written
