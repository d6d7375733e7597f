"""What the PyTorch layers (torch, torch-compile, triton) share: the harness's stream as PyTorch
takes it, device tensors and the copies, the workloads written as a PyTorch user writes them, and
which CUDA libraries PyTorch loaded.

The stream: PyTorch launches every kernel on its *current* stream. torch.cuda.ExternalStream wraps
the harness's stream (a raw cudaStream_t handed over as an integer) without owning it, and
`with torch.cuda.stream(s):` makes it current, so that every kernel PyTorch (and Triton, which
launches on PyTorch's current stream) enqueues inside goes there, between the harness's events.
Outside such a block PyTorch's current stream is the legacy default stream, which the stream-gate
tests hold (tests/test_stream_gate.cpp): every call here that launches or copies is inside one.

The context: PyTorch's CUDA runtime works in the device's primary context, the one the harness
made current: no context of its own.

The allocator: PyTorch's caching allocator stays on, as every PyTorch user has it; it cannot hide
work here because every tensor a variant uses is allocated in allocate(), before the first run, and
no timed call allocates (`out=` and in-place forms). It is recorded in the session's description.
Under compute-sanitizer it is off (PYTORCH_NO_CUDA_MEMORY_CACHING=1, read at PyTorch's CUDA start):
there every tensor is an allocation of exactly its size, as with CuPy's pool (lb_cupy)."""
from __future__ import annotations

import os
import time
import warnings

