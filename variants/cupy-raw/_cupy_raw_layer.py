"""What the cupy-raw layer's variants share: our kernel text as a cp.RawModule, and the launch
variant. cp.RawModule compiles workloads/<w>/kernels.cu with NVRTC for the current device (CuPy
adds the architecture flag) and keeps the result in its on-disk kernel cache; a RawKernel call
launches on CuPy's current stream, which the variants make the harness's (lb_cupy.wrap)."""
import time

import cupy as cp
import lb_shared
import numpy as np
import lb_cupy

_modules = {}


def kernel(workload: str, name: str, cost) -> cp.RawKernel:
    """The function `name` of our kernel text for `workload`, compiled once per process; the first
    request reports what the compile and load cost (a CuPy cache hit is a file read)."""
    if workload not in _modules:
        t0 = time.perf_counter()
        module = cp.RawModule(code=lb_shared.kernel_source(workload),
                              options=("--std=c++17", "-I" + lb_shared.INCLUDE_DIR))
        module.compile()
        cost(f"cp.RawModule {workload}: NVRTC compile (or CuPy cache) + load", (time.perf_counter() - t0) * 1e3)
        _modules[workload] = module
    return _modules[workload].get_function(name)


def sm_count() -> int:
    return cp.cuda.Device().attributes["MultiProcessorCount"]


class Launch(lb_cupy.Launch):
    """One launch through cp.RawKernel is one call of our launch_probe kernel."""

    def prepare(self, cost) -> None:
        self.probe = kernel("launch", "launch_probe", cost)

    def launch_once(self, value: int) -> None:
        self.probe((1,), (1,), (self.out, np.float32(value)))
