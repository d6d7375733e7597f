#!/usr/bin/env python3
"""Re-makes results files of an older form in today's (python/layerbench/reports/names.py), so that
Google Benchmark's tools/compare.py matches their cases with any other file's. What it changes, on
each benchmarks[] entry written by the harness before it ran its own sampling loop (a name with
`/iterations:1/`):

  - name and run_name: the `/iterations:N` part dropped (`vector_add/cpu/1048576/manual_time`);
  - iterations: the kept samples (`samples`), as today, where it was 1 (the whole measurement);
  - cpu_time: per sample (cpu_time / samples), as today, where it was the whole measurement's.

Nothing else: every measured figure stays as the harness wrote it. The file records what was done
in context.layerbench.converted ([{tool, changed, entries}]). A file already in today's form is left
alone. The file is rewritten in place through the writer that never destroys what its path points
at (reports/output.py), compact on one line when it was, else indented by 2.

  tools/upgrade-results FILE...          re-make each file of an older form
  tools/upgrade-results --check FILE...  list the files of an older form; exit 1 when there is one

Exit status: 0 done (or, with --check, every file in today's form); 1 with --check when a file is
of an older form; 2 bad input (not a results file).
"""
from __future__ import annotations

import argparse
import json
import sys

from layerbench.reports import names, output, results

TOOL = "tools/upgrade-results"


def upgrade(data: dict) -> list[str]:
    """Brings `data` (a results file's JSON) to today's naming in place; what changed, in words
    (empty when the file was in today's form already)."""
    renamed = counted = 0
    for entry in data["benchmarks"]:
        if not isinstance(entry, dict) or "/iterations:" not in str(entry.get("name", "")):
            continue
        renamed += 1
        for field in ("name", "run_name"):
            if isinstance(entry.get(field), str):
                entry[field] = names.without_iterations(entry[field])
        samples = entry.get("samples")
        if (entry.get("run_type", "iteration") == "iteration" and entry.get("iterations") == 1
                and isinstance(samples, int) and samples > 0):
            counted += 1
            entry["iterations"] = samples
            if isinstance(entry.get("cpu_time"), (int, float)):
                entry["cpu_time"] = entry["cpu_time"] / samples
    changed = []
    if renamed:
        changed.append(f"{renamed} names without /iterations:N")
    if counted:
        changed.append(f"{counted} entries' iterations the kept samples and cpu_time per sample")
    if changed:
        lb = data["context"]["layerbench"]
        lb.setdefault("converted", []).append({"tool": TOOL, "changed": changed, "entries": renamed})
    return changed


def dump(data: dict, compact: bool) -> str:
    if compact:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", metavar="FILE", help="results files (layerbench run's JSON)")
    parser.add_argument("--check", action="store_true", help="change nothing: list the files of an older form")
    args = parser.parse_args(argv)
    older = 0
    for path in args.files:
        try:
            data = results.read(path)
            raw = open(path, encoding="utf-8").read()
        except (results.ResultsError, OSError) as e:
            print(f"{TOOL}: {e}", file=sys.stderr)
            return 2
        changed = upgrade(data)
        if not changed:
            continue
        older += 1
        if args.check:
            print(f"{path}: an older form ({'; '.join(changed)}): run {TOOL} {path}")
            continue
        try:
            output.write_output(path, dump(data, compact=raw.strip().count("\n") == 0))
        except OSError as e:
            print(f"{TOOL}: {path}: cannot write it ({e.strerror or e})", file=sys.stderr)
            return 2
        print(f"{path}: {'; '.join(changed)}")
    return 1 if args.check and older else 0


if __name__ == "__main__":
    sys.exit(main())
