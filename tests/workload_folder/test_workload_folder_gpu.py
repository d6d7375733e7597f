"""GPU tests of the example workload folders (examples/workloads): each kernels.cu compiled at run
time (CuPy's RawModule: NVRTC, as the cupy-raw layer does) and launched with the folder's launch
shape and arguments as lb_folder.py gives them to every kernel-text layer, and each Python implementation (cupy.py, numba.py), verified against reference.py at edge
sizes and the smallest default size; the largest default size's rate is below the device's memory
ceiling (the plausibility bound, from the bytes formulas); a mutated copy of each kernel fails.

Skips without CuPy or a GPU, saying why. The folder through the harness and every kernel-text layer
(`layerbench run --workload-dir`) is test_run_workload_dir_gpu.py's."""
import math
import types

import numpy as np
import pytest
from conftest import EXAMPLE_NAMES, EXAMPLES, MUTATIONS, size_of

import workload_folder as wf

cp = pytest.importorskip("cupy", reason="the GPU tests of workload folders compile and launch with CuPy")
try:
    if cp.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("no CUDA device", allow_module_level=True)
except cp.cuda.runtime.CUDARuntimeError as e:
    pytest.skip(f"no usable CUDA device: {e}", allow_module_level=True)

# The kernel-text layers' shared binding and launch shape (variants/python, on the path by pytest.ini).
import lb_folder  # noqa: E402
import lb_variant  # noqa: E402

EDGE_SIZES = {"n": ["1", "255", "256", "257", "1000003"], "MxN": ["1x1", "3x257", "257x31", "64x4096"]}


def on_device(w: wf.WorkloadFolder, size: dict, problem: wf.Problem, stream):
    """The problem's buffers copied to the device on `stream` (the kernel's: a non-blocking stream
    does not wait for copies on the default one; an in/out buffer once, as drawn), and for each
    kernel of the sequence its arguments in order, its grid and block: bound and shaped by
    lb_folder, as every kernel-text layer's variant binds and shapes them."""
    with stream:
        device = {name: cp.asarray(a) for name, a in (problem.inputs | problem.outputs).items()}
    case = lb_variant.Size(**size)
    attributes = cp.cuda.Device().attributes
    launches = []
    for k in w.kernels:
        grid, block = lb_folder.launch_shape(k, case, attributes["MultiProcessorCount"],
                                             attributes["MaxThreadsPerMultiProcessor"])
        launches.append((k, tuple(value for _, value in lb_folder.arguments(w, k, case, device)), grid, block))
    return device, launches


def launch_all(module, launches, stream):
    for k, args, grid, block in launches:
        module.get_function(k.name)(grid, block, args, stream=stream, shared_mem=k.shared_bytes)


def launch_kernel(w: wf.WorkloadFolder, text: str, size: dict, problem: wf.Problem, stream) -> dict:
    """Compiles `text`, uploads the problem, launches the sequence once with the folder's shapes, downloads."""
    module = cp.RawModule(code=text, options=("-std=c++17",))
    device, launches = on_device(w, size, problem, stream)
    launch_all(module, launches, stream)
    stream.synchronize()
    return {b.name: cp.asnumpy(device[b.name]) for b in w.outputs}


def run_python(w, layer, size, problem, stream) -> dict:
    v = wf.python_variant(w, layer)
    v.allocate(types.SimpleNamespace(**size), types.SimpleNamespace(stream=stream.ptr, cost=lambda what, ms: None, session=None))
    v.upload(problem, stream.ptr)
    v.run(stream.ptr)
    outputs = {name: np.empty_like(a) for name, a in problem.outputs.items()}
    v.download(outputs, stream.ptr)
    return outputs


def cases(name):
    w = wf.load(EXAMPLES / name)
    return [(name, s) for s in EDGE_SIZES[w.size_form] + w.default_sizes[:1]]


ALL_CASES = [c for name in EXAMPLE_NAMES for c in cases(name)]


@pytest.mark.parametrize("name, size_text", ALL_CASES)
def test_kernel_text_verifies(name, size_text):
    w = wf.load(EXAMPLES / name)
    size = size_of(size_text, w.size_form)
    problem = w.draw_problem(size, seed=2026)
    got = launch_kernel(w, w.kernel_text, size, problem, cp.cuda.Stream(non_blocking=True))
    verdicts = w.check(problem, got)
    assert all(v.passed for v in verdicts), [v.detail for v in verdicts]


@pytest.mark.parametrize("name, size_text", ALL_CASES)
@pytest.mark.parametrize("layer", ["cupy", "numba", "triton"])
def test_python_implementation_verifies(name, size_text, layer):
    if layer == "numba":
        pytest.importorskip("numba.cuda", reason="numba.py needs Numba's CUDA target")
    if layer == "triton":
        pytest.importorskip("torch", reason="triton.py needs PyTorch (pip install .[frameworks])")
        pytest.importorskip("triton", reason="triton.py needs Triton (pip install .[frameworks])")
    w = wf.load(EXAMPLES / name)
    size = size_of(size_text, w.size_form)
    problem = w.draw_problem(size, seed=7)
    verdicts = w.check(problem, run_python(w, layer, size, problem, cp.cuda.Stream(non_blocking=True)))
    assert all(v.passed for v in verdicts), [v.detail for v in verdicts]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_mutated_kernel_fails(name):
    w = wf.load(EXAMPLES / name)
    original, mutant = MUTATIONS[name]
    assert original in w.kernel_text, f"the mutation of {name} no longer applies: update MUTATIONS"
    text = w.kernel_text.replace(original, mutant)
    size = size_of(w.default_sizes[0], w.size_form)
    problem = w.draw_problem(size, seed=11)
    verdicts = w.check(problem, launch_kernel(w, text, size, problem, cp.cuda.Stream(non_blocking=True)))
    assert not all(v.passed for v in verdicts)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_largest_default_size_is_plausible(name):
    """The kernel's rate at the largest default size, from the bytes formulas, stays below the
    device's theoretical DRAM bandwidth (memory clock x bus width x 2): a faster figure means the
    formulas undercount or the kernel skipped work. The buffers there exceed the L2, so the
    inputs cannot all be cached from the upload."""
    w = wf.load(EXAMPLES / name)
    size = size_of(w.default_sizes[-1], w.size_form)
    problem = w.draw_problem(size, seed=5)
    stream = cp.cuda.Stream(non_blocking=True)
    module = cp.RawModule(code=w.kernel_text, options=("-std=c++17",))
    device, launches = on_device(w, size, problem, stream)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    launch_all(module, launches, stream)  # warm-up
    start.record(stream)
    launch_all(module, launches, stream)
    stop.record(stream)
    stop.synchronize()
    seconds = cp.cuda.get_elapsed_time(start, stop) / 1e3
    attrs = cp.cuda.Device().attributes
    peak = attrs["MemoryClockRate"] * 1e3 * 2 * attrs["GlobalMemoryBusWidth"] / 8  # bytes/s
    rate = (w.bytes_read(**size) + w.bytes_written(**size)) / seconds
    assert 0 < rate <= peak, f"{name}: {rate / 1e9:.0f} GB/s, above the device's {peak / 1e9:.0f} GB/s"
    if not any(b.role == "inout" for b in w.buffers):  # an in/out buffer has been updated twice by now
        assert all(v.passed for v in w.check(problem, {b.name: cp.asnumpy(device[b.name]) for b in w.outputs}))
    assert math.isfinite(seconds)
