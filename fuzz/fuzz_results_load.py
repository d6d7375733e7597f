#!/usr/bin/env python3
"""Atheris (libFuzzer for Python) target for the reports tool's results loader, python/layerbench/reports/results.py.

Each input is the bytes of a results file. The target writes them to a file, calls
results.load(path) and, when that returns, runs the Results through what `layerbench csv` and
`layerbench compare` run (csvout.text; compare.compare, to_markdown and summary, against itself and
both ways against a fixed valid file, also with extreme medians) and through the Results views the
report reads. Property (docs/fuzzing.md):
  - load() returns Results, or raises results.ResultsError whose message is one non-empty line
    starting with "<path>: " (the command line prints it and exits 2);
  - nothing after a successful load raises;
  - anything else (KeyError, TypeError, ValueError, OverflowError, RecursionError, ...) is a
    finding: atheris prints the traceback and writes the input as crash-<sha1>.

Inputs are mutated two ways: atheris's byte-level mutations, and (half of the time, when the input
parses as JSON) structured ones: a key deleted or added, a value replaced by an odd one (null, NaN,
Infinity, negative, huge, a string with a line break, a number of 5000 digits, nesting 900 deep),
an entry duplicated (so repetitions are folded) or given a ladder rung.

What it found (fuzz/findings/README.md), fixed in 3359130 (and R5 in 3e0b16f): integers past
Python's 4300-digit limit or a float's range, a line break in a quoted name, a ratio of medians
of 0, compare of rung-only files, rung numbers of mixed types, NaN in csv. The reproducers in
fuzz/findings/results/ are seeds of every run (scripts/fuzz.sh): a regression is a finding again.

Run: scripts/fuzz.sh (builds the venv with atheris, fuzz/requirements.txt), or
  build-fuzz/venv/bin/python fuzz/fuzz_results_load.py [libFuzzer flags] CORPUS_DIR...
A single input (to reproduce a finding): ... fuzz/fuzz_results_load.py FILE
"""
from __future__ import annotations

import json
import math
import os
import random
import sys
import tempfile
from pathlib import Path

import atheris

REPO = Path(__file__).resolve().parent.parent
# The package comes from PYTHONPATH, which scripts/fuzz.sh's wrapper sets: python/ of this tree, or
# of $LB_FUZZ_ROOT (another tree, e.g. one with a proposed fix applied).

with atheris.instrument_imports():
    from layerbench.reports import compare, csvout, fmt, results

WORK = Path(tempfile.mkdtemp(prefix="lb-fuzz-results-"))
INPUT = WORK / "input.json"
BASELINE_FILE = REPO / "fuzz" / "corpus" / "results" / "cpu.json"


class Finding(Exception):
    """A broken property that is not an exception of the code under test."""


def check_error(e: results.ResultsError, data: bytes) -> None:
    message = str(e)
    if not e.what or not message.startswith(f"{INPUT}: "):
        raise Finding(f"ResultsError without the path and a reason: {message!r}")
    if "\n" in message or "\r" in message:
        raise Finding(f"ResultsError message is not one line: {message!r}")


def exercise(r: results.Results, baselines: list[results.Results]) -> None:
    """What csv and compare run on a loaded file, and the Results views the report reads."""
    csvout.text(r)
    pairs = [(r, r)] + [(b, r) for b in baselines] + [(r, b) for b in baselines]
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


def _baselines() -> list[results.Results]:
    """The other side of compare: the harness's cpu.json as written, and as if its medians were the
    largest and the smallest a file may hold (the ratio of medians then over- and underflows)."""
    found = []
    for median in (None, 1e12, 5e-324):
        try:
            r = results.load(BASELINE_FILE)
        except results.ResultsError:
            return []
        if median is not None:
            for case in r.cases:
                case.entry["median_ms"] = median
        found.append(r)
    return found


BASELINES = _baselines()


def TestOneInput(data: bytes) -> None:
    INPUT.write_bytes(data)
    try:
        try:
            loaded = results.load(INPUT)
        except results.ResultsError as e:
            check_error(e, data)
            return
        exercise(loaded, BASELINES)
    except Finding:
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
