#!/usr/bin/env python3
"""Atheris (libFuzzer for Python) target for the reports tool's results loader, reports/results.py.

Each input is the bytes of a results file. The target writes them to a file, calls
results.load(path) and, when that returns, runs the Results through what `layerbench csv` and
`layerbench compare` run (csvout.text; compare.compare, to_markdown and summary, against itself and
both ways against a fixed valid file) and through the Results views the report reads. Property
(docs/fuzzing.md):
  - load() returns Results, or raises results.ResultsError whose message is one non-empty line
    starting with "<path>: " (the command line prints it and exits 2);
  - nothing after a successful load raises;
  - anything else (KeyError, TypeError, ValueError, OverflowError, RecursionError, ...) is a
    finding: atheris prints the traceback and writes the input as crash-<sha1>.

Inputs are mutated two ways: atheris's byte-level mutations, and (half of the time, when the input
parses as JSON) structured ones: a key deleted or added, a value replaced by an odd one (null, NaN,
Infinity, negative, huge, a string with a line break, a number of 5000 digits, nesting 900 deep),
an entry duplicated (so repetitions are folded) or given a ladder rung.

Known findings, reported and not yet fixed in reports/, are tolerated unless LB_FUZZ_STRICT=1 (see
KNOWN below and docs/fuzzing.md), so that a CI run fails on new bugs only.

Run: scripts/fuzz.sh (builds the venv with atheris, fuzz/requirements.txt), or
  build-fuzz/venv/bin/python fuzz/fuzz_results_load.py [libFuzzer flags] CORPUS_DIR...
A single input (to reproduce a finding): ... fuzz/fuzz_results_load.py FILE
"""
from __future__ import annotations

import json
import math
import os
import random
import re
import sys
import tempfile
import traceback
from pathlib import Path

import atheris

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

with atheris.instrument_imports():
    from reports import compare, csvout, fmt, results

STRICT = os.environ.get("LB_FUZZ_STRICT", "") not in ("", "0")
WORK = Path(tempfile.mkdtemp(prefix="lb-fuzz-results-"))
INPUT = WORK / "input.json"
BASELINE_FILE = REPO / "fuzz" / "corpus" / "results" / "cpu.json"


KNOWN_DIR = os.environ.get("LB_FUZZ_KNOWN_DIR")  # where the first input of each known finding goes
_noted: set[str] = set()


def note_known(ident: str, data: bytes) -> None:
    """A tolerated known finding: its first input goes to $LB_FUZZ_KNOWN_DIR/<id>, so that a run
    can say which known findings it met (scripts/fuzz.sh prints them)."""
    if KNOWN_DIR and ident not in _noted:
        _noted.add(ident)
        Path(KNOWN_DIR, ident).write_bytes(data)


class Finding(Exception):
    """A broken property that is not an exception of the code under test."""


# --- known findings (tolerated unless LB_FUZZ_STRICT=1) --------------------------------------------
# R1 results._read_json: a JSON number of more than 4300 digits makes json.loads raise ValueError
#    ("Exceeds the limit (4300 digits) for integer string conversion"), which is not wrapped into
#    ResultsError: a traceback instead of one line (fuzz/findings/results-int-4300-digits.json).
# R2 results._cases/_size_of: the error message quotes an entry's "name" as is; a name with a line
#    break gives a message of several lines (fuzz/findings/results-newline-in-message.json).
# R3 an integer too large for a float (beyond ~1.8e308; JSON allows it): OverflowError "int too
#    large to convert to float" wherever such a number meets float arithmetic: results._num (any
#    number field: median_ms, samples, ...), math.isfinite in _size_of (a huge n, m or k, inside
#    load), size_order (the product of a size) (fuzz/findings/results-huge-int.json).
# R4 compare.verdict: math.log of a non-positive ratio (a negative median_ms, or a ratio that
#    underflows to 0): ValueError "math domain error" (fuzz/findings/results-negative-median.json).
# R5 csvout._cell: int(value) of NaN or Infinity (json reads NaN/Infinity literals): ValueError or
#    OverflowError in `layerbench csv` (fuzz/findings/results-nan-field.json).
# R6 compare.to_markdown: workloads.index(...) of a workload that has only ladder-rung cases
#    (e.g. two files from `run --rung ...` without -w): ValueError "... is not in list"
#    (fuzz/findings/results-rung-only.json).
# R7 Results.ladders: rung "number"s of different types (e.g. 2 and "3") cannot be sorted:
#    TypeError (fuzz/findings/results-rung-number-types.json).
def known(exc: BaseException) -> str | None:
    """The id of the known finding this exception is, or None."""
    text = str(exc)
    frames = [f.name for f in traceback.extract_tb(exc.__traceback__)]
    if isinstance(exc, ValueError) and "Exceeds the limit" in text and "_read_json" in frames:
        return "R1"
    if isinstance(exc, OverflowError) and "int too large to convert to float" in text:
        return "R3"
    if isinstance(exc, ValueError) and "math domain error" in text and "verdict" in frames:
        return "R4"
    if isinstance(exc, (ValueError, OverflowError)) and "_cell" in frames:
        return "R5"
    if isinstance(exc, ValueError) and "is not in list" in text and "to_markdown" in frames:
        return "R6"
    if isinstance(exc, TypeError) and "'<' not supported" in text and "ladders" in frames:
        return "R7"
    return None


