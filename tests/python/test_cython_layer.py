"""The cython layer: its extension module lb_cython (built by CMake into <build>/python) imports
without a GPU, checks its arguments, names the CUDA call in its errors, says which CUDA runtime it
calls; on a machine with a GPU, each variant file runs standalone (on the legacy default stream,
outside the harness) and gives the right answer. The harness's own checks of the layer (edge sizes,
stream gate, same output as `runtime`) are tests/test_layers.cpp, test_stream_gate.cpp and
test_same_kernel.cpp.

The module is found through $LB_PYTHON_MODULE_DIR, which the ctest `cython.pytest` sets to the
build's folder; run by `python_layers.test_cython_layer.pytest` (no build folder known) the tests that need it skip."""
from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "variants" / "cython"
WORKLOADS = ["vector_add", "saxpy", "reduce", "matmul", "transpose", "launch_async", "launch_sync"]


def test_one_variant_file_per_workload():
    assert sorted(p.stem for p in LAYER.glob("*.py") if not p.stem.startswith("_")) == sorted(WORKLOADS)


def test_the_launchers_include_our_kernels_and_copy_none():
    """The layer's point is wrapping the kernels `runtime` runs: their one text, included, not copied."""
    text = (LAYER / "launchers.cu").read_text()
    assert "__global__" not in text
    for workload in ("vector_add", "saxpy", "reduce", "matmul", "transpose"):
        assert f'#include "workloads/{workload}/kernels.cu"' in text
    assert '#include "variants/gpu_launch.h"' in text
    assert "workloads/launch/kernels.cu" in (LAYER / "CMakeLists.txt").read_text()


@pytest.fixture(scope="module")
def lb_cython():
    folder = os.environ.get("LB_PYTHON_MODULE_DIR")
    if not folder:
        pytest.skip("LB_PYTHON_MODULE_DIR is not set: the ctest cython.pytest runs this with the build's "
                    "module folder (<build>/python)")
    for path in (folder, str(ROOT / "variants" / "python"), str(LAYER)):
        if path not in sys.path:
            sys.path.insert(0, path)
    import lb_cython as module  # an ImportError here fails: the folder was given, the module must be there

    return module


@pytest.fixture(scope="module")
def gpu(lb_cython):
    """Skips where no GPU is usable; CUDA's reason is in the skip."""
    try:
        lb_cython.DeviceBuffer(1)
    except RuntimeError as e:
        pytest.skip(f"no usable GPU: {e}")


def test_import_names_every_wrapper(lb_cython):
    for name in ("DeviceBuffer", "vector_add", "saxpy", "reduce", "matmul", "transpose", "launch_probe", "stream_synchronize",
                 "reduce_blocks", "runtime_version", "cudart_path"):
        assert hasattr(lb_cython, name), name


def test_it_calls_a_cuda_13_runtime_and_names_its_file(lb_cython):
    assert lb_cython.runtime_version() >= 12000
    assert re.search(r"libcudart\.so(\.\d+)*$", lb_cython.cudart_path())


def test_libraries_names_the_cuda_runtime(lb_cython):
    import _cython_layer

    entry = _cython_layer.libraries()["cudart"]
    version = lb_cython.runtime_version()
    assert entry["version"] == f"{version // 1000}.{version % 1000 // 10}"
    assert entry["path"] == lb_cython.cudart_path()


def test_an_empty_buffer_needs_no_cuda(lb_cython):
    assert lb_cython.DeviceBuffer(0).size == 0
    with pytest.raises(ValueError, match="count -1"):
        lb_cython.DeviceBuffer(-1)


def test_wrappers_refuse_buffers_too_small(lb_cython):
    empty = lb_cython.DeviceBuffer(0)
    with pytest.raises(ValueError, match=r"vector_add a: needs 10 floats, the DeviceBuffer holds 0"):
        lb_cython.vector_add(empty, empty, empty, 10, 0)
    with pytest.raises(ValueError, match="matmul A"):
        lb_cython.matmul(empty, empty, empty, 2, 2, 2, 0)
    with pytest.raises(ValueError, match="transpose A: needs 6 floats"):
        lb_cython.transpose(empty, empty, 2, 3, 0)
    with pytest.raises(ValueError, match="launch_probe: out is empty"):
        lb_cython.launch_probe(empty, 1.0, 0)
    with pytest.raises(ValueError, match="upload: 3 floats into a DeviceBuffer of 0"):
        empty.upload(np.ones(3, np.float32), 0)
    with pytest.raises(TypeError):
        lb_cython.vector_add(None, empty, empty, 0, 0)


