"""The Python runners of the kernel-text labs (python/layerbench/lab/kernel_text.py: PyCUDA, lab 06; cuda.core,
lab 07) and what every Python runner shares (layerbench.lab.program: Program and Variant), no GPU needed:

- one runner per lab.json "runner" name, the registry matching the C++ runners (lab/runners/runners.cpp), and
  importing the runners imports neither PyCUDA nor cuda.core;
- the shared Variant, driven through a runner whose "device" is host memory (NumPy) and whose
  "kernels" are NumPy functions of the grid: the lab's grid, the guard zone after the output, the
  addresses timing writes each sample's fresh inputs and output start at (the same every sample), the
  zeroed output of a reduce, C-typed scalars, the one-time costs reported once;
- PyCUDA's compile options (the #line that names the student's file, -G under the sanitizer) and
  prepare() types, and lab 06's files through PyCUDA's compile() (nvcc; in a child with the CUDA
  stub library, as tests/python/test_pycuda_layer.py does);
- cuda.core's Program options and lab 07's files compiled by it (NVRTC, no GPU), a compile error
  naming the student's file and line.

What needs the GPU (the solutions pass, the planted files fail as they expect, through PyCUDA and
cuda.core) is tests/test_lab.cpp's, which runs every lab."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

from layerbench.lab import kernel_text as K  # noqa: E402  (standard library only at its top)
import layerbench.lab as L  # noqa: E402
from lb_variant import Buffer, KernelArg, Problem, Setup, Size, Workload  # noqa: E402
from test_pycuda_layer import child, needs_pycuda  # noqa: E402  (tests/python is on pytest's path)

LABS = ROOT / "labs"

# The descriptors as python_student_embedded.cpp hands them over (workloads/<w>/<w>.cpp), C types included.
VECTOR_ADD = Workload("vector_add", (Buffer("a", ("n",)), Buffer("b", ("n",))), Buffer("c", ("n",)),
                      (KernelArg("a", "input", 0, type="const float*"), KernelArg("b", "input", 1, type="const float*"),
                       KernelArg("c", "output", type="float*"), KernelArg("n", "size", dim="n", type="long long")))
SAXPY = Workload("saxpy", (Buffer("x", ("n",)),), Buffer("y", ("n",)),
                 (KernelArg("alpha", "scalar", type="float"), KernelArg("x", "input", 0, type="const float*"),
                  KernelArg("y", "output", type="float*"), KernelArg("n", "size", dim="n", type="long long")))
REDUCE = Workload("reduce", (Buffer("x", ("n",)),), Buffer("out", ()),
                  (KernelArg("x", "input", 0, type="const float*"), KernelArg("n", "size", dim="n", type="long long"),
                   KernelArg("out", "output", type="float*")))
MATMUL = Workload("matmul", (Buffer("A", ("m", "k")), Buffer("B", ("k", "n"))), Buffer("C", ("m", "n")),
                  (KernelArg("A", "input", 0, type="const float*"), KernelArg("B", "input", 1, type="const float*"),
                   KernelArg("C", "output", type="float*"), KernelArg("M", "size", dim="m", type="int"),
                   KernelArg("N", "size", dim="n", type="int"), KernelArg("K", "size", dim="k", type="int")))


# --- the registry ---------------------------------------------------------------------------------

def registered_programs() -> dict[str, str]:
    """The Python runners of lab/runners/runners.cpp by name, each with its program class, one line
    each (make_unique<PythonRunner>("name", ".ext", "module.Class"))."""
    text = (ROOT / "lab" / "runners" / "runners.cpp").read_text()
    return dict(re.findall(r'make_unique<PythonRunner>\("([\w-]+)", "[.\w]+", "([\w.]+)"\)', text))


def test_every_lab_names_a_registered_runner():
    names = re.findall(r'make_unique<\w+>\("([\w-]+)"', (ROOT / "lab" / "runners" / "runners.cpp").read_text())
    for lab in sorted(LABS.glob("*/lab.json")):
        runner = json.loads(lab.read_text()).get("runner")
        assert runner is None or runner in names, f"{lab}: no runner named {runner!r}"


def test_every_python_runner_names_a_program_class():
    programs = registered_programs()
    assert {"pycuda", "cuda-core"} <= set(programs)  # numba: no program class (lab/runners/numba/)
    for runner, program in programs.items():
        assert issubclass(L.program_class(program), L.Program), runner
    for wrong, error in (("kernel_text.Nothing", "is not a program class"),
                         ("rules.StudentError", "is not a program class"),
                         ("NumbaProgram", "is not a program class"), ("no_module.Program", "No module named")):
        with pytest.raises((RuntimeError, ModuleNotFoundError), match=error):
            L.program_class(wrong)


def test_importing_the_runners_imports_no_gpu_library():
    done = subprocess.run([sys.executable, "-c", f"""
