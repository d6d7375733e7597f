"""The Numba layers' CPU-side parts (no GPU needed):

- every kernel of the numba layer compiles to PTX for sm_90 with the signature it is compiled for
  on the device (_numba_layer.SIGNATURES, the one place those are written);
- the numba-vectorize layer's scalar functions compile as CUDA device functions with their ufunc
  signatures, and the kernels Numba writes around them (the ufuncs', @cuda.reduce's) compile to
  PTX for the argument types the variants pass. Numba offers no way to compile those without a
  device: it reads the current device's compute capability to compile a device function, so these
  tests put a stand-in device with compute capability 9.0 in its place (numba-cuda internals: they
  skip if those move);
- check_args(), which the numba variants call in allocate() on what they pass, refuses what a
  signature does not say;
- the numba layer's variants, run whole (allocate, upload, run, download) on Numba's CUDA
  simulator, give results the workloads' own tolerances accept, at the harness's edge sizes (the
  simulator runs the kernels' Python on the CPU, thread by thread; it has no external streams, so
  those are swapped for its own, and jit_kernel() for the simulator's jit);
- the numba-vectorize layer's variants, with NumPy stand-ins for the ufuncs and @cuda.reduce, pass
  each ufunc as many float32 arrays as its signature has arguments, and upload, call and download
  what the workload needs;
- importing the layers does not initialise CUDA, and lb_numba's errors and libraries() behave.

No environment variable is needed: numba-cuda finds libNVVM and libdevice through cuda.pathfinder
and the toolkit (on this machine's layout without CUDA_HOME too)."""
from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER_DIRS = [ROOT / "variants" / "python", ROOT / "variants" / "numba", ROOT / "variants" / "numba-vectorize"]
sys.path[:0] = [str(d) for d in LAYER_DIRS if str(d) not in sys.path]

pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (variants/python/requirements.txt)")

import _numba_layer  # noqa: E402
import _numba_vectorize_layer  # noqa: E402
import lb_numba  # noqa: E402
import lb_shared  # noqa: E402
from lb_variant import LayerConfig, Problem, Setup, Size  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda.core import sigutils  # noqa: E402

CC = (9, 0)  # an H100's; compile_ptx needs no device when told the target
EPS = 2.0 ** -23


