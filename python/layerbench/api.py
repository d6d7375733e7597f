"""layerbench from Python: run cases, load a results file, compare two, write a report.

    import layerbench
    r = layerbench.run(workloads=["vector_add"], layers=["cpu"], sizes=[1000])
    print(r.cases[0].verified, r.cases[0].gbps)
    layerbench.compare(layerbench.load("base.json"), r)

The same engine as the command line: run() starts the native `layerbench run` (native.py) with
`-o` to a temporary file and loads it; load() is the reports' one reader (reports/results.py),
which validates the file against the shipped JSON Schema (schemas/results.schema.json). Bad
arguments raise UsageError (a ValueError) naming the bad value, as the command line prints one
line and exits 2. docs/python-api.md is the reference.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import native
from .reports import compare as _compare
from .reports import results as _results


class UsageError(ValueError):
    """A bad argument, named in the message; a results file that cannot be read is one too."""


class RunError(RuntimeError):
    """The native run stopped without results (not a bad argument: a crash, an interrupt)."""


@dataclass(frozen=True)
class Case:
    """One (workload, layer, size) of a results file. A figure the case does not have is None
    (a failed or skipped case, a rate the workload does not report)."""

    workload: str
    layer: str  # with the ladder rung for a rung case: "runtime:03_smem_tiling"
    size: tuple[int, ...]  # (n,), (m, n) or (m, n, k): the workload's size form
    median_ms: float | None
    gbps: float | None
    gflops: float | None
    verified: bool
    status: str  # "ok", "failed", "skipped", ...
    message: str  # why the case is not ok ("" when it is)


class Results:
    """A loaded results file: its cases, as rows, as a pandas DataFrame."""

    def __init__(self, loaded: _results.Results) -> None:
        self._loaded = loaded
        self.cases: list[Case] = [
            Case(workload=c.workload, layer=c.layer_label, size=tuple(c.size), median_ms=c.median_ms,
                 gbps=c.get("gbps"), gflops=c.get("gflops"), verified=c.entry.get("verified") is True,
                 status=c.status, message=c.message)
            for c in sorted(loaded.cases, key=lambda c: c.order)]

    @property
    def path(self) -> Path:
        """The file these results were read from."""
        return Path(self._loaded.path)

    @property
    def context(self) -> dict[str, Any]:
        """The file's context object: the machine, the device, the toolkit, the run's options."""
        return self._loaded.context

    def to_rows(self) -> list[dict[str, Any]]:
        """One dict per case, the fields of Case."""
        return [asdict(c) for c in self.cases]

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (pip install layerbench[pandas])."""
        try:
            import pandas
        except ImportError:
            raise ModuleNotFoundError("Results.to_pandas() needs pandas, which is not installed "
                                      "(pip install pandas, or layerbench[pandas])", name="pandas") from None
        return pandas.DataFrame(self.to_rows())

    def __len__(self) -> int:
        return len(self.cases)

    def __repr__(self) -> str:
        return f"<layerbench.Results {self.path}: {len(self.cases)} cases>"


# --- run -------------------------------------------------------------------------------------------

# Keyword options of run(): name -> (the `layerbench run` flag, its kind). A switch is passed when
# True; a value as its text; a list as comma-separated text; kernel_text as WORKLOAD=FILE pairs.
_SWITCH, _VALUE, _LIST, _PAIRS = "switch", "value", "list", "pairs"
_OPTIONS: dict[str, tuple[str, str]] = {
    "rungs": ("--rung", _LIST),
    "seed": ("--seed", _VALUE),
    "mode": ("--mode", _VALUE),
    "noise": ("--noise", _VALUE),
    "min_samples": ("--min-samples", _VALUE),
    "min_time": ("--min-time", _VALUE),
    "max_time": ("--max-time", _VALUE),
    "thorough": ("--thorough", _SWITCH),
    "to_cap": ("--to-cap", _SWITCH),
    "kernel_cache": ("--kernel-cache", _VALUE),
    "no_kernel_cache": ("--no-kernel-cache", _SWITCH),
    "kernel_text": ("--kernel-text", _PAIRS),
    "devices": ("--devices", _VALUE),
    "concurrent": ("--concurrent", _SWITCH),
    "check": ("--check", _SWITCH),
    "repetitions": ("--benchmark_repetitions", _VALUE),
}


