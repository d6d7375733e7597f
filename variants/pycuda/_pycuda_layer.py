"""What the pycuda layer's variants share. PyCUDA (2008) is the oldest of the Python layers and
keeps habits from before the CUDA runtime and driver shared a context, which is why this file is
longer than cuda-core's for the same work:

- The context. PyCUDA keeps its own context stack beside CUDA's, and every object it makes
  (memory, stream, module) remembers the context on top of it. `pycuda.autoinit` would create a
  second, private context (cuCtxCreate), whose streams and memory the harness's stream could not
  touch; so we retain the device's *primary* context (the harness's) as `pycuda.autoprimaryctx`
  does, but push it only while PyCUDA objects are made and pop it at once. The reason: PyCUDA
  aborts the process ("PyCUDA ERROR: The context stack was not empty upon module cleanup") if its
  stack is not empty when its extension unloads, and autoprimaryctx's atexit pop is a Python
  atexit handler, which never runs in layerbench (its interpreter is never finalized). Objects
  freed later push their own context for the call (PyCUDA's scoped_context_activation).
- The stream. Every PyCUDA call that takes a stream takes a pycuda.driver.Stream and nothing else
  (PYCUDA_PARSE_STREAM_PY in cuda.hpp: a Stream, or None for the legacy stream 0), and a Stream
  cannot wrap a handle it did not create: there is no from_handle and no handle constructor. So
  the work runs on one PyCUDA stream of our own (non-blocking, so it never waits for stream 0),
  chained to the harness's stream with two events: the harness's stream -> ours before the work,
  ours -> the harness's after it (StreamBridge). The harness's events still bracket everything;
  what that adds to the timed region is the two cross-stream waits (see docs/layers/pycuda.md).
- The compile. SourceModule runs nvcc, a separate program, on a temporary copy of the text and
  keeps the CUBIN in PyCUDA's own cache (an MD5 of the text, options and `nvcc --version`). For a
  text with an #include, even a cache hit runs `nvcc --preprocess`, to hash the header too.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import time

import lb_shared
import lb_variant
import numpy as np
import pycuda
import pycuda.compiler
import pycuda.driver as cuda

# The bridge between our stream and the harness's needs two calls PyCUDA does not offer on a handle
# it did not make (record an event on it, make it wait for one): cuda.bindings makes them.
_t0 = time.perf_counter()
_paid_import = "cuda.bindings.driver" not in sys.modules
from cuda.bindings import driver  # noqa: E402

_IMPORT_MS = (time.perf_counter() - _t0) * 1e3 if _paid_import else None


def _check(result, call: str):
    status, *values = result
    if status != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{call} failed: {driver.cuGetErrorName(status)[1].decode()}")
    return values[0] if len(values) == 1 else None


# --- the compile ---------------------------------------------------------------------------------

def nvcc_path() -> str | None:
    """The nvcc SourceModule runs: the one on PATH (PyCUDA's default, "nvcc"), else the CUDA
    toolkit's ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda)."""
    found = shutil.which("nvcc")
    if found:
        return os.path.realpath(found)
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "nvcc"), os.X_OK):
            return os.path.realpath(os.path.join(root, "bin", "nvcc"))
    return None


def nvcc_version(nvcc: str) -> str:
    """"13.0.88" from `nvcc --version`, the text PyCUDA puts into its cache key."""
    text = pycuda.compiler.get_nvcc_version(nvcc)
    found = re.search(r"\bV(\d+\.\d+\.\d+)", text) or re.search(r"release (\d+\.\d+)", text)
    return found.group(1) if found else text.strip().splitlines()[-1]


def source(workload: str, text: lb_shared.KernelText | None = None) -> str:
    """Our kernel text (or `text`, a workload folder's) as SourceModule is given it. PyCUDA writes
    the text to a temporary kernel.cu, which is the name nvcc's errors would carry; the #line makes
    them name workloads/<workload>/kernels.cu (or the folder's file) and its lines instead. It
    changes no generated code."""
    if text:
        return f'#line 1 "{text.file}"\n' + text.text
    return f'#line 1 "workloads/{workload}/kernels.cu"\n' + lb_shared.kernel_source(workload)


