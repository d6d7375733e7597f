"""The runners of the labs whose student writes CUDA C++ kernel text and a Python layer compiles
and launches it (docs/labs.md, "Python labs"): PyCUDA (lab 06: module_from_buffer) and cuda.core
(lab 07: ObjectCode.from_cubin). The student's file is device code only, as for the CUDA C++ labs, held to
the same kernel-text rules (no #include, no _Pragma: lab/runners/nvrtc/kernel_text_rules.h). It is
compiled by NVRTC in a limited compile process of its own (lab/runners/nvrtc/limited_compile.h: time
and memory limits, no access to the grade's keys), never in the parent or the child, which hold the
grade's secret and keys: once for sm_90 in the parent, so a compile error is reported without a GPU,
and once for this GPU, whose CUBIN the child hands here (`cubin`). Here the runner's library loads
that CUBIN through its own loader and launches it with the lab's shape; what the runners share (the buffers and their guard
zone, the argument binding, the grid, the device addresses timing draws fresh inputs at) is program.py's Program and Variant.
Each runner goes through its layer's support module (variants/pycuda/_pycuda_layer.py,
variants/cuda-core/_cuda_core_layer.py), as the layer's own variants do: the same context, stream
and memory habits, so that what the lab times is what the layer costs.

Standard library only at the top: PyCUDA and cuda.core are imported when a lab of theirs is loaded,
so this module imports (and its pure parts are tested) where neither is installed."""
from __future__ import annotations

import contextlib
import importlib.util
import sys
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .program import GpuError, Program
from .rules import StudentError

if TYPE_CHECKING:  # variants/python, on the path wherever the runner runs
    import lb_variant

SOURCE_ROOT = Path(__file__).resolve().parents[3]


def layer_module(layer_dir: str, module: str):
    """A layer's support module (variants/<layer_dir>/<module>.py) under its own name, the one the
    layer's variants import it by: the module already imported (the adapter puts the layer's folder on
    the embedded interpreter's path, python_layer.cpp), else loaded from its file. The search path is
    not touched."""
    if module in sys.modules:
        return sys.modules[module]
    spec = importlib.util.spec_from_file_location(module, SOURCE_ROOT / "variants" / layer_dir / f"{module}.py")
    if spec is None or spec.loader is None:  # never for a .py file: Python's source loader takes it
        raise ImportError(f"no loader for variants/{layer_dir}/{module}.py")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        del sys.modules[module]
        raise
    return loaded


def is_pointer(arg) -> bool:
    return arg.type.rstrip().endswith("*")


def c_value(arg, number):
    """A scalar or a size as the NumPy scalar of its C type (the workload's KernelArg.type), which
    both libraries pack with exactly the parameter's size: float 4 bytes, int 4, long long 8."""
    import numpy as np

    types = {"float": np.float32, "int": np.int32, "long long": np.int64}
    if arg.type not in types:
        raise RuntimeError(f"lab runner: {arg.name} is a {arg.type!r}, which the runner cannot pass")
    return types[arg.type](number)


# --- PyCUDA -------------------------------------------------------------------------------------

def prepare_types(workload, arguments) -> list:
    """The kernel's C parameter types as PyCUDA's prepare() takes them: "P" a pointer, else the
    NumPy type of the C type (the same table as c_value)."""
    import numpy as np

    types = {"float": np.float32, "int": np.int32, "long long": np.int64}
    kinds = []
    for name in arguments:
        arg = workload.argument(name)
        kinds.append("P" if is_pointer(arg) else types[arg.type])
    return kinds


def _close_quietly(bridge) -> None:
    try:
        bridge.close()
    except Exception:  # the context died with a faulted kernel: nothing is left to release
        pass


