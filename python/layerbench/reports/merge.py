"""`layerbench merge A.json B.json ... -o ALL.json`: the results of several GPUs, hosts or tasks
(one `layerbench run` each) in one file, which `report` and `compare` read like any other.

Each input is one run: one process on one GPU (or on a machine without one), on one host, in one
task. A run is named by its RUN_ID:

    RUN_ID = <host>/<device>/<run>

    host    context.host_name (else context.host.hostname, else "unknown-host")
    device  context.device.uuid, else context.device.pci_bus_id, else "cpu" (no device)
    run     context.run_id: 32 hex digits drawn at random when the run started, which no other
            run shares (two runs of one machine in the same second included). Files written
            before the harness recorded it: the task, with a Slurm id in context.task
            job<J>.<T>, where J is slurm_array_job_id, else slurm_job_id, and T is
            slurm_array_task_id, else slurm_procid ("job<J>" without a T, "task<T>" without a
            J); without one, the run's context.date

("/" inside a part is written "_", so the last "/" always starts the run.) Two runs with one
RUN_ID (the same run_id: a file and its copy, or a run a merged input already holds; in older
files the same host, GPU and task, or date) are refused, naming both files; so is one file given
twice. The merged file:

    {"context": <the first run's context, whole, so that code reading one context keeps working>
                + "merged": {"runs": [{"run": RUN_ID, "file": "<path as given>",
                                       "context": <that run's whole context>}, ...]},
     "benchmarks": [<every entry of every input, unchanged, plus "run": RUN_ID>, ...]}

An input that is itself a merged file brings its runs (flattened: their run ids, files and
contexts as it recorded them) and its entries as they are. No entry is dropped: the output holds
exactly the inputs' entries, run by run in the order given. Within one run a case name may appear
more than once only as Google Benchmark's repetitions (iteration entries with distinct
repetition_index) and aggregates (distinct aggregate_name); another repeat is refused, naming it.
`python/layerbench/reports/results.py` reads a merged file (Case.run, Results.runs, Results.for_run); docs/fleet.md.
"""
from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from . import document, fleet, output, results
# merge.run_id and the other names of a run, kept here too (run_ids.py is where they are made).
from .run_ids import device_id, host_id, machine_id, run_id, run_part, task_id  # noqa: F401

PROG = "layerbench merge"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "merge", help="merge the results of several GPUs, hosts or tasks into one file",
        description="Merge results files of several runs (one per GPU, host or Slurm task) into one "
                    "file that report and compare read. Each run is named <host>/<device>/<run id> "
                    "(docs/fleet.md); a run given twice, or two runs with one name, are refused.",
        epilog="Exit status: 0 written; 2 bad input (one line on stderr). See docs/fleet.md.")
    p.add_argument("inputs", metavar="RESULTS.json", nargs="+",
                   help="results files written by `layerbench run` (or by merge: their runs are taken in)")
    p.add_argument("--out", "-o", metavar="ALL.json", required=True, help="the merged file to write")
    p.add_argument("--side-by-side", action="store_true",
                   help="then print the runs side by side (Markdown): one row per case, one column per run, "
                        "outliers flagged (with 3 runs or more; the output says how) as `report` shows them")
    p.set_defaults(run=run)


# --- merging ---------------------------------------------------------------------------------

def _same_file(a: str, b: str) -> bool:
    if Path(a).resolve() == Path(b).resolve():
        return True
    try:
        return Path(a).exists() and Path(b).exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _not_over_input(out: str, inputs: list[str]) -> None:
    """Refuses an --out that is one of the files being read: writing there would destroy it."""
    if out == output.STANDARD_OUTPUT:
        return
    for path in inputs:
        if _same_file(out, path):
            which = "a results file" if out == path else f"the same file as {path}, a results file"
            raise results.ResultsError(out, f"is {which} being merged; writing there would destroy it "
                                            f"(pick another --out)")


def _once_each(inputs: list[str]) -> None:
    for j, later in enumerate(inputs):
        for earlier in inputs[:j]:
            if _same_file(earlier, later):
                also = "" if earlier == later else f" (also as {earlier})"
                raise results.ResultsError(later, f"is given twice{also}; merge each results file once")


