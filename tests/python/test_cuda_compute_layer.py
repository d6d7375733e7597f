"""The cuda-compute layer (cuda-cccl 1.1.1, numba-cuda) without a GPU, and with one where there is.

Without a GPU. cuda.compute's C library (libcccl.c.parallel.so) links libcuda.so.1, which a machine
without a GPU lacks, and the CUDA toolkit's stub driver fails every call, so building an algorithm
dies there (cuLibraryLoadData fails, then the library's error path crashes). So the checks run in a
child process that first loads a stand-in libcuda.so.1, compiled here from a few lines of C: it
loads nothing and launches nothing, but pretends that loading a CUBIN worked, fails every other
call, and logs every call made to it. With it, and with the two device queries cuda.compute and
numba-cuda make (cuda.core's Device().compute_capability, numba's current context) answered "sm_90",
each variant's allocate() runs cuda.compute's real build on the CPU: numba-cuda compiles the Python
operator to LTO-IR with libNVVM, NVRTC compiles CUB's algorithm around it, nvJitLink links the CUBIN.
The log shows what touched the driver: nothing at import, only the CUBIN's load at a build.

What needs a GPU: calling a built algorithm (CUB's dispatch runs through the CUDA runtime linked
into libcccl.c.parallel.so, which needs the real driver), so run() is checked with the built
algorithms replaced by recorders (what each call is given: the harness's stream, the scratch, the
arrays), and the end-to-end check (test_on_the_gpu_...) is skipped, with the reason, where there is
no GPU. The stand-in driver stays out of this process, where the other tests run."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER_DIR = ROOT / "variants" / "cuda-compute"
VARIANTS = ["vector_add", "saxpy", "reduce", "launch_async", "launch_sync"]
HANDLE = 0xBEEF  # a stand-in for the harness's cudaStream_t
SIZES = {"vector_add": 1000003, "saxpy": 129, "reduce": 1 << 20, "launch_async": 17, "launch_sync": 17}
PINNED = "1.1.1"  # cuda-cccl, the version this layer is written against

# The functions libcccl.c.parallel.so links from libcuda.so.1 (all must resolve when it loads),
# plus the ones anything else would look up first (cuInit, cuGetProcAddress, ...). Each call is
# logged; the build's three succeed, everything else fails.
FAKE_DRIVER_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
static FILE* log_file(void) {
  static FILE* f;
  if (!f) {
    const char* path = getenv("LB_FAKE_CUDA_LOG");
    f = path ? fopen(path, "a") : NULL;
    if (!f) f = stderr;
    setvbuf(f, NULL, _IOLBF, 0);
  }
  return f;
}
#define LOG(...) fprintf(log_file(), __VA_ARGS__)
#define FAIL(name) { LOG(#name "\n"); return 999; }
void lb_fake_cuda_mark(const char* what) { LOG("MARK %s\n", what); }
int cuLibraryLoadData(void** lib, const unsigned char* image, void* a, void* b, unsigned c, void* d, void* e,
                      unsigned f) {
  LOG("cuLibraryLoadData %02x%02x%02x%02x\n", image[0], image[1], image[2], image[3]);
  *lib = (void*)0x4000;
  return 0;
}
int cuLibraryGetKernel(void** kernel, void* lib, const char* name) {
  LOG("cuLibraryGetKernel %s\n", name);
  *kernel = (void*)0x2000;
  return 0;
}
int cuLibraryUnload(void* lib) { LOG("cuLibraryUnload\n"); return 0; }
int cuGetErrorString(int error, const char** text) {
  LOG("cuGetErrorString %d\n", error);
  *text = "stand-in driver: no GPU";
  return 0;
}
int cuInit(unsigned flags) { LOG("cuInit\n"); return 100; }
int cuGetProcAddress_v2(const char* name, void** fn, int version, unsigned long long flags, int* status) {
  LOG("cuGetProcAddress %s\n", name);
  *fn = NULL;
  if (status) *status = 1;
  return 500;
}
int cuGetProcAddress(const char* name, void** fn, int version, unsigned long long flags) {
  return cuGetProcAddress_v2(name, fn, version, flags, NULL);
}
int cuDriverGetVersion(int* v) FAIL(cuDriverGetVersion)
int cuCtxGetCurrent(void** c) FAIL(cuCtxGetCurrent)
int cuCtxGetDevice(int* d) FAIL(cuCtxGetDevice)
int cuDeviceGet(int* d, int o) FAIL(cuDeviceGet)
int cuCtxPushCurrent_v2(void* c) FAIL(cuCtxPushCurrent_v2)
int cuCtxPopCurrent_v2(void** c) FAIL(cuCtxPopCurrent_v2)
int cuDevicePrimaryCtxRetain(void** c, int d) FAIL(cuDevicePrimaryCtxRetain)
int cuDeviceGetAttribute(int* v, int a, int d) FAIL(cuDeviceGetAttribute)
int cuFuncGetAttribute(int* v, int a, void* f) FAIL(cuFuncGetAttribute)
int cuFuncSetAttribute(void* f, int a, int v) FAIL(cuFuncSetAttribute)
int cuKernelGetFunction(void** f, void* k) FAIL(cuKernelGetFunction)
int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned smem, void* s, void** p, void** e) FAIL(cuLaunchKernel)
int cuLaunchKernelEx(const void* config, void* f, void** p, void** e) FAIL(cuLaunchKernelEx)
int cuMemcpyAsync(void* d, void* s, size_t n, void* st) FAIL(cuMemcpyAsync)
int cuMemsetD8Async(void* d, unsigned char v, size_t n, void* st) FAIL(cuMemsetD8Async)
int cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, void* f, int b, size_t s)
  FAIL(cuOccupancyMaxActiveBlocksPerMultiprocessor)
"""
# What a build may ask of the driver: load the CUBIN and find its kernels (cuLibraryLoadData and
# cuLibraryGetKernel need no context); nvJitLink also calls cuInit, and carries on when it fails.
BUILD_CALLS = {"cuLibraryLoadData", "cuLibraryGetKernel", "cuInit"}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


def _skip_unless_installed() -> None:
    for module, why in (("cuda.compute", "cuda-cccl"), ("cupy", "cupy"), ("numba.cuda", "numba-cuda")):
        if not _installed(module):
            pytest.skip(f"{why} is not installed (docs/layers/cuda-compute.md, Installing)")


def _fake_driver(folder: Path) -> Path:
    compiler = next((c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c and shutil.which(c)), None)
    if compiler is None:
        pytest.skip("no C compiler to build the stand-in libcuda.so.1 the CPU-side checks load")
    (folder / "fake_cuda.c").write_text(FAKE_DRIVER_C)
    library = folder / "libcuda.so.1"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-Wl,-soname,libcuda.so.1", "-o", str(library),
                    str(folder / "fake_cuda.c")], check=True, capture_output=True, text=True)
    return library


def _phases(log: str) -> dict[str, list[str]]:
    """The stand-in driver's log, split at the child's marks: phase -> the calls made in it."""
    phases: dict[str, list[str]] = {"start": []}
    current = "start"
    for line in log.splitlines():
        if line.startswith("MARK "):
            current = line[5:]
            phases[current] = []
        elif line:
            phases[current].append(line)
    return phases


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> dict:
    _skip_unless_installed()
    folder = tmp_path_factory.mktemp("cuda_compute")
    driver = _fake_driver(folder)
    report, log = folder / "probe.json", folder / "driver.log"
    done = subprocess.run([sys.executable, __file__, "probe", str(driver), str(report)], capture_output=True,
                          text=True, timeout=900, env={**os.environ, "LB_FAKE_CUDA_LOG": str(log)})
    assert done.returncode == 0, f"the probe failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    found = json.loads(report.read_text())
    found["driver"] = _phases(log.read_text() if log.exists() else "")
    return found


def test_the_modules_import_without_touching_the_gpu(probe):
    assert probe["bindings_available"]
    # importing cuda.compute, CuPy and every variant module made no driver call at all
    assert probe["driver"]["start"] == [] and probe["driver"]["import"] == []
    # cuda.compute 1.1.1 imports numba and numba.cuda itself (cuda/compute/op.py imports _jit.py): their
    # import is part of the harness's "import cuda.compute" line. numba-cuda-mlir plays no part.
    assert probe["imported"] == {"numba": True, "numba.cuda": True, "numba_cuda_mlir": False}
    assert probe["run_waits"] == {"vector_add": False, "saxpy": False, "reduce": False, "launch_async": False,
                                  "launch_sync": True}


def test_every_variant_builds_its_algorithm_for_sm90(probe):
    for workload in VARIANTS:
        cubin = probe["cubin"][workload]
        assert cubin["magic"] == "7f454c46", workload  # an ELF image: the CUBIN nvJitLink linked
        assert cubin["machine"] == 190, workload  # EM_CUDA
        assert cubin["sm"] == 90, workload
    kernels = {w: [c.split(" ", 1)[1] for c in probe["driver"][f"allocate {w}"] if c.startswith("cuLibraryGetKernel")]
               for w in VARIANTS}
    # the Python operators are linked into CUB's transform kernel (Numba's wrapper symbols in its name)
    assert len(kernels["vector_add"]) == 1 and "transform_kernel" in kernels["vector_add"][0]
    assert "stateless_user_operation" in kernels["vector_add"][0] and "wrapped_add" in kernels["vector_add"][0]
    assert len(kernels["saxpy"]) == 1 and "stateful_user_operation" in kernels["saxpy"][0]
    assert "wrapped_saxpy" in kernels["saxpy"][0]
    assert kernels["reduce"] and all("DeviceReduce" in k for k in kernels["reduce"])
    assert kernels["launch_async"] == kernels["launch_sync"] == []  # reduce's build, from the cache
    # numba-cuda asked for the current context's device to pick the operator's target (on the GPU,
    # the harness's primary context); cuda.compute asked cuda.core for the compute capability
    assert probe["numba_device_queries"] == 0 and probe["cuda_core_device_queries"] > 0


def test_the_builds_touch_the_gpu_only_to_load_the_cubin(probe):
    for workload in VARIANTS:
        calls = {c.split(" ", 1)[0] for c in probe["driver"][f"allocate {workload}"]}
        assert calls <= BUILD_CALLS, (workload, calls - BUILD_CALLS)
    for workload in ("vector_add", "saxpy", "reduce"):
        loads = [c for c in probe["driver"][f"allocate {workload}"] if c.startswith("cuLibraryLoadData")]
        assert loads == ["cuLibraryLoadData 7f454c46"], workload  # one CUBIN, loaded once
    assert probe["driver"]["run"] == []  # the recorders stood in for every call


def test_the_builds_are_reported_as_one_time_costs(probe):
    costs = probe["costs"]
    assert costs["vector_add"] == ["cuda.compute build binary_transform add (Numba op + NVRTC + nvJitLink, built)"]
    assert costs["saxpy"] == [
        "cuda.compute build binary_transform saxpy (alpha as state) (Numba op + NVRTC + nvJitLink, built)"]
    assert costs["reduce"] == ["cuda.compute build reduce_into OpKind.PLUS (NVRTC + nvJitLink, built)",
                               "CUB temp storage (test stand-in)"]
    # launch builds the same reduce (same dtypes, same operator): cuda.compute's in-process cache has it
    for workload in ("launch_async", "launch_sync"):
        assert costs[workload] == ["cuda.compute build reduce_into OpKind.PLUS (NVRTC + nvJitLink, in-process cache)",
                                   "CUB temp storage (test stand-in)"], workload
    assert probe["second_vector_add"]["labels"] == [
        "cuda.compute build binary_transform add (Numba op + NVRTC + nvJitLink, in-process cache)"]
    assert probe["second_vector_add"]["same_object"] and probe["second_vector_add"]["ms"] < 100
    assert probe["driver"]["second vector_add"] == []  # nothing compiled, nothing loaded
    assert probe["driver"]["second saxpy"] == []
    assert probe["build_ms"]["vector_add"] > 100  # a real compile ran (1 to 1.5 s on a CPU core)


def test_saxpy_takes_alpha_as_runtime_state_not_a_constant(probe):
    saxpy = probe["saxpy"]
    assert saxpy["stateful"] and saxpy["state_is_alpha_pointer"]
    assert saxpy["op_value"] == 7.0  # alpha 2, x 3, y 1
    assert saxpy["second_alpha_array_rebuilds"] is False  # another alpha array: the same build
    assert saxpy["other_state_is_its_alpha_pointer"]


def test_vector_add_s_operator_adds(probe):
    assert probe["add_value"] == 5.0


def test_run_passes_the_stream_the_scratch_and_the_arrays(probe):
    calls = probe["calls"]
    assert calls["vector_add"] == [
        {"stream": HANDLE, "num_items": SIZES["vector_add"], "ins": ["a", "b"], "out": "c", "op": True}]
    assert calls["saxpy"] == [  # y in place
        {"stream": HANDLE, "num_items": SIZES["saxpy"], "ins": ["x", "y"], "out": "y", "op": True}]
    assert calls["reduce"] == [  # the scratch allocated in allocate(), never None (which would only ask its size)
        {"stream": HANDLE, "num_items": SIZES["reduce"], "temp": True, "h_init": 0.0, "op": True,
         "in": "x", "out": "sum"}]
    for workload in ("launch_async", "launch_sync"):
        n = SIZES[workload]
        assert calls[workload] == [{"stream": HANDLE, "num_items": 1, "temp": True, "h_init": float(i), "op": True,
                                    "in": "zero", "out": "out"} for i in range(1, n + 1)], workload
    assert probe["synchronizes"] == {"launch_async": 0, "launch_sync": SIZES["launch_sync"]}
    assert probe["temp_storage_asked_with"] == {"reduce": [HANDLE, SIZES["reduce"]], "launch_async": [HANDLE, 1],
                                                "launch_sync": [HANDLE, 1]}


def test_the_stream_is_the_harness_s_and_never_the_default(probe):
    assert probe["stream"] == {"cuda_stream": [0, HANDLE], "as_cuda_compute_takes_it": HANDLE,
                               "zero_refused": True}


def test_libraries_names_what_cuda_compute_loads(probe):
    libraries = probe["libraries"]
    assert set(libraries) == {"nvrtc", "nvJitLink", "nvvm", "cudart", "cccl.c.parallel"}
    for name, entry in libraries.items():
        assert "version" in entry or "error" in entry, name
    assert libraries["cccl.c.parallel"]["version"] == PINNED
    assert libraries["cccl.c.parallel"]["path"].endswith("libcccl.c.parallel.so")
    assert libraries["cudart"]["found_via"] == "linked statically into libcccl.c.parallel.so"
    assert libraries["cudart"]["version"].split(".")[0] in ("12", "13")


def test_without_a_driver_the_layer_module_says_why_it_cannot_run():
    _skip_unless_installed()
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
        pytest.skip("this machine has an NVIDIA driver")
    except OSError:
        pass
    code = ("import sys, warnings; warnings.simplefilter('ignore'); sys.path[:0] = sys.argv[1:]\n"
            "try:\n    import _cuda_compute_layer\nexcept ImportError as e:\n    print(e)")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT / "variants" / "python"), str(LAYER_DIR)],
                          capture_output=True, text=True, timeout=300)
    # `import cuda.compute` itself succeeds there (it only warns), so the layer's module must refuse
    assert "cuda.compute's C library did not load" in done.stdout, done.stdout + done.stderr


