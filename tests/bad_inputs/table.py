#!/usr/bin/env python3
"""Bad input, as a new user would type it, through the real `layerbench` binary: what the user sees.

Each row of ROWS below is one command: its area, its arguments, the exit status it should give and
the value its message must name. Every command runs in a fresh scratch folder (the current
directory of the run) holding a few ready-made inputs (_sandbox_files: a real results file, an
empty one, a truncated one, a lab already started, ...), with a 60 s time limit, and is held to
the project's standard for bad input (docs/bad-input.md):

  - the exit status is the row's (2 for bad input);
  - stderr is ONE line, starting with "layerbench: error: " (the reports tool: "layerbench
    report|compare|csv|merge|db: error: ", the labs: "layerbench lab: error: "), and naming the bad value;
  - stdout is empty; no Python traceback, no C++ "terminate called", no "Aborted", no crash;
  - no absurd numbers in the message (a run of 40 digits: a range printed up to DBL_MAX);
  - nothing is written or changed in the scratch folder (results already there are never lost).

A few rows give exit status 0 on purpose (GPU layers asked for on a machine without a GPU; a size
too large for the machine, which is a skipped case; outputs that are a symlink, a device, a FIFO or
standard output, which are written through); they say what they check instead, and run only where
their condition holds (`needs`: the device rows need mknod, i.e. root). Rows marked
`known` break the standard today in code owned elsewhere (docs/bad-input.md, "Known problems", has
the fix for each): their expectations are the fixed behaviour; the check reports them and does not
fail on them, and fails once they meet the standard so that the mark is removed (with `shows=`).

    tests/bad_inputs/table.py                      # run every row, print the table and a verdict per row
    tests/bad_inputs/table.py --write docs/bad-input.md  # rewrite the table between the markers
    tests/bad_inputs/table.py --check docs/bad-input.md  # regenerate; fail if the doc is stale or a row breaks the standard

The binary: --exe, else $LB_EXE, else <repo>/build/layerbench. Exit status: 0 every row meets the
standard (or is a known problem) and, with --check, the doc is current; 1 otherwise; 2 bad usage.
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sandbox import BEGIN, END, REPO, _sandbox_files
from rows import ROWS, Outcome
from judging import HEADER, code_cell, machine_facts, run_row, table_line


def doc_rows(doc: str) -> dict[str, str]:
    """The table lines already in the doc, by their input cell."""
    found = {}
    for line in doc.splitlines():
        cells = line.split(" | ")
        if line.startswith("| ") and len(cells) >= 3:
            found[cells[1]] = line
    return found


def run_all(exe: str, jobs: int) -> dict[str, Outcome]:
    """Every row this machine can run (its `needs` hold), at most `jobs` at once: command -> Outcome."""
    facts = machine_facts(exe)
    files = _sandbox_files()
    to_run = [r for r in ROWS if not r.needs or r.needs in facts]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(zip((r.command for r in to_run), pool.map(lambda r: run_row(r, exe, files), to_run)))


def generate(outcomes: dict[str, Outcome], old_doc: str = "", verbose: bool = False) -> tuple[str, list[str], int]:
    """(the block between the markers, problems, rows kept from the doc): a row that did not run here
    keeps the doc's line; a problem is a row breaking the standard that is not marked known, a known
    row that now meets it, a row listed twice, or one that neither ran nor is in the doc."""
    kept_lines = doc_rows(old_doc)
    lines, problems, kept = [], [], 0
    commands = [r.command for r in ROWS]
    for dup in {c for c in commands if commands.count(c) > 1}:
        problems.append(f"{dup}: listed twice in ROWS")
    for row in ROWS:
        if row.command not in outcomes:
            key = code_cell(row.command)
            if key in kept_lines:
                lines.append(kept_lines[key])
                kept += 1
            else:
                problems.append(f"{row.command}: needs {row.needs}, not so here, and not in the doc to keep")
            continue
        o = outcomes[row.command]
        lines.append(table_line(row, o))
        if verbose:
            print(f"--- {row.command} (exit {o.code})\n{o.stderr}{o.stdout}", file=sys.stderr)
        if o.problems and not row.known:
            problems.append(f"{row.command}: " + "; ".join(o.problems))
        elif row.known and not o.problems:
            problems.append(f"{row.command}: marked known ({row.known}) but now meets the standard: remove "
                            f"known=\"{row.known}\" from its row in tests/bad_inputs/rows.py and --write the doc")
    known = sorted({r.known for r in ROWS if r.known})
    checked = sum(1 for r in ROWS if not r.needs)
    block = [BEGIN, "", *HEADER, *lines, "",
             f"{len(ROWS)} rows: {checked} checked everywhere, {len(ROWS) - checked} only where their "
             f"condition holds (no GPU, or mknod); "
             + (f"{sum(1 for r in ROWS if r.known)} show a known problem ({', '.join(known)})." if known
                else "none shows a known problem."), "", END]
    return "\n".join(block), problems, kept


def splice(doc: str, block: str) -> str:
    if BEGIN not in doc or END not in doc:
        return doc.rstrip("\n") + "\n\n" + block + "\n"
    head, rest = doc.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    return head + block + tail


def default_exe() -> str:
    return os.environ.get("LB_EXE") or str(REPO / "build" / "layerbench")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Bad input through the real layerbench binary: the table in "
                                            "docs/bad-input.md, checked against the project's standard.")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--write", metavar="DOC", help="rewrite the table in DOC (between the markers)")
    what.add_argument("--check", metavar="DOC", help="fail if DOC's table is stale or a row breaks the standard")
    p.add_argument("--exe", default=default_exe(), help="the layerbench binary (default: $LB_EXE, else build/layerbench)")
    p.add_argument("--jobs", "-j", type=int, default=max(2, os.cpu_count() or 2), help="commands run at once")
    p.add_argument("--verbose", "-v", action="store_true", help="print every command's whole output")
    args = p.parse_args(argv)
    if not (os.path.isfile(args.exe) and os.access(args.exe, os.X_OK)):
        print(f"table.py: error: no layerbench binary at {args.exe} (build it, or pass --exe / set LB_EXE)",
              file=sys.stderr)
        return 2
    args.exe = os.path.abspath(args.exe)  # the commands run in their own folders
    doc_path = Path(args.write or args.check) if (args.write or args.check) else None
    old_doc = doc_path.read_text() if doc_path and doc_path.exists() else ""
    if args.check and not old_doc:
        print(f"table.py: error: {args.check}: no such file", file=sys.stderr)
        return 2
    started = time.monotonic()
    block, problems, kept = generate(run_all(args.exe, args.jobs), old_doc, args.verbose)
    elapsed = time.monotonic() - started
    stale = False
    if args.write:
        doc_path.write_text(splice(old_doc, block))
        print(f"wrote the table ({len(ROWS)} rows) to {doc_path}")
    elif args.check:
        new_doc = splice(old_doc, block)
        if new_doc != old_doc:
            stale = True
            diff = difflib.unified_diff(old_doc.splitlines(), new_doc.splitlines(), str(doc_path),
                                        "regenerated", lineterm="", n=0)
            print(f"{doc_path} is stale: run tests/bad_inputs/table.py --write {doc_path} (and read the diff):")
            print("\n".join(diff))
    else:
        print(block)
    if kept:
        print(f"{kept} rows need a condition this machine does not meet; kept as the doc has them")
    for problem in problems:
        print(f"BREAKS THE STANDARD: {problem}")
    known = sum(1 for r in ROWS if r.known)
    print(f"{len(ROWS)} rows in {elapsed:.1f} s: {len(problems)} breaking the standard, {known} known problems"
          + ("; the doc is stale" if stale else ""))
    return 1 if problems or stale else 0


if __name__ == "__main__":
    sys.exit(main())
