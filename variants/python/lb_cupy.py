"""What the CuPy layers (cupy, cupy-raw) share: the harness's stream, as CuPy takes it, and the
copies.

CuPy launches on its *current* stream; cupy.cuda.ExternalStream wraps the harness's stream (a raw
cudaStream_t handed over as an integer) so that `with stream:` makes it current, and every kernel
CuPy launches inside goes there, between the harness's events."""
import os

import cupy as cp
import lb_variant

# Under compute-sanitizer (which sets this variable in the processes it runs), every array is an
# allocation of its own and of exactly its size: CuPy's pool carves arrays out of larger blocks,
# and memcheck cannot see a read past an array's end that lands inside its block.
if "NV_SANITIZER_INJECTION_PORT_RANGE_BEGIN" in os.environ:
    cp.cuda.set_allocator(None)


def wrap(handle: int) -> cp.cuda.ExternalStream:
    return cp.cuda.ExternalStream(handle)


def to_device(host, device, stream) -> None:
    """Host -> device on the harness's stream, done when it returns (as the C++ layers' copies)."""
    device.set(host.reshape(device.shape), stream=stream)
    stream.synchronize()


def to_host(device, out, stream) -> None:
    """Device -> host after the work enqueued before it; `out` is the harness's buffer."""
    device.get(stream=stream, out=out.reshape(device.shape))
    stream.synchronize()


class Launch:
    """The launch-overhead variants of a CuPy layer: n calls of `launch_once(i)` (the layer's one
    kernel launch, i = 1..n, the value left in `out`) on the harness's stream; with
    `wait_each_time`, a stream synchronize after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def prepare(self, setup: lb_variant.Setup) -> None:
        """One-time work before the first launch (a compile, with setup.session); none by default."""

    def launch_once(self, value: int) -> None:
        raise NotImplementedError

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = wrap(setup.stream)
        self.out = cp.empty(1, dtype=cp.float32)
        self.prepare(setup)

    def upload(self, problem, stream):
        to_device(problem.output, self.out, self.stream)

    def run(self, stream):
        with self.stream:
            for i in range(1, self.n + 1):
                self.launch_once(i)
                if self.wait_each_time:
                    self.stream.synchronize()

    def download(self, out, stream):
        to_host(self.out, out, self.stream)


def libraries() -> dict:
    """The CUDA runtime and NVRTC CuPy uses. Its CUDA runtime is linked into CuPy itself, so it has
    no file of its own; NVRTC is a shared library that CuPy 14 finds through cuda.pathfinder."""
    import lb_shared

    linked = cp.cuda.runtime.runtimeGetVersion()
    major, minor = cp.cuda.nvrtc.getVersion()
    return lb_shared.libraries(("nvrtc",), {"nvrtc": f"{major}.{minor}"}) | {
        "cudart": {"version": f"{linked // 1000}.{linked % 1000 // 10}", "found_via": "linked statically into CuPy"}}
