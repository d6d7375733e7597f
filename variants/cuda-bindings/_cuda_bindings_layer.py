"""What the cuda-bindings layer's variants share: the driver API and NVRTC as cuda.bindings exposes
them, one thin Python call per C function. Every call returns (status, *results); check() turns a
failed status into an exception naming the call. The context is the process's primary context,
current on this thread since the harness created it: no second context is made. The modules this
layer loads are its session's (Session), unloaded when the harness closes it after the run."""
import ctypes
import time

import lb_shared
import lb_variant
import numpy as np
from cuda.bindings import driver, nvrtc


def check(result, call: str = "CUDA call"):
    status, *values = result
    if status == driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY:
        raise MemoryError(f"{call} failed: CUDA_ERROR_OUT_OF_MEMORY")  # the harness skips the case
    if isinstance(status, driver.CUresult) and status != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{call} failed: {driver.cuGetErrorName(status)[1].decode()}")
    if isinstance(status, nvrtc.nvrtcResult) and status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"{call} failed: {nvrtc.nvrtcGetErrorString(status)[1].decode()}")
    return values[0] if len(values) == 1 else (values or None)


def nvrtc_options(sm: int) -> list[bytes]:
    return [f"--gpu-architecture=sm_{sm}".encode(), b"--std=c++17", f"-I{lb_shared.INCLUDE_DIR}".encode()]


def nvrtc_version() -> str:
    return "%d.%d" % tuple(check(nvrtc.nvrtcVersion(), "nvrtcVersion"))


def compile_cubin(workload: str, sm: int, text: lb_shared.KernelText | None = None) -> bytes:
    """Our kernel text (or `text`, a workload folder's, under its file's name) to CUBIN for
    sm_<sm>, with NVRTC through cuda.bindings.nvrtc (no GPU needed)."""
    name = (text.file if text else lb_shared.program_name("cuda-bindings", workload)).encode()  # its own: see there
    source = text.text if text else lb_shared.kernel_source(workload)
    program = check(nvrtc.nvrtcCreateProgram(source.encode(), name, 0, [], []), "nvrtcCreateProgram")
    try:
        options = nvrtc_options(sm)
        status, = nvrtc.nvrtcCompileProgram(program, len(options), options)
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            log = b" " * check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
            check(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
            raise RuntimeError(f"NVRTC could not compile {name.decode()}: {log.decode(errors='replace').strip()}")
        cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(program), "nvrtcGetCUBINSize")
        check(nvrtc.nvrtcGetCUBIN(program, cubin), "nvrtcGetCUBIN")
    except BaseException:
        nvrtc.nvrtcDestroyProgram(program)  # not checked: the error above is the one to report
        raise
    check(nvrtc.nvrtcDestroyProgram(program), "nvrtcDestroyProgram")
    return cubin


def compiler() -> str:
    """This layer's compiler and its version, for the kernel cache's key."""
    return "cuda.bindings.nvrtc " + nvrtc_version()