def _entry_key(entry: dict[str, Any]) -> tuple:
    """What tells two entries of one run apart: the name and rung, then the repetition (iteration
    entries) or the statistic (aggregates)."""
    rung = entry.get("rung")
    rung = rung.get("id") if isinstance(rung, dict) else None
    run_type = entry.get("run_type", "iteration")
    which = entry.get("aggregate_name") if run_type == "aggregate" else entry.get("repetition_index")
    return (str(entry.get("name")), json.dumps(rung), str(run_type), json.dumps(which))


def _check_no_repeats(path: str, run: str, entries: list[tuple[int, dict[str, Any]]]) -> None:
    seen: dict[tuple, int] = {}
    for index, entry in entries:
        key = _entry_key(entry)
        if key in seen:
            raise results.ResultsError(
                path, f"run {run}: case {entry.get('name', 'no name')} appears twice (benchmarks[{seen[key]}] "
                      f"and benchmarks[{index}]), and not as repetitions (no distinct repetition_index)")
        seen[key] = index


def _finite(value: Any) -> Any:
    """The JSON with non-finite numbers (read from numbers too large for a float) as null, as the
    harness writes them, so that the output is JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def merge(inputs: list[str]) -> dict[str, Any]:
    """The merged file's JSON (module docstring) from the results files `inputs`, in order.
    Raises results.ResultsError naming the file on bad input."""
    runs: list[dict[str, Any]] = []
    benchmarks: list[dict[str, Any]] = []
    where: dict[str, str] = {}  # RUN_ID -> the input it came from, for the error on a repeat
    _once_each(inputs)
    for path in inputs:
        data = results.read(path)
        results.from_data(path, data)  # every check a report makes, before anything is merged
        context, entries = data["context"], data["benchmarks"]
        if "merged" in context:
            found = [(r["run"], r.get("file", path), r["context"],
                      [(i, e) for i, e in enumerate(entries) if e.get("run") == r["run"]])
                     for r in context["merged"]["runs"]]
        else:
            found = [(run_id(context), path, context, list(enumerate(entries)))]
        for run, file, ctx, own in found:
            source = path if file == path else f"{path} (its run from {file})"
            if run in where:
                raise results.ResultsError(
                    path, f"run {run} is in both {where[run]} and {source}: "
                          + ("the same run (one context.run_id)" if "run_id" in ctx else
                             "two runs of one host, device and task (or date), written before the harness "
                             "recorded a run_id")
                          + "; merge each run once")
            where[run] = source
            _check_no_repeats(path, run, own)
            runs.append({"run": run, "file": file, "context": ctx})
            benchmarks += [{**e, "run": run} for _i, e in own]
    context = {k: v for k, v in runs[0]["context"].items() if k != "merged"}
    context["merged"] = {"runs": runs}
    return {"context": context, "benchmarks": benchmarks}


def run(args) -> int:
    _not_over_input(args.out, args.inputs)
    merged = merge(args.inputs)
    loaded = results.from_data(args.out, merged)  # what report and compare will read
    text = json.dumps(_finite(merged), indent=2, allow_nan=False) + "\n"
    try:
        output.write_output(args.out, text)
    except IsADirectoryError:
        raise results.ResultsError(args.out, "is a folder, not a file") from None
    except OSError as e:
        raise results.ResultsError(args.out, f"cannot write it ({e.strerror or e})") from None
    entries = len(merged["benchmarks"])
    extra = f" ({entries} entries)" if entries != len(loaded.cases) else ""
    runs = f"{len(loaded.runs)} run{'s' if len(loaded.runs) != 1 else ''}"
    print(f"{PROG}: {runs}, {len(loaded.cases)} cases{extra} written to {args.out}",
          file=sys.stderr if args.out == output.STANDARD_OUTPUT else sys.stdout)
    if args.side_by_side and args.out != output.STANDARD_OUTPUT:
        doc = document.Document(f"layerbench merge: {args.out}")
        fleet.side_by_side(doc, loaded, in_report=False)
        print(document.to_markdown(doc, Path(args.out).parent), end="")
    return 0