class PycudaProgram(Program):
    """The kernel's CUBIN loaded by PyCUDA (module_from_buffer) and launched with
    prepared_async_call, with PyCUDA's device memory (mem_alloc). The lesson's SourceModule (nvcc,
    run by PyCUDA in this process's tree) is not used for the student's text: a compile of it here,
    in the child that holds the grade's keys, could read the grading machine's files or run without
    bound, so NVRTC compiles it in the limited compile process and this loads its CUBIN, as
    SourceModule loads the CUBIN nvcc makes. PyCUDA cannot enqueue on a stream it did not create, so
    the copies and the launch go on the pycuda layer's own stream, ordered behind the harness's by
    two events (_pycuda_layer.StreamBridge): what the lab times includes those two waits, as the
    layer's figures do (docs/layers/pycuda.md)."""

    def __init__(self, path: str, kernel: str, arguments, workload: lb_variant.Workload, block, grid: str,
                 line_info: bool, exact_buffers: bool = False, output_starts_zero: bool = False, sm_count: int = 1,
                 cubin: bytes = b""):
        super().__init__(path, kernel, arguments, workload, block, grid, exact_buffers, output_starts_zero, sm_count)
        layer = layer_module("pycuda", "_pycuda_layer")
        import pycuda.driver as drv

        self.layer, self.drv = layer, drv
        with layer.pycuda_context():
            t0 = time.perf_counter()
            self.module = drv.module_from_buffer(cubin)
            ms = (time.perf_counter() - t0) * 1e3
            try:
                function = self.module.get_function(kernel)
            except drv.Error:  # cuModuleGetFunction: named symbol not found
                raise StudentError(f"{path}: no kernel named {kernel} (expected extern \"C\" __global__ "
                                   f"void {kernel}(...))") from None
            self.bridge = layer.StreamBridge()
        weakref.finalize(self, _close_quietly, self.bridge)  # its two events (the stream goes with the object)
        self.function = function.prepare(prepare_types(workload, self.arguments))
        self.one_time_costs.append((f"module_from_buffer {Path(path).name} (the student's kernel, compiled by NVRTC "
                                    f"in the limited compile process)", ms))
        self.block3 = (self.block + (1, 1))[:3]
        self._handle = 0

    @contextlib.contextmanager
    def _on_our_stream(self):
        """PyCUDA's stream, behind the harness's for what is enqueued inside, and the harness's
        behind it after; a CUDA error from PyCUDA as a GpuError."""
        with self._gpu_errors():
            stream = self.bridge.enter(self._handle)
            yield stream
            self.bridge.leave(self._handle)

    @contextlib.contextmanager
    def _gpu_errors(self):
        try:
            yield
        except self.drv.Error as e:
            raise GpuError(f"{type(e).__name__}: {e}{self._sticky_error()}") from None

    def _sticky_error(self) -> str:
        """The context's error by its name (PyCUDA's text has only the description, and the check's
        hints look for the name, as CUDA_ERROR_ILLEGAL_ADDRESS)."""
        driver = self.layer.driver
        status, = driver.cuCtxSynchronize()
        return "" if status == driver.CUresult.CUDA_SUCCESS else f" ({driver.cuGetErrorName(status)[1].decode()})"

    # -- the device, through PyCUDA
    def bind(self, handle: int):
        self._handle = handle

    def floats(self, count: int):
        with self.layer.pycuda_context():
            return self.layer.floats(count)

    def argument(self, memory, start: int, shape):
        return int(memory) + 4 * start  # a "P" parameter: the address, packed as a pointer

    def value(self, arg, number):
        return c_value(arg, number)

    def to_device(self, host, memory, start: int):
        if host.nbytes:
            with self._on_our_stream() as s:
                self.drv.memcpy_htod_async(int(memory) + 4 * start, host, s)

    def to_host(self, memory, start: int, host):
        if host.nbytes:
            with self._on_our_stream() as s:
                self.drv.memcpy_dtoh_async(host, int(memory) + 4 * start, s)

    def address(self, memory) -> int:
        return int(memory)  # a DeviceAllocation converts to its address

    def zero(self, memory, count: int):
        with self._on_our_stream() as s:
            self.drv.memset_d32_async(int(memory), 0, count, s)

    def launch(self, grid, args):
        with self._on_our_stream() as s:
            self.function.prepared_async_call((tuple(grid) + (1, 1))[:3], self.block3, s, *args)

    def sync(self):
        with self._gpu_errors():
            self.bridge.stream.synchronize()


