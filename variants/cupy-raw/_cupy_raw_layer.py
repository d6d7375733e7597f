"""What the cupy-raw layer's variants share: our kernel text as a cp.RawModule, and the launch
variant. cp.RawModule compiles workloads/<w>/kernels.cu with NVRTC for the current device (CuPy
adds the architecture flag) and keeps the result in its on-disk kernel cache; a RawKernel call
launches on CuPy's current stream, which the variants make the harness's (lb_cupy.wrap). The
RawModules are the session's (Session), dropped when the harness closes it after the run."""
import time

import cupy as cp
import lb_cupy
import lb_shared
import lb_variant
import numpy as np


class Session(lb_variant.Session):
    """One run of the layer: each workload's RawModule, compiled (or read from CuPy's cache) and
    loaded once per session."""

    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.modules = {}  # workload -> cp.RawModule

    def kernel(self, workload: str, name: str, cost, text: lb_shared.KernelText | None = None) -> cp.RawKernel:
        """The function `name` of our kernel text for `workload` (or of `text`: a workload folder's);
        the first request reports what the compile and load cost (a CuPy cache hit is a file read)."""
        if workload not in self.modules:
            t0 = time.perf_counter()
            module = cp.RawModule(code=text.text if text else lb_shared.kernel_source(workload),
                                  options=("--std=c++17", "-I" + lb_shared.INCLUDE_DIR))
            module.compile()
            cost(f"cp.RawModule {workload}: NVRTC compile (or CuPy cache) + load", (time.perf_counter() - t0) * 1e3)
            self.modules[workload] = module
        return self.modules[workload].get_function(name)

    def close(self) -> None:
        self.modules.clear()  # CuPy unloads a module when its RawModule goes


def sm_count() -> int:
    return cp.cuda.Device().attributes["MultiProcessorCount"]


def threads_per_sm() -> int:
    return cp.cuda.Device().attributes["MaxThreadsPerMultiProcessor"]


class Launch(lb_cupy.Launch):
    """One launch through cp.RawKernel is one call of our launch_probe kernel."""

    def prepare(self, setup: lb_variant.Setup) -> None:
        self.probe = setup.session.kernel("launch", "launch_probe", setup.cost)

    def launch_once(self, value: int) -> None:
        self.probe((1,), (1,), (self.out, np.float32(value)))
