"""The Python side of the boundary between the harness and a Python variant: what a variant is
(the `Variant` protocol) and what the adapter hands it (a `Size` to allocate, a `Setup`, a
`Problem` to upload), the layer's `Session`, and a workload as data (`Workload`, from the C++
WorkloadDescriptor). The adapter (variants/python/python_object.cpp) makes these objects; nothing
here knows a workload by its name.

Standard library only, and nothing imported from the project at the top: the Python labs' rules
(python/layerbench/lab) are checked and tested without NumPy or Numba."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

# cost(what, ms): a one-time cost of this case (a compile, a module load), in milliseconds.
Cost = Callable[[str, float], None]

# The dimensions a size is made of, as the C++ Dim (workloads/workload.h) names them.
DIMS = ("m", "n", "k")


@dataclass(frozen=True, slots=True)
class Size:
    """One case's size, the C++ Shape: vector workloads use n only; matmul C (m x n) = A (m x k)
    B (k x n); transpose B (n x m) = A (m x n) transposed."""
    m: int = 1
    n: int = 1
    k: int = 1

    def extent(self, dim: str) -> int:
        """The size along `dim` ("m", "n" or "k")."""
        if dim not in DIMS:
            raise ValueError(f"no dimension {dim!r}: one of {', '.join(DIMS)}")
        return getattr(self, dim)


@dataclass(slots=True)
class Problem:
    """A case's host data, the C++ HostProblem: its size, saxpy's scalar, the inputs (read-only
    NumPy views of the harness's buffers, in the order the workload's descriptor lists them) and
    the output's starting contents (NaN poison, or y for saxpy). No copies."""
    m: int
    n: int
    k: int
    alpha: float
    inputs: list[np.ndarray]
    output: np.ndarray

    @property
    def size(self) -> Size:
        return Size(self.m, self.n, self.k)


@dataclass(frozen=True, slots=True)
class LayerConfig:
    """The command line's layer settings, the C++ LayerConfig: `kernel_cache` is the one on-disk
    cache of compiled kernels (an lb_native.KernelCache: --kernel-cache, --no-kernel-cache); None
    outside the harness, where lb_shared.cached_cubin compiles every time."""
    layer: str = ""
    kernel_cache: Any = None


class Session:
    """What a Python layer keeps across its cases in one run, the C++ LayerSession: opened by the
    adapter on the layer's first case, as the layer's support module's `Session` class
    (variants/<layer>/_<layer>_layer.py), or this one where it has none; closed (`close()`) and
    dropped when the harness closes the C++ session after the run. Compiled modules, loaded
    kernels, a stream bridge: what would otherwise live in a module's globals for the whole process."""

    def __init__(self, config: LayerConfig):
        self.config = config
        self._made: dict = {}  # once(): key -> what make() returned

    @property
    def kernel_cache(self):
        return self.config.kernel_cache

    def once(self, key, make):
        """make()'s result for `key`: made on the first request in this session, then kept (a
        compiled kernel, a ufunc) until close()."""
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    def close(self) -> None:
        """Releases what the session holds; called once, by the adapter. The base drops what once()
        kept; a subclass that overrides close() and uses once() calls this too."""
        self._made.clear()


@dataclass(frozen=True, slots=True)
class Setup:
    """What allocate() receives, the C++ Setup: the harness's stream (a cudaStream_t as an int; 0
    outside the harness), where this case's one-time costs go, the layer's session, and for a
    workload folder's case (`run --workload-dir`) its WorkloadFolder (workloads/folder/
    workload_folder.py: kernel text, buffers, arguments, launch shape); None for a built-in workload."""
    stream: int = 0
    cost: Cost = field(default=lambda what, ms: None)
    session: Session | None = None
    workload: Any = None


@runtime_checkable
class Variant(Protocol):
    """A variant: variants/<layer>/<workload>.py defines `Variant`, a class (or a function
    returning an object) with these members. The harness calls allocate once, then upload, run and
    download for each verified run, and run alone for each timed one."""

    run_waits: bool  # True when run() waits for the device before it returns

    def allocate(self, size: Size, setup: Setup) -> None:
        """Device memory and one-time work (compiles), reported with setup.cost."""

    def upload(self, problem: Problem, stream: int) -> None:
        """Copies the inputs and the output's starting contents to the device, done when it returns."""

    def run(self, stream: int) -> None:
        """The timed work, enqueued on `stream` (the harness's)."""

    def download(self, out: np.ndarray, stream: int) -> None:
        """Copies the output into `out` (a writable view of the harness's buffer), done when it returns."""


# --- a workload as data: the C++ WorkloadDescriptor's buffers and kernel arguments -----------------

@dataclass(frozen=True, slots=True)
class Buffer:
    """An fp32 buffer: its name as the workload's kernels call it, and its extents, outermost first
    (row-major); none: one element."""
    name: str
    extents: tuple[str, ...] = ()

    def shape(self, size: Size) -> tuple[int, ...]:
        """The buffer's shape at `size`: (n,), (m, k), ...; one element: (1,)."""
        return tuple(size.extent(d) for d in self.extents) or (1,)

    def elements(self, size: Size) -> int:
        count = 1
        for extent in self.shape(size):
            count *= extent
        return count


@dataclass(frozen=True, slots=True)
class KernelArg:
    """A parameter of the workload's natural kernel: kind "input" (inputs[input]), "output",
    "scalar" (alpha) or "size" (the size along `dim`); `type` is its C type ("const float*", "int")."""
    name: str
    kind: str
    input: int = 0
    dim: str = "n"
    type: str = ""


@dataclass(frozen=True, slots=True)
class Workload:
    name: str
    inputs: tuple[Buffer, ...]
    output: Buffer
    kernel_args: tuple[KernelArg, ...] = ()

    def argument(self, name: str) -> KernelArg:
        for arg in self.kernel_args:
            if arg.name == name:
                return arg
        raise KeyError(f"{self.name}'s kernel has no parameter {name!r} "
                       f"(it has {', '.join(a.name for a in self.kernel_args) or 'none'})")
