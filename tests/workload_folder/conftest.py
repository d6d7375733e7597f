"""Shared fixtures of the workload-folder tests: the examples, and a copy of one to break."""
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "workloads"
EXAMPLE_NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "workload.json").is_file())


@pytest.fixture
def stencil_copy(tmp_path):
    """A writable copy of examples/workloads/stencil5 (a test edits one file of it)."""
    folder = tmp_path / "stencil5"
    shutil.copytree(EXAMPLES / "stencil5", folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder
