"""The Python labs' rules (python/layerbench/lab), no GPU needed: what a lab file may hold at its
top (imports of numba and math, constants, a docstring, @cuda.jit functions with literal
arguments), what it may not (any other import, calls, classes, control flow, plain functions,
assignments to other modules' names, exec/eval/open/dunders anywhere), and that every refusal names
the file and line. Then the runner's Python side on Numba's CUDA simulator (in a subprocess: the
simulator is chosen before numba.cuda is imported): the lab's launch, the output's guard zone, the
starting contents of the output."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

from layerbench.lab import rules  # noqa: E402  (standard library only: no Numba needed for the rules)

KERNEL = "lab_vector_add"
GOOD_KERNEL = """
@cuda.jit
def lab_vector_add(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]
"""


def check(source: str, name: str = "vector_add.py", args: int = 4) -> dict:
    return rules.check_source(textwrap.dedent(source), name, KERNEL, args)


def rejected(source: str, name: str = "vector_add.py") -> str:
    with pytest.raises(rules.StudentError) as e:
        check(source, name)
    return str(e.value)


# --- allowed ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("header", [
    "from numba import cuda",
    "import numba.cuda as cuda",
    "from numba import cuda, float32\nimport math",
    '"""A docstring."""\nfrom numba import cuda',
    "from numba import cuda\nTPB = 256\nHALF = TPB // 2\nEPS = -1e-6\nNAME = 'x'\nSHAPE = (16, 16)\nFLAG: bool = True",
    "import numba\nfrom numba import cuda",
    "from numba.cuda import jit as _jit\nfrom numba import cuda",
])
def test_allowed_headers(header):
    assert check(header + "\n" + GOOD_KERNEL) == {}


@pytest.mark.parametrize("decorator, keywords", [
    ("@cuda.jit", {}),
    ("@cuda.jit()", {}),
    ("@cuda.jit(fastmath=True)", {"fastmath": True}),
    ("@cuda.jit('void(float32[::1], float32[::1], float32[::1], int64)')", {}),
    ("@cuda.jit(launch_bounds=(256, 2), max_registers=32)", {"launch_bounds": (256, 2), "max_registers": 32}),
    ("@numba.cuda.jit", {}),
])
def test_allowed_decorators(decorator, keywords):
    source = f"import numba\nfrom numba import cuda\n{decorator}\ndef lab_vector_add(a, b, c, n):\n    pass\n"
    assert check(source) == keywords


def test_from_numba_cuda_import_jit_is_cuda_jit():
    assert check("from numba.cuda import jit\n@jit\ndef lab_vector_add(a, b, c, n):\n    pass\n") == {}


def test_device_helpers_constants_and_defaults_are_allowed():
    check("""
        import math
        from numba import cuda, float32

        SCALE = 1.0

        @cuda.jit(device=True)
        def add(x, y, scale=SCALE):
            return (x + y) * scale

        @cuda.jit
        def lab_vector_add(a, b, c, n):
            for i in range(cuda.grid(1), n, cuda.gridsize(1)):
                c[i] = add(a[i], b[i]) + math.sqrt(float32(0))
    """)


def test_print_inside_a_kernel_is_device_code_and_allowed():
    check("from numba import cuda\n@cuda.jit\ndef lab_vector_add(a, b, c, n):\n    print(n)\n")


# --- forbidden at the top --------------------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ("import numpy as np", "this imports numpy"),
    ("import os", "this imports os"),
    ("from time import perf_counter", "this imports from time"),
    ("from numba import *", "import *"),
    ("from . import helper", "this imports from ."),
    ("print('hi')", "this is a call to print"),
    ("cuda.synchronize()", "this is a call to numba.cuda.synchronize"),
    ("X = len('abc')", "X is assigned something other than a constant"),
    ("X = [1, 2]", "X is assigned something other than a constant"),
    ("X = lambda: 0", "X is assigned something other than a constant"),
    ("X = Y", "X is assigned something other than a constant"),
    ("X = 2 ** 100000", "X is assigned something other than a constant"),
    ("cuda.event_elapsed_time = None", "may not change what other modules hold"),
    ("cuda.jit.x = 1", "may not change what other modules hold"),
    ("class K:\n    pass", "class K is a class definition"),
    ("if True:\n    X = 1", "an if statement"),
    ("for i in range(3):\n    pass", "a for statement"),
    ("try:\n    pass\nexcept Exception:\n    pass", "a try statement"),
    ("with open('f') as f:\n    pass", "open is not allowed"),
    ("X: list = 1", "annotated assignment"),
    ("cuda = 1", "cuda is already imported"),
    ("X += 1", "X += ... is not a constant assignment"),
    ("del cuda", "this is a del statement"),
])
def test_forbidden_top_level_code_is_named_with_its_line(line, expected):
    source = "from numba import cuda\n" + GOOD_KERNEL + "\n" + line + "\n"
    message = rejected(source)
    assert expected in message, message
    bad_line = source.splitlines().index(line.splitlines()[0]) + 1
    assert message.startswith(f"vector_add.py:{bad_line}: "), message


def test_the_rule_is_spelled_out():
    message = rejected("import numpy\n" + "from numba import cuda\n" + GOOD_KERNEL)
    assert message == ("vector_add.py:1: only @cuda.jit kernels, imports of numba and math, and constant assignments "
                       "may be at the top of a lab file (this imports numpy; import only numba, numba.cuda or math)")


@pytest.mark.parametrize("source, expected", [
    ("def lab_vector_add(a, b, c, n):\n    pass", "has no decorator"),
    ("def helper(x):\n    return x\n" + GOOD_KERNEL, "helper has no decorator"),
    ("@cuda.jit\n@cuda.jit\ndef lab_vector_add(a, b, c, n):\n    pass", "2 decorators"),
    ("import numba\n@numba.njit\ndef lab_vector_add(a, b, c, n):\n    pass", "decorated with numba.njit, not cuda.jit"),
    ("@cuda.jit(link=['evil.cu'])\ndef lab_vector_add(a, b, c, n):\n    pass", "@cuda.jit(link=...) is not allowed"),
    ("@cuda.jit(cache=True)\ndef lab_vector_add(a, b, c, n):\n    pass", "@cuda.jit(cache=...) is not allowed"),
    ("@cuda.jit(**OPTS)\ndef lab_vector_add(a, b, c, n):\n    pass", "@cuda.jit(**=...) is not allowed"),
    ("F = True\n@cuda.jit(fastmath=F)\ndef lab_vector_add(a, b, c, n):\n    pass", "must be a literal"),
    ("@cuda.jit(sig())\ndef lab_vector_add(a, b, c, n):\n    pass", "must be one string"),
    ("@cuda.jit\ndef lab_vector_add(a, b, c, n=print()):\n    pass", "default must be a constant"),
    ("@cuda.jit\ndef lab_vector_add(a, b, c, n: print()):\n    pass", "parameter annotations"),
    ("@cuda.jit\ndef lab_vector_add(a, b, c, n) -> None:\n    pass", "return annotation"),
    ("@cuda.jit\nasync def lab_vector_add(a, b, c, n):\n    pass", "async"),
    ("@cuda.jit\ndef cuda(a, b, c, n):\n    pass", "already imported"),
])
def test_forbidden_functions(source, expected):
    message = rejected("from numba import cuda\n" + source + "\n")
    assert expected in message, message


# --- forbidden anywhere, inside kernels too ------------------------------------------------------

@pytest.mark.parametrize("statement, expected", [
    ("exec('x')", "exec is not allowed"),
    ("eval('1')", "eval is not allowed"),
    ("f = open('x')", "open is not allowed"),
    ("m = __import__('os')", "__import__ is not allowed"),
    ("g = lab_vector_add.__globals__", "__globals__ is not allowed"),
    ("k = a.__class__", "__class__ is not allowed"),
    ("b2 = __builtins__", "__builtins__ is not allowed"),
    ("x = getattr(a, 'shape')", "getattr is not allowed"),
    ("global TPB", "global is not allowed"),
    ("import os", "imports belong at the top"),
    ("yield 1", "generators"),
])
def test_forbidden_inside_a_kernel(statement, expected):
    source = f"from numba import cuda\n@cuda.jit\ndef lab_vector_add(a, b, c, n):\n    {statement}\n"
    message = rejected(source)
    assert expected in message, message
    assert message.startswith("vector_add.py:4: "), message


# --- the kernel itself -----------------------------------------------------------------------------

def test_syntax_error_names_file_and_line():
    message = rejected("from numba import cuda\n\n@cuda.jit\ndef lab_vector_add(a, b, c, n)\n    pass\n", "my.py")
    assert message.startswith("my.py:4: SyntaxError: "), message


def test_missing_kernel():
    assert rejected("from numba import cuda\n@cuda.jit\ndef add(a, b, c, n):\n    pass\n") == (
        "vector_add.py: no kernel named lab_vector_add (expected @cuda.jit def lab_vector_add(...) at the top of the "
        "file)")


def test_device_function_is_not_the_kernel():
    message = rejected("from numba import cuda\n@cuda.jit(device=True)\ndef lab_vector_add(a, b, c, n):\n    pass\n")
    assert message.startswith("vector_add.py:3: lab_vector_add is a device function"), message


@pytest.mark.parametrize("params", ["a, b, c", "a, b, c, n, m", "a, b, c, *n", "a, b, c, n, *, m=1", "a, b, c, n, **k"])
def test_kernel_takes_the_labs_arguments(params):
    message = rejected(f"from numba import cuda\n@cuda.jit\ndef lab_vector_add({params}):\n    pass\n")
    assert "lab_vector_add must take exactly 4 parameters" in message, message


def test_check_file_names_the_path_as_given(tmp_path):
    f = tmp_path / "vector_add.py"
    f.write_text("import numpy\n")
    with pytest.raises(rules.StudentError, match=f"^{f}:1: "):
        rules.check_file(str(f), KERNEL, 4)
    f.write_bytes(b"\xff\xfe")
    with pytest.raises(rules.StudentError, match="not UTF-8"):
        rules.check_file(str(f), KERNEL, 4)


def test_signatures_follow_the_workloads_vocabulary():
    assert rules.signature_of(["a", "b", "c", "n"]) == "void(float32[::1], float32[::1], float32[::1], int64)"
    assert rules.signature_of(["alpha", "x", "y", "n"]) == "void(float32, float32[::1], float32[::1], int64)"
    assert rules.signature_of(["A", "B", "C", "M", "N", "K"]).startswith("void(float32[:, ::1], ")


def test_guard_matches_the_cuda_labs():
    text = (ROOT / "lab" / "runners" / "nvrtc" / "lab_kernel.cpp").read_text() + (
        ROOT / "lab" / "runners" / "nvrtc" / "lab_kernel.h").read_text()
    assert "kGuardFloats = 1 << 16" in text and rules.GUARD_FLOATS == 1 << 16
    assert "0x7F8ABCDEu" in text and rules.GUARD_BITS == 0x7F8ABCDE


# --- the runner, on Numba's CUDA simulator -------------------------------------------------------

RUNNER = r"""
import json, sys, types
sys.path[:0] = [sys.argv[1] + "/python", sys.argv[1] + "/variants/python"]
import numpy as np
from numba import cuda
import lb_numba
lb_numba.stream = lambda handle: cuda.stream()  # the simulator has no external streams
import layerbench.lab as L
from lb_variant import Buffer, KernelArg, Problem, Setup, Size, Workload

