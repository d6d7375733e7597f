"""The numba runner's compile process (python/layerbench/lab/numba_compile.py), run as the lab child
runs it (python -m, in a folder of its own), no GPU needed: Numba compiles to PTX for the compute
capability it is given. What it hands back (the PTX and its one entry), what a failure says, and
that it never overwrites a result file it did not make. Skipped where numba-cuda is not installed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from layerbench.lab import numba_compile

ROOT = Path(__file__).resolve().parents[2]

KERNEL = """
from numba import cuda

@cuda.jit
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]
"""


def test_entry_names_are_the_kernels_a_ptx_defines():
    ptx = ".visible .entry _Z1k(\n.param .u64 p\n)\n{\n}\n.visible .func _Z1f()\n.entry plain(\n)\n"
    assert numba_compile.entry_names(ptx) == ["_Z1k", "plain"]
    assert numba_compile.entry_names("// .entry in a comment(\n") == []


def compile_in(tmp_path: Path, source: str, *extra: str) -> subprocess.CompletedProcess:
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (variants/python/requirements.txt)")
    (tmp_path / "vector_add.py").write_text(textwrap.dedent(source))
    # The package first, then what PYTHONPATH held (a GPU machine's carried wheels: the NumPy that
    # Numba imports there, docs/offline-install.md), as the runner's compile process keeps it.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT / "python"), os.environ.get("PYTHONPATH")) if p))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return subprocess.run([sys.executable, "-m", "layerbench.lab.numba_compile", "vector_add.py", "lab_vector_add",
                           "a,b,c,n", "90", "kernel.json", *extra], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_kernel_comes_back_as_ptx_for_the_capability_given(tmp_path):
    done = compile_in(tmp_path, KERNEL, "--lineinfo")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "kernel.json").read_text())
    assert set(result) == {"ptx", "entry"}
    assert "lab_vector_add" in result["entry"]
    assert ".target sm_90" in result["ptx"]
    assert f".entry {result['entry']}(" in result["ptx"]
    assert ".loc" in result["ptx"]  # --lineinfo: source lines in the PTX


def test_a_rule_breaker_or_a_compile_error_exits_1_saying_why(tmp_path):
    done = compile_in(tmp_path, KERNEL + "\nprint('host')\n")
    assert done.returncode == 1 and "vector_add.py:" in done.stderr and "call to print" in done.stderr
    assert not (tmp_path / "kernel.json").exists()
    done = compile_in(tmp_path, KERNEL.replace("b[i]", "undefined_name"))
    assert done.returncode == 1 and "Numba could not compile lab_vector_add" in done.stderr
    assert "undefined_name" in done.stderr


def test_a_result_file_already_there_is_never_overwritten(tmp_path):
    (tmp_path / "kernel.json").write_text("made first")
    done = compile_in(tmp_path, KERNEL)
    assert done.returncode != 0 and "FileExistsError" in done.stderr
    assert (tmp_path / "kernel.json").read_text() == "made first"