def load_variant(layer: str, workload: str):
    """The variant file as the harness loads it (python_layer.cpp: a module from its path)."""
    path = ROOT / "variants" / layer / f"{workload}.py"
    spec = importlib.util.spec_from_file_location(f"test_{layer.replace('-', '_')}_{workload}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Variant


# --- compiles ------------------------------------------------------------------------------------

def test_every_numba_kernel_has_one_signature():
    assert set(_numba_layer.KERNELS) == set(_numba_layer.SIGNATURES)


@pytest.mark.parametrize("name", sorted(_numba_layer.SIGNATURES))
def test_numba_kernel_compiles_to_ptx(name: str):
    ptx, return_type = cuda.compile_ptx(_numba_layer.KERNELS[name], _numba_layer.SIGNATURES[name], cc=CC)
    assert ".target sm_90" in ptx and ".entry" in ptx
    assert str(return_type) == "none"


def test_numba_shared_memory_sizes_follow_launch_config_h():
    assert _numba_layer.BLOCK == lb_shared.BLOCK  # block_sum's shared array holds one float per thread
    assert _numba_layer.TPB ** 2 <= 1024
    # transpose's tile is our kernel's, so that the shared grid covers A (jit_kernel() refuses to
    # compile otherwise); its block is its own, a thread per element of a tile row
    assert _numba_layer.TR_TILE == lb_shared.CONFIG["LB_TR_TILE"]
    assert _numba_layer.transpose_block() == (_numba_layer.TR_TILE, _numba_layer.TR_ROWS)
    assert _numba_layer.TR_TILE % _numba_layer.TR_ROWS == 0


@pytest.mark.parametrize("name", sorted(_numba_vectorize_layer.SIGNATURES))
def test_ufunc_scalar_function_compiles_as_a_device_function(name: str):
    ptx, return_type = cuda.compile_ptx(_numba_vectorize_layer.SCALAR_FUNCTIONS[name],
                                        _numba_vectorize_layer.SIGNATURES[name], device=True, cc=CC)
    assert ".target sm_90" in ptx and ".func" in ptx
    assert str(return_type) == "float32"


def test_the_reduction_is_a_cuda_reduce():
    assert isinstance(_numba_vectorize_layer.sum_reduce, cuda.Reduce)


@pytest.fixture
def pretend_sm90(monkeypatch):
    """numba-cuda reads the current device's compute capability to compile a device function (the
    core of a ufunc, the operator of a reduction): a stand-in device says 9.0. This reaches into
    numba-cuda 0.30's dispatcher module; where that has moved, the tests using it skip."""
    import numba.cuda.dispatcher

    if not hasattr(numba.cuda.dispatcher, "get_current_device"):
        pytest.skip("numba.cuda.dispatcher.get_current_device has moved: cannot stand in for a device")
    sm90 = types.SimpleNamespace(compute_capability=CC)
    monkeypatch.setattr(numba.cuda.dispatcher, "get_current_device", lambda: sm90)


# The kernel Numba writes around each ufunc, typed as the variants call it: the inputs, then out=.
# saxpy's alpha is a one-element array broadcast to n, so an 'A' (any layout) array, except at n = 1.
UFUNC_KERNEL_ARGS = [
    ("add", "void(float32[::1], float32[::1], float32[::1])"),
    ("saxpy", "void(float32[:], float32[::1], float32[::1], float32[::1])"),
    ("saxpy", "void(float32[::1], float32[::1], float32[::1], float32[::1])"),
    ("store", "void(float32[::1], float32[::1])"),
]


@pytest.mark.parametrize("name, kernel_signature", UFUNC_KERNEL_ARGS)
def test_ufunc_kernel_compiles_to_ptx(pretend_sm90, name: str, kernel_signature: str):
    from numba import vectorize

    scalar_function = _numba_vectorize_layer.SCALAR_FUNCTIONS[name]
    made = vectorize([_numba_vectorize_layer.SIGNATURES[name]], target="cuda")(scalar_function)
    [(_, kernel)] = made.functions.values()  # numba-cuda 0.30: {argument dtypes: (result dtype, kernel dispatcher)}
    ptx, _ = cuda.compile_ptx(kernel.py_func, kernel_signature, cc=CC)
    assert ".target sm_90" in ptx and ".entry" in ptx


def test_cuda_reduce_kernel_compiles_to_ptx(pretend_sm90):
    add = _numba_vectorize_layer.add
    own_add = types.FunctionType(add.__code__, add.__globals__, "add")  # Reduce caches kernels per function
    kernel = cuda.reduce(own_add)._compile(np.dtype(np.float32))  # numba-cuda 0.30: built at the first call
    ptx, _ = cuda.compile_ptx(kernel.py_func, "void(float32[::1], float32[::1], float32, boolean)", cc=CC)
    assert ".target sm_90" in ptx and ".entry" in ptx


# --- what the variants pass ------------------------------------------------------------------------

def test_check_args_accepts_what_the_signatures_say():
    v, m = np.zeros(4, np.float32), np.zeros((2, 2), np.float32)
    _numba_layer.check_args("vector_add", (v, v, v, 4))
    _numba_layer.check_args("saxpy", (np.float32(1.5), v, v, 4))
    _numba_layer.check_args("block_sum", (v, 4, v))
    _numba_layer.check_args("matmul", (m, m, m))
    _numba_layer.check_args("transpose", (np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32)))
    _numba_layer.check_args("probe", (v, np.float32(1)))


@pytest.mark.parametrize("name, args", [
    ("vector_add", (np.zeros(4, np.float32),) * 3 + (4.0,)),                    # n as a float
    ("saxpy", (1.5,) + (np.zeros(4, np.float32),) * 2 + (4,)),                   # alpha as a float64
    ("vector_add", (np.zeros(4, np.float64),) * 3 + (4,)),                      # double arrays
    ("matmul", (np.zeros(4, np.float32),) * 3),                                 # 1-D for 2-D
    ("matmul", (np.zeros((2, 2), np.float32).T,) * 3),                          # column-major
    ("transpose", (np.zeros((2, 3), np.float32).T, np.zeros((2, 3), np.float32))),  # A.T, a view, for A
    ("block_sum", (np.zeros(8, np.float32)[::2], 4, np.zeros(1, np.float32))),  # strided
    ("probe", (np.zeros(1, np.float32),)),                                      # an argument short
])
def test_check_args_refuses_what_the_signatures_do_not_say(name, args):
    with pytest.raises(TypeError, match=name):
        _numba_layer.check_args(name, args)


# --- the numba layer's variants on the CUDA simulator ----------------------------------------------