# The workloads' descriptors (workloads/<w>/<w>.cpp), as python_student_embedded.cpp hands them over.
DESCRIPTORS = {
    "vector_add": Workload("vector_add", (Buffer("a", ("n",)), Buffer("b", ("n",))), Buffer("c", ("n",)),
                           (KernelArg("a", "input", 0), KernelArg("b", "input", 1), KernelArg("c", "output"),
                            KernelArg("n", "size", dim="n"))),
    "saxpy": Workload("saxpy", (Buffer("x", ("n",)),), Buffer("y", ("n",)),
                      (KernelArg("alpha", "scalar"), KernelArg("x", "input", 0), KernelArg("y", "output"),
                       KernelArg("n", "size", dim="n"))),
    "reduce": Workload("reduce", (Buffer("x", ("n",)),), Buffer("out", ()),
                       (KernelArg("x", "input", 0), KernelArg("n", "size", dim="n"), KernelArg("out", "output"))),
    "matmul": Workload("matmul", (Buffer("A", ("m", "k")), Buffer("B", ("k", "n"))), Buffer("C", ("m", "n")),
                       (KernelArg("A", "input", 0), KernelArg("B", "input", 1), KernelArg("C", "output"),
                        KernelArg("M", "size", dim="m"), KernelArg("N", "size", dim="n"),
                        KernelArg("K", "size", dim="k"))),
}

