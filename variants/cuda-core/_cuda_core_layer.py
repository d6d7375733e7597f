"""What the cuda-core layer's variants share. cuda.core is NVIDIA's Pythonic layer over the driver
API: a Device, a Program that compiles C++ with NVRTC, an ObjectCode and its Kernels, Buffers from
a memory resource, Streams, and one launch() call, where cuda.bindings (the cuda-bindings layer)
exposes the C functions one for one.

The context: Device.set_current() retains the device's *primary* context and makes it current,
the same context the harness and the C++ layers use, so no second context is made. The stream:
Stream.from_handle wraps the harness's stream without owning it. The ObjectCodes this layer
compiled and loaded are its session's (Session), dropped when the harness closes it after the run."""
import time

import lb_shared
import lb_variant
import numpy as np
from cuda.core import Buffer, Device, LaunchConfig, ObjectCode, Program, ProgramOptions, Stream, launch
from cuda.core import __version__ as CUDA_CORE_VERSION
from cuda.bindings import nvrtc

def device() -> Device:
    """The device of the context current on this thread (the harness's), made current for cuda.core."""
    dev = Device()
    dev.set_current()
    return dev


def stream(handle: int) -> Stream:
    return Stream.from_handle(handle)


def program_options(workload: str, sm: int, text: lb_shared.KernelText | None = None) -> dict:
    """What Program is given: the name NVRTC's log shows (this layer's own: lb_shared.program_name;
    a workload folder's file), the target, the C++ standard, and the folder our kernel text's
    #include is relative to."""
    name = text.file if text else lb_shared.program_name("cuda-core", workload)
    return dict(name=name, arch=f"sm_{sm}", std="c++17", include_path=[lb_shared.INCLUDE_DIR])


def compile_cubin(workload: str, sm: int, text: lb_shared.KernelText | None = None) -> bytes:
    """Our kernel text (or `text`) to CUBIN for sm_<sm> with Program (NVRTC underneath; no GPU
    needed). A compile error raises with NVRTC's log, which names the program and the line."""
    program = Program(text.text if text else lb_shared.kernel_source(workload), "c++",
                      ProgramOptions(**program_options(workload, sm, text)))
    return program.compile("cubin").code


def compiler() -> str:
    """This layer's compiler and its version, for the kernel cache's key."""
    return f"cuda.core {CUDA_CORE_VERSION}, NVRTC {nvrtc_version()}"


class Session(lb_variant.Session):
    """One run of the layer: the ObjectCode of each workload's kernel text, compiled by Program (or
    read from the run's kernel cache) and loaded once per session."""

    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.objects = {}  # workload -> ObjectCode

    def cubin(self, workload: str, sm: int, text: lb_shared.KernelText | None = None) -> tuple[bytes, str, float]:
        """Our kernel text's (or `text`'s) CUBIN for sm_<sm>, from the kernel cache or compiled (no GPU needed)."""
        options = [f"{k}={v}" for k, v in program_options(workload, sm, text).items()]
        return lb_shared.cached_cubin(self.kernel_cache, workload, text.text if text else lb_shared.kernel_source(workload),
                                      options, sm, compiler(), lambda: compile_cubin(workload, sm, text))

    def kernel(self, workload: str, name: str, cost, text: lb_shared.KernelText | None = None):
        """The Kernel `name` of our kernel text (or of `text`, a workload folder's); the first
        request for a workload reports the compile (or cache hit) and the module load as one-time costs."""
        if workload not in self.objects:
            cc = device().compute_capability
            cubin, how, ms = self.cubin(workload, cc.major * 10 + cc.minor, text)
            cost(f"Program.compile {workload} (cuda.core, NVRTC, {how})", ms)
            t0 = time.perf_counter()
            self.objects[workload] = ObjectCode.from_cubin(cubin, name=workload)
            self.objects[workload].get_kernel(name)  # the module loads here, at the first lookup
            cost(f"module load {workload}", (time.perf_counter() - t0) * 1e3)
        return self.objects[workload].get_kernel(name)

    def close(self) -> None:
        self.objects.clear()  # cuda.core unloads a module when its ObjectCode goes


def sm_count() -> int:
    return device().properties.multiprocessor_count


def threads_per_sm() -> int:
    return device().properties.max_threads_per_multiprocessor


def nvrtc_version() -> str:
    # cuda.core compiles through cuda.bindings.nvrtc, which loads NVRTC through cuda.pathfinder.
    _status, major, minor = nvrtc.nvrtcVersion()
    return f"{major}.{minor}"


def libraries() -> dict:
    """The CUDA libraries this layer loads: NVRTC."""
    return lb_shared.libraries(("nvrtc",), {"nvrtc": nvrtc_version()})


def allocate(count: int, s: Stream, item_bytes: int = 4) -> Buffer:
    """count floats (or items of `item_bytes`) from the device's memory resource (a stream-ordered
    pool in cuda.core), on the harness's stream; an out-of-memory error becomes MemoryError, which
    the harness skips."""
    try:
        return device().memory_resource.allocate(max(count, 1) * item_bytes, stream=s)
    except Exception as e:
        if "OUT_OF_MEMORY" in str(e):
            raise MemoryError(str(e)) from e
        raise


def _host(array: np.ndarray) -> Buffer:
    # cuda.core copies between Buffers; a non-owning Buffer over the harness's host memory lets
    # the copy go straight from it (cuMemcpyAsync infers the direction from the pointers).
    return Buffer.from_handle(array.ctypes.data, array.nbytes, owner=array)


def upload(host: np.ndarray, buffer: Buffer, s: Stream) -> None:
    """Host -> device on the harness's stream, done when it returns (as the C++ layers' copies)."""
    if host.nbytes:
        buffer.copy_from(_host(host), stream=s)
    s.sync()


def download(buffer: Buffer, host: np.ndarray, s: Stream) -> None:
    """Device -> host after the work enqueued before it; `host` is the harness's buffer."""
    if host.nbytes:
        buffer.copy_to(_host(host), stream=s)
    s.sync()


class Launch:
    """Launch overhead through cuda.core: n launch() calls of our launch_probe; with
    `wait_each_time`, a Stream.sync() after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = stream(setup.stream)
        self.probe = setup.session.kernel("launch", "launch_probe", setup.cost)
        self.out = allocate(1, self.stream)
        self.config = LaunchConfig(grid=1, block=1)

    def upload(self, problem, stream_handle):
        upload(problem.output, self.out, self.stream)

    def run(self, stream_handle):
        for i in range(1, self.n + 1):
            launch(self.stream, self.config, self.probe, self.out, np.float32(i))
            if self.wait_each_time:
                self.stream.sync()

    def download(self, out, stream_handle):
        download(self.out, out, self.stream)