def test_a_cuda_error_names_the_call(lb_cython):
    """Without a GPU, the first CUDA call fails: RuntimeError "<call>: <CUDA's text> (<name>)"."""
    try:
        lb_cython.DeviceBuffer(4)
    except RuntimeError as e:
        assert re.match(r"cudaMalloc\(4 floats\): .+ \(cudaError\w+\)$", str(e)), str(e)
    else:
        pytest.skip("a GPU is usable here, so cudaMalloc does not fail")


def test_out_of_memory_is_memory_error(lb_cython, gpu):
    with pytest.raises(MemoryError, match=r"cudaMalloc.*cudaErrorMemoryAllocation"):
        lb_cython.DeviceBuffer(1 << 50)  # 4 PiB


def variant(workload: str):
    spec = importlib.util.spec_from_file_location(f"lb_test_cython_{workload}", LAYER / f"{workload}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Variant()


def run_variant(workload: str, shape, inputs, output, alpha=0.0):
    """The harness's calls in its order, on the legacy default stream (0): allowed outside the harness."""
    from lb_variant import Problem, Setup, Size  # variants/python: on the path since the lb_cython fixture

    v, costs = variant(workload), []
    v.allocate(Size(*shape), Setup(0, lambda what, ms: costs.append((what, ms))))
    for array in (*inputs, output):
        array.setflags(write=False)
    v.upload(Problem(*shape, alpha, list(inputs), output), 0)
    v.run(0)
    out = np.full(output.size, np.nan, np.float32)
    v.download(out, 0)
    return v, out


def test_vector_add_on_the_gpu(lb_cython, gpu):
    rng = np.random.default_rng(1)
    for n in (1, 3, 4, 1000003):
        a, b = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
        _, out = run_variant("vector_add", (1, n, 1), (a, b), np.full(n, np.nan, np.float32))
        assert np.array_equal(out, a + b)  # one float addition per element: bit for bit


def test_saxpy_on_the_gpu(lb_cython, gpu):
    rng = np.random.default_rng(2)
    n, alpha = 1000003, 1.5
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    _, out = run_variant("saxpy", (1, n, 1), (x,), y.copy(), alpha)
    np.testing.assert_allclose(out, np.float32(alpha) * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)


def test_reduce_on_the_gpu(lb_cython, gpu):
    rng = np.random.default_rng(3)
    for n in (1, 5, 1 << 22):
        x = rng.random(n, np.float32)
        v, out = run_variant("reduce", (1, n, 1), (x,), np.full(1, np.nan, np.float32))
        assert v.blocks == lb_cython.reduce_blocks(n) >= 1
        assert abs(out[0] - x.astype(np.float64).sum()) <= 1e-5 * max(1.0, float(x.sum()))


def test_matmul_on_the_gpu(lb_cython, gpu):
    rng = np.random.default_rng(4)
    m, n, k = 129, 257, 65
    a, b = rng.standard_normal(m * k, np.float32), rng.standard_normal(k * n, np.float32)
    _, out = run_variant("matmul", (m, n, k), (a, b), np.full(m * n, np.nan, np.float32))
    expected = (a.astype(np.float64).reshape(m, k) @ b.astype(np.float64).reshape(k, n)).ravel()
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_transpose_on_the_gpu(lb_cython, gpu):
    rng = np.random.default_rng(5)
    for m, n in ((1, 1), (1, 7), (33, 65), (129, 257)):  # partial tiles along both sides
        a = rng.standard_normal(m * n, np.float32)
        _, out = run_variant("transpose", (m, n, 1), (a,), np.full(n * m, np.nan, np.float32))
        assert np.array_equal(out, a.reshape(m, n).T.ravel())  # a copy: bit for bit


@pytest.mark.parametrize("workload", ["launch_async", "launch_sync"])
def test_launches_on_the_gpu(lb_cython, gpu, workload):
    v, out = run_variant(workload, (1, 1000, 1), (), np.full(1, np.nan, np.float32))
    assert v.run_waits == (workload == "launch_sync")
    assert out[0] == 1000.0  # the last of launches 1..n wrote n
