"""The Python labs' rules (python/layerbench/lab), no GPU needed: what a lab file may hold at its
top (imports of numba and math, constants, a docstring, @cuda.jit functions with literal
arguments), what it may not (any other import, calls, classes, control flow, plain functions,
assignments to other modules' names, exec/eval/open/dunders anywhere), and that every refusal names
the file and line. The compile process that imports the file is tests/python/test_lab_numba_compile.py's;
the kernel it hands back, launched as Numba's kernels take their arguments, tests/test_lab_numba.cpp's
(on a GPU: the launch, the scalar, 2-D arrays, a zeroed output, the guard zone)."""
from __future__ import annotations

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


# --- the parent checks a file it does not trust: its constants' values cost little to compute ---

@pytest.mark.parametrize("constants", [
    # String arithmetic: the third line would be 10^18 bytes (MemoryError, or the machine's memory).
    'A = "x" * 1000000\nB = A * 1000000\nC = B * 1000000',
    # Tuple arithmetic, likewise.
    "A = (1,) * 1000000\nB = A * 1000000\nC = B * 1000000",
    # Repeated squaring: each line doubles the digits (2^40 times 4000 digits by the last line).
    "A = " + "9" * 4000 + "\n" + "\n".join(f"A{i + 1} = A{i or ''} * A{i or ''}" for i in range(40)),
])
def test_constants_too_large_to_compute_are_checked_in_milliseconds(constants):
    # A child process with a wall-clock limit: before value_of was bounded, these raised MemoryError
    # or ran for hours in the process that checks the rules (the grading parent).
    import subprocess
    import sys
    source = "from numba import cuda\n" + constants + "\n" + GOOD_KERNEL
    code = ("import sys; from layerbench.lab import rules; "
            f"print(rules.check_source(sys.stdin.read(), 'vector_add.py', {KERNEL!r}, 4))")
    done = subprocess.run([sys.executable, "-c", code], input=source, capture_output=True, text=True, timeout=30,
                          env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout.strip() == "{}", done.stderr[-500:]


@pytest.mark.parametrize("expression, value", [
    ("(2 * 3) // 4 - 1.5", -0.5),
    ("-(1 << 2)", None),            # not an arithmetic a constant may use
    ("'ab' * 2", None),              # numbers only
    ("(1, 2) + (3,)", None),
    ("2 ** 8", None),
    ("1" + "0" * 80 + " * 1" + "0" * 80, None),  # beyond 2^256
    ("1 / 0", None),
])
def test_a_constants_value_is_computed_on_bounded_numbers_only(expression, value):
    import ast
    assert rules._Rules("f.py").value_of(ast.parse(expression).body[0].value) == value


@pytest.mark.parametrize("expression", ["+".join(["1"] * 5000), "+".join(["1"] * 100000), "-" * 100000 + "1"])
def test_an_expression_nested_too_deeply_is_the_files_fault_in_one_line(expression):
    # Before: RecursionError or MemoryError out of the checker, not a StudentError.
    message = rejected("from numba import cuda\nA = " + expression + "\n" + GOOD_KERNEL)
    assert message == "vector_add.py: cannot be checked: an expression is nested too deeply (split it over several constants)"
