"""The cuda-compute layer's disk cache of built algorithms (variants/cuda-compute/_cuda_compute_cache.py,
used by _cuda_compute_layer.build()).

Without cuda.compute, a driver or a GPU: the key (every part counts, order does not, the same in
another process), an operator's identity (its code and what its closure holds, never its address),
and the entry format as the C++ kernel cache has it: an entry that is corrupt, truncated, of
another key or refused by cuda.compute is never used but rebuilt and rewritten; the write leaves
no temporary file, even when it fails; with the cache off (--no-kernel-cache, or no cache) nothing
is read or written.

With cuda-cccl 1.1+ and a stand-in libcuda.so.1 (compiled here from a few lines of C, as in
test_cuda_compute_layer.py, answering compute capability 9.0): the layer's real build, serialize
and deserialize across two processes, on the CPU. With a GPU: the same across two fresh processes,
each variant's result checked on the device, the second process's load under 100 ms."""
from __future__ import annotations

import enum
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER_DIR = ROOT / "variants" / "cuda-compute"
sys.path.append(str(LAYER_DIR))  # after the others: its vector_add.py must not shadow another layer's

import _cuda_compute_cache as cache_module  # noqa: E402  (standard library only)

WORKLOADS = ["vector_add", "saxpy", "reduce"]  # one algorithm each: a Python op, a stateful one, an OpKind
HIT_MS = 100  # the target for an algorithm from a warm disk cache


def cache_at(folder: Path, enabled: bool = True):
    """What the layer reads of the run's lb_native.KernelCache: its folder and whether it is on."""
    return types.SimpleNamespace(dir=str(folder), enabled=enabled)


class Builder:
    """Stands in for cuda.compute: build, serialize and deserialize, counted."""

    def __init__(self, blob: bytes = b"CCCLPYS1 a built algorithm" * 100, refuse: bool = False):
        self.blob, self.refuse = blob, refuse
        self.builds, self.loaded = 0, []

    def build(self):
        self.builds += 1
        return ("algorithm", self.builds)

    def serialize(self, algorithm) -> bytes:
        return self.blob

    def deserialize(self, blob: bytes):
        self.loaded.append(blob)
        if self.refuse:
            raise ValueError("serialization blob: cuda-cccl version mismatch")
        return ("loaded", blob)

    def get(self, cache, parts=None):
        return cache_module.load_or_build(cache, "binary_transform", 90, parts or PARTS, self.build,
                                          self.serialize, self.deserialize)


PARTS = {"cuda-cccl": "1.1.1", "sm": 90, "algorithm": "binary_transform", "compilers": "NVRTC 13.0, nvJitLink 13.0",
         "argument d_in1": "float32", "argument d_in2": "float32", "argument d_out": "float32",
         "argument op": "python 0123"}


def the_entry(folder: Path) -> Path:
    entries = list(folder.iterdir())
    assert len(entries) == 1, entries
    return entries[0]


# --- the key ------------------------------------------------------------------------------------

def test_every_part_of_the_key_counts_and_their_order_does_not():
    key = cache_module.cache_key(PARTS)
    assert len(key) == 32 and int(key, 16) >= 0
    assert cache_module.cache_key(dict(reversed(PARTS.items()))) == key
    for name in PARTS:
        assert cache_module.cache_key(PARTS | {name: f"{PARTS[name]}x"}) != key, name
    assert cache_module.cache_key(PARTS | {"sm": 89}) != key  # another compute capability
    assert cache_module.cache_key(PARTS | {"jit": "numba-cuda 0.30.4, Python 3.12"}) != key


def test_the_entry_is_named_by_algorithm_target_and_key_in_the_cache_folder(tmp_path):
    path = cache_module.entry_file(cache_at(tmp_path), "reduce_into", 90, "ab" * 16)
    assert path == tmp_path / f"cuda-compute-reduce_into-sm90-{'ab' * 16}.cccl"
    assert cache_module.entry_file(cache_at(tmp_path, enabled=False), "reduce_into", 90, "ab" * 16) is None
    assert cache_module.entry_file(None, "reduce_into", 90, "ab" * 16) is None