def _gpu_present() -> bool:
    import ctypes

    try:
        driver = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int()
        return driver.cuInit(0) == 0 and driver.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
    except (OSError, AttributeError):
        return False


def test_on_the_gpu_every_variant_computes_the_right_answer_on_the_given_stream(tmp_path):
    _skip_unless_installed()
    if not _gpu_present():
        pytest.skip("needs an NVIDIA GPU and driver: calling a built algorithm runs CUB on the device")
    report = tmp_path / "gpu.json"
    done = subprocess.run([sys.executable, __file__, "gpu", str(report)], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"the GPU check failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    found = json.loads(report.read_text())
    for workload, entry in found.items():
        assert entry["ok"], (workload, entry)


# --- the child processes --------------------------------------------------------------------------


class FakeDeviceArray:
    """What cuda.compute reads of a device array (__cuda_array_interface__, len), with no memory."""
    _next = 1 << 20

    def __init__(self, count: int, dtype):
        import numpy as np

        self.dtype, self.shape, self.size = np.dtype(dtype), (count,), count
        self.nbytes = count * self.dtype.itemsize
        self.ptr = FakeDeviceArray._next  # 256-byte aligned, as cudaMalloc's
        FakeDeviceArray._next += (self.nbytes + 511) // 256 * 256

    def __len__(self):
        return self.shape[0]

    @property
    def __cuda_array_interface__(self):
        return {"data": (self.ptr, False), "shape": self.shape, "strides": None, "typestr": self.dtype.str,
                "version": 3}


class Recorder:
    """Stands in for a built algorithm in run(): records what each call was given."""

    def __init__(self, variant, names):
        self.variant, self.names, self.calls = variant, names, []

    def name(self, array):
        return next((n for n in self.names if getattr(self.variant, n) is array), repr(array))

    def __call__(self, **kw):
        call = {"stream": kw["stream"].__cuda_stream__()[1], "num_items": kw["num_items"],
                "op": kw["op"] is self.variant.op}
        if "temp_storage" in kw:
            call.update(temp=kw["temp_storage"] is self.variant.temp, h_init=float(kw["h_init"][0]),
                        out=self.name(kw["d_out"]), **{"in": self.name(kw["d_in"])})
        else:
            call.update(ins=[self.name(kw["d_in1"]), self.name(kw["d_in2"])], out=self.name(kw["d_out"]))
        self.calls.append(call)


class CountingStream:
    def __init__(self, handle):
        self.handle, self.synchronized = handle, 0

    def __cuda_stream__(self):
        return (0, self.handle)

    def synchronize(self):
        self.synchronized += 1


def _load_variants() -> dict:
    modules = {}
    for workload in VARIANTS:  # as the harness loads them (python_layer.cpp)
        spec = importlib.util.spec_from_file_location(f"lb_cuda-compute_{workload}", LAYER_DIR / f"{workload}.py")
        modules[workload] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modules[workload])
    return modules


def _cubin_header(cubin: bytes) -> dict:
    import struct

    flags = struct.unpack_from("<I", cubin, 48)[0]
    # the target SM is in e_flags: bits 8-15 in the CUDA ELF ABI version 8 (CUDA 12.8 and later), bits 0-7 before
    sm = (flags >> 8) & 0xFF if cubin[8] >= 8 else flags & 0xFF
    return {"magic": cubin[:4].hex(), "machine": struct.unpack_from("<H", cubin, 18)[0], "sm": sm}


