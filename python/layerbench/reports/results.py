"""Loading and validating a layerbench results file (docs/json-schema.md, schema versions 1 and 2).

A results file is Google Benchmark's layout (`context`, `benchmarks`) with layerbench's fields
beside Google Benchmark's. Only `benchmarks` entries with run_type "iteration" are cases;
aggregate entries (mean, median, stddev, cv with --benchmark_repetitions) are ignored, and the
repetitions of one case are folded into one case (see `_fold`).

What a workload is comes from the file: the harness writes each workload's descriptor under
context.workloads.<name> (its figure, summary, size form, buffers, vendor routine, ladder default;
workloads/workload.h). `describe` reads it into a Descriptor, and everything else in the reports
asks that object (Results.descriptor, Results.figure) instead of comparing workload names. Files
written before the descriptors existed fall back on one table, `_BEFORE_DESCRIPTORS`, the only
place that knows workloads by name. Likewise whether each layer runs on the GPU is read from
context.layers.<layer>.on_gpu, and guessed from the name only for version-1 files.

A merged file (`layerbench merge`, python/layerbench/reports/merge.py) holds the runs of several GPUs, hosts or
tasks: context.merged.runs lists them (run id, file, whole context) and each benchmarks[] entry
names its run in "run". It loads as one Results whose cases each carry their run id (Case.run;
"" in a plain file); Results.runs lists the runs and Results.for_run(run) is one run alone, with
its own context, as if read from its own file.

Every problem with the input raises ResultsError, whose text is one line naming the file and
what is wrong; the command line prints it and exits 2.
"""
from __future__ import annotations

import json
import math
import statistics
from dataclasses import field
from pathlib import Path
from typing import Any

# The reader's parts, re-exported here: `results` is the one name the reports and tools import.
from .errors import ResultsError, one_line
from .descriptors import FIGURES, RATES, SIZE_FORMS, Buffer, Descriptor, Vendor, describe
from .cases import Case, Results, _complete, _message, _num, _status, size_order
from . import schema

__all__ = ["ResultsError", "one_line", "FIGURES", "RATES", "SIZE_FORMS", "Buffer", "Descriptor", "Vendor",
           "describe", "Case", "Results", "size_order", "SCHEMA_VERSIONS", "NUMBER_FIELDS", "MAX_MS",
           "load", "read", "read_json", "from_data"]


SCHEMA_VERSIONS = (1, 2)
# The numbers a case's figures come from: each, where present and not null, must be a number, at
# least 0; a time (…_ms) at most MAX_MS. The harness writes null for a number it does not have.
NUMBER_FIELDS = ("median_ms", "mean_ms", "min_ms", "max_ms", "end_to_end_ms", "allocate_ms", "first_run_ms",
                 "rel_stddev", "samples", "gbps", "gflops", "us_per_launch", "bytes_moved", "flops",
                 "fraction_of_copy", "n", "m", "k")
MAX_MS = 1e12  # about 30 years: a larger time is no measurement (and overflows the plots' axes)


# --- loading ---------------------------------------------------------------------------------

def load(path: str | Path) -> Results:
    """Reads, checks and loads a results file (plain or merged)."""
    return from_data(path, read(path))


def read(path: str | Path) -> dict[str, Any]:
    """The file's JSON, checked to be a layerbench results file (layout, schema version, and for a
    merged file its runs), otherwise as written; `from_data` makes the Results."""
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise ResultsError(path, f"JSON, but not a layerbench results file (the top level is "
                                 f"{_json_type(data)}, expected an object with \"context\" and \"benchmarks\")")
    missing = [k for k in ("context", "benchmarks") if k not in data]
    if missing:
        raise ResultsError(path, "JSON, but not a layerbench results file (no " +
                           " and no ".join(f'"{k}"' for k in missing) + ": not Google Benchmark's layout)")
    context, benchmarks = data["context"], data["benchmarks"]
    if not isinstance(context, dict) or not isinstance(benchmarks, list):
        raise ResultsError(path, "not a layerbench results file (\"context\" must be an object and "
                                 "\"benchmarks\" a list)")
    lb = context.get("layerbench")
    if not isinstance(lb, dict):
        raise ResultsError(path, "a Google Benchmark results file not written by layerbench "
                                 "(no context.layerbench)")
    version = lb.get("schema_version")
    if version is None:
        raise ResultsError(path, "no context.layerbench.schema_version; cannot tell which layout it has")
    if version not in SCHEMA_VERSIONS or isinstance(version, bool):
        raise ResultsError(path, f"unknown layerbench schema version {json.dumps(version)} "
                                 f"(this tool reads versions {', '.join(map(str, SCHEMA_VERSIONS))})")
    if "merged" in context:
        _check_merged(path, context["merged"], benchmarks)
    return data