# --- an operator's identity ---------------------------------------------------------------------

class DeviceArray:
    """What the identity reads of a device array: __cuda_array_interface__, dtype, shape."""

    def __init__(self, dtype: str, shape: tuple, address: int):
        self.dtype, self.shape = dtype, shape
        self.__cuda_array_interface__ = {"data": (address, False), "shape": shape, "typestr": dtype, "version": 3}


def saxpy_op(alpha):
    def saxpy(x, y):
        return alpha[0] * x + y
    return saxpy


def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


class OpKind(enum.IntFlag):  # cuda.compute's OpKind is an IntFlag (cccl_op_kind_t)
    PLUS = 1
    MAXIMUM = 2


def test_a_python_operator_is_named_by_its_code_and_state_types_not_its_address():
    identity = cache_module.op_identity
    one, other = saxpy_op(DeviceArray("<f4", (1,), 0x1000)), saxpy_op(DeviceArray("<f4", (1,), 0x2000))
    assert identity(one) == identity(other)  # alpha's address is state, passed per call
    assert identity(one).startswith("python ")
    assert identity(saxpy_op(DeviceArray("<f8", (1,), 0x1000))) != identity(one)  # its dtype is compiled in
    assert identity(saxpy_op(DeviceArray("<f4", (2,), 0x1000))) != identity(one)  # and its length
    assert identity(add) != identity(subtract)
    assert identity(types.SimpleNamespace(func=add)) == identity(add)  # cuda.compute's wrapper keeps .func
    assert identity(saxpy_op(2.0)) != identity(saxpy_op(3.0))  # a Python number is compiled in as a constant


def test_a_built_in_operator_is_named_by_its_kind():
    assert cache_module.op_identity(OpKind.PLUS) == "OpKind.PLUS"
    assert cache_module.op_identity(types.SimpleNamespace(kind=OpKind.PLUS)) == "OpKind.PLUS"  # wrapped
    assert cache_module.op_identity(OpKind.MAXIMUM) == "OpKind.MAXIMUM"
    with pytest.raises(TypeError, match="no cache identity"):
        cache_module.op_identity(object())


