"""docs/bad-input.md is current and every bad input in it meets the project's standard: one line on
stderr naming the bad value, exit status 2, nothing written (scripts/bad_inputs.py --check).

The binary: $LB_EXE; else, under ctest (which runs this from <build>/tests), that build's
layerbench; else <repo>/build/layerbench. Skipped, saying why, when there is none."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bad_inputs.py"
DOC = ROOT / "docs" / "bad-input.md"


def find_layerbench() -> tuple[Path | None, str]:
    """(the binary, where it came from), or (None, where it was looked for)."""
    if os.environ.get("LB_EXE"):
        return Path(os.environ["LB_EXE"]), "$LB_EXE"
    cwd = Path.cwd()
    if cwd.name == "tests" and (cwd / "CTestTestfile.cmake").exists() and (cwd.parent / "layerbench").exists():
        return cwd.parent / "layerbench", "the build ctest runs in"
    fallback = ROOT / "build" / "layerbench"
    if fallback.exists():
        return fallback, "build/layerbench"
    return None, f"no $LB_EXE, not under ctest, and no {fallback}"


def test_bad_input_table_is_current_and_meets_the_standard():
    exe, where = find_layerbench()
    if exe is None or not os.access(exe, os.X_OK):
        pytest.skip(f"no layerbench binary to run ({where}); build it, or set LB_EXE")
    done = subprocess.run([sys.executable, str(SCRIPT), "--check", str(DOC), "--exe", str(exe)],
                          capture_output=True, text=True, timeout=110, cwd=ROOT)
    assert done.returncode == 0, (
        f"scripts/bad_inputs.py --check {DOC.relative_to(ROOT)} failed with {exe} ({where}):\n"
        f"{done.stdout}{done.stderr}")