# --- cuda.core ----------------------------------------------------------------------------------

def _is_cuda_core_error(e: BaseException) -> bool:
    # cuda.core's CUDAError (and NVRTCError, a subclass) are not exported by name.
    return any(t.__name__ == "CUDAError" for t in type(e).__mro__)


class CudaCoreProgram(Program):
    """The kernel's CUBIN as cuda.core's ObjectCode (ObjectCode.from_cubin), its kernel from
    ObjectCode.get_kernel, each launch cuda.core.launch(stream, LaunchConfig(grid, block), kernel,
    *args) on the harness's stream (Stream.from_handle), memory from the device's memory resource
    (a stream-ordered pool): as the cuda-core layer does. The layer's Program (NVRTC in this
    process) is not used for the student's text: a compile here, in the child that holds the grade's
    keys, could read the grading machine's files or run without bound, so the same NVRTC compiles it
    in the limited compile process, and its CUBIN is the ObjectCode that Program.compile("cubin")
    would have given."""

    def __init__(self, path: str, kernel: str, arguments, workload: lb_variant.Workload, block, grid: str,
                 line_info: bool, exact_buffers: bool = False, output_starts_zero: bool = False, sm_count: int = 1,
                 cubin: bytes = b""):
        super().__init__(path, kernel, arguments, workload, block, grid, exact_buffers, output_starts_zero, sm_count)
        self.layer = layer_module("cuda-core", "_cuda_core_layer")
        self.layer.device()  # the device current, as the layer's variants have it before a module loads
        from cuda.core import ObjectCode

        code = ObjectCode.from_cubin(cubin)
        t0 = time.perf_counter()
        try:
            self.kernel = code.get_kernel(kernel)  # the module loads here
        except Exception as e:
            if not _is_cuda_core_error(e):
                raise
            raise StudentError(f"{path}: no kernel named {kernel} (expected extern \"C\" __global__ "
                               f"void {kernel}(...))") from None
        self.one_time_costs.append((f"module load {Path(path).name}", (time.perf_counter() - t0) * 1e3))
        self.code = code
        self._handle: int | None = None  # the stream bound last (bind)
        self._configs: dict[tuple[int, ...], Any] = {}  # the LaunchConfig of each grid launched

    @contextlib.contextmanager
    def _gpu_errors(self):
        try:
            yield
        except Exception as e:
            if not _is_cuda_core_error(e):
                raise
            raise GpuError(f"{type(e).__name__}: {e}") from None

    def _view(self, memory, start: int, count: int):
        """The elements [start, start + count) of a Buffer, as a Buffer of its own (not owning)."""
        from cuda.core import Buffer

        return Buffer.from_handle(int(memory.handle) + 4 * start, 4 * count, owner=memory)

    # -- the device, through cuda.core
    def bind(self, handle: int):
        if handle != self._handle:
            self._handle, self._s = handle, self.layer.stream(handle)

    def floats(self, count: int):
        return self.layer.allocate(count, self._s)

    def argument(self, memory, start: int, shape):
        import numpy as np

        # A pointer parameter takes a Buffer or an address: an address, as argument()'s start may be inside a buffer.
        return np.uintp(int(memory.handle) + 4 * start)

    def value(self, arg, number):
        return c_value(arg, number)

    def to_device(self, host, memory, start: int):
        with self._gpu_errors():
            self.layer.upload(host, self._view(memory, start, host.size), self._s)

    def to_host(self, memory, start: int, host):
        with self._gpu_errors():
            self.layer.download(self._view(memory, start, host.size), host, self._s)

    def address(self, memory) -> int:
        return int(memory.handle)

    def zero(self, memory, count: int):
        with self._gpu_errors():
            self._view(memory, 0, count).fill(0, stream=self._s)

    def launch(self, grid, args):
        from cuda.core import LaunchConfig, launch

        if grid not in self._configs:
            self._configs[grid] = LaunchConfig(grid=grid, block=self.block)
        with self._gpu_errors():
            launch(self._s, self._configs[grid], self.kernel, *args)

    def sync(self):
        with self._gpu_errors():
            self._s.sync()