def test_the_identity_is_the_same_in_another_process():
    code = ("import importlib.util, sys; sys.path.insert(0, sys.argv[2])\n"
            "spec = importlib.util.spec_from_file_location('t', sys.argv[1])\n"
            "t = importlib.util.module_from_spec(spec); spec.loader.exec_module(t)\n"
            "identity = t.cache_module.op_identity\n"
            "print(identity(t.add), identity(t.saxpy_op(t.DeviceArray('<f4', (1,), 7))))")
    seen = set()
    for seed in ("1", "2"):  # another string hash in each: the identity must not use hash()
        done = subprocess.run([sys.executable, "-c", code, __file__, str(LAYER_DIR)], capture_output=True, text=True,
                              timeout=120, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        seen.add(done.stdout)
    assert seen == {f"{cache_module.op_identity(add)} "
                    f"{cache_module.op_identity(saxpy_op(DeviceArray('<f4', (1,), 9)))}\n"}


# --- the entry ----------------------------------------------------------------------------------

def test_a_build_is_saved_and_the_next_one_loaded(tmp_path):
    first, second = Builder(), Builder()
    assert first.get(cache_at(tmp_path)) == (("algorithm", 1), "built")
    assert second.get(cache_at(tmp_path)) == (("loaded", first.blob), "disk cache hit")
    assert second.builds == 0
    entry = the_entry(tmp_path)
    key = cache_module.cache_key(PARTS)
    assert entry.name == f"cuda-compute-binary_transform-sm90-{key}.cccl"
    assert cache_module.read_entry(entry, key) == first.blob


def rewritten_after(tmp_path, damage) -> Builder:
    """Saves an entry, damages it, asks again: returns the builder of the second ask."""
    Builder().get(cache_at(tmp_path))
    entry = the_entry(tmp_path)
    entry.write_bytes(damage(entry.read_bytes()))
    again = Builder(blob=b"CCCLPYS1 the rebuilt algorithm" * 50)
    assert again.get(cache_at(tmp_path)) == (("algorithm", 1), "built")
    assert again.loaded == []  # the damaged entry never reached cuda.compute
    assert cache_module.read_entry(entry, cache_module.cache_key(PARTS)) == again.blob  # rewritten whole
    return again


def flip(offset: int):
    return lambda data: data[:offset] + bytes([data[offset] ^ 0x01]) + data[offset + 1:]


@pytest.mark.parametrize("where", [-1, -1000, 0, 30])  # the payload's end, its middle, the magic, the key
def test_a_corrupt_entry_is_rebuilt_and_rewritten(tmp_path, where):
    rewritten_after(tmp_path, flip(where))


@pytest.mark.parametrize("keep", [0, 10, 60, 120, -1, -1500])  # empty, in the header, the payload cut short
def test_a_truncated_entry_is_rebuilt_and_rewritten(tmp_path, keep):
    rewritten_after(tmp_path, lambda data: data[:keep])


def test_an_entry_with_bytes_after_its_payload_is_rebuilt(tmp_path):
    rewritten_after(tmp_path, lambda data: data + b"\0")


def test_an_entry_of_another_key_is_not_used(tmp_path):
    Builder().get(cache_at(tmp_path), PARTS | {"sm": 89})
    other = the_entry(tmp_path)
    mine = other.with_name(f"cuda-compute-binary_transform-sm90-{cache_module.cache_key(PARTS)}.cccl")
    shutil.copy(other, mine)  # the right name, another key inside
    again = Builder()
    assert again.get(cache_at(tmp_path))[1] == "built" and again.loaded == []
    assert cache_module.read_entry(mine, cache_module.cache_key(PARTS)) == again.blob


def test_an_entry_cuda_compute_refuses_is_rebuilt_and_rewritten(tmp_path):
    Builder().get(cache_at(tmp_path))
    refusing = Builder(blob=b"CCCLPYS1 a newer build" * 40, refuse=True)
    assert refusing.get(cache_at(tmp_path)) == (("algorithm", 1), "built")
    assert len(refusing.loaded) == 1  # whole, so handed over; refused, so rebuilt
    assert cache_module.read_entry(the_entry(tmp_path), cache_module.cache_key(PARTS)) == refusing.blob


def test_the_write_leaves_no_temporary_file(tmp_path):
    Builder().get(cache_at(tmp_path / "made" / "here"))  # the folder is made
    assert [p.name for p in (tmp_path / "made" / "here").iterdir()] == [
        f"cuda-compute-binary_transform-sm90-{cache_module.cache_key(PARTS)}.cccl"]


def test_a_failed_write_leaves_the_old_entry_whole_and_no_temporary_file(tmp_path, monkeypatch):
    Builder().get(cache_at(tmp_path), PARTS | {"sm": 89})
    old = the_entry(tmp_path)
    old_bytes = old.read_bytes()

    def no_rename(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_module.os, "replace", no_rename)
    built = Builder()
    algorithm, how = built.get(cache_at(tmp_path), PARTS | {"sm": 89, "compilers": "NVRTC 13.1"})
    assert algorithm == ("algorithm", 1) and how.startswith("built, not saved: OSError")
    assert list(tmp_path.iterdir()) == [old] and old.read_bytes() == old_bytes


def test_an_unwritable_cache_folder_costs_only_the_save(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    algorithm, how = Builder().get(cache_at(tmp_path / "file" / "cache"))
    assert algorithm == ("algorithm", 1) and how.startswith("built, not saved: ")


def test_a_failed_serialize_costs_only_the_save(tmp_path):
    builder = Builder()
    builder.serialize = lambda algorithm: (_ for _ in ()).throw(RuntimeError("Failed serializing reduce\nmore"))
    assert builder.get(cache_at(tmp_path)) == (("algorithm", 1), "built, not saved: RuntimeError: Failed serializing "
                                                                  "reduce")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_build_goes_through_and_writes_nothing(tmp_path):
    builder = Builder()
    builder.build = lambda: (_ for _ in ()).throw(RuntimeError("NVRTC failed"))
    with pytest.raises(RuntimeError, match="NVRTC failed"):
        builder.get(cache_at(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_no_kernel_cache_reads_nothing_and_writes_nothing(tmp_path):
    Builder().get(cache_at(tmp_path))  # a good entry, which the cache being off must not use
    entry = the_entry(tmp_path)
    before = (entry.read_bytes(), entry.stat().st_mtime_ns)
    for off in (cache_at(tmp_path, enabled=False), None):  # --no-kernel-cache; no cache (outside the harness)
        builder = Builder(blob=b"other")
        builder.serialize = lambda algorithm: pytest.fail("serialized with the cache off")
        assert builder.get(off) == (("algorithm", 1), "built")
        assert builder.loaded == []
    assert list(tmp_path.iterdir()) == [entry] and (entry.read_bytes(), entry.stat().st_mtime_ns) == before


# --- the layer's real build, serialize and deserialize: two processes ------------------------------

def _needs_cuda_compute_with_serialize() -> None:
    for module, package in (("cuda.compute", "cuda-cccl"), ("cupy", "cupy"), ("numba.cuda", "numba-cuda")):
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:
            found = False
        if not found:
            pytest.skip(f"{package} is not installed (docs/layers/cuda-compute.md, Installing)")
    from importlib.metadata import version

    installed = version("cuda-cccl")
    if tuple(int(part) for part in installed.split(".")[:2]) < (1, 1):
        pytest.skip(f"cuda-cccl {installed} has no serialize/deserialize (1.1 has; pinned: 1.1.1, "
                    "variants/python/requirements.txt)")


# A stand-in for the NVIDIA driver, with every function libcccl.c.parallel.so (1.1) links: it loads
# no CUBIN and launches nothing, but says that loading one worked and that the current device has
# compute capability 9.0 (what deserialize checks a blob against); everything else fails.
STAND_IN_DRIVER_C = r"""
#include <stddef.h>
#define FAIL(signature) int signature { return 999; }
int cuInit(unsigned f) { return 0; }
int cuLibraryLoadData(void** lib, const void* image, void* a, void* b, unsigned c, void* d, void* e, unsigned f) {
  *lib = (void*)0x4000; return 0; }
int cuLibraryGetKernel(void** k, void* lib, const char* name) { *k = (void*)0x2000; return 0; }
int cuLibraryUnload(void* lib) { return 0; }
int cuGetErrorString(int e, const char** text) { *text = "stand-in driver: no GPU"; return 0; }
int cuGetProcAddress_v2(const char* n, void** fn, int v, unsigned long long fl, int* s) { *fn = NULL; return 500; }
int cuGetProcAddress(const char* n, void** fn, int v, unsigned long long fl) { *fn = NULL; return 500; }
int cuDriverGetVersion(int* v) { *v = 13000; return 0; }
int cuCtxGetCurrent(void** c) { *c = (void*)0x1000; return 0; }
int cuCtxGetDevice(int* d) { *d = 0; return 0; }
int cuDeviceGet(int* d, int ordinal) { *d = 0; return 0; }
int cuDeviceGetAttribute(int* v, int attribute, int d) { *v = attribute == 75 ? 9 : attribute == 76 ? 0 : 1; return 0; }
FAIL(cuCtxPushCurrent_v2(void* c)) FAIL(cuCtxPopCurrent_v2(void** c)) FAIL(cuDevicePrimaryCtxRetain(void** c, int d))
FAIL(cuFuncGetAttribute(int* v, int a, void* f)) FAIL(cuFuncSetAttribute(void* f, int a, int v))
FAIL(cuKernelGetFunction(void** f, void* k)) FAIL(cuMemcpyAsync(void* d, void* s, size_t n, void* st))
FAIL(cuLaunchKernel(void* f, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e, unsigned g, unsigned h,
                    void* s, void** p, void** x))
FAIL(cuLaunchKernelEx(const void* config, void* f, void** p, void** e))
FAIL(cuMemsetD8Async(void* d, unsigned char v, size_t n, void* st))
FAIL(cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, void* f, int b, size_t s))
"""


def _child(mode: str, *arguments: str) -> dict:
    """Runs this file in a fresh process (`mode` below); returns the JSON it reports."""
    report = Path(arguments[-1])
    done = subprocess.run([sys.executable, __file__, mode, *arguments], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"the {mode} child failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return json.loads(report.read_text())


def _check_the_two_processes(first: dict, second: dict, folder: Path) -> None:
    for workload in WORKLOADS:
        (label, _ms), = first[workload]
        assert label.endswith(", built)"), label
        (label, ms), = second[workload]
        assert label.endswith("(deserialize + CUBIN load, disk cache hit)"), label
        assert ms < HIT_MS, (workload, ms)
    assert sorted(p.name.split("-sm")[0] for p in folder.iterdir()) == [
        "cuda-compute-binary_transform", "cuda-compute-binary_transform", "cuda-compute-reduce_into"]


def test_on_the_cpu_a_second_process_loads_what_the_first_built(tmp_path):
    _needs_cuda_compute_with_serialize()
    compiler = next((c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c and shutil.which(c)), None)
    if compiler is None:
        pytest.skip("no C compiler to build the stand-in libcuda.so.1")
    (tmp_path / "driver.c").write_text(STAND_IN_DRIVER_C)
    driver = tmp_path / "libcuda.so.1"
    subprocess.run([compiler, "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(driver),
                    str(tmp_path / "driver.c")], check=True)
    folder = tmp_path / "kernels"
    first = _child("cpu", str(driver), str(folder), "on", str(tmp_path / "first.json"))
    second = _child("cpu", str(driver), str(folder), "on", str(tmp_path / "second.json"))
    _check_the_two_processes(first, second, folder)
    before = {p: p.stat().st_mtime_ns for p in folder.iterdir()}
    off = _child("cpu", str(driver), str(folder), "off", str(tmp_path / "off.json"))  # --no-kernel-cache
    assert off["vector_add"][0][0].endswith(", built)")
    assert {p: p.stat().st_mtime_ns for p in folder.iterdir()} == before


def test_on_the_gpu_a_second_process_loads_what_the_first_built_and_it_computes_right(tmp_path):
    _needs_cuda_compute_with_serialize()
    from test_cuda_compute_layer import _gpu_present  # one probe of the driver for both files

    if not _gpu_present():
        pytest.skip("needs an NVIDIA GPU and driver: a loaded algorithm runs CUB on the device")
    folder = tmp_path / "kernels"
    first = _child("gpu", str(folder), str(tmp_path / "first.json"))
    second = _child("gpu", str(folder), str(tmp_path / "second.json"))
    for run in (first, second):
        assert run["results"] == {w: True for w in WORKLOADS}, run
    _check_the_two_processes(first["costs"], second["costs"], folder)


# --- the child processes ----------------------------------------------------------------------------

def _variants() -> dict:
    sys.path[:0] = [str(ROOT / "variants" / "python"), str(LAYER_DIR)]
    modules = {}
    for workload in WORKLOADS:  # as the harness loads them (python_layer.cpp)
        spec = importlib.util.spec_from_file_location(f"lb_cuda-compute_{workload}", LAYER_DIR / f"{workload}.py")
        modules[workload] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modules[workload])
    return modules


def _session(folder: str, enabled: bool = True):
    from lb_variant import LayerConfig, Session

    return Session(LayerConfig("cuda-compute", cache_at(Path(folder), enabled)))


def _cpu_child(driver: str, folder: str, switch: str, report: str) -> None:
    """Every variant's allocate() with arrays that have no memory, on the stand-in driver."""
    import ctypes

    ctypes.CDLL(driver, mode=ctypes.RTLD_GLOBAL)
    modules = _variants()
    import _cuda_compute_layer as layer
    import cuda.compute._caching
    import cuda.compute._cccl_interop
    import numpy as np
    from lb_variant import Setup, Size
    from numba.cuda.cudadrv import devices

    class Device:  # cuda.core's, which asks the real driver: compute capability 9.0
        compute_capability = (9, 0)
        device_id = 0

    layer.Device = cuda.compute._caching.Device = cuda.compute._cccl_interop.CudaDevice = Device
    devices.get_context = lambda devnum=None: types.SimpleNamespace(device=Device)  # numba-cuda's target

    class NoMemory:  # what cuda.compute reads of a device array
        def __init__(self, count, dtype=np.float32):
            self.dtype, self.shape, self.size = np.dtype(dtype), (max(count, 1),), max(count, 1)
            self.__cuda_array_interface__ = {"data": (1 << 20, False), "shape": self.shape, "strides": None,
                                             "typestr": self.dtype.str, "version": 3}

        def __len__(self):
            return self.shape[0]

    for module in (layer, *modules.values()):  # reduce's scratch size query would run CUB
        for name, stand_in in (("empty", NoMemory), ("temp_storage", lambda *a, **k: NoMemory(64, np.uint8))):
            if hasattr(module, name):
                setattr(module, name, stand_in)
    session, costs = _session(folder, switch == "on"), {}
    for workload in WORKLOADS if switch == "on" else ["vector_add"]:
        costs[workload] = []
        modules[workload].Variant().allocate(Size(1, 4096, 1), Setup(0xBEEF, lambda what, ms: costs[workload].append(
            [what, ms]) if what.startswith("cuda.compute build") else None, session))
    Path(report).write_text(json.dumps(costs))
    os._exit(0)  # no teardown: the stand-in driver unloads nothing


def _gpu_child(folder: str, report: str) -> None:
    """Every variant as the harness drives it, on a stream of its own, its result checked."""
    modules = _variants()  # first: it puts variants/python (lb_variant) on the path
    import cupy as cp
    import numpy as np
    from lb_variant import Problem, Setup, Size

    stream = cp.cuda.Stream(non_blocking=True)
    session, rng, n = _session(folder), np.random.default_rng(7), 1000003
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    cases = {"vector_add": ([x, y], np.full(n, np.nan, np.float32), x + y),
             "saxpy": ([x], y.copy(), np.float32(2.5) * x + y),
             "reduce": ([x], np.full(1, np.nan, np.float32), np.array([x.sum(dtype=np.float64)]))}
    costs, results = {}, {}
    for workload, (inputs, output, expected) in cases.items():
        costs[workload] = []
        variant = modules[workload].Variant()
        variant.allocate(Size(1, n, 1), Setup(stream.ptr, lambda what, ms: costs[workload].append(
            [what, ms]) if what.startswith("cuda.compute build") else None, session))
        variant.upload(Problem(1, n, 1, 2.5, inputs, output), stream.ptr)
        variant.run(stream.ptr)
        stream.synchronize()
        got = np.empty_like(output)
        variant.download(got, stream.ptr)
        results[workload] = bool(np.allclose(got, expected, rtol=1e-4, atol=1e-3))
    Path(report).write_text(json.dumps({"costs": costs, "results": results}))


if __name__ == "__main__":
    {"cpu": _cpu_child, "gpu": _gpu_child}[sys.argv[1]](*sys.argv[2:])
