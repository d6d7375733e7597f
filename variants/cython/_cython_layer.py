"""What the cython layer's variants share. The layer is an extension module, lb_cython (built by the
project's CMake from lb_cython.pyx and launchers.cu into <build>/python), that wraps our CUDA C++:
launchers that launch the runtime layer's nvcc-built kernels with its launch shapes. A variant
allocates lb_cython.DeviceBuffers, copies with their upload()/download(), and calls one wrapper
per launch: Python -> Cython -> C++ -> <<<>>>.

The context: lb_cython calls the process's shared CUDA runtime (libcudart.so, the one layerbench
calls), so the device and primary context current on the harness's thread are the ones it uses;
it creates none. The stream: the harness's cudaStream_t, passed as an int to every call."""
import lb_cython
import lb_variant


def libraries() -> dict:
    """The CUDA runtime lb_cython calls: its version (cudaRuntimeGetVersion) and its file. Never raises."""
    try:
        linked = lb_cython.runtime_version()
        version = f"{linked // 1000}.{linked % 1000 // 10}"
    except Exception as e:
        return {"cudart": {"error": f"{type(e).__name__}: {e}"}}
    try:
        import lb_shared

        found = lb_shared.libraries(("cudart",), {"cudart": version})
    except Exception:  # cuda.pathfinder missing: say only what lb_cython says
        found = {"cudart": {"version": version}}
    # The file lb_cython's calls go to (dladdr), the truth where pathfinder would name another.
    calls = lb_cython.cudart_path()
    if calls and found["cudart"].get("path") != calls:
        found["cudart"].update(path=calls, found_via="linked by lb_cython")
        found["cudart"].pop("error", None)
    return found


class Launch:
    """Launch overhead through Cython: n calls of lb_cython.launch_probe (Python -> Cython -> the
    C++ launcher -> <<<1, 1>>>), value i = 1..n; with `wait_each_time`, lb_cython.stream_synchronize
    after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.out = lb_cython.DeviceBuffer(1)

    def upload(self, problem, stream):
        self.out.upload(problem.output, stream)

    def run(self, stream):
        for i in range(1, self.n + 1):
            lb_cython.launch_probe(self.out, i, stream)
            if self.wait_each_time:
                lb_cython.stream_synchronize(stream)

    def download(self, out, stream):
        self.out.download(out, stream)