def _check_merged(path: Path, merged: Any, benchmarks: list[Any]) -> None:
    """A merged file's context.merged.runs: a list of runs, each with a run id of its own and a
    context; every benchmarks[] entry names one of them in "run"."""
    runs = merged.get("runs") if isinstance(merged, dict) else None
    if not isinstance(runs, list) or not runs:
        raise ResultsError(path, "context.merged has no list of runs (\"runs\"): "
                                 "not a file written by layerbench merge")
    ids: set[str] = set()
    for index, run in enumerate(runs):
        where = f"context.merged.runs[{index}]"
        if not isinstance(run, dict) or not isinstance(run.get("run"), str) or not run["run"]:
            raise ResultsError(path, f"{where} has no run id (\"run\", a string)")
        if not isinstance(run.get("context"), dict):
            raise ResultsError(path, f"{where} ({run['run']}) has no context (an object)")
        if run["run"] in ids:
            raise ResultsError(path, f"{where}: run {run['run']} is listed twice")
        ids.add(run["run"])
    for index, entry in enumerate(benchmarks):
        if not isinstance(entry, dict):
            continue  # named by _cases
        run = entry.get("run")
        if not isinstance(run, str) or run not in ids:
            what = ("names no run (\"run\")" if not isinstance(run, str)
                    else f"names run {run}, which context.merged.runs does not list")
            raise ResultsError(path, f"benchmarks[{index}] ({entry.get('name', 'no name')}) {what}")


def from_data(path: str | Path, data: dict[str, Any]) -> Results:
    """The Results of a file's JSON as `read` returned it."""
    path = Path(path)
    context, benchmarks = data["context"], data["benchmarks"]
    recorded = context.get("workloads") if isinstance(context.get("workloads"), dict) else {}
    merged = "merged" in context
    if merged:  # what a workload is: the first run that describes it
        for run in context["merged"]["runs"]:
            more = run["context"].get("workloads")
            if isinstance(more, dict):
                recorded = {**more, **recorded}
    names = list(dict.fromkeys([e["workload"] for e in benchmarks if isinstance(e, dict)
                                and isinstance(e.get("workload"), str)] + list(recorded)))
    descriptors = {name: describe(name, recorded.get(name)) for name in names}
    cases, notes = _cases(path, benchmarks, descriptors, merged)
    # What the checks above, which name the case, leave: the rest of schemas/results.schema.json.
    if why := schema.violation(data):
        raise ResultsError(path, f"does not match the results schema ({schema.SCHEMA_FILE.name}) at {why}")
    for name, d in descriptors.items():
        descriptors[name] = _complete(d, [c.size for c in cases if c.workload == name])
    ran = {c.workload for c in cases}
    older = [n for n, d in descriptors.items() if n in ran and d.source == "fallback"]
    unknown = [n for n, d in descriptors.items() if n in ran and not d.known]
    if older:
        notes.append(f"This results file was written before the harness recorded each workload's descriptor "
                     f"(context.workloads holds at most a figure and a summary): {', '.join(older)} "
                     f"{'are' if len(older) > 1 else 'is'} read as the harness described "
                     f"{'them' if len(older) > 1 else 'it'} then.")
    if unknown:
        notes.append(f"This results file does not say what {', '.join(unknown)} "
                     f"{'are' if len(unknown) > 1 else 'is'} (no figure in context.workloads): "
                     f"{'their' if len(unknown) > 1 else 'its'} cases are listed, not drawn.")
    return Results(path=str(path), context=context, cases=cases, notes=notes, descriptors=descriptors)