def _probe(driver: str, report: str) -> None:
    import ctypes
    import struct
    import time
    import types

    fake = ctypes.CDLL(driver, mode=ctypes.RTLD_GLOBAL)  # libcuda.so.1 for cuda.compute's C library

    def mark(what: str) -> None:
        fake.lb_fake_cuda_mark(what.encode())

    mark("import")
    sys.path[:0] = [str(ROOT / "variants" / "python"), str(LAYER_DIR)]
    from lb_variant import Setup, Size
    import cuda.compute
    import numpy as np

    out = {"bindings_available": bool(cuda.compute._BINDINGS_AVAILABLE)}
    modules = _load_variants()
    import _cuda_compute_layer as layer

    out["imported"] = {m: m in sys.modules for m in ("numba", "numba.cuda", "numba_cuda_mlir")}
    out["run_waits"] = {w: bool(m.Variant().run_waits) for w, m in modules.items()}

    mark("stream")
    try:
        layer.stream(0)
        zero_refused = False
    except ValueError:
        zero_refused = True
    from cuda.compute._utils.protocols import validate_and_get_stream

    s = layer.stream(HANDLE)
    out["stream"] = {"cuda_stream": list(s.__cuda_stream__()), "zero_refused": zero_refused,
                     "as_cuda_compute_takes_it": validate_and_get_stream(s)}
    mark("libraries")
    out["libraries"] = layer.libraries()

    # The device queries a build makes, answered "sm_90" (an H100's): cuda.core's Device() (the
    # compute capability cuda.compute keys its cache by and builds CUB for) and numba-cuda's current
    # context (the target it compiles the operator for; numba adds the "a" of sm_90a itself).
    import cuda.compute._caching
    import cuda.compute._cccl_interop
    from numba.cuda.cudadrv import devices

    queries = {"cuda.core": 0, "numba": 0}

    class Device:
        def __init__(self, *args):
            queries["cuda.core"] += 1

        compute_capability = (9, 0)

    def get_context(devnum=None):
        queries["numba"] += 1
        return types.SimpleNamespace(device=types.SimpleNamespace(compute_capability=(9, 0)))

    cuda.compute._caching.Device = Device
    cuda.compute._cccl_interop.CudaDevice = Device
    layer.Device = Device
    devices.get_context = get_context

    # allocate() with arrays that have no memory; the scratch's size query calls CUB (a GPU call)
    asked = {}

    def fake_temp_storage(reducer, cost, **call):
        asked[current] = [call["stream"].__cuda_stream__()[1], call["num_items"]]
        cost("CUB temp storage (test stand-in)", 0.0)
        return FakeDeviceArray(64, np.uint8)

    def fake_empty(count, dtype=np.float32):
        return FakeDeviceArray(max(count, 1), dtype)

    for module in (layer, *modules.values()):
        for name, fake_function in (("empty", fake_empty), ("temp_storage", fake_temp_storage)):
            if hasattr(module, name):
                setattr(module, name, fake_function)
    variants, costs, build_ms = {}, {}, {}
    for current in VARIANTS:
        mark(f"allocate {current}")
        costs[current], times = [], []
        variants[current] = modules[current].Variant()
        variants[current].allocate(Size(1, SIZES[current], 1),
                                   Setup(HANDLE, lambda what, ms: (costs[current].append(what), times.append(ms))))
        build_ms[current] = times[0]
    out["costs"], out["temp_storage_asked_with"], out["build_ms"] = costs, asked, build_ms
    built = {w: v.transform if hasattr(v, "transform") else v.reducer for w, v in variants.items()}
    out["cubin"] = {w: _cubin_header(next(iter(algorithm.build_results.values()))._get_cubin()) for w, algorithm in built.items()}
    out["numba_device_queries"], out["cuda_core_device_queries"] = queries["numba"], queries["cuda.core"]

    mark("second vector_add")
    labels = []
    t0 = time.perf_counter()
    again = modules["vector_add"].Variant()
    again.allocate(Size(1, 4096, 1), Setup(HANDLE, lambda what, ms: labels.append(what)))
    out["second_vector_add"] = {"labels": labels, "ms": (time.perf_counter() - t0) * 1e3,
                                "same_object": again.transform is variants["vector_add"].transform}

    mark("second saxpy")
    saxpy = variants["saxpy"]
    other = modules["saxpy"].Variant()
    other.allocate(Size(1, 64, 1), Setup(HANDLE))
    out["saxpy"] = {"stateful": saxpy.op.is_stateful,
                    "state_is_alpha_pointer": saxpy.op.get_state() == struct.pack("P", saxpy.alpha.ptr),
                    "other_state_is_its_alpha_pointer": other.op.get_state() == struct.pack("P", other.alpha.ptr),
                    "op_value": float(modules["saxpy"].saxpy_op(np.array([2.0], np.float32))(np.float32(3),
                                                                                            np.float32(1))),
                    "second_alpha_array_rebuilds": other.transform is not saxpy.transform}

    # run() with the built algorithms replaced by recorders
    mark("run")
    calls, synchronizes = {}, {}
    for workload, v in variants.items():
        names = ["a", "b", "c", "x", "y", "sum", "zero", "out"]
        recorder = Recorder(v, [n for n in names if hasattr(v, n)])
        if hasattr(v, "transform"):
            v.transform = recorder
        else:
            v.reducer = recorder
        if workload.startswith("launch"):
            v.stream = CountingStream(HANDLE)
        v.run(HANDLE)
        calls[workload] = recorder.calls
        if workload.startswith("launch"):
            synchronizes[workload] = v.stream.synchronized
    out["calls"], out["synchronizes"] = calls, synchronizes
    # the operators' arithmetic, in Python (what numba-cuda compiled can only run on the device)
    out["add_value"] = float(modules["vector_add"].add(np.float32(2), np.float32(3)))
    mark("end")
    Path(report).write_text(json.dumps(out))
    os._exit(0)  # no teardown: the built algorithms' cuLibraryUnload would only add to the log


