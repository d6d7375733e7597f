"""The package's types (python/layerbench ships py.typed): mypy, pinned in python/requirements-check.txt
and installed into .venv by scripts/install-report-deps.sh, over the public API with --strict
(api.py, __init__.py, native.py: what a user's type checker reads), and over the whole package at
its default strictness, the modules behind the API (the reports tool, the database, the labs'
Python) included, with no error, and again without any installed package (--no-site-packages), as
where the optional ones (psycopg, matplotlib, NumPy, the layers' packages) are not installed: a plain
`ctest` after scripts/build.sh, whose .venv has no psycopg. mypy reads its settings from the
checkout's pyproject.toml ([tool.mypy]: where lb_variant is, and the optional imports, which may be
missing)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy is not installed (python/requirements-check.txt; "
                                   "scripts/install-report-deps.sh installs it into .venv)")

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
PUBLIC = ["layerbench", "layerbench.api", "layerbench.native"]


def mypy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
                           "--no-error-summary", "--python-version", "3.10", *args],
                          cwd=PYTHON_DIR, capture_output=True, text=True, timeout=600)


def test_the_public_api_passes_mypy_strict(tmp_path):
    modules = [word for m in PUBLIC for word in ("-m", m)]
    done = mypy(tmp_path, "--strict", "--follow-imports=silent", *modules)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_whole_package_passes_mypy(tmp_path):
    done = mypy(tmp_path, "-p", "layerbench")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_whole_package_passes_mypy_without_its_optional_packages(tmp_path):
    """No site-packages at all: every optional import (psycopg, matplotlib, NumPy, the labs' GPU
    libraries) is missing, as where only the reports' or the API's part is installed; pyproject.toml's
    [[tool.mypy.overrides]] lets each be missing, and no module may need one for its types."""
    done = mypy(tmp_path, "--no-site-packages", "-p", "layerbench")
    assert done.returncode == 0, done.stdout + done.stderr