import sys
sys.path[:0] = [{str(ROOT / 'python')!r}, {str(ROOT / 'variants' / 'python')!r}]
from layerbench.lab import kernel_text as lb_lab_kernel_text
print(sorted(m for m in ("pycuda", "cuda.core", "numba", "numpy") if m in sys.modules))
"""], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --- the shared Variant, on a host-memory runner --------------------------------------------------

class Pointer:
    """What the host runner passes for a pointer parameter: an array and an element offset."""

    def __init__(self, memory: np.ndarray, start: int):
        self.memory, self.start = memory, start

    def view(self, count: int) -> np.ndarray:
        return self.memory[self.start:self.start + count]


class HostProgram(L.Program):
    """A runner whose device is NumPy: `kernel(grid, block, *args)` plays the student's kernel.
    Launches are recorded, as is every scalar's type."""

    def __init__(self, kernel, arguments, workload, block, grid, exact_buffers=False, output_starts_zero=False):
        super().__init__("k.cu", "k", arguments, workload, block, grid, exact_buffers, output_starts_zero, sm_count=2)
        self.kernel, self.launches, self.handles = kernel, [], set()
        self.one_time_costs.append(("compile k.cu", 12.5))

    def bind(self, handle):
        self.handles.add(handle)

    def floats(self, count):
        return np.full(count, -1.0, dtype=np.float32)  # not zero: uninitialised device memory

    def argument(self, memory, start, shape):
        return Pointer(memory, start)

    def value(self, arg, number):
        return K.c_value(arg, number)

    def to_device(self, host, memory, start):
        memory[start:start + host.size] = host

    def to_host(self, memory, start, host):
        host[:] = memory[start:start + host.size]

    def address(self, memory):
        return memory.ctypes.data

    def zero(self, memory, count):
        memory[:count] = 0

    def launch(self, grid, args):
        self.launches.append(grid)
        self.kernel(grid, self.block, *args)

    def sync(self):
        pass


def threads(grid, block) -> np.ndarray:
    return np.arange(int(np.prod(grid)) * int(np.prod(block)))


def vector_add(bounds_check=True):
    def kernel(grid, block, a, b, c, n):
        i = threads(grid, block)
        i = i[i < n] if bounds_check else i
        c.memory[c.start + i] = a.memory[a.start + i % n] + b.memory[b.start + i % n]  # (reads kept in bounds)
    return kernel


def saxpy_grid_stride(grid, block, alpha, x, y, n):
    assert type(alpha) is np.float32 and type(n) is np.int64  # the kernel's C types: 4 and 8 bytes
    i = np.arange(n)
    y.memory[y.start + i] = alpha * x.memory[x.start + i] + y.memory[y.start + i]


def reduce_atomic(grid, block, x, n, out):
    out.memory[out.start] += x.view(int(n)).sum()


def run(program, size, problem):
    costs = []
    v = program.make_variant()
    v.allocate(size, Setup(7, lambda what, ms: costs.append((what, ms))))
    v.upload(problem, 7)
    v.run(7)
    out = np.empty(program.workload.output.elements(size), np.float32)
    v.download(out, 7)
    return v, out, costs


def vector_add_problem(n, seed=1):
    rng = np.random.default_rng(seed)
    return Problem(1, n, 1, 0.0, [rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)],
                   np.full(n, np.nan, np.float32))


def test_the_labs_grid_the_output_and_an_intact_guard():
    p = HostProgram(vector_add(), ["a", "b", "c", "n"], VECTOR_ADD, [256], "cover_n")
    problem = vector_add_problem(257)
    v, out, costs = run(p, Size(1, 257, 1), problem)
    assert v.grid == (2,) and p.launches == [(2,)]
    assert np.array_equal(out, problem.inputs[0] + problem.inputs[1])
    assert v.first_write_past_end(7) == -1
    assert costs == [("compile k.cu", 12.5)] and p.handles == {7}
    _, _, again = run(p, Size(1, 257, 1), problem)
    assert again == []  # the compile is the check's, reported to the first size only


def test_a_store_past_the_end_lands_in_the_guard():
    p = HostProgram(vector_add(bounds_check=False), ["a", "b", "c", "n"], VECTOR_ADD, [256], "cover_n")
    v, out, _ = run(p, Size(1, 257, 1), vector_add_problem(257))
    assert v.first_write_past_end(7) == 0  # 512 threads: c[257] onwards, the guard's first element
    assert v.buffer.size == 257 + L.GUARD_FLOATS