SIMULATED = [("vector_add", (1, n, 1)) for n in (1, 127, 129, 1000)] + \
            [("saxpy", (1, n, 1)) for n in (1, 129, 1000)] + \
            [("reduce", (1, n, 1)) for n in (1, 129, 5000)] + \
            [("launch_async", (1, n, 1)) for n in (1, 2, 17)] + \
            [("launch_sync", (1, n, 1)) for n in (1, 17)] + \
            [("matmul", s) for s in ((1, 1, 1), (17, 33, 65), (128, 1, 300), (20, 3, 40))] + \
            [("transpose", s) for s in ((1, 1, 1), (1, 70, 1), (33, 65, 1), (64, 32, 1))]


def make_problem(workload: str, shape, rng):
    """As the workloads make them: inputs in [-1, 1], output poisoned with NaN (saxpy: y's values)."""
    m, n, k = shape
    sizes = {"vector_add": ([n, n], n), "saxpy": ([n], n), "reduce": ([n], 1), "matmul": ([m * k, k * n], m * n),
             "transpose": ([m * n], n * m)}
    input_sizes, output_size = sizes.get(workload, ([], 1))
    inputs = [rng.uniform(-1, 1, size).astype(np.float32) for size in input_sizes]
    output = (rng.uniform(-1, 1, n).astype(np.float32) if workload == "saxpy"
              else np.full(output_size, np.nan, np.float32))
    for array in inputs + [output]:
        array.setflags(write=False)  # the harness's views of its inputs are read-only
    return Problem(m, n, k, 1.5, inputs, output)


def worst_error(workload: str, problem, got) -> float:
    """max |got - reference| / tolerance, the tolerances of workloads/<w>/<w>.cpp (pass: <= 1)."""
    m, n, k = problem.m, problem.n, problem.k
    x = [a.astype(np.float64) for a in problem.inputs]
    if workload == "vector_add":
        ref, tol = x[0] + x[1], EPS * (abs(x[0]) + abs(x[1]))
    elif workload == "saxpy":
        y = problem.output.astype(np.float64)
        ref, tol = problem.alpha * x[0] + y, 2 * EPS * (abs(problem.alpha * x[0]) + abs(y))
    elif workload == "reduce":
        ref, tol = np.array([x[0].sum()]), np.array([2 * math.sqrt(n) * EPS * abs(x[0]).sum()])
    elif workload == "matmul":
        a, b = x[0].reshape(m, k), x[1].reshape(k, n)
        ref, tol = (a @ b).ravel(), (2 * math.sqrt(k) * EPS * (abs(a) @ abs(b))).ravel()
    elif workload == "transpose":  # a copy: exact
        ref, tol = x[0].reshape(m, n).T.ravel(), np.zeros(m * n)
    else:  # launch: exactly the last launch's value
        ref, tol = np.array([float(n)]), np.array([0.0])
    error = np.abs(got.astype(np.float64) - ref)
    if np.isnan(error).any():
        return math.inf
    return float(np.max(np.where(error == 0, 0.0, error / np.maximum(tol, 1e-300))))


def simulate_numba_variants() -> None:
    """Run in a subprocess with NUMBA_ENABLE_CUDASIM=1: every SIMULATED case through its variant
    file, one JSON line each."""
    lb_numba.stream = lambda handle: cuda.stream()  # the simulator has no external streams
    lb_numba.sm_count = lambda: 1  # few blocks: reduce's grid-stride loop takes several turns
    _numba_layer.jit_kernel = lambda name, cost: cuda.jit(_numba_layer.KERNELS[name])
    rng = np.random.default_rng(7)
    for workload, shape in SIMULATED:
        try:
            problem = make_problem(workload, shape, rng)
            variant = load_variant("numba", workload)()
            variant.allocate(Size(*shape), Setup(0, lambda what, ms: None, _numba_layer.Session(LayerConfig("numba"))))
            variant.upload(problem, 0)
            variant.run(0)
            got = np.full(problem.output.size, np.nan, np.float32)
            variant.download(got, 0)
            result = {"error": worst_error(workload, problem, got)}
        except Exception as e:
            result = {"exception": f"{type(e).__name__}: {e}"}
        print(json.dumps({"case": f"{workload}-{'x'.join(map(str, shape))}"} | result), flush=True)