def compile_options(workload: str, sm: int, nvcc: str, text: lb_shared.KernelText | None = None) -> dict:
    """Everything SourceModule (and compile(), which it calls) is given besides the cache folder:
    the text, which nvcc, our options, the target, where our #include is found. no_extern_c: our
    text has its own extern "C" (PyCUDA would wrap the whole text in one otherwise)."""
    return dict(source=source(workload, text), nvcc=nvcc, options=["--std=c++17"], no_extern_c=True,
                arch=f"sm_{sm}", include_dirs=[lb_shared.INCLUDE_DIR])


def pycuda_cache_dir() -> str | None:
    """The folder PyCUDA's compile() keeps CUBINs in, found as pycuda/compiler.py finds it:
    $PYCUDA_CACHE_DIR, else platformdirs' user cache folder for pycuda + compiler-cache-v1; None
    where PyCUDA caches nothing ($PYCUDA_DISABLE_CACHE, or pycuda.driver.set_debugging())."""
    if "PYCUDA_DISABLE_CACHE" in os.environ or cuda.CUDA_DEBUGGING:
        return None
    if "PYCUDA_CACHE_DIR" in os.environ:
        return os.environ["PYCUDA_CACHE_DIR"]
    import platformdirs

    return os.path.join(platformdirs.user_cache_dir("pycuda", "pycuda"), "compiler-cache-v1")


def _cubins(folder: str) -> dict:
    try:
        return {e.name: (e.stat().st_mtime_ns, e.stat().st_size)
                for e in os.scandir(folder) if e.name.endswith(".cubin")}
    except OSError:
        return {}


def watched_compile(compile_fn, cache_dir: str | None):
    """(compile_fn()'s result, how, ms). `how` is what PyCUDA's cache folder shows: PyCUDA writes a
    CUBIN there after each nvcc compile and writes nothing on a hit, so a new or rewritten file
    means "compiled" and an unchanged folder "cache hit" (the words the other layers' costs use)."""
    before = _cubins(cache_dir) if cache_dir else None
    t0 = time.perf_counter()
    result = compile_fn()
    ms = (time.perf_counter() - t0) * 1e3
    if not cache_dir:
        how = "compiled, cache off"
    else:
        how = "compiled" if _cubins(cache_dir) != before else "cache hit"
    return result, how, ms


def nvcc_error(workload: str, error: Exception, file: str | None = None) -> RuntimeError:
    """PyCUDA's CompileError carries nvcc's own output; that is the message worth keeping."""
    log = "\n".join(part.strip() for part in (getattr(error, "stdout", ""), getattr(error, "stderr", "")) if part)
    return RuntimeError(f"nvcc could not compile {file or f'workloads/{workload}/kernels.cu'}: {log or error}")


# --- the context ---------------------------------------------------------------------------------

# The primary context's retain is the process's, not a session's: every PyCUDA object (memory, a
# stream, a module) pushes the context it was made in when it is freed, which Python's garbage
# collector may do after the session has closed; and PyCUDA releases a primary context by pushing
# and popping it on its own stack. So it is retained once, at the first use, and never released
# (the harness's own retain keeps the context alive regardless). What a run makes in it (the stream
# bridge, the compiled modules) is the session's (Session).
_context = None  # the primary context, retained once per process and never released
_rejected = []  # a retained context that was not the current one: kept, as dropping it would pop


def _primary_context():
    """The primary context of the device whose context is current on this thread (the harness's),
    retained through PyCUDA: what pycuda.autoprimaryctx does, without its push and atexit pop."""
    global _context
    if _context is None:
        cuda.init()
        try:
            device = cuda.Context.get_device()  # cuCtxGetDevice: the context the harness made current
        except cuda.Error as e:
            raise RuntimeError(f"no CUDA context is current on this thread ({e}): layerbench makes the "
                               "primary context current before any variant runs") from e
        context = device.retain_primary_context()
        current = _check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
        if int(current) != context.handle:
            _rejected.append(context)  # PyCUDA's destructor would push it to release it
            raise RuntimeError("the current CUDA context is not the device's primary context")
        _context = context
    return _context


