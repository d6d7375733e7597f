"""The package's types (python/layerbench ships py.typed): mypy, pinned in python/requirements-check.txt
and installed into .venv by scripts/install-report-deps.sh, over the public API with --strict
(api.py, __init__.py, native.py: what a user's type checker reads), and over the whole package at
its default strictness, whose errors in the modules behind the API (the reports tool, the database,
the labs' Python) may not grow beyond the count below: lower it as they are fixed, never raise it."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy is not installed (python/requirements-check.txt; "
                                   "scripts/install-report-deps.sh installs it into .venv)")

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
PUBLIC = ["layerbench", "layerbench.api", "layerbench.native"]
# mypy 2.4.1's errors in reports/, db/ and lab/ when this check came (P24; none in the public API): the
# debt it keeps from growing.
BEHIND_THE_API = 136


def mypy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
                           "--no-error-summary", "--python-version", "3.10", *args],
                          cwd=PYTHON_DIR, capture_output=True, text=True, timeout=600)


def test_the_public_api_passes_mypy_strict(tmp_path):
    modules = [word for m in PUBLIC for word in ("-m", m)]
    done = mypy(tmp_path, "--strict", "--follow-imports=silent", *modules)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_package_adds_no_mypy_error(tmp_path):
    done = mypy(tmp_path, "-p", "layerbench")
    errors = [line for line in done.stdout.splitlines() if re.search(r": error: ", line)]
    public = [line for line in errors if re.match(r"layerbench/(__init__|api|native)\.py:", line)]
    assert not public, "\n".join(public)
    assert len(errors) <= BEHIND_THE_API, f"{len(errors)} mypy errors, more than {BEHIND_THE_API}:\n" + "\n".join(errors)