@pytest.fixture(scope="module")
def simulated() -> dict:
    env = os.environ | {"NUMBA_ENABLE_CUDASIM": "1"}
    done = subprocess.run([sys.executable, __file__, "--simulate"], env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return {r["case"]: r for r in map(json.loads, done.stdout.splitlines())}


@pytest.mark.parametrize("case", [f"{w}-{'x'.join(map(str, s))}" for w, s in SIMULATED])
def test_numba_variant_on_the_cuda_simulator(simulated, case: str):
    result = simulated[case]
    assert "exception" not in result, result.get("exception")
    assert result["error"] <= 1.0, f"{case}: off by {result['error']:.3g} times the workload's tolerance"


# --- the numba-vectorize layer's variants with NumPy stand-ins -------------------------------------

class Stream:
    def synchronize(self):
        pass


class FakeUfunc:
    """A CUDA ufunc's contract: as many arrays as the signature has arguments, every one float32 (a
    CUDA ufunc casts nothing), broadcast to the first's shape, the result written into out=, on
    the stream given. Its inputs must have been written: the stand-in device memory starts as NaN,
    as uninitialised memory, which compute-sanitizer's initcheck reports when a kernel reads it."""

    def __init__(self, name: str, stream: Stream):
        self.name, self.stream = name, stream
        self.arity = len(sigutils.normalize_signature(_numba_vectorize_layer.SIGNATURES[name])[0])

    def __call__(self, *args, out, stream):
        assert stream is self.stream, f"{self.name}: not on the harness's stream"
        assert len(args) == self.arity, f"{self.name}: {len(args)} arguments, its signature has {self.arity}"
        assert all(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in (*args, out)), \
            f"{self.name}: every argument must be a float32 device array"
        assert not any(np.isnan(a).any() for a in args), f"{self.name}: reads device memory never written"
        arrays = np.broadcast_arrays(*args)  # a one-element array is broadcast to n, as alpha is
        assert arrays[0].shape == out.shape
        out[...] = _numba_vectorize_layer.SCALAR_FUNCTIONS[self.name](*arrays)


@pytest.fixture
def fake_device(monkeypatch):
    harness_stream = Stream()
    monkeypatch.setattr(lb_numba, "stream", lambda handle: harness_stream)
    monkeypatch.setattr(lb_numba, "device_array", lambda shape: np.full(shape, np.nan, np.float32))
    monkeypatch.setattr(lb_numba, "upload", lambda host, device, s: device.__setitem__(..., host.reshape(device.shape)))
    monkeypatch.setattr(lb_numba, "download", lambda device, out, s: out.__setitem__(..., device.reshape(out.shape)))
    monkeypatch.setattr(lb_numba, "deferred_frees", contextlib.nullcontext)

    def fake_zero(s, *arrays):
        assert s is harness_stream, "lb_numba.zero: not on the harness's stream"
        for a in arrays:
            a[...] = 0
    monkeypatch.setattr(lb_numba, "zero", fake_zero)
    monkeypatch.setattr(_numba_vectorize_layer, "make_ufunc", lambda name, cost: FakeUfunc(name, harness_stream))

    def fake_reduce(arr, size=None, res=None, init=0, stream=0):
        assert stream is harness_stream, "@cuda.reduce: not on the harness's stream"
        assert res is not None, "@cuda.reduce without res= returns the sum to the host"
        assert not np.isnan(arr).any(), "@cuda.reduce: reads device memory never written"
        res[0] = arr.sum(dtype=np.float32) + init
    monkeypatch.setattr(_numba_vectorize_layer, "sum_reduce", fake_reduce)


@pytest.mark.parametrize("workload, shape", [("vector_add", (1, 129, 1)), ("saxpy", (1, 1, 1)), ("saxpy", (1, 129, 1)),
                                             ("reduce", (1, 1000, 1)), ("launch_async", (1, 17, 1)),
                                             ("launch_sync", (1, 2, 1))])
def test_numba_vectorize_variant_with_numpy_stand_ins(fake_device, workload: str, shape):
    problem = make_problem(workload, shape, np.random.default_rng(3))
    variant = load_variant("numba-vectorize", workload)()
    session = _numba_vectorize_layer.Session(LayerConfig("numba-vectorize"))
    variant.allocate(Size(*shape), Setup(12345, lambda what, ms: None, session))
    variant.upload(problem, 12345)
    variant.run(12345)
    got = np.full(problem.output.size, np.nan, np.float32)
    variant.download(got, 12345)
    assert worst_error(workload, problem, got) <= 1.0
    assert variant.run_waits == (workload == "launch_sync")


@pytest.mark.parametrize("workload", ["matmul", "transpose"])
def test_numba_vectorize_declares_no(workload: str):
    assert not (ROOT / "variants" / "numba-vectorize" / f"{workload}.py").exists()  # python_layers.cpp says not provided


# --- imports, errors, libraries ---------------------------------------------------------------------

def test_importing_the_layers_does_not_initialise_cuda():
    """The adapter imports numba.cuda and the support modules before any variant runs (and `list`
    imports lb_numba): none of it may initialise CUDA or make a context (the harness owns that)."""
    code = f"""
import importlib.util, pathlib, sys
sys.path[:0] = {[str(d) for d in LAYER_DIRS]!r}
import lb_numba, _numba_layer, _numba_vectorize_layer
for layer in ("numba", "numba-vectorize"):
    for path in sorted(pathlib.Path({str(ROOT / "variants")!r}, layer).glob("[!_]*.py")):
        spec = importlib.util.spec_from_file_location("v_" + path.stem, path)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
from numba.cuda.cudadrv.driver import driver
assert driver.pid is None, "cuInit was called"  # Numba sets it after its cuInit, and only then
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_out_of_memory_becomes_memory_error(monkeypatch):
    from cuda.bindings.driver import CUresult
    from numba.cuda.cudadrv.driver import CudaAPIError

    def out_of_memory(shape, dtype):
        raise CudaAPIError(CUresult.CUDA_ERROR_OUT_OF_MEMORY, "Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY")
    monkeypatch.setattr(lb_numba.cuda, "device_array", out_of_memory)
    with pytest.raises(MemoryError, match="CUDA_ERROR_OUT_OF_MEMORY"):
        lb_numba.device_array(1 << 40)


def test_other_cuda_errors_stay_cuda_errors(monkeypatch):
    from cuda.bindings.driver import CUresult
    from numba.cuda.cudadrv.driver import CudaAPIError

    def invalid(shape, dtype):
        raise CudaAPIError(CUresult.CUDA_ERROR_INVALID_VALUE, "Call to cuMemAlloc results in CUDA_ERROR_INVALID_VALUE")
    monkeypatch.setattr(lb_numba.cuda, "device_array", invalid)
    with pytest.raises(CudaAPIError):
        lb_numba.device_array(4)


# --- Numba's performance warnings: the case's notes, not console lines -------------------------------

PERFORMANCE_WARNINGS = f"""
import sys, warnings
sys.path[:0] = {[str(d) for d in LAYER_DIRS]!r}
import lb_numba, lb_shared
from numba.cuda.core.errors import NumbaPerformanceWarning
from numba.cuda.dispatcher import _LaunchConfiguration  # where numba-cuda warns of a small grid; no GPU needed

def launch(blocks):  # what kernel[blocks, 256, stream] makes (once per configuration: Numba caches it)
    _LaunchConfiguration(None, (blocks, 1, 1), (256, 1, 1), 0, 0)

first, second = [], []
lb_shared.case_notes = first  # as the adapter sets it around each call into a case's variant
launch(1); launch(1); launch(2); launch(4096)
warnings.warn("not performance advice", UserWarning)
lb_shared.case_notes = None
lb_shared.case_notes = second
launch(1)
lb_shared.case_notes = None
launch(1)  # outside a case (the Python labs): the low-occupancy warning is not shown at all
for _ in range(2):  # another performance warning outside a case: shown once, as Python would
    warnings.warn(NumbaPerformanceWarning("Host array used in CUDA kernel will incur copy overhead to/from device."))
print(first)
print(second)
"""


def test_numba_performance_warnings_become_the_case_notes():
    done = subprocess.run([sys.executable, "-c", PERFORMANCE_WARNINGS], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    first, second = (eval(line) for line in done.stdout.splitlines())
    grid = "NumbaPerformanceWarning: Grid size {} will likely result in GPU under-utilization due to low occupancy."
    assert first == [grid.format(1), grid.format(2)]  # each distinct text once; 4096 blocks: no warning
    assert second == [grid.format(1)]  # every case that raised it, not only the first in the process
    assert "Grid size" not in done.stderr
    assert "UserWarning: not performance advice" in done.stderr  # other warnings are shown
    assert done.stderr.count("Host array used in CUDA kernel") == 1, done.stderr


def test_libraries_names_nvvm_nvrtc_and_the_driver_and_never_raises():
    found = lb_numba.libraries()
    assert {"nvvm", "nvrtc", "driver"} <= set(found), found
    for name, entry in found.items():
        assert isinstance(entry, dict) and ("version" in entry or "error" in entry), (name, entry)
    assert found["nvvm"].get("path") or found["nvvm"].get("error")


if __name__ == "__main__" and sys.argv[1:] == ["--simulate"]:
    simulate_numba_variants()
