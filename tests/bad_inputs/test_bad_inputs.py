"""Every bad input of rows.py through the real `layerbench` binary meets the project's standard (one
line on stderr naming the bad value, exit status 2, nothing written: docs/bad-input.md), one test a
row; a row marked `known` is an expected failure, strict, so that it fails once it is fixed and its
mark must go. docs/bad-input.md's table is what the rows give (`table.py --write` rewrites it).

The binary: $LB_EXE (ctest sets it to the build's), else <repo>/build/layerbench; the tests skip,
saying why, when there is none."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from rows import ROWS
from sandbox import REPO
from table import generate, run_all, splice

DOC = REPO / "docs" / "bad-input.md"


def find_layerbench() -> tuple[Path | None, str]:
    """(the binary, where it came from), or (None, where it was looked for)."""
    if os.environ.get("LB_EXE"):
        return Path(os.environ["LB_EXE"]), "$LB_EXE"
    fallback = REPO / "build" / "layerbench"
    if fallback.exists():
        return fallback, "build/layerbench"
    return None, f"no $LB_EXE and no {fallback}"


@pytest.fixture(scope="module")
def outcomes():
    """Every row this machine can run, run once, side by side: command -> Outcome."""
    exe, where = find_layerbench()
    if exe is None or not os.access(exe, os.X_OK):
        pytest.skip(f"no layerbench binary to run ({where}); build it, or set LB_EXE")
    return run_all(str(exe.resolve()), max(2, os.cpu_count() or 2))


def _param(row):
    marks = [pytest.mark.xfail(strict=True, reason=f"known problem {row.known} (docs/bad-input.md)")] if row.known else []
    return pytest.param(row, id=row.command, marks=marks)


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_row_meets_the_standard(row, outcomes):
    if row.command not in outcomes:
        pytest.skip(f"needs {row.needs}, which does not hold here")
    o = outcomes[row.command]
    assert not o.problems, f"{row.command} (exit {o.code}): " + "; ".join(o.problems) + f"\n{o.stderr}{o.stdout}"


def test_each_row_is_one_command():
    commands = [r.command for r in ROWS]
    assert len(set(commands)) == len(commands), sorted({c for c in commands if commands.count(c) > 1})


def test_the_doc_table_is_what_the_rows_give(outcomes):
    doc = DOC.read_text()
    block, _problems, _kept = generate(outcomes, doc)
    assert splice(doc, block) == doc, (f"{DOC.relative_to(REPO)} is stale: run tests/bad_inputs/table.py --write "
                                       f"{DOC.relative_to(REPO)} (and read the diff)")