def read_json(path: str | Path) -> Any:
    """Any JSON file of ours (a results file, a lab's grade, a timing record), read as the results
    are: a missing, unreadable, empty, binary, truncated or invalid file is a ResultsError, one line."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ResultsError(path, "no such file") from None
    except IsADirectoryError:
        raise ResultsError(path, "is a directory, not a results file") from None
    except OSError as e:
        raise ResultsError(path, f"cannot read it ({e.strerror or e})") from None
    if not raw.strip():
        raise ResultsError(path, "empty file, not a layerbench results file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ResultsError(path, "not a JSON text file (not UTF-8; binary?)") from None
    try:
        return json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as e:
        rest = text[e.pos:]
        if not rest.strip() or (e.msg.startswith("Unterminated string") and '"' not in rest[1:]):
            end = text.rstrip().count("\n") + 1
            raise ResultsError(path, f"truncated JSON: the text ends at line {end} before the "
                                     f"document is complete") from None
        raise ResultsError(path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise ResultsError(path, "not a layerbench results file (JSON nested too deeply)") from None


def _json_int(digits: str) -> int | float:
    """A JSON integer: a Python int, or beyond 300 digits (no count, size or seed is that long) a
    float, inf past ~1.8e308, read as not measured. So no integer too large for float arithmetic
    (OverflowError) or for Python's 4300-digit int() limit (ValueError) reaches the tool."""
    return int(digits) if len(digits) <= 300 else float(digits)


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    return "a number"


def _size_of(path: Path, index: int, entry: dict[str, Any], d: Descriptor) -> tuple[int, ...]:
    """The case's size in its workload's size form (the fields Descriptor.size_keys names); for a
    workload whose form the file does not give, the fields m, n, k it has; else from its name."""
    def as_int(name: str) -> int | None:
        value = entry.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None
        return int(value)

    def in_range(size: tuple[int, ...]) -> tuple[int, ...]:
        if any(abs(v) >= 2 ** 63 for v in size):  # the harness's sizes are int64
            raise ResultsError(path, f"benchmarks[{index}] ({entry.get('name', 'no name')}) has a size "
                                     f"out of range ({'x'.join(str(v) for v in size)[:60]})")
        return size

    keys = d.size_keys if d.size_form in SIZE_FORMS else tuple(k for k in ("m", "n", "k") if as_int(k) is not None)
    given = tuple(v for k in keys if (v := as_int(k)) is not None)
    if "n" in keys and len(given) == len(keys):
        return in_range(given)
    # Fall back on the name: <workload>/<layer>/<size>/manual_time
    parts = str(entry.get("name", "")).split("/")
    if len(parts) >= 3:
        try:
            return in_range(tuple(int(p) for p in parts[2].split("x")))
        except ValueError:
            pass
    wanted = ", ".join(d.size_keys) if d.size_form in SIZE_FORMS else "n, or m, n and k"
    raise ResultsError(path, f"benchmarks[{index}] ({entry.get('name', 'no name')}) has no size "
                             f"(no {wanted})")


def _check_numbers(path: Path, index: int, entry: dict[str, Any]) -> None:
    """A wrong type or an impossible value in a field the figures come from is bad input, named, not
    a figure silently left out (or a traceback further on)."""
    for name in NUMBER_FIELDS:
        value = entry.get(name)
        if value is None:
            continue
        where = f"benchmarks[{index}] ({entry.get('name', 'no name')}): \"{name}\" is"
        shown = json.dumps(value)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ResultsError(path, f"{where} {_json_type(value)} {shown}, expected a number")
        if not math.isfinite(value):
            continue  # NaN and infinities: read as not measured, as null is
        if value < 0:
            raise ResultsError(path, f"{where} {shown}, below 0")
        if name in ("n", "m", "k") and (value != int(value) or value >= 2 ** 63):
            raise ResultsError(path, f"{where} {shown}, not a size (a whole number below 2^63)")
        if name.endswith("_ms") and value > MAX_MS:
            raise ResultsError(path, f"{where} {shown} ms, more than {MAX_MS:g} ms: not a measured time")


