"""What the cuda-compute layer's variants share. cuda.compute (package cuda-cccl, pinned at 1.1.1)
is CUB's device-wide algorithms called from Python: no kernel text and no grid, but an algorithm
(transform, reduce, scan, sort, ...) and an operator written in Python. So unlike the other Python
layers it does not run our kernel text: each workload here is CUB's own kernel, as `thrust`'s is
from C++.

The build. make_<algorithm>(d_in=..., d_out=..., op=...) compiles the operator (a Python function)
with numba-cuda (numba.cuda.compile(..., output="ltoir"): libNVVM, for the compute capability
cuda.compute passes it, the current device's), has NVRTC compile CUB's algorithm for that device
around it, links the two with nvJitLink and loads the CUBIN (cuLibraryLoadData): one to three
seconds an algorithm. build() keeps each algorithm for the rest of the process (the next case of a
workload finds it), and saves it in the run's kernel cache folder (cuda.compute.serialize;
_cuda_compute_cache.py) so that a later process loads it (cuda.compute.deserialize and the CUBIN's
load, milliseconds) instead of building it: the key is cuda-cccl's version, the device's compute
capability, the algorithm, the arrays' dtypes and the operator (an OpKind's name, or a hash of the
Python function's bytecode, constants and closure), with the compilers' versions. Every variant
builds in allocate() and says how it got the algorithm and what that cost; run() only calls it.
`import cuda.compute` imports numba and numba.cuda (cuda/compute/op.py imports its JIT module at
once), so their import is in the harness's "import cuda.compute, once per process" line; the first
Numba compile in the process also sets numba-cuda up, inside the first build with a Python operator.

The stream. cuda.compute takes any object with __cuda_stream__; CuPy's ExternalStream is one, so
one wrapper of the harness's stream serves CuPy's copies and every algorithm call. It must never be
missing: cuda.compute passes no stream on as NULL, the legacy default stream.
The context. cuda.compute's C library launches in the context current on the calling thread (the
harness's primary context), through a CUDA runtime linked statically into libcccl.c.parallel.so;
cuda.compute asks cuda.core's Device() (the current context's device) for the compute capability
and hands it to numba-cuda, which so compiles the operator without a device query of its own;
deserialize checks a saved blob against the same current device.
The arrays are CuPy's (cuda.compute takes anything with __cuda_array_interface__); CuPy's
OutOfMemoryError is a MemoryError, which the harness skips."""
import re
import sys
import time

import _cuda_compute_cache as disk_cache
import cuda.cccl
import cuda.compute
import cupy as cp
import lb_cupy
import lb_shared
import lb_variant
import numpy as np
from cuda.core import Device

if not cuda.compute._BINDINGS_AVAILABLE:  # `import cuda.compute` only warns when its C library cannot load
    raise ImportError("cuda.compute's C library did not load (it needs libcuda.so.1, the NVIDIA driver)")
if not hasattr(cuda.compute, "serialize"):  # cuda-cccl before 1.1: an older install than the pin
    raise ImportError(f"cuda-cccl {cuda.cccl.__version__} has no serialize/deserialize: the cuda-compute layer needs "
                      "1.1.1 (variants/python/requirements.txt)")
from cuda.compute import OpKind, deserialize, make_reduce_into, serialize  # noqa: E402
from cuda.compute.op import make_op_adapter  # noqa: E402

upload, download = lb_cupy.to_device, lb_cupy.to_host  # host <-> device on the harness's stream, then wait

# cache key -> algorithm, for the rest of the process: cuda.compute keeps what it built itself, but
# not what was deserialized, which a second make_<algorithm> call would build again.
_algorithms = {}


def stream(handle: int) -> cp.cuda.ExternalStream:
    if not handle:
        raise ValueError("stream 0: cuda.compute would run on the legacy default stream")
    return lb_cupy.wrap(handle)


def empty(count: int, dtype=np.float32) -> cp.ndarray:
    return cp.empty(max(count, 1), dtype=dtype)


def wrap_op(op):
    """op (a Python function or an OpKind) wrapped once, the way cuda.compute wraps it inside
    make_<algorithm>. The variants pass this object to every call: given the function, each call
    would wrap it again (its globals and closure searched for device arrays, its bytecode hashed),
    given an OpKind, a small wrapper object. Wrapping compiles nothing: the operator is compiled
    (by numba-cuda) inside make_<algorithm>, in build()."""
    return make_op_adapter(op)