if "NV_SANITIZER_INJECTION_PORT_RANGE_BEGIN" in os.environ:
    os.environ["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"
# Inductor compiles Triton kernels in a pool of worker processes started as `sys.executable -m
# torch._inductor.compile_worker`; inside layerbench, sys.executable is not a Python that can run
# it. One thread compiles in this process instead (read when Inductor's config is imported).
os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"

import lb_shared
import lb_variant
import numpy as np
import torch


def precise_matmul() -> None:
    """fp32 matrix products in fp32, as the harness's cuBLAS ceiling: no TF32 tensor cores. Both
    switches, because PyTorch reads both: allow_tf32 for torch.mm's cuBLAS call, the float32 matmul
    precision for what torch.compile generates."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


def check_precise_matmul() -> None:
    """Raises when something in the process turned TF32 back on (a layer, a user's file)."""
    if torch.backends.cuda.matmul.allow_tf32 or torch.get_float32_matmul_precision() != "highest":
        raise RuntimeError("TF32 is on for fp32 matmul (torch.backends.cuda.matmul.allow_tf32="
                           f"{torch.backends.cuda.matmul.allow_tf32}, float32 matmul precision "
                           f"{torch.get_float32_matmul_precision()!r}): the figure would not be fp32")


precise_matmul()


def stream(handle: int) -> torch.cuda.ExternalStream:
    """The harness's stream as PyTorch takes it (not owned: the harness destroys it)."""
    return torch.cuda.ExternalStream(handle)


def device_tensor(shape, s) -> torch.Tensor:
    """An fp32 tensor on the current device, set to 0 on stream `s` (a first call that compiles or
    autotunes before the inputs come must read no uninitialized memory: compute-sanitizer's
    initcheck reports every such read). An out-of-memory error becomes MemoryError, which the
    harness skips."""
    try:
        with torch.cuda.stream(s):
            t = torch.zeros(shape, dtype=torch.float32, device="cuda")
        s.synchronize()
        return t
    except torch.cuda.OutOfMemoryError as e:
        raise MemoryError(str(e)) from e


def _host(array: np.ndarray) -> torch.Tensor:
    """A CPU tensor over the harness's NumPy buffer, no copy. The inputs are read-only views, which
    torch.from_numpy accepts with a warning that it could write them: it never does here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(array)


def upload(host: np.ndarray, device: torch.Tensor, s) -> None:
    """Host -> device on the harness's stream, done when it returns."""
    with torch.cuda.stream(s):
        device.copy_(_host(host).reshape(device.shape))
    s.synchronize()


def download(device: torch.Tensor, out: np.ndarray, s) -> None:
    """Device -> host after the work enqueued before it; `out` is the harness's buffer."""
    with torch.cuda.stream(s):
        _host(out).reshape(device.shape).copy_(device)
    s.synchronize()


# --- the workloads as a PyTorch user writes them --------------------------------------------------
# Each function computes into its last argument, the output the harness reads back (and poisons
# before every verified run), so no timed call allocates and a call that wrote nothing is caught.
# The torch layer calls them as they are; torch-compile calls torch.compile(fn) of the same ones.

def vector_add(a, b, c):
    torch.add(a, b, out=c)


def saxpy(x, y, alpha):
    """y = alpha x + y in place: y is both the input and the output."""
    y.add_(x, alpha=alpha)


def reduce(x, total):
    # torch.sum takes out= only with a dim (sum(x, out=) raises a TypeError: the H200 suite at
    # 752119a); over dim 0 of the 1-D x it is the whole sum, into the 0-d total.
    torch.sum(x, 0, out=total)


def matmul(a, b, c):
    torch.mm(a, b, out=c)


def transpose(a, b):
    """B = A^T. A PyTorch user writes `a.t().contiguous()`: .t() is a view (the strides swapped) and
    .contiguous() copies it into a new tensor, PyTorch's strided copy kernel (no shared-memory
    tiles: the difference from our kernel this layer measures). Here the copy lands in the harness's
    output, `b.copy_(a.t())`: the same copy kernel, into the poisoned buffer. .contiguous() would
    take a fresh block from the caching allocator at every run, most likely the block the last run
    freed, which already holds the answer: a run that copied nothing would verify."""
    b.copy_(a.t())


# (workload) -> (the function, the shapes of its tensor arguments from a Size, the output's index
# among them, whether the function's last argument is saxpy's alpha)
_WORKLOADS = {
    "vector_add": (vector_add, lambda s: [(s.n,), (s.n,), (s.n,)], 2, False),
    "saxpy": (saxpy, lambda s: [(s.n,), (s.n,)], 1, True),
    "reduce": (reduce, lambda s: [(s.n,), ()], 1, False),
    "matmul": (matmul, lambda s: [(s.m, s.k), (s.k, s.n), (s.m, s.n)], 2, False),
    "transpose": (transpose, lambda s: [(s.m, s.n), (s.n, s.m)], 1, False),
}


class Call:
    """A workload as one call of its function (above) on device tensors, on the harness's stream:
    the torch layer's variant of every workload, and torch-compile's, whose function() compiles it.
    The inputs come first among the tensors, in the workload's order, then the output (saxpy: x,
    then y, both input and output)."""

    run_waits = False

    def __init__(self, workload: str):
        self.workload = workload
        self.fn, self.shapes, self.output, self.has_alpha = _WORKLOADS[workload]

    def function(self, setup: lb_variant.Setup, tensors: list, args: tuple):
        """What run() calls with `args`; the torch layer's is the function itself."""
        return self.fn

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        if self.workload == "matmul":
            check_precise_matmul()
        settle(setup)
        self.stream = stream(setup.stream)
        self.tensors = [device_tensor(shape, self.stream) for shape in self.shapes(size)]
        self.setup = setup
        self.call = None  # made at the first upload, where saxpy's alpha is known

    def upload(self, problem, stream_handle):
        self.args = tuple(self.tensors) + ((float(problem.alpha),) if self.has_alpha else ())
        if self.call is None:
            # Before the upload: torch-compile's function() calls what it compiles on these tensors
            # (twice for a first shape), and saxpy's y is updated in place by each call.
            self.call = self.function(self.setup, self.tensors, self.args)
        for host, device in zip(problem.inputs, self.tensors[:self.output]):
            upload(host, device, self.stream)
        upload(problem.output, self.tensors[self.output], self.stream)  # the poison, or y

    def run(self, stream_handle):
        with torch.cuda.stream(self.stream):
            self.call(*self.args)

    def download(self, out, stream_handle):
        download(self.tensors[self.output], out, self.stream)


class Launch:
    """The launch-overhead variants of a PyTorch layer: n calls of `launch_once(i)` (the layer's one
    small kernel, i = 1..n) on the harness's stream, after which `out` must hold n; with
    `wait_each_time`, a stream synchronize after each (the round trip). `start`: out's value before
    the first call, for a layer whose launch adds one to it (None: out keeps its NaN poison, which
    the launches overwrite)."""

    start: float | None = None

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def prepare(self, setup: lb_variant.Setup) -> None:
        """One-time work before the first launch (a compile); none by default."""

    def launch_once(self, value: int) -> None:
        raise NotImplementedError

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        settle(setup)
        self.n = size.n
        self.stream = stream(setup.stream)
        self.out = device_tensor((1,), self.stream)
        self.prepare(setup)

    def upload(self, problem, stream_handle):
        upload(problem.output, self.out, self.stream)  # the poison: NaN unless run() writes n
        if self.start is not None:  # counting up from NaN would stay NaN
            with torch.cuda.stream(self.stream):
                self.out.fill_(self.start)
            self.stream.synchronize()

    def run(self, stream_handle):
        with torch.cuda.stream(self.stream):
            for i in range(1, self.n + 1):
                self.launch_once(i)
                if self.wait_each_time:
                    self.stream.synchronize()

    def download(self, out, stream_handle):
        download(self.out, out, self.stream)


class Session(lb_variant.Session):
    """A framework layer's session: what opening it cost (a framework's CUDA start, its compile
    caches made), reported by the layer's first case through settle(), since the adapter opens the
    session before any case can report a cost."""

    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.unpaid: list[tuple[str, float]] = []

    def settle(self, cost) -> None:
        for what, ms in self.unpaid:
            cost(what, ms)
        self.unpaid.clear()


# $LAYERBENCH_FRAMEWORK_CACHE: a folder to keep the frameworks' compile caches in, instead of a
# fresh one per process (the tests set it, so that their many processes compile each kernel once).
CACHE_VARIABLE = "LAYERBENCH_FRAMEWORK_CACHE"
_CACHES: dict[str, str] = {}


def compile_caches() -> dict[str, str]:
    """The compile caches of the PyTorch and Triton layers, chosen once per process: new empty
    folders under one temporary folder (removed when the process exits), so that a run's first
    compile is cold (nothing a previous run left) and a second compile of the same code in the run
    is warm (read back from there); or, where $LAYERBENCH_FRAMEWORK_CACHE names a folder, its
    inductor/ and triton/, kept. Set through the variables Inductor and Triton read at each compile:
    TORCHINDUCTOR_CACHE_DIR (Inductor's FX graph cache and its generated code) and TRITON_CACHE_DIR
    (compiled Triton kernels, Inductor's and ours). "cold" says whether they started empty."""
    if not _CACHES:
        import atexit
        import shutil
        import tempfile

        given = os.environ.get(CACHE_VARIABLE, "")
        if given:
            root = os.path.abspath(given)
        else:
            root = tempfile.mkdtemp(prefix="layerbench-frameworks-")
            atexit.register(shutil.rmtree, root, ignore_errors=True)
        empty = True
        for variable, folder in (("TORCHINDUCTOR_CACHE_DIR", "inductor"), ("TRITON_CACHE_DIR", "triton")):
            path = os.path.join(root, folder)
            os.makedirs(path, exist_ok=True)
            empty = empty and not os.listdir(path)
            os.environ[variable] = path
            _CACHES[variable] = path
        _CACHES["from"] = f"${CACHE_VARIABLE}" if given else "a fresh folder for this process"
        _CACHES["cold"] = "yes" if empty else "no"
    return dict(_CACHES)


def cache_state(caches: dict[str, str]) -> str:
    """How a compile's label names the caches it started from."""
    return "cold caches" if caches.get("cold") == "yes" else f"caches kept in {caches.get('from')}"


def settle(setup: lb_variant.Setup) -> None:
    """The session's opening costs, into the first case that asks (Session.settle)."""
    if isinstance(setup.session, Session):
        setup.session.settle(setup.cost)


def timed_ms(call) -> tuple[object, float]:
    """(what call() returned, its wall time in milliseconds)."""
    t0 = time.perf_counter()
    value = call()
    return value, (time.perf_counter() - t0) * 1e3


def synchronized_ms(call) -> float:
    """Milliseconds from the current stream idle to call() and its device work done (a first call
    that compiles, then runs)."""
    torch.cuda.current_stream().synchronize()
    t0 = time.perf_counter()
    call()
    torch.cuda.current_stream().synchronize()
    return (time.perf_counter() - t0) * 1e3


def torch_cuda_start() -> list[tuple[str, float]]:
    """PyTorch starts CUDA lazily, at its first CUDA call: the device's primary context (the one the
    harness made current) retained, PyTorch's device state made. Once per process: the cost of the
    first PyTorch layer's session (an empty list after it)."""
    if torch.cuda.is_initialized():
        return []
    _, ms = timed_ms(torch.cuda.init)
    return [("PyTorch CUDA start (torch.cuda.init: primary context retained), once per process", ms)]


def framework_settings() -> dict:
    """What the results record about PyTorch: its version, the caching allocator (on, as every
    PyTorch user has it, unless under compute-sanitizer) and its settings, and TF32 (off)."""
    return {"torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "caching_allocator": "off (PYTORCH_NO_CUDA_MEMORY_CACHING=1)"
            if os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING") == "1" else "on (every tensor allocated before the first run)",
            "PYTORCH_CUDA_ALLOC_CONF": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
            "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
            "float32_matmul_precision": torch.get_float32_matmul_precision()}


def libraries() -> dict:
    """The CUDA libraries PyTorch loaded: the runtime, cuBLAS, cuDNN, NVRTC as the files this process
    mapped (lb_shared.mapped_libraries), each with the version PyTorch reports where it has one.
    PyTorch's CUDA wheels load them from the nvidia-* wheels beside it (RPATH), not from a toolkit."""
    versions = {"cudart": torch.version.cuda or ""}
    try:
        cudnn = torch.backends.cudnn.version()
        if cudnn:
            versions["cudnn"] = f"{cudnn // 10000}.{cudnn // 100 % 100}.{cudnn % 100}"
    except Exception:
        pass
    found = lb_shared.mapped_libraries(("cudart", "cublas", "cublasLt", "cudnn", "nvrtc", "nvJitLink"), versions)
    found["torch"] = {"version": torch.__version__, "path": os.path.dirname(torch.__file__)}
    return found
