"""What the CuPy layers (cupy, cupy-raw) share: the harness's stream, as CuPy takes it, and the
copies.

CuPy launches on its *current* stream; cupy.cuda.ExternalStream wraps the harness's stream (a raw
cudaStream_t handed over as an integer) so that `with stream:` makes it current, and every kernel
CuPy launches inside goes there, between the harness's events."""
import cupy as cp


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