def run(path, arguments, workload, block, grid, shape, zero=False, alpha=2.0, poke_guard=False, fresh=False):
    p = L.load(path, "k", arguments, DESCRIPTORS[workload], block, grid, False, output_starts_zero=zero, sm_count=2)
    v = p.make_variant()
    costs = []
    m, n, k = shape
    v.allocate(Size(m, n, k), Setup(0, lambda what, ms: costs.append(what)))
    rng = np.random.default_rng(1)
    sizes = {"vector_add": [n, n], "saxpy": [n], "reduce": [n], "matmul": [m * k, k * n]}[workload]
    inputs = [rng.random(s, dtype=np.float32) for s in sizes]
    count = {"matmul": m * n, "reduce": 1}.get(workload, n)
    start = np.full(count, np.nan, np.float32) if workload != "saxpy" else rng.random(n, dtype=np.float32)
    v.upload(Problem(m, n, k, alpha, inputs, start), 0)
    if fresh:  # a timed sample (lab/child/fresh_inputs.h): new values written at the same device addresses
        import ctypes

        v.run(0)  # the first problem, so that the sample must replace its inputs and output
        before = v.device_pointers()
        inputs = [rng.random(s, dtype=np.float32) for s in sizes]
        start = np.full(count, np.nan, np.float32) if workload != "saxpy" else rng.random(n, dtype=np.float32)
        for address, host in zip(before[0], inputs):
            ctypes.memmove(address, host.ctypes.data, host.nbytes)  # what the device fill does
        ctypes.memmove(before[1], start.ctypes.data, start.nbytes)
        alpha = alpha + 1.0
        v.set_alpha(alpha)
        assert v.device_pointers() == before  # the kernel's arguments do not move
    v.run(0)
    if poke_guard:
        v.buffer[count + 5] = 1.0
    out = np.empty(count, np.float32)
    v.download(out, 0)
    if workload == "vector_add": want = inputs[0] + inputs[1]
    elif workload == "saxpy": want = alpha * inputs[0] + start
    elif workload == "reduce": want = np.array([inputs[0].sum()])
    else: want = (inputs[0].reshape(m, k) @ inputs[1].reshape(k, n)).ravel()
    return {"ok": bool(np.allclose(out, want, rtol=1e-4)), "nan": int(np.isnan(out).sum()),
            "past_end": v.first_write_past_end(0), "grid": list(v.grid), "costs": costs}

