"""Running a row through the real `layerbench` binary in its scratch folder, and judging what the
user sees against the project's standard for bad input (docs/bad-input.md); the doc's table line."""
from __future__ import annotations

import os
import re
import subprocess
import threading
import tempfile
from pathlib import Path

from sandbox import normalise, ABSURD_NUMBER, CELL_CHARS, CRASH_MARKS, ERROR_PREFIX, REPO, TIMEOUT_S, can_make_devices, make_sandbox, snapshot
from rows import Outcome, Row


# --- running and judging -------------------------------------------------------------------

def machine_facts(exe: str) -> set[str]:
    """The conditions rows may need: "no-gpu" when the runtime layer cannot run here."""
    try:
        text = subprocess.run([exe, "list"], capture_output=True, text=True, timeout=TIMEOUT_S).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    facts = set(can_make_devices())
    if re.search(r"^\s+runtime\s+unavailable", text, re.M):
        facts.add("no-gpu")
    return facts


def drain(fifo: Path, into: bytearray) -> threading.Thread:
    """A reader for `fifo`, started: what is written into it lands in `into`."""
    def read() -> None:
        with open(fifo, "rb") as f:  # blocks until a writer opens it (or release() does)
            into.extend(f.read())
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


def release(fifo: Path, reader: threading.Thread) -> None:
    """Ends a reader whose writer never came: an open for writing (and a close) gives it EOF."""
    if reader.is_alive():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    reader.join(10)


def run_row(row: Row, exe: str, files: dict) -> Outcome:
    env = {k: v for k, v in os.environ.items() if k not in ("LAYERBENCH_LABS", "LAYERBENCH_KERNEL_CACHE")}
    env.update(LC_ALL="C.UTF-8", COLUMNS="100")
    with tempfile.TemporaryDirectory(prefix="lb-bad-input-") as tmp, \
            tempfile.TemporaryDirectory(prefix="lb-bad-input-tmp-") as private_tmp:
        root = Path(tmp)
        env["TMPDIR"] = private_tmp  # where a results file that could not be written is kept
        make_sandbox(root, files)
        before = snapshot(root)
        got = bytearray()
        reader = drain(root / row.reads, got) if row.reads else None
        try:
            done = subprocess.run([exe, *row.args], cwd=root, capture_output=True, text=True, errors="replace",
                                  env=env, timeout=TIMEOUT_S)
            code, stdout, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as e:
            code = None
            stdout = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            stderr = (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        if reader:
            release(root / row.reads, reader)
        stdout, stderr = (normalise(t, root, exe).replace(private_tmp, "$TMPDIR") for t in (stdout, stderr))
        outcome = Outcome(code, stdout, stderr, before, snapshot(root),
                          root, fifo=bytes(got), kept=sorted(str(p) for p in Path(private_tmp).iterdir()))
        outcome.problems = judge(row, outcome)  # judged while the sandbox still exists
    return outcome



def judge(row: Row, o: Outcome) -> list[str]:
    problems = []
    if o.code is None:
        return [f"timed out after {TIMEOUT_S} s"]
    if o.code != row.exit:
        problems.append(f"exit status {o.code}, expected {row.exit}")
    both = o.stdout + o.stderr
    for mark in CRASH_MARKS:
        if mark in both:
            problems.append(f"output has {mark!r}")
    leftovers = [p for p in o.after if ".tmp." in p]
    if leftovers:
        problems.append(f"left temporary files: {', '.join(leftovers)}")
    if row.check:
        return problems + row.check(o)
    lines = [l for l in o.stderr.splitlines() if l.strip()]
    if len(lines) != 1:
        problems.append(f"stderr has {len(lines)} lines, expected one")
    if o.stdout.strip():
        problems.append("something on stdout")
    line = lines[0] if lines else ""
    if not ERROR_PREFIX.match(line):
        problems.append("the line does not start with 'layerbench: error: ' (or 'layerbench <tool>: error: ')")
    if row.names and row.names not in line:
        problems.append(f"the line does not name {row.names!r}")
    if row.match and not re.search(row.match, line):
        problems.append(f"the line does not match {row.match!r}")
    if ABSURD_NUMBER.search(line):
        problems.append("the line has an absurd number (40+ digits)")
    changed = sorted(k for k in set(o.before) | set(o.after) if o.before.get(k) != o.after.get(k))
    if changed:
        problems.append(f"wrote or changed {', '.join(changed)} on bad input")
    return problems


TELLING = re.compile(r"error|invalid|could not|cannot|failed|expected", re.I)


def seen(o: Outcome, row: Row) -> str:
    """The "what the user sees" cell, trimmed: the first line of stderr for the project's errors and
    for rows that succeed on purpose; otherwise (a row that misbehaves) the most telling line: the
    first on stderr that says something went wrong, else the last on stdout (the run's summary)."""
    err = [l for l in o.stderr.splitlines() if l.strip()]
    out = [l for l in o.stdout.splitlines() if l.strip()]
    picked = [l for l in err + out if row.tell and re.search(row.tell, l)]
    if picked:
        lines = [re.sub(r"\s{2,}", " ", l) for l in picked]  # a summary table's row, its columns closed up
    elif row.check or (err and ERROR_PREFIX.match(err[0])):
        lines = err or out
    else:
        lines = [l for l in err if TELLING.search(l)] or out[-1:] or err
    text = (lines[0].strip() if lines else "(nothing)")
    if len(text) > CELL_CHARS:
        text = text[: CELL_CHARS - 1].rstrip() + "…"
    if o.code is None:
        text = f"(timed out after {TIMEOUT_S} s) " + text
    return text


def code_cell(text: str) -> str:
    """A Markdown code span that survives a table: backticks and pipes handled."""
    text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


HEADER = ["| area | input | what the user sees (first line, trimmed) | exit | standard |",
          "|---|---|---|---:|---|"]


def table_line(row: Row, o: Outcome) -> str:
    standard = "✓" if not o.problems else (f"known: {row.known}" if row.known else "✗ " + "; ".join(o.problems))
    exit_text = "timeout" if o.code is None else str(o.code)
    shows = row.shows if row.check or o.problems else ""  # a known problem's note goes once it is fixed
    return (f"| {row.area} | {code_cell(row.command)} | {code_cell(seen(o, row))}{shows} | {exit_text} | "
            f"{standard} |")