def _cases(path: Path, benchmarks: list[Any], descriptors: dict[str, Descriptor],
           merged: bool = False) -> tuple[list[Case], list[str]]:
    """The cases of benchmarks[]: repetitions of one case folded; in a merged file, per run."""
    groups: dict[tuple, list[tuple[int, dict]]] = {}
    aggregates = 0
    for index, entry in enumerate(benchmarks):
        if not isinstance(entry, dict):
            raise ResultsError(path, f"benchmarks[{index}] is {_json_type(entry)}, not an object")
        run_type = entry.get("run_type", "iteration")
        if run_type == "aggregate":
            aggregates += 1
            continue
        if run_type != "iteration":
            raise ResultsError(path, f"benchmarks[{index}] has an unknown run_type {json.dumps(run_type)}")
        workload, layer = entry.get("workload"), entry.get("layer")
        if not (isinstance(workload, str) and workload and isinstance(layer, str) and layer):
            raise ResultsError(path, f"benchmarks[{index}] ({entry.get('name', 'no name')}) has no "
                                     f"workload or layer: not written by layerbench")
        _check_numbers(path, index, entry)
        size = _size_of(path, index, entry, descriptors.get(workload) or describe(workload, None))
        rung = entry.get("rung")
        if not isinstance(rung, dict):
            rung = {}
        run = entry["run"] if merged else ""
        groups.setdefault((run, workload, layer, size, str(rung.get("id", ""))), []).append((index, entry))

    cases = []
    folded = 0
    for order, ((run, workload, layer, size, _rung), entries) in enumerate(groups.items()):
        if len(entries) == 1:
            cases.append(Case(workload, layer, size, dict(entries[0][1]), order, run=run))
        else:
            folded += 1
            cases.append(Case(workload, layer, size, _fold([e for _, e in entries]), order,
                              repetitions=len(entries), run=run))
    notes = []
    if aggregates:
        notes.append(f"{aggregates} aggregate entries (Google Benchmark's mean/median/stddev/cv "
                     f"over repetitions) were ignored; the cases come from the iteration entries.")
    if folded:
        notes.append(f"{folded} cases ran more than once (--benchmark_repetitions): each was folded "
                     f"into one, its median the median of the repetitions' medians and its noise the "
                     f"larger of the repetitions' own spread and the spread between them.")
    return cases, notes


def _fold(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Repetitions of one case -> one entry. The median is the median of the repetitions'
    medians; the noise (rel_stddev) is the larger of the typical spread within a repetition and
    the spread of the medians between repetitions; the other fields come from the repetition whose
    median is the folded median (the lower middle one for an even count)."""
    # (median, entry) of the ok repetitions, by median
    ok = sorted(((m, e) for e in entries if _status(e) == "ok" and (m := _num(e.get("median_ms"))) is not None),
                key=lambda pair: pair[0])
    if not ok:
        return dict(entries[-1])
    middle = ok[(len(ok) - 1) // 2][1]
    folded = dict(middle)
    medians = [m for m, _ in ok]
    median = statistics.median(medians)
    folded["median_ms"] = median
    within = [rel for _, e in ok if (rel := _num(e.get("rel_stddev"))) is not None]
    between = (statistics.stdev(medians) / statistics.mean(medians)
               if len(medians) >= 2 and statistics.mean(medians) > 0 else 0.0)
    folded["rel_stddev"] = max([between] + ([statistics.median(within)] if within else []))
    if median and median > 0:
        bytes_moved, flops = _num(folded.get("bytes_moved")), _num(folded.get("flops"))
        if bytes_moved is not None:
            folded["gbps"] = bytes_moved / (median * 1e6)
        if flops is not None:
            folded["gflops"] = flops / (median * 1e6)
    pooled = [v for _, e in ok if isinstance(e.get("samples_ms"), list) for v in e["samples_ms"]]
    if pooled:  # the rank test reads every repetition's samples
        folded["samples_ms"] = pooled
    folded["repetitions_folded"] = len(entries)
    failed = [e for e in entries if _status(e) != "ok"]
    if failed:  # a repetition that failed makes the case failed: never hide it
        folded["status"] = _status(failed[0])
        folded["message"] = _message(failed[0])
    return folded
