#!/usr/bin/env python3
"""Every example command in README.md and the docs runs, and exits as the doc says.

Which blocks: every ```sh block of README.md, and the ```sh blocks of docs/**/*.md that follow a
`<!-- runnable -->` line. Each line of a block is one command (a line ending in a backslash goes on
to the next); its trailing comment may end with one tag, visible to the reader:

    build/layerbench run -s 1000     # the CPU layers at one size
    scripts/sanitize.sh              # compute-sanitizer over every case [needs a GPU]
    build/layerbench compare a b     # a regression [exit 1]
    scripts/suite.sh                 # build, run the default suite [not run: builds, then runs for minutes]

  [not run: WHY]  never run here (it installs, edits, builds, or runs for minutes);
  [needs a GPU]   not run here: what it does without one is not what the doc shows;
  [exit N]        the exit status it must give (default 0).

The others run, the commands of one block in order, with bash, in one scratch folder of their own
that holds a link to each top-level entry of the source tree (build, scripts, labs, ...; so
build/layerbench and scripts/... resolve) and nothing else: what they write stays there. build/ is
first on PATH (for `layerbench ...`), and CUDA_VISIBLE_DEVICES is empty: the GPU layers skip, saying
so, on every machine, so that a command does the same here as on a GPU machine and takes seconds.
Each has a time limit (--timeout, 120 s).

  tools/doc-examples            run them all: each command's exit and time, then a verdict
  tools/doc-examples --list     list the commands and what would happen to each

Exit status: 0 every command run gave its exit status; 1 otherwise; 2 bad usage.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNNABLE = "<!-- runnable -->"
TAG = re.compile(r"\[(not run: [^\]]+|needs a GPU|exit \d+)\]\s*$")


@dataclass
class Example:
    doc: str
    line: int
    command: str
    block: int       # commands of one block share a scratch folder, in order
    skip: str = ""   # why it is not run ("" = run it)
    gpu: bool = False
    exit: int = 0


def strip_comment(line: str) -> tuple[str, str]:
    """(the command, its trailing comment) for a shell line: a # that starts a word, outside quotes."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def blocks(path: Path, all_sh: bool) -> list[tuple[int, list[tuple[int, str]]]]:
    """The ```sh blocks of a doc to run: (first line number, [(line number, text)])."""
    lines = path.read_text().split("\n")
    found, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            marked = i > 0 and lines[i - 1].strip() == RUNNABLE
            body, j = [], i + 1
            while j < len(lines) and lines[j].strip() != "```":
                body.append((j + 1, lines[j]))
                j += 1
            if all_sh or marked:
                found.append((i + 1, body))
            i = j
        i += 1
    return found


def examples() -> list[Example]:
    found: list[Example] = []
    docs = [(REPO / "README.md", True)] + [(p, False) for p in sorted((REPO / "docs").rglob("*.md"))]
    for path, all_sh in docs:
        rel = path.relative_to(REPO).as_posix()
        for start, body in blocks(path, all_sh):
            pending, first = "", 0
            for number, text in body:
                if not text.strip():
                    continue
                if not pending:
                    first = number
                if text.rstrip().endswith("\\"):
                    pending += text.rstrip()[:-1] + " "
                    continue
                command, comment = strip_comment(pending + text)
                pending = ""
                e = Example(rel, first, command, block=hash((rel, start)))
                tag = TAG.search(comment)
                if tag:
                    t = tag.group(1)
                    if t.startswith("not run: "):
                        e.skip = t[len("not run: "):]
                    elif t == "needs a GPU":
                        e.gpu = True
                    else:
                        e.exit = int(t.split()[1])
                found.append(e)
    return found


def scratch(root: Path) -> None:
    """Links to the source tree's top-level entries (not results/, which commands write)."""
    for entry in REPO.iterdir():
        if entry.name.startswith(".") and entry.name != ".venv" or entry.name == "results":
            continue
        (root / entry.name).symlink_to(entry)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Run the example commands of README.md and the docs' runnable blocks.")
    p.add_argument("--list", action="store_true", help="list the commands and what would happen to each")
    p.add_argument("--timeout", type=float, default=120, help="seconds each command may take (default 120)")
    p.add_argument("--build", type=Path, default=REPO / "build", help="the build folder (default: <repo>/build)")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="blocks run at once (default: the cores; a block's commands run in order)")
    args = p.parse_args(argv)
    exe = args.build.resolve() / "layerbench"
    if not args.list and not os.access(exe, os.X_OK):
        print(f"doc-examples.py: error: no layerbench binary at {exe} (build it, or pass --build)", file=sys.stderr)
        return 2
    found = examples()
    env = dict(os.environ, PATH=f"{exe.parent}{os.pathsep}{os.environ.get('PATH', '')}", LC_ALL="C.UTF-8",
               CUDA_VISIBLE_DEVICES="")
    for var in ("LAYERBENCH_LABS", "EDITOR"):
        env.pop(var, None)
    failures, ran, not_run = [], 0, 0
    # One block's commands run in order in its own scratch folder (a later one may read what an
    # earlier one wrote); the blocks run side by side, one per core, and print in the docs' order.
    blocks: dict[int, list[Example]] = {}
    for e in found:
        blocks.setdefault(e.block, []).append(e)

    def run_block(entries: list[Example]) -> tuple[list[str], list[str], int, int]:
        lines, block_failures, block_ran, block_not_run = [], [], 0, 0
        folder: tempfile.TemporaryDirectory | None = None
        try:
            for e in entries:
                where = f"{e.doc}:{e.line}"
                why = e.skip or ("needs a GPU" if e.gpu else "")
                if args.list or why:
                    if why:
                        block_not_run += 1
                    state = f"not run: {why}" if why else f"run, expects exit {e.exit}"
                    lines.append(f"{where}: {e.command}  [{state}]")
                    continue
                if folder is None:
                    folder = tempfile.TemporaryDirectory(prefix="lb-doc-example-")
                    scratch(Path(folder.name))
                started = time.monotonic()
                try:
                    done = subprocess.run(["bash", "-c", e.command], cwd=folder.name, env=env,
                                          capture_output=True, text=True, errors="replace", timeout=args.timeout,
                                          stdin=subprocess.DEVNULL)
                    code, out = done.returncode, (done.stdout + done.stderr)
                except subprocess.TimeoutExpired:
                    code, out = None, ""
                took = time.monotonic() - started
                block_ran += 1
                ok = code == e.exit
                lines.append(f"{where}: {e.command}  [exit {code if code is not None else 'timeout'}"
                             f"{'' if ok else f', expected {e.exit}'}, {took:.1f} s]")
                if not ok:
                    tail = "\n".join(out.strip().splitlines()[-6:])
                    block_failures.append(
                        f"{where}: `{e.command}` gave "
                        f"{'no exit (timed out after %g s)' % args.timeout if code is None else f'exit {code}'}"
                        f", the doc says {e.exit}" + (f"\n    {tail.replace(chr(10), chr(10) + '    ')}" if tail else ""))
        finally:
            if folder is not None:
                folder.cleanup()
        return lines, block_failures, block_ran, block_not_run

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for lines, block_failures, block_ran, block_not_run in pool.map(run_block, blocks.values()):
            for line in lines:
                print(line)
            failures += block_failures
            ran += block_ran
            not_run += block_not_run
    if args.list:
        return 0
    for f in failures:
        print(f"FAILED: {f}")
    print(f"{len(found)} example commands: {ran} run, {len(failures)} failed, {not_run} not run (their reasons above)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