def _strings(node, out: list[str], depth: int = 0) -> None:
    if depth > 50:
        return
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, dict):
        for k, v in node.items():
            out.append(k)
            _strings(v, out, depth + 1)
    elif isinstance(node, list):
        for v in node:
            _strings(v, out, depth + 1)


def check_error(e: results.ResultsError, data: bytes) -> None:
    message = str(e)
    if not e.what or not message.startswith(f"{INPUT}: "):
        raise Finding(f"ResultsError without the path and a reason: {message!r}")
    if "\n" in message or "\r" in message:
        if not STRICT:  # R2: tolerate line breaks copied from the document's own strings
            try:
                doc = json.loads(data.decode("utf-8"))
            except Exception:
                doc = None
            quoted: list[str] = []
            _strings(doc, quoted)
            covered = [False] * len(message)  # every line break must lie inside a copy of one
            for q in {q for q in quoted if "\n" in q or "\r" in q}:
                at = message.find(q)
                while at >= 0:
                    covered[at:at + len(q)] = [True] * len(q)
                    at = message.find(q, at + 1)
            if all(covered[i] for i, ch in enumerate(message) if ch in "\n\r"):
                note_known("R2", data)
                return
        raise Finding(f"ResultsError message is not one line: {message!r}")


def exercise(r: results.Results, baseline: results.Results | None) -> None:
    """What csv and compare run on a loaded file, and the Results views the report reads."""
    csvout.text(r)
    pairs = [(r, r)] + ([(baseline, r), (r, baseline)] if baseline is not None else [])
    for base, new in pairs:
        c = compare.compare(base, new, threshold=0.05, k=2.0)
        compare.to_markdown(c)
        compare.summary(c)
    for name in ("device_name", "copy_gbps", "cublas_gflops", "cublas_size", "theoretical_gbps",
                 "theoretical_gflops", "gpu_cache_mode", "min_time_s", "layers", "workloads", "not_ok",
                 "ladders", "own_cases"):
        getattr(r, name)
    for w in r.workloads:
        r.figure(w)
        r.is_launch(w)
        for size in r.sizes(w):
            fmt.size_label(size)
            fmt.size_mathtext(size)
        for layer in r.layers:
            r.on_gpu(layer)
            r.layer_info(layer)
            for case in r.of(w, layer, ok_only=True):
                r.find(w, layer, case.size)
    for case in r.cases:
        (case.name, case.key, case.status, case.message, case.noise, case.samples, case.rung_label,
         case.noise_target_missed, case.flops, case.bytes_moved)
        fmt.ms(case.median_ms)
        fmt.noise(case.noise, case.samples)
        fmt.rate(case.get("gbps"))
        fmt.rate(case.get("gflops"))
        fmt.bytes_h(case.bytes_moved)


def _load_baseline() -> results.Results | None:
    try:
        return results.load(BASELINE_FILE)
    except results.ResultsError:
        return None


BASELINE = _load_baseline()


def TestOneInput(data: bytes) -> None:
    INPUT.write_bytes(data)
    try:
        try:
            loaded = results.load(INPUT)
        except results.ResultsError as e:
            check_error(e, data)
            return
        exercise(loaded, BASELINE)
    except Finding:
        raise
    except Exception as e:  # noqa: BLE001 - anything else is a finding, unless known
        ident = None if STRICT else known(e)
        if ident is not None:
            note_known(ident, data)
            return
        raise


# --- structured mutations ------------------------------------------------------------------------
HUGE_INT = "__LB_FUZZ_HUGE_INT__"   # replaced, after json.dumps, by a 5000-digit number
DEEP = "__LB_FUZZ_DEEP__"           # replaced by nesting 900 deep
KEYS = ["context", "benchmarks", "layerbench", "schema_version", "workload", "layer", "name", "n", "m",
        "k", "run_type", "status", "median_ms", "rel_stddev", "samples", "flops", "bytes_moved", "rung",
        "id", "number", "message", "error_occurred", "skipped", "error_message", "device", "ceilings",
        "sgemm_gflops", "sgemm_size", "copy_gbps", "layers", "on_gpu", "workloads", "figure",
        "measurement", "gpu_cache_mode", "min_time_s", "noise_target_reached", "gbps", "gflops"]
