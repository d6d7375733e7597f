"""The extension modules the build makes (<build>/python: lb_native, lb_cython) share a process with
other extensions (numpy, CuPy, Numba). Each exports its PyInit_<name> and nothing else, so that a
C++ runtime linked into it statically (the lent GPU machines' g++ does that) binds inside the module
and never to the libstdc++ an extension imported earlier loaded. Before variants/python/CMakeLists.txt's
lb_export_only_pyinit, lb_native exported 949 such symbols there and crashed in its first file stream
when numpy had been imported first."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MODULE_DIR = os.environ.get("LB_NATIVE_DIR")
pytestmark = pytest.mark.skipif(not MODULE_DIR, reason="no $LB_NATIVE_DIR (a build with the Python layers sets it)")


def _modules() -> list[Path]:
    return sorted(Path(MODULE_DIR).glob("*.so")) if MODULE_DIR else []


def test_each_module_exports_its_init_function_only():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils) on PATH")
    modules = _modules()
    assert modules, f"no extension modules in {MODULE_DIR}"
    for module in modules:
        listed = subprocess.run([nm, "-D", "--defined-only", str(module)], capture_output=True, text=True, check=True)
        exported = {line.split()[-1] for line in listed.stdout.splitlines() if line.strip()}
        assert exported == {"PyInit_" + module.name.split(".")[0]}, (module.name, sorted(exported)[:10])


def test_lb_native_caches_after_numpy_was_imported(tmp_path):
    # The crash's own path, in a fresh interpreter: another C++ extension first, then a cache miss
    # (a compile and a file written) and a hit (a file read).
    pytest.importorskip("numpy")
    script = (
        "import sys, numpy\n"
        f"sys.path.insert(0, {MODULE_DIR!r})\n"
        "import lb_native\n"
        f"cache = lb_native.KernelCache({str(tmp_path)!r}, True)\n"
        "for expect_hit in (False, True):\n"
        "    cubin, hit, _, _ = lb_native.cached_cubin(cache, 'k.cu', 'text', ['-O3'], 90, 't', lambda: b'cubin')\n"
        "    assert (cubin, hit) == (b'cubin', expect_hit), (cubin, hit)\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, f"exit {ran.returncode}: {ran.stderr[-2000:]}"
