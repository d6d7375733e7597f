"""What the cuda-bindings layer's variants share: the driver API and NVRTC as cuda.bindings exposes
them, one thin Python call per C function. Every call returns (status, *results); check() turns a
failed status into an exception naming the call. The context is the process's primary context,
current on this thread since the harness created it: no second context is made."""
import ctypes
import time

import lb_shared
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


_modules = {}


def nvrtc_options(sm: int) -> list[bytes]:
    return [f"--gpu-architecture=sm_{sm}".encode(), b"--std=c++17", f"-I{lb_shared.INCLUDE_DIR}".encode()]


def nvrtc_version() -> str:
    return "%d.%d" % tuple(check(nvrtc.nvrtcVersion(), "nvrtcVersion"))


def compile_cubin(workload: str, sm: int) -> bytes:
    """Our kernel text to CUBIN for sm_<sm>, with NVRTC through cuda.bindings.nvrtc (no GPU needed)."""
    name = f"workloads/{workload}/kernels.cu".encode()
    program = check(nvrtc.nvrtcCreateProgram(lb_shared.kernel_source(workload).encode(), name, 0, [], []),
                    "nvrtcCreateProgram")
    options = nvrtc_options(sm)
    status, = nvrtc.nvrtcCompileProgram(program, len(options), options)
    if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        log = b" " * check(nvrtc.nvrtcGetProgramLogSize(program))
        nvrtc.nvrtcGetProgramLog(program, log)
        raise RuntimeError(f"NVRTC could not compile {name.decode()}: {log.decode(errors='replace').strip()}")
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(program), "nvrtcGetCUBINSize")
    check(nvrtc.nvrtcGetCUBIN(program, cubin), "nvrtcGetCUBIN")
    nvrtc.nvrtcDestroyProgram(program)
    return cubin


def kernel(workload: str, name: str, cost):
    """The function `name` of our kernel text, compiled (or read from our kernel cache) and loaded
    once per process; the first request reports the compile and the load as one-time costs."""
    if workload not in _modules:
        device = check(driver.cuCtxGetDevice(), "cuCtxGetDevice")
        attribute = driver.CUdevice_attribute
        major = check(driver.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
        minor = check(driver.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
        sm = major * 10 + minor
        cubin, how, ms = lb_shared.cached_cubin(workload, sm, "cuda.bindings.nvrtc " + nvrtc_version(),
                                                [o.decode() for o in nvrtc_options(sm)], lambda: compile_cubin(workload, sm))
        t0 = time.perf_counter()
        _modules[workload] = check(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
        cost(f"NVRTC {workload} (cuda.bindings.nvrtc, {how})", ms)
        cost(f"cuModuleLoadData {workload}", (time.perf_counter() - t0) * 1e3)
    return check(driver.cuModuleGetFunction(_modules[workload], name.encode()), "cuModuleGetFunction")


def libraries() -> dict:
    """The CUDA libraries this layer loads: NVRTC (through cuda.pathfinder) and the driver."""
    return lb_shared.libraries(("nvrtc",), {"nvrtc": nvrtc_version()}) | {
        "driver": {"version": "%d.%d" % divmod(check(driver.cuDriverGetVersion(), "cuDriverGetVersion") // 10, 100)}}


def sm_count() -> int:
    device = check(driver.cuCtxGetDevice(), "cuCtxGetDevice")
    return check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device))


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


def launch(function, grid, block: int, args, stream) -> None:
    """cuLaunchKernel. `args` is (values, ctypes types): None for a CUdeviceptr, else the exact
    C type of the kernel's parameter, which nothing checks for you."""
    grid_x, grid_y = grid if isinstance(grid, tuple) else (grid, 1)
    check(driver.cuLaunchKernel(function, grid_x, grid_y, 1, block, 1, 1, 0, stream, args, 0), "cuLaunchKernel")


class Launch:
    """Launch overhead through cuda.bindings: n cuLaunchKernel calls of our launch_probe; with
    `wait_each_time`, a cuStreamSynchronize after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, shape, stream, cost):
        self.n = shape[1]
        self.probe = kernel("launch", "launch_probe", cost)
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