def device_sm() -> int:
    """The compute capability of the device of the current context (the harness's): 90 for 9.0."""
    device = check(driver.cuCtxGetDevice(), "cuCtxGetDevice")
    attribute = driver.CUdevice_attribute
    major = check(driver.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    return major * 10 + minor


class Session(lb_variant.Session):
    """One run of the layer: the modules it loaded (cuModuleLoadData), one per workload, unloaded
    by close()."""

    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.modules = {}  # workload -> CUmodule

    def cubin(self, workload: str, sm: int, text: lb_shared.KernelText | None = None) -> tuple[bytes, str, float]:
        """Our kernel text's (or `text`'s) CUBIN for sm_<sm>, from the run's kernel cache or compiled
        (no GPU needed)."""
        return lb_shared.cached_cubin(self.kernel_cache, workload, text.text if text else lb_shared.kernel_source(workload),
                                      [o.decode() for o in nvrtc_options(sm)], sm, compiler(),
                                      lambda: compile_cubin(workload, sm, text))

    def kernel(self, workload: str, name: str, cost, text: lb_shared.KernelText | None = None):
        """The function `name` of our kernel text (or of `text`, a workload folder's), compiled (or
        read from the kernel cache) and loaded once per session; the first request reports the
        compile and the load as one-time costs."""
        if workload not in self.modules:
            cubin, how, ms = self.cubin(workload, device_sm(), text)
            t0 = time.perf_counter()
            self.modules[workload] = check(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
            cost(f"NVRTC {workload} (cuda.bindings.nvrtc, {how})", ms)
            cost(f"cuModuleLoadData {workload}", (time.perf_counter() - t0) * 1e3)
        return check(driver.cuModuleGetFunction(self.modules[workload], name.encode()), "cuModuleGetFunction")

    def close(self) -> None:
        modules, self.modules = self.modules, {}
        for module in modules.values():
            check(driver.cuModuleUnload(module), "cuModuleUnload")


def libraries() -> dict:
    """The CUDA libraries this layer loads: NVRTC (through cuda.pathfinder) and the driver."""
    return lb_shared.libraries(("nvrtc",), {"nvrtc": nvrtc_version()}) | {
        "driver": {"version": "%d.%d" % divmod(check(driver.cuDriverGetVersion(), "cuDriverGetVersion") // 10, 100)}}


def sm_count() -> int:
    device = check(driver.cuCtxGetDevice(), "cuCtxGetDevice")
    return check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device))


def threads_per_sm() -> int:
    device = check(driver.cuCtxGetDevice(), "cuCtxGetDevice")
    return check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device))


class DeviceMemory:
    """cuMemAlloc'd floats, cuMemFree'd when the object goes; copies on the harness's stream."""

    def __init__(self, count: int):
        self.bytes = max(count, 1) * 4
        self.ptr = check(driver.cuMemAlloc(self.bytes), "cuMemAlloc")

    def __del__(self):
        driver.cuMemFree(self.ptr)

    def upload(self, host: np.ndarray, stream) -> None:
        check(driver.cuMemcpyHtoDAsync(self.ptr, host.ctypes.data, host.nbytes, stream), "cuMemcpyHtoDAsync")
        check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize")

    def download(self, host: np.ndarray, stream) -> None:
        check(driver.cuMemcpyDtoHAsync(host.ctypes.data, self.ptr, host.nbytes, stream), "cuMemcpyDtoHAsync")
        check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize")


def launch(function, grid, block, args, stream, shared_bytes: int = 0) -> None:
    """cuLaunchKernel. `args` is (values, ctypes types): None for a CUdeviceptr, else the exact
    C type of the kernel's parameter, which nothing checks for you. `grid` and `block` are a number
    or an (x, y) or (x, y, z) tuple."""
    grid_x, grid_y, grid_z = (tuple(grid) + (1, 1))[:3] if isinstance(grid, tuple) else (grid, 1, 1)
    block_x, block_y, block_z = (tuple(block) + (1, 1))[:3] if isinstance(block, tuple) else (block, 1, 1)
    check(driver.cuLaunchKernel(function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, stream,
                                args, 0), "cuLaunchKernel")


class Launch:
    """Launch overhead through cuda.bindings: n cuLaunchKernel calls of our launch_probe; with
    `wait_each_time`, a cuStreamSynchronize after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.probe = setup.session.kernel("launch", "launch_probe", setup.cost)
        self.out = DeviceMemory(1)

    def upload(self, problem, stream):
        self.out.upload(problem.output, driver.CUstream(stream))

    def run(self, stream):
        handle = driver.CUstream(stream)
        for i in range(self.n):
            launch(self.probe, 1, 1, ((self.out.ptr, i + 1.0), (None, ctypes.c_float)), handle)
            if self.wait_each_time:
                check(driver.cuStreamSynchronize(handle), "cuStreamSynchronize")

    def download(self, out, stream):
        self.out.download(out, driver.CUstream(stream))