def build(make, op_name: str, setup: lb_variant.Setup, **arguments):
    """make(**arguments): cuda.compute's make_<algorithm>, which builds the algorithm for these
    dtypes and this operator; or the same algorithm from this process (in-process cache) or from
    the run's kernel cache folder (disk cache hit), both keyed by what makes it. The cost line
    says which, with its time."""
    t0 = time.perf_counter()
    name = make.__name__.removeprefix("make_")
    major, minor = Device().compute_capability  # the device cuda.compute builds for: the current context's
    sm = major * 10 + minor
    parts = key_parts(name, sm, arguments)
    key = disk_cache.cache_key(parts)
    if key in _algorithms:
        algorithm, how = _algorithms[key], "in-process cache"
    else:
        session_cache = setup.session.kernel_cache if setup.session is not None else None
        algorithm, how = disk_cache.load_or_build(session_cache, name, sm, parts, lambda: make(**arguments),
                                                  serialize, _deserialize)
        _algorithms[key] = algorithm
    if how == "disk cache hit":
        steps = "deserialize + CUBIN load"
    else:
        steps = "NVRTC + nvJitLink" if op_name.startswith("OpKind") else "Numba op + NVRTC + nvJitLink"
    setup.cost(f"cuda.compute build {name} {op_name} ({steps}, {how})", (time.perf_counter() - t0) * 1e3)
    return algorithm


def key_parts(name: str, sm: int, arguments: dict) -> dict:
    """What makes a built algorithm, for the disk cache's key: cuda-cccl's version (a blob of
    another is refused anyway), the target, the algorithm, each array's dtype (not its size or
    address: one build serves every size), the operator's identity, and the compilers that made
    it (a newer NVRTC or numba-cuda builds anew rather than reuse the old one's CUBIN)."""
    parts = {"cuda-cccl": cuda.cccl.__version__, "sm": sm, "algorithm": name, "compilers": _compilers()}
    for argument, value in arguments.items():
        parts[f"argument {argument}"] = disk_cache.op_identity(value) if argument == "op" else str(value.dtype)
    if parts["argument op"].startswith("python"):  # compiled by numba-cuda, from this Python's bytecode
        import numba_cuda  # already imported: cuda.compute imports numba.cuda

        parts["jit"] = f"numba-cuda {numba_cuda.__version__}, Python {sys.version_info[0]}.{sys.version_info[1]}"
    return parts


def _compilers() -> str:
    """NVRTC's and nvJitLink's versions (cuda.compute loaded both at its import)."""
    from cuda.bindings import nvjitlink, nvrtc

    status, major, minor = nvrtc.nvrtcVersion()
    if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"nvrtcVersion failed: {status.name}")
    return "NVRTC %d.%d, nvJitLink %d.%d" % (major, minor, *nvjitlink.version())


def _deserialize(blob: bytes):
    """A saved algorithm, ready: cuda.compute.deserialize checks the blob (magic, its cuda-cccl
    version, that its CUBIN suits this device) and defers the CUBIN's load to the first call, the
    case's first run; so it is loaded here, in allocate(), where a build loads it too."""
    algorithm = deserialize(blob)
    for result in algorithm.build_results.values():  # one: built for this device only
        result.load()
    return algorithm


def temp_storage(reducer, cost, **call) -> cp.ndarray:
    """The scratch CUB's reduce needs, allocated once here so that run() allocates nothing: the
    reducer called with temp_storage=None launches nothing and returns the bytes it needs."""
    t0 = time.perf_counter()
    nbytes = reducer(temp_storage=None, **call)
    scratch = empty(nbytes, np.uint8)
    cost(f"CUB temp storage for reduce_into: size query + allocation ({nbytes} bytes)",
         (time.perf_counter() - t0) * 1e3)
    return scratch


