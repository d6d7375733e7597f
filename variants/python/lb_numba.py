"""What the Numba layers (numba, numba-vectorize) share: the harness's stream as Numba takes it,
device arrays, the copies, and which CUDA libraries Numba loaded.

The context: numba.cuda works in the context current on the calling thread, and only in a
*primary* one. The first call that needs a context (numba-cuda 0.30's
devices._Runtime.get_or_create_context) finds the harness's current context, retains the device's
primary context through cuda.core's Device.set_current() and checks that the two are one context;
any other raises "Numba cannot operate on non-primary CUDA context". So Numba shares the harness's
primary context and makes none of its own.

The stream: numba.cuda.external_stream wraps the harness's stream (a raw cudaStream_t given as an
integer) without owning it. Numba has no "current stream": every copy, launch, ufunc call and
@cuda.reduce call takes it as `stream=`, and one not given it goes to the legacy default stream,
which the stream-gate tests hold (tests/test_stream_gate.cpp)."""
import lb_shared
import numpy as np
from numba import cuda
from numba.cuda.core.errors import NumbaPerformanceWarning
from numba.cuda.cudadrv.driver import CudaAPIError, device_memset

# Numba's performance warnings go into the notes of the case under way (the results'
# benchmarks[].notes), not to the console: the commonest, "Grid size 1 will likely result in GPU
# under-utilization due to low occupancy." (fewer than 128 blocks), comes with every launch workload
# (one block of one thread, on purpose), reduce's second pass and the small sizes: advice for a
# first kernel, noise among a benchmark's lines, worth keeping beside the case it is about. Outside
# a case (the Python labs run students' kernels at edge sizes) that one is not shown at all.
_LOW_OCCUPANCY = r"Grid size \d+ will likely result in GPU under-utilization"
lb_shared.note_warnings(NumbaPerformanceWarning, quiet_outside=_LOW_OCCUPANCY)
try:  # numba's own class (numba.core), which parts of Numba outside numba-cuda warn with
    from numba.core.errors import NumbaPerformanceWarning as _CorePerformanceWarning

    lb_shared.note_warnings(_CorePerformanceWarning, quiet_outside=_LOW_OCCUPANCY)
except ImportError:
    pass


def stream(handle: int):
    """The harness's stream as a Numba Stream (not owned: the harness destroys it)."""
    return cuda.external_stream(handle)


def device_array(shape):
    """float32 device memory (cuMemAlloc through Numba's memory manager, not stream-ordered); an
    out-of-memory error becomes MemoryError, which the harness skips."""
    try:
        return cuda.device_array(shape, dtype=np.float32)
    except CudaAPIError as e:  # Numba has already flushed its pending frees and tried once more
        if "CUDA_ERROR_OUT_OF_MEMORY" in str(e):
            raise MemoryError(str(e)) from e
        raise


def zero(s, *arrays) -> None:
    """Sets device arrays to 0 on the harness's stream (cuMemsetD8Async), done when it returns: for
    a call made before the inputs are uploaded (a first call that compiles), which must read no
    uninitialized memory; compute-sanitizer's initcheck reports every such read."""
    for a in arrays:
        device_memset(a, 0, a.nbytes, stream=s)
    s.synchronize()


def upload(host: np.ndarray, device, s) -> None:
    """Host -> device on the harness's stream (cuMemcpyHtoDAsync), done when it returns."""
    device.copy_to_device(host.reshape(device.shape), stream=s)
    s.synchronize()


def download(device, out: np.ndarray, s) -> None:
    """Device -> host after the work enqueued before it (cuMemcpyDtoHAsync); `out` is the harness's
    buffer."""
    device.copy_to_host(out.reshape(device.shape), stream=s)
    s.synchronize()


def sm_count() -> int:
    return cuda.get_current_device().MULTIPROCESSOR_COUNT


def deferred_frees():
    """Numba frees device memory lazily: a dropped array joins a list of pending frees, and the
    eleventh entry (NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT, default 10), or a fifth of the device's
    memory, flushes the list with cuMemFree, which waits for the device. Inside this context nothing
    is flushed; the list is flushed later, outside it (when a variant's arrays go)."""
    return cuda.defer_cleanup()


def _version(call) -> str:
    """"13.0" from (13, 0); empty when the library cannot be loaded (its entry then says why)."""
    try:
        return ".".join(str(part) for part in call())
    except Exception:
        return ""


def libraries() -> dict:
    """The CUDA libraries numba-cuda 0.30 uses: libNVVM (LLVM IR to PTX or LTO-IR), NVRTC (the
    toolkit version and the architectures it can target come from it; it compiles CUDA C++ only
    for kernels that link some), nvJitLink (links LTO-IR into a CUBIN: numba-cuda turns LTO on
    whenever nvJitLink 12.3 or later loads) and the driver. No CUDA runtime: Numba calls the driver
    API. It loads them through cuda.bindings, which finds them with cuda.pathfinder; for libNVVM
    numba-cuda asks pathfinder, then looks beside NVRTC (numba.cuda.cuda_paths). That search is
    made first here, so that pathfinder, which keeps what it loaded, names the file Numba uses."""
    try:
        from numba.cuda.cuda_paths import get_cuda_paths

        get_cuda_paths()
    except Exception:
        pass  # lb_shared.libraries says which library is missing
    try:
        from numba.cuda.cudadrv import driver as numba_driver
        from numba.cuda.cudadrv import nvvm, runtime

        versions = {"nvvm": _version(lambda: nvvm.NVVM().get_version()), "nvrtc": _version(runtime.get_version)}
        names = ("nvvm", "nvrtc")
        if numba_driver._have_nvjitlink():
            from cuda.bindings import nvjitlink

            names += ("nvJitLink",)
            versions["nvJitLink"] = _version(nvjitlink.version)
        found = lb_shared.libraries(names, versions)
    except Exception as e:  # never fail the listing
        return {"numba": {"error": f"{type(e).__name__}: {e}"}}
    try:
        found["driver"] = {"version": "%d.%d" % numba_driver.get_version()}
    except Exception as e:
        found["driver"] = {"error": f"{type(e).__name__}: {e}"}
    return found