def _gpu_check(report: str) -> None:
    """Every variant as the harness drives it, on a CuPy stream of its own (not the default one)."""
    import types

    import numpy as np

    sys.path[:0] = [str(ROOT / "variants" / "python"), str(LAYER_DIR)]
    from lb_variant import Problem, Setup, Size
    import cupy as cp

    modules = _load_variants()
    stream = cp.cuda.Stream(non_blocking=True)
    handle = stream.ptr
    rng = np.random.default_rng(1)
    results = {}

    def case(workload, n, alpha=0.0):
        x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        if workload == "vector_add":
            inputs, output, expected = [x, y], np.full(n, np.nan, np.float32), x + y
        elif workload == "saxpy":
            inputs, output, expected = [x], y.copy(), np.float32(alpha) * x + y
        elif workload == "reduce":
            inputs, output, expected = [x], np.full(1, np.nan, np.float32), np.array([x.sum(dtype=np.float64)])
        else:
            inputs, output, expected = [], np.full(1, np.nan, np.float32), np.array([float(n)])
        variant = modules[workload].Variant()
        costs = []
        variant.allocate(Size(1, n, 1), Setup(handle, lambda what, ms: costs.append(what)))
        problem = Problem(1, n, 1, alpha, inputs, output)
        variant.upload(problem, handle)
        variant.run(handle)
        stream.synchronize()
        got = np.empty_like(output)
        variant.download(got, handle)
        ok = bool(np.allclose(got, expected, rtol=1e-4, atol=1e-3))
        results[f"{workload} n={n} alpha={alpha}"] = {"ok": ok, "costs": costs, "first": got[:3].tolist(),
                                                      "expected": np.asarray(expected)[:3].tolist()}

    for n in (1, 1000003):
        case("vector_add", n)
        case("reduce", n)
    for alpha in (2.0, -0.5):  # the second alpha: the same build, new state
        case("saxpy", 4099, alpha)
    case("launch_async", 17)
    case("launch_sync", 17)
    Path(report).write_text(json.dumps(results))


if __name__ == "__main__":
    if sys.argv[1] == "probe":
        _probe(sys.argv[2], sys.argv[3])
    else:
        _gpu_check(sys.argv[2])