class Launch:
    """Launch overhead through cuda.compute: n calls of the smallest algorithm call that leaves a
    checkable value, reduce_into over one element (a zero) with h_init = i, which writes i. One call
    is CUB's single-tile reduce, one kernel, with cuda.compute's Python in front of it: the call
    binds the arrays' pointers, the initial value and the stream into its C structures, then the C
    library dispatches CUB. What it costs over a `<<<>>>` launch is that layer. With
    `wait_each_time`, a stream synchronize after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = stream(setup.stream)
        self.zero, self.out = empty(1), empty(1)
        self.op = wrap_op(OpKind.PLUS)
        # One initial value per launch, made here: run() only passes them. h_init must be an
        # ndarray (cuda.compute 1.1.1 takes no NumPy scalar); its bytes are copied into the launch.
        self.values = [np.full(1, i, dtype=np.float32) for i in range(1, self.n + 1)]
        self.reducer = build(make_reduce_into, "OpKind.PLUS", setup, d_in=self.zero, d_out=self.out, op=self.op,
                             h_init=self.values[0])
        self.temp = temp_storage(self.reducer, setup.cost, d_in=self.zero, d_out=self.out, num_items=1, op=self.op,
                                 h_init=self.values[0], stream=self.stream)

    def upload(self, problem, stream_handle):
        upload(np.zeros(1, dtype=np.float32), self.zero, self.stream)
        upload(problem.output, self.out, self.stream)

    def run(self, stream_handle):
        for value in self.values:
            self.reducer(temp_storage=self.temp, d_in=self.zero, d_out=self.out, num_items=1, op=self.op,
                         h_init=value, stream=self.stream)
            if self.wait_each_time:
                self.stream.synchronize()

    def download(self, out, stream_handle):
        download(self.out, out, self.stream)


def _c_library():
    """libcccl.c.parallel.so, the C library that builds and dispatches CUB: the wheel carries one
    build per CUDA major (cu12/, cu13/) and cuda.compute loads cuda.bindings' major's."""
    from pathlib import Path

    import cuda.bindings

    major = cuda.bindings.__version__.split(".")[0]
    return Path(cuda.compute.__file__).parent / f"cu{major}" / "cccl" / "libcccl.c.parallel.so"


def _built_with(path) -> str:
    """The CUDA release the C library was built with, from nvcc's banner in the file ("Cuda
    compilation tools, release 13.1, ..."): the version of the CUDA runtime linked into it."""
    found = re.search(rb"Cuda compilation tools, release (\d+\.\d+)", path.read_bytes())
    return found.group(1).decode() if found else ""


def libraries() -> dict:
    """The CUDA libraries cuda.compute uses: cuda/compute/_bindings.py loads NVRTC (compiles CUB
    around the operator) and nvJitLink (links the two) through cuda.pathfinder before its C library;
    numba-cuda loads libNVVM (the operator to LTO-IR) through cuda.bindings, which finds it with
    cuda.pathfinder too. The C library that dispatches CUB comes in the wheel, with the CUDA runtime
    linked into it statically (no libcudart is loaded). Never raises: a failure is reported instead."""

    def version(get) -> str:
        try:
            return get()
        except Exception:
            return ""

    def nvrtc_version():
        from cuda.bindings import nvrtc

        return "%d.%d" % tuple(nvrtc.nvrtcVersion()[1:])

    def nvjitlink_version():
        from cuda.bindings import nvjitlink

        return "%d.%d" % tuple(nvjitlink.version())

    def nvvm_version():  # libNVVM's own version (2.0 in CUDA 13), not the toolkit's
        from cuda.bindings import nvvm

        return "%d.%d" % tuple(nvvm.version())

    try:
        found = lb_shared.libraries(("nvrtc", "nvJitLink", "nvvm"), {
            "nvrtc": version(nvrtc_version), "nvJitLink": version(nvjitlink_version), "nvvm": version(nvvm_version)})
    except Exception as e:
        found = {"nvrtc": {"error": f"{type(e).__name__}: {e}"}}
    try:
        import importlib.metadata

        c_library = _c_library()
        found["cccl.c.parallel"] = {"version": importlib.metadata.version("cuda-cccl"),
                                    "path": str(c_library) if c_library.is_file() else "",
                                    "found_via": "bundled in the cuda-cccl wheel"}
        found["cudart"] = {"version": version(lambda: _built_with(c_library)),
                           "path": str(c_library) if c_library.is_file() else "",
                           "found_via": "linked statically into libcccl.c.parallel.so"}
    except Exception as e:
        found.setdefault("cccl.c.parallel", {"error": f"{type(e).__name__}: {e}"})
        found.setdefault("cudart", {"error": f"{type(e).__name__}: {e}"})
    return found
