"""What the cuda-compute layer's variants share. cuda.compute (package cuda-cccl, pinned at 1.0.2)
is CUB's device-wide algorithms called from Python: no kernel text and no grid, but an algorithm
(transform, reduce, scan, sort, ...) and an operator written in Python. So unlike the other Python
layers it does not run our kernel text: each workload here is CUB's own kernel, as `thrust`'s is
from C++.

The build. make_<algorithm>(d_in=..., d_out=..., op=...) compiles the operator (a Python function)
with numba-cuda (numba.cuda.compile(..., output="ltoir"): libNVVM, for the current device's compute
capability), has NVRTC compile CUB's algorithm for the current device around it, links the two with
nvJitLink and loads the CUBIN (cuLibraryLoadData): one to one and a half seconds an algorithm.
cuda.compute keeps what it built for the rest of the process, keyed by the arrays' dtypes, the
operator (its bytecode, constants and closure, not its address) and the device's compute
capability, so the next case of a workload finds it; nothing is kept on disk (cuda-cccl 1.0.2 has
no disk cache), so every process builds again. Every variant builds in allocate() and says what it
cost; run() only calls the built algorithm. `import cuda.compute` imports numba and numba.cuda
(cuda/compute/op.py imports its JIT module at once), so their import is in the harness's
"import cuda.compute, once per process" line; the first Numba compile in the process also sets
numba-cuda up, inside the first build with a Python operator.

The stream. cuda.compute takes any object with __cuda_stream__; CuPy's ExternalStream is one, so
one wrapper of the harness's stream serves CuPy's copies and every algorithm call. It must never be
missing: cuda.compute passes no stream on as NULL, the legacy default stream.
The context. cuda.compute's C library launches in the context current on the calling thread (the
harness's primary context), through a CUDA runtime linked statically into libcccl.c.parallel.so;
numba-cuda's device query at an operator's compile (numba.cuda.cudadrv.devices.get_context) takes
the same current context, which must be the device's primary one (as for the numba layers).
The arrays are CuPy's (cuda.compute takes anything with __cuda_array_interface__); CuPy's
OutOfMemoryError is a MemoryError, which the harness skips."""
import re
import time

import cuda.compute
import cupy as cp
import lb_cupy
import lb_shared
import lb_variant
import numpy as np

if not cuda.compute._BINDINGS_AVAILABLE:  # `import cuda.compute` only warns when its C library cannot load
    raise ImportError("cuda.compute's C library did not load (it needs libcuda.so.1, the NVIDIA driver)")
from cuda.compute import OpKind, make_reduce_into  # noqa: E402
from cuda.compute.op import make_op_adapter  # noqa: E402

upload, download = lb_cupy.to_device, lb_cupy.to_host  # host <-> device on the harness's stream, then wait

_built = set()  # (algorithm, operator) pairs cuda.compute has built in this process (it keeps them)


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


def build(make, op_name: str, cost, **arguments):
    """make(**arguments): cuda.compute's make_<algorithm>, which builds (or finds) the algorithm
    for these dtypes and this operator. The first build in the process compiles; later cases of the
    workload find it in cuda.compute's in-process cache."""
    key = (make.__name__, op_name)
    how = "in-process cache" if key in _built else "built"
    steps = "NVRTC + nvJitLink" if op_name.startswith("OpKind") else "Numba op + NVRTC + nvJitLink"
    t0 = time.perf_counter()
    algorithm = make(**arguments)
    cost(f"cuda.compute build {make.__name__.removeprefix('make_')} {op_name} ({steps}, {how})",
         (time.perf_counter() - t0) * 1e3)
    _built.add(key)
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
        # ndarray (cuda.compute 1.0.2 takes no NumPy scalar); its bytes are copied into the launch.
        self.values = [np.full(1, i, dtype=np.float32) for i in range(1, self.n + 1)]
        self.reducer = build(make_reduce_into, "OpKind.PLUS", setup.cost, d_in=self.zero, d_out=self.out, op=self.op,
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