case = json.loads(sys.argv[2])
print(json.dumps(run(**case)))
"""


def simulate(tmp_path, source: str, **case) -> dict:
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (variants/python/requirements.txt)")
    f = tmp_path / "k.py"
    f.write_text(textwrap.dedent(source))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    done = subprocess.run([sys.executable, "-c", RUNNER, str(ROOT), json.dumps(dict(path=str(f), **case))],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


VECTOR_ADD = """
from numba import cuda

@cuda.jit
def k(a, b, c, n):
    i = cuda.grid(1)
    if i < n{tail}:
        c[i] = a[i] + b[i]
"""


SAXPY = """
from numba import cuda

@cuda.jit
def k(alpha, x, y, n):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        y[i] = alpha * x[i] + y[i]
"""

MATMUL = """
from numba import cuda, float32

@cuda.jit
def k(A, B, C, M, N, K):
    col, row = cuda.grid(2)
    if row < M and col < N:
        total = float32(0)
        for j in range(K):
            total += A[row, j] * B[j, col]
        C[row, col] = total
"""


def test_runner_launches_the_labs_grid_and_reports_the_compile(tmp_path):
    r = simulate(tmp_path, VECTOR_ADD.format(tail=""), arguments=["a", "b", "c", "n"], workload="vector_add",
                 block=[256], grid="cover_n", shape=[1, 257, 1])
    assert r["ok"] and r["past_end"] == -1 and r["grid"] == [2]
    assert len(r["costs"]) == 1 and "numba.cuda.jit k" in r["costs"][0]


def test_runner_reads_the_fresh_inputs_timing_writes_at_its_addresses(tmp_path):
    """Before a timed sample the grade writes new inputs, the output's starting contents (saxpy: a
    new y) at the addresses device_pointers() gives, and sets a new alpha: the result must be the
    new problem's, not the first upload's, from the same kernel arguments."""
    cases = [
        (VECTOR_ADD.format(tail=""), ["a", "b", "c", "n"], "vector_add", [1, 300, 1]),
        (SAXPY, ["alpha", "x", "y", "n"], "saxpy", [1, 300, 1]),
        (MATMUL, ["A", "B", "C", "M", "N", "K"], "matmul", [5, 7, 9]),
    ]
    for source, arguments, workload, shape in cases:
        block, grid = ([16, 16], "cover_mn") if workload == "matmul" else ([256], "cover_n")
        r = simulate(tmp_path, source, arguments=arguments, workload=workload, block=block, grid=grid,
                     shape=shape, fresh=True)
        assert r["ok"] and r["nan"] == 0, (workload, r)


def test_runner_output_starts_poisoned_so_a_skipped_tail_shows(tmp_path):
    r = simulate(tmp_path, VECTOR_ADD.format(tail=" - 3"), arguments=["a", "b", "c", "n"], workload="vector_add",
                 block=[256], grid="cover_n", shape=[1, 300, 1])
    assert not r["ok"] and r["nan"] == 3


def test_runner_guard_zone_shows_a_write_past_the_end(tmp_path):
    # The simulator checks indices, so the store past the end is made by hand into the guard.
    r = simulate(tmp_path, VECTOR_ADD.format(tail=""), arguments=["a", "b", "c", "n"], workload="vector_add",
                 block=[256], grid="cover_n", shape=[1, 100, 1], poke_guard=True)
    assert r["ok"] and r["past_end"] == 5


def test_runner_binds_saxpy_alpha_and_a_grid_stride_launch(tmp_path):
    r = simulate(tmp_path, SAXPY, arguments=["alpha", "x", "y", "n"], workload="saxpy", block=[64],
                 grid="grid_stride", shape=[1, 1000, 1])
    assert r["ok"] and r["grid"] == [8]  # min(ceil(1000 / 64), 4 x 2 SMs)


def test_runner_zeroes_a_reduce_output_and_runs_2d_matmul(tmp_path):
    reduce = """
        from numba import cuda

        @cuda.jit
        def k(x, n, out):
            i = cuda.grid(1)
            if i < n:
                cuda.atomic.add(out, 0, x[i])
    """
    r = simulate(tmp_path, reduce, arguments=["x", "n", "out"], workload="reduce", block=[32], grid="cover_n",
                 shape=[1, 100, 1], zero=True)
    assert r["ok"], r
    r = simulate(tmp_path, MATMUL, arguments=["A", "B", "C", "M", "N", "K"], workload="matmul", block=[8, 4],
                 grid="cover_mn", shape=[5, 9, 3])
    assert r["ok"] and r["grid"] == [2, 2], r