ODD = [None, True, False, 0, -1, 1, 2, 3, 1000, -1000, 2 ** 63, -(2 ** 63), 10 ** 30, 0.0, -0.0, 0.5,
       1e-300, 5e-324, 1e308, -1e308, math.nan, math.inf, -math.inf, "", "x", "a\nb", "ok", "failed",
       "skipped", "iteration", "aggregate", "vector_add", "matmul", "launch_async", "cpu", "runtime",
       "1000", "2^20", "1x2x3", "matmul/01_naive", "gbps", "gflops", "us_per_launch", "cold", "hot",
       "vector_add/cpu/1000/manual_time", "matmul/cpu/1x2x3", "a/b/" + "9" * 400, [], {}, [1], {"id": "x"},
       {"id": "matmul/03_smem", "number": 3}, {"id": "matmul/02_x", "number": "2"}, HUGE_INT, DEEP]


def _paths(node, prefix=(), depth=0, out=None):
    out = [] if out is None else out
    out.append(prefix)
    if depth < 6:
        if isinstance(node, dict):
            for k, v in node.items():
                _paths(v, prefix + (k,), depth + 1, out)
        elif isinstance(node, list):
            for i, v in enumerate(node[:20]):
                _paths(v, prefix + (i,), depth + 1, out)
    return out


def _get(node, path):
    for p in path:
        node = node[p]
    return node


def _mutate_tree(doc, rng: random.Random):
    paths = _paths(doc)
    path = rng.choice(paths)
    if not path:
        return rng.choice(ODD) if rng.random() < 0.05 else doc
    parent, key = _get(doc, path[:-1]), path[-1]
    op = rng.randrange(7)
    if op == 0:  # delete
        del parent[key]
    elif op == 1:  # an odd value
        parent[key] = rng.choice(ODD)
    elif op == 2 and isinstance(parent, list):  # duplicate an entry (repetitions get folded)
        parent.insert(rng.randrange(len(parent) + 1), json.loads(json.dumps(parent[key])))
    elif op == 3 and isinstance(parent, dict):  # add a known key
        parent[rng.choice(KEYS)] = rng.choice(ODD)
    elif op == 4:  # a number scaled, negated, or made a string; a string made a number
        v = parent[key]
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            parent[key] = rng.choice([-v, v * 1e300, v / 1e300, str(v), int(v) if math.isfinite(v) else v, [v]])
        elif isinstance(v, str):
            parent[key] = rng.choice([len(v), v + "\n", v.upper(), v[: len(v) // 2], v * 3])
    elif op == 5 and isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list) and doc["benchmarks"]:
        e = rng.choice(doc["benchmarks"])  # give an entry a rung
        if isinstance(e, dict):
            e["rung"] = {"id": f"{e.get('workload', 'matmul')}/0{rng.randrange(10)}_x",
                         "number": rng.choice([rng.randrange(10), str(rng.randrange(10)), None])}
    elif op == 6 and isinstance(parent, dict) and isinstance(key, str):  # rename a key
        parent[rng.choice(KEYS)] = parent.pop(key)
    return doc


def _dump(doc) -> bytes:
    text = json.dumps(doc, indent=rng_indent[0], allow_nan=True)
    text = text.replace(f'"{HUGE_INT}"', "7" * 5000)
    text = text.replace(f'"{DEEP}"', "[" * 900 + "]" * 900)
    return text.encode("utf-8")


rng_indent = [None]


def CustomMutator(data: bytes, max_size: int, seed: int) -> bytes:
    rng = random.Random(seed)
    if rng.random() < 0.5:
        try:
            doc = json.loads(data.decode("utf-8"))
            rng_indent[0] = rng.choice([None, 1])
            for _ in range(rng.randrange(1, 4)):
                doc = _mutate_tree(doc, rng)
            out = _dump(doc)
            if len(out) <= max_size:
                return out
        except (ValueError, RecursionError, TypeError, KeyError, IndexError, OverflowError):
            pass
    return atheris.Mutate(data, max_size)


def main() -> None:
    argv = list(sys.argv)
    # libFuzzer's -merge and -fork run argv[0] again as a command: scripts/fuzz.sh points it at an
    # executable wrapper that runs this file with the venv's Python.
    if os.environ.get("LB_FUZZ_ARGV0"):
        argv[0] = os.environ["LB_FUZZ_ARGV0"]
    atheris.Setup(argv, TestOneInput, custom_mutator=CustomMutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