@contextlib.contextmanager
def pycuda_context():
    """The primary context on PyCUDA's stack (and CUDA's) while PyCUDA objects are made, popped
    after, so that PyCUDA's stack is empty whenever control goes back to the harness. Out of
    device memory (PyCUDA's MemoryError) becomes Python's MemoryError: the harness skips the case."""
    _primary_context().push()
    try:
        yield
    except cuda.Error as e:
        if isinstance(e, cuda.MemoryError) or "out of memory" in str(e).lower():
            raise MemoryError(f"{type(e).__name__}: {e}") from e
        raise
    finally:
        cuda.Context.pop()


def device() -> cuda.Device:
    return cuda.Context.get_device()


def sm_count() -> int:
    return device().get_attribute(cuda.device_attribute.MULTIPROCESSOR_COUNT)


def threads_per_sm() -> int:
    return device().get_attribute(cuda.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR)


# --- the stream ----------------------------------------------------------------------------------

class StreamBridge:
    """PyCUDA's stream, ordered behind the harness's stream before our work (enter) and the
    harness's stream behind ours after it (leave), with two reusable events that record no time.
    A cuStreamWaitEvent takes the event's latest record when it is enqueued, so reuse is safe."""

    def __init__(self):
        non_blocking = int(driver.CUstream_flags.CU_STREAM_NON_BLOCKING)
        self.stream = cuda.Stream(flags=non_blocking)  # PyCUDA's own: its launches and copies go here
        self._ours = driver.CUstream(self.stream.handle)
        flags = int(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        self._ready = _check(driver.cuEventCreate(flags), "cuEventCreate")
        self._done = _check(driver.cuEventCreate(flags), "cuEventCreate")
        self._harness = (None, None)  # (int handle, CUstream): the last harness stream seen

    def _wrap(self, handle: int):
        if self._harness[0] != handle:
            self._harness = (handle, driver.CUstream(handle))
        return self._harness[1]

    def enter(self, handle: int) -> cuda.Stream:
        """What is enqueued on the returned (PyCUDA) stream from now on runs after everything
        already enqueued on the harness's stream `handle`."""
        harness = self._wrap(handle)
        _check(driver.cuEventRecord(self._ready, harness), "cuEventRecord")
        _check(driver.cuStreamWaitEvent(self._ours, self._ready, 0), "cuStreamWaitEvent")
        return self.stream

    def leave(self, handle: int) -> None:
        """What is enqueued on the harness's stream from now on runs after our work."""
        _check(driver.cuEventRecord(self._done, self._ours), "cuEventRecord")
        _check(driver.cuStreamWaitEvent(self._wrap(handle), self._done, 0), "cuStreamWaitEvent")

    def upload(self, host: np.ndarray, memory: cuda.DeviceAllocation, handle: int) -> None:
        """Host -> device, after the harness's stream's earlier work, done when it returns."""
        stream = self.enter(handle)
        if host.nbytes:
            cuda.memcpy_htod_async(memory, host, stream)
        stream.synchronize()

    def download(self, memory: cuda.DeviceAllocation, host: np.ndarray, handle: int) -> None:
        """Device -> host (the harness's buffer), after our work and the harness's stream's."""
        stream = self.enter(handle)
        if host.nbytes:
            cuda.memcpy_dtoh_async(host, memory, stream)
        stream.synchronize()

    def close(self) -> None:
        """The two events destroyed; the stream goes with the object (PyCUDA destroys it)."""
        events, self._ready, self._done = (self._ready, self._done), None, None
        for event in events:
            if event is not None:
                _check(driver.cuEventDestroy(event), "cuEventDestroy")


class Session(lb_variant.Session):
    """One run of the layer: the stream bridge and each workload's SourceModule, made once per
    session, released by close() when the harness closes the session after the run."""

    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self._bridge = None
        self.modules = {}  # workload -> SourceModule, compiled (or read from PyCUDA's cache)

    def bridge(self, cost) -> StreamBridge:
        """The stream bridge (call inside pycuda_context()), and what importing cuda.bindings for it
        cost where this layer was the first in the process to import it."""
        global _IMPORT_MS
        if self._bridge is None:
            self._bridge = StreamBridge()
            if _IMPORT_MS is not None:
                cost("import cuda.bindings.driver (for the stream bridge), once per process", _IMPORT_MS)
                _IMPORT_MS = None
        return self._bridge

    def kernel(self, workload: str, name: str, arg_types: list, cost, text: lb_shared.KernelText | None = None):
        """The function `name` of our kernel text, prepared with its exact C argument types ("P" a
        pointer, np.int64 `long long`, np.int32 `int`, np.float32 `float`). The first request for a
        workload compiles it with SourceModule (nvcc, or PyCUDA's cache) and loads it: a one-time cost."""
        if workload not in self.modules:
            nvcc = nvcc_path()
            if nvcc is None:
                raise RuntimeError("nvcc not found (PATH, $CUDA_HOME, /usr/local/cuda): PyCUDA's SourceModule runs it")
            attribute = cuda.device_attribute  # (Device.compute_capability() calls a deprecated driver function)
            major, minor = (device().get_attribute(a) for a in (attribute.COMPUTE_CAPABILITY_MAJOR,
                                                                 attribute.COMPUTE_CAPABILITY_MINOR))
            # layerbench's --no-kernel-cache means no compile cache at all: PyCUDA's is turned off too.
            cache = self.kernel_cache
            cache_dir = pycuda_cache_dir() if cache is not None and cache.enabled else None
            if cache_dir:
                os.makedirs(cache_dir, exist_ok=True)  # PyCUDA makes only its default folder itself
            options = compile_options(workload, major * 10 + minor, nvcc, text)
            try:
                module, how, ms = watched_compile(
                    lambda: pycuda.compiler.SourceModule(cache_dir=cache_dir or False, **options), cache_dir)
            except cuda.CompileError as e:
                raise nvcc_error(workload, e, text.file if text else None) from None
            cost(f"SourceModule {workload} (nvcc + PyCUDA's cache, {how}; with the module load)", ms)
            self.modules[workload] = module
        return self.modules[workload].get_function(name).prepare(arg_types)

    def close(self) -> None:
        bridge, self._bridge = self._bridge, None
        self.modules.clear()  # PyCUDA unloads a module when it goes (pushing its context to do so)
        if bridge is not None:
            bridge.close()


def floats(count: int) -> cuda.DeviceAllocation:
    """cuMemAlloc'd room for `count` floats (call inside pycuda_context()); PyCUDA frees it when the
    object goes."""
    return cuda.mem_alloc(max(count, 1) * 4)


def libraries() -> dict:
    """What this layer runs on: the CUDA driver PyCUDA links (libcuda, as cuda.pathfinder finds the
    copy already loaded) and the CUDA version PyCUDA was built for; the nvcc SourceModule runs (a
    program, not a library). Never raises: a part that cannot be found says why."""
    found = {}
    try:
        version = "%d.%d" % divmod(cuda.get_driver_version() // 10, 100)
        found["driver"] = lb_shared.libraries(("cuda",), {"cuda": version})["cuda"]
    except Exception as e:
        found["driver"] = {"error": f"{type(e).__name__}: {e}"}
    try:
        found["pycuda"] = {"version": pycuda.VERSION_TEXT, "built_for_cuda": "%d.%d.%d" % cuda.get_version(),
                           "path": os.path.dirname(pycuda.__file__)}
    except Exception as e:
        found["pycuda"] = {"error": f"{type(e).__name__}: {e}"}
    try:
        nvcc = nvcc_path()
        found["nvcc"] = {"version": nvcc_version(nvcc), "path": nvcc} if nvcc else {"error": "nvcc not found"}
    except Exception as e:
        found["nvcc"] = {"error": f"{type(e).__name__}: {e}"}
    return found


class Launch:
    """Launch overhead through PyCUDA: n prepared_async_call()s of our launch_probe on PyCUDA's
    stream; with `wait_each_time`, a Stream.synchronize() after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        with pycuda_context():
            self.bridge = setup.session.bridge(setup.cost)
            self.probe = setup.session.kernel("launch", "launch_probe", ["P", np.float32], setup.cost)
            self.out = floats(1)
        self.ptr = int(self.out)

    def upload(self, problem, stream):
        self.bridge.upload(problem.output, self.out, stream)

    def run(self, stream):
        s = self.bridge.enter(stream)
        for i in range(1, self.n + 1):
            self.probe.prepared_async_call((1, 1), (1, 1, 1), s, self.ptr, np.float32(i))
            if self.wait_each_time:
                s.synchronize()
        self.bridge.leave(stream)

    def download(self, out, stream):
        self.bridge.download(self.out, out, stream)