def _names(what: str, value: str | Iterable[str] | None) -> list[str]:
    """A list of names (workloads, layers, rungs), one name alone, or None for the default."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    try:
        items = list(items)
    except TypeError:
        raise UsageError(f"{what}: {value!r} is not a name or a list of names") from None
    if not items:
        raise UsageError(f"{what}: an empty list (leave it out for the default)")
    for item in items:
        if not isinstance(item, str) or not item.strip() or "," in item:
            raise UsageError(f"{what}: {item!r} is not a name")
    return items


def _sizes(value: int | str | Iterable[int | str] | None) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, (int, str)) else value
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


def _option_args(options: dict[str, Any]) -> list[str]:
    args: list[str] = []
    for name, value in options.items():
        if name not in _OPTIONS:
            raise UsageError(f"run(): unknown option {name!r} (known: {', '.join(sorted(_OPTIONS))})")
        flag, kind = _OPTIONS[name]
        if value is None or value is False:
            continue
        if kind == _SWITCH:
            if value is not True:
                raise UsageError(f"run(): {name}={value!r}: True or False")
            args.append(flag)
        elif kind == _LIST:
            args += [flag, ",".join(_names(name, value))]
        elif kind == _PAIRS:
            if not isinstance(value, dict):
                raise UsageError(f"run(): {name}={value!r}: a dict of workload -> kernel file")
            for workload, path in value.items():
                args += [flag, f"{workload}={os.fspath(path)}"]
        else:
            if value is True or isinstance(value, (list, tuple, dict)):
                raise UsageError(f"run(): {name}={value!r}: one value")
            args.append(f"{flag}={value}")  # one word: Google Benchmark's flags take only this form
    return args


def run(workloads: str | Iterable[str] | None = None, layers: str | Iterable[str] | None = None,
        sizes: int | str | Iterable[int | str] | None = None, *, out: str | os.PathLike[str] | None = None,
        **options: Any) -> Results:
    """Runs `layerbench run` on these workloads, layers and sizes (None: the command's default)
    and returns its results. `out` keeps the results file there (else a temporary one, removed);
    `options` are run's other flags by name (seed=1, mode="hot", min_time=0.05, thorough=True,
    rungs=["matmul/all"], kernel_text={"vector_add": "va.cu"}, devices="all", repetitions=3, ...).
    A failed case is in the results (status "failed"); a bad name, size or option raises
    UsageError with the command's one line; a run that wrote no results raises RunError."""
    args = ["run"]
    if workloads is not None:
        args += ["-w", ",".join(_names("workloads", workloads))]
    if layers is not None:
        args += ["-l", ",".join(_names("layers", layers))]
    if sizes is not None:
        args += ["-s", ",".join(_sizes(sizes))]
    args += _option_args(options)
    with tempfile.TemporaryDirectory(prefix="layerbench-") as scratch:
        path = Path(out) if out is not None else Path(scratch) / "results.json"
        try:
            exe = native.executable()
        except native.NotInstalledError as e:
            raise RunError(str(e)) from None
        done = subprocess.run([str(exe), *args, "-o", str(path)], env=native.environment(),
                              capture_output=True, text=True, check=False)
        if done.returncode == 2:
            raise UsageError(_last_line(done.stderr) or f"layerbench {' '.join(args)}: bad input")
        if done.returncode not in (0, 1) or not path.is_file():
            raise RunError(f"layerbench {' '.join(args)} exited with {done.returncode}: "
                           f"{_last_line(done.stderr) or 'no message'}")
        return load(path)


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


# --- load, compare, report -------------------------------------------------------------------------

def load(path: str | os.PathLike[str]) -> Results:
    """Reads a results file (plain or merged), checked against the results schema."""
    try:
        return Results(_results.load(path))
    except _results.ResultsError as e:
        raise UsageError(str(e)) from None


def _loaded(what: str, value: Results) -> _results.Results:
    if not isinstance(value, Results):
        raise UsageError(f"{what}: {value!r} is not a layerbench.Results (layerbench.load(path) reads one)")
    return value._loaded


def compare(base: Results, new: Results, threshold: float = 0.05, k: float = 1.0) -> _compare.Comparison:
    """Case by case, NEW against BASE: the ratio of medians and a verdict (faster, slower, same,
    unclear) and why, by `layerbench compare`'s rule (reports/verdict.py): the threshold, the spread
    between runs of the case's timing kind, a rank test over the kept samples with robust noise,
    and unclear for a case either run's machine was busy on. `threshold` is the smallest change that
    counts (0.05: 5%), `k` how many times the runs' robust noise it must exceed. The Comparison's
    rows (each with its verdict, why, p_value, allowance, timing and busy), only_base, only_new,
    regressed and busy say what changed; compare_markdown(comparison) gives `layerbench compare`'s table."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold < 10:
        raise UsageError(f"compare(): threshold={threshold!r}: a fraction from 0 to 10 (0.05 is 5%)")
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not k > 0:
        raise UsageError(f"compare(): k={k!r}: a number above 0")
    return _compare.compare(_loaded("base", base), _loaded("new", new), threshold=float(threshold), k=float(k))


def compare_markdown(comparison: _compare.Comparison) -> str:
    """The comparison as `layerbench compare` prints it: a Markdown table and a summary."""
    return _compare.to_markdown(comparison)


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
    return _report.write(loaded, out)