def test_exact_buffers_have_no_guard():
    p = HostProgram(vector_add(), ["a", "b", "c", "n"], VECTOR_ADD, [256], "cover_n", exact_buffers=True)
    v, _, _ = run(p, Size(1, 100, 1), vector_add_problem(100))
    assert v.buffer.size == 100 and v.first_write_past_end(7) == -1


def test_fresh_inputs_are_written_at_the_same_addresses_every_sample():
    """Timed samples get new inputs, a new y and a new alpha, written where device_pointers() says
    (as the grade's device fill does): the result must be each sample's, from the same arguments."""
    import ctypes

    n = 300
    p = HostProgram(saxpy_grid_stride, ["alpha", "x", "y", "n"], SAXPY, [256], "grid_stride")
    rng = np.random.default_rng(3)
    first = Problem(1, n, 1, 2.0, [rng.random(n, dtype=np.float32)], rng.random(n, dtype=np.float32))
    v, _, _ = run(p, Size(1, n, 1), first)
    assert v.grid == (2,)  # min(ceil(300 / 256), 4 x 2 SMs)
    inputs, output = v.device_pointers()
    assert inputs == [v.inputs[0].ctypes.data] and output == v.buffer.ctypes.data
    args = list(v.args)
    for alpha in (3.0, 0.75):
        x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        ctypes.memmove(inputs[0], x.ctypes.data, x.nbytes)
        ctypes.memmove(output, y.ctypes.data, y.nbytes)
        v.set_alpha(alpha)
        assert v.device_pointers() == (inputs, output)
        assert [a for a in v.args if isinstance(a, Pointer)] == [a for a in args if isinstance(a, Pointer)]
        v.run(7)
        out = np.empty(n, np.float32)
        v.download(out, 7)
        assert np.allclose(out, np.float32(alpha) * x + y), alpha


def test_a_reduce_output_is_zeroed_before_every_launch():
    p = HostProgram(reduce_atomic, ["x", "n", "out"], REDUCE, [256], "cover_n", output_starts_zero=True)
    x = np.arange(10, dtype=np.float32)
    v, out, _ = run(p, Size(1, 10, 1), Problem(1, 10, 1, 0.0, [x], np.array([np.nan], np.float32)))
    assert out[0] == 45
    v.run(7)
    v.run(7)
    v.download(out, 7)
    assert out[0] == 45  # not 135: each launch adds into zero


def test_sizes_are_passed_as_their_c_types_and_matmul_gets_a_2d_grid():
    seen = {}

    def kernel(grid, block, A, B, C, M, N, K):
        seen.update(grid=grid, types=[type(v) for v in (M, N, K)])

    p = HostProgram(kernel, ["A", "B", "C", "M", "N", "K"], MATMUL, [16, 16], "cover_mn")
    m, n, k = 33, 17, 5
    run(p, Size(m, n, k), Problem(m, n, k, 0.0, [np.zeros(m * k, np.float32), np.zeros(k * n, np.float32)],
                                  np.full(m * n, np.nan, np.float32)))
    assert seen == {"grid": (2, 3), "types": [np.int32] * 3}  # int M, N, K: 4 bytes each


def test_c_value_refuses_a_type_it_cannot_pass():
    with pytest.raises(RuntimeError, match="cannot pass"):
        K.c_value(KernelArg("h", "scalar", type="half"), 1.0)


# --- PyCUDA ---------------------------------------------------------------------------------------

def test_pycuda_prepare_types_are_the_c_parameter_types():
    assert K.prepare_types(VECTOR_ADD, ["a", "b", "c", "n"]) == ["P", "P", "P", np.int64]
    assert K.prepare_types(SAXPY, ["alpha", "x", "y", "n"]) == [np.float32, "P", "P", np.int64]
    assert K.prepare_types(MATMUL, ["A", "B", "C", "M", "N", "K"]) == ["P"] * 3 + [np.int32] * 3


# The student's kernel text is compiled by NVRTC in the limited compile process, never by PyCUDA or
# cuda.core in the child (kernel_text.py): what compiles and what does not is tested in C++
# (tests/test_lab_kernel_text.cpp, the precheck of every lab's files; tests/test_lab.cpp).


def test_the_runners_load_a_cubin_and_compile_nothing():
    """Neither runner reaches for its layer's compiler (SourceModule, Program): the child holds the
    grade's keys, and a compile there could read the grading machine's files."""
    import ast

    tree = ast.parse(Path(K.__file__).read_text())
    called = {getattr(node.func, "attr", getattr(node.func, "id", None)) for node in ast.walk(tree)
              if isinstance(node, ast.Call)}
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names} | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not called & {"SourceModule", "compile", "ProgramOptions"}, called
    assert not imported & {"pycuda.compiler", "ProgramOptions"}, imported  # (Program: program.py's base class)
    assert {"module_from_buffer", "from_cubin"} <= called
