"""What the numba layer's variants share, and its kernels. Every other GPU layer here runs kernels
written in CUDA C++ (ours, or its library's); in this one the kernels are Python functions, which
Numba types, lowers to LLVM IR and hands to libNVVM: the only layer whose kernel source is Python.
They are Numba's kernels, not ports of our kernel text: one float per thread (Numba has no short
form for our float4 loads), the tiled matmul of Numba's documentation, not our register-tiled
one, and the shared-memory tiled transpose every CUDA course teaches. What they cost against `runtime` is the price of writing kernels in Python.

The kernels are plain functions here. `cuda.jit(signature, cache=True)` turns each into a
dispatcher at its first use in a session (jit_kernel() below, called by Session.kernel), in a
variant's allocate(), because a signature makes Numba compile at once and compiling needs the
device: importing this module must not touch the GPU (tests/python compiles these functions to PTX
on a machine without one).

Why explicit signatures (SIGNATURES): a dispatcher given exactly one signature is "specialized":
it is compiled before the first launch, so no JIT lands in a timed run, and its launch path skips
typing the arguments (a dispatcher without one types every argument at every launch to find or
compile an overload). The price: a specialized launch checks nothing, and an argument of another
type than the signature says is passed as the signature says. check_args() checks once, in
allocate(), that what a variant passes is what its kernel was compiled for.

The cache: cache=True keeps what Numba compiled in its on-disk cache, beside this file
(variants/numba/__pycache__/, or $NUMBA_CACHE_DIR), keyed by the signature, the device's compute
capability, the toolkit and numba-cuda versions and this function's bytecode, and invalidated when
this file changes. Not by the globals a kernel reads from other files: so BLOCK, TPB, TR_TILE and
TR_ROWS, which the shared-memory arrays and loops are sized with, are numbers in this file, and
jit_kernel() checks BLOCK, TR_TILE and TR_ROWS against lb_shared's (workloads/launch_config.h's,
as this build compiled them). Our --kernel-cache options do not govern it, as they do not govern
CuPy's."""
import time

import lb_numba
import lb_shared
import lb_variant
import numpy as np
from numba import cuda
from numba.cuda.core import sigutils
from numba.cuda.typing.typeof import Purpose, typeof

BLOCK = 256  # threads per block of the 1-D kernels: lb_shared.BLOCK (checked by jit_kernel())
TPB = 16     # matmul: TPB x TPB threads per block, each computing one element of C
TR_TILE = 64  # transpose: a TR_TILE x TR_TILE tile of A per block (lb_shared: LB_TR_TILE)
TR_ROWS = 8   # ... of TR_TILE x TR_ROWS threads, each copying TR_TILE / TR_ROWS rows (its own block)
TR_PITCH = TR_TILE + 1  # the tile's row in shared memory: a global, as a shape must be a constant


def transpose_block() -> tuple[int, int]:
    """transpose's block: TR_TILE x TR_ROWS threads, one float of a tile row each."""
    return (TR_TILE, TR_ROWS)


def vector_add(a, b, c, n):
    """c = a + b, one thread per element: the first kernel of Numba's documentation."""
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]


def saxpy(alpha, x, y, n):
    """y = alpha x + y, in place, one thread per element."""
    i = cuda.grid(1)
    if i < n:
        y[i] = alpha * x[i] + y[i]


def block_sum(x, n, sums):
    """sums[b] = the sum of block b's share of x[:n]. Each thread adds a grid-stride slice (in
    float32), then the block adds its threads' totals as a tree in shared memory. Launched twice:
    over x with many blocks, then over their partial sums with one, whose total goes to sums[0]:
    written, not added to, so nothing needs zeroing first."""
    partial = cuda.shared.array(BLOCK, np.float32)
    t = cuda.threadIdx.x
    total = np.float32(0)
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        total += x[i]
    partial[t] = total
    cuda.syncthreads()
    half = BLOCK // 2
    while half > 0:
        if t < half:
            partial[t] += partial[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = partial[0]


def matmul(a, b, c):
    """C = A B, row-major, one thread per element of C, A and B staged through shared memory in
    TPB x TPB tiles: the fast_matmul of Numba's documentation, with one change so that any M, N, K
    works: it walks K in ceil(K / TPB) tiles, where the documentation's loop runs gridDim.x times
    (right only when K and N span as many tiles, as in its square example; 128x1x300 would miss
    K's last 18 tiles). As there, a load outside a matrix stages a zero, so every thread reaches
    both syncthreads(), and only elements inside C are stored. x runs along the columns: a warp
    reads consecutive floats of a row of A, of B and of C."""
    tile_a = cuda.shared.array((TPB, TPB), np.float32)
    tile_b = cuda.shared.array((TPB, TPB), np.float32)
    col, row = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    m, k = a.shape
    n = b.shape[1]
    total = np.float32(0)
    for tile in range((k + TPB - 1) // TPB):
        at = tile * TPB
        if row < m and at + tx < k:
            tile_a[ty, tx] = a[row, at + tx]
        else:
            tile_a[ty, tx] = np.float32(0)
        if at + ty < k and col < n:
            tile_b[ty, tx] = b[at + ty, col]
        else:
            tile_b[ty, tx] = np.float32(0)
        cuda.syncthreads()
        for j in range(TPB):
            total += tile_a[ty, j] * tile_b[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        c[row, col] = total


def transpose(a, b):
    """B = A transposed, A row-major M x N, B N x M: each block copies one TR_TILE x TR_TILE tile
    through shared memory, so that a warp reads a row of A's tile and writes a row of B's, both
    consecutive floats (coalesced); a thread-per-element B[j, i] = A[i, j] would read or write with a
    stride of a whole row. The tile is TR_TILE + 1 floats wide: reading it back by columns, a warp's
    32 floats then sit in 32 different shared-memory banks instead of one. The grid is our kernel's
    (lb_shared.transpose_grid): x along N, y along M; elements outside A are neither read nor written,
    and no thread returns early, so all of them reach syncthreads()."""
    tile = cuda.shared.array((TR_TILE, TR_PITCH), np.float32)
    m, n = a.shape
    tx = cuda.threadIdx.x
    first_row = cuda.blockIdx.y * TR_TILE  # of A's tile; B's tile starts at column first_row
    first_col = cuda.blockIdx.x * TR_TILE  # of A's tile; B's tile starts at row first_col
    for j in range(cuda.threadIdx.y, TR_TILE, TR_ROWS):
        if first_row + j < m and first_col + tx < n:
            tile[j, tx] = a[first_row + j, first_col + tx]
    cuda.syncthreads()
    for j in range(cuda.threadIdx.y, TR_TILE, TR_ROWS):
        if first_col + j < n and first_row + tx < m:
            b[first_col + j, first_row + tx] = tile[tx, j]


def probe(out, value):
    """launch_async and launch_sync: one thread stores one value."""
    out[0] = value


KERNELS = {f.__name__: f for f in (vector_add, saxpy, block_sum, matmul, transpose, probe)}

# What each kernel is compiled for, and what check_args() holds the variants to. float32[::1] is a
# C-contiguous 1-D float32 array (a Numba device array from lb_numba.device_array); [:, ::1] a
# row-major 2-D one. int64 is what Numba makes of a Python int, and a Python float would be
# float64: hence np.float32(alpha).
SIGNATURES = {
    "vector_add": "void(float32[::1], float32[::1], float32[::1], int64)",
    "saxpy": "void(float32, float32[::1], float32[::1], int64)",
    "block_sum": "void(float32[::1], int64, float32[::1])",
    "matmul": "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
    "transpose": "void(float32[:, ::1], float32[:, ::1])",
    "probe": "void(float32[::1], float32)",
}

def jit_kernel(name: str, cost):
    """The dispatcher of kernel `name`, compiled for its signature (or read from Numba's cache) and
    loaded on the device, reporting the compile (or the cache hit) and, after a cache hit, the
    module load, as one-time costs. Session.kernel calls it once per kernel and session."""
    if BLOCK != lb_shared.BLOCK:
        raise RuntimeError(f"_numba_layer.BLOCK is {BLOCK}, workloads/launch_config.h says {lb_shared.BLOCK}")
    if name == "transpose" and TR_TILE != lb_shared.CONFIG["LB_TR_TILE"]:  # only transpose reads it
        raise RuntimeError(f"_numba_layer.TR_TILE is {TR_TILE}; workloads/launch_config.h's LB_TR_TILE, "
                           f"which the grid is made of, is {lb_shared.CONFIG['LB_TR_TILE']}")
    t0 = time.perf_counter()
    dispatcher = cuda.jit(SIGNATURES[name], cache=True)(KERNELS[name])
    ms = (time.perf_counter() - t0) * 1e3
    stats = dispatcher.stats
    hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
    how = ("compiled, module load included" if misses and not hits else
           "cache hit" if hits and not misses else "compile or cache load")
    cost(f"numba.cuda.jit {name} (first use of its signature: {how})", ms)
    # A compile loads the module on the device itself; a kernel read from the cache is loaded
    # at its first bind(), here rather than in the first run.
    t0 = time.perf_counter()
    dispatcher.compile(SIGNATURES[name]).bind()
    if not how.startswith("compiled"):
        cost(f"module load {name} (numba)", (time.perf_counter() - t0) * 1e3)
    return dispatcher


class Session(lb_variant.Session):
    """One run of the layer: the specialized dispatcher of each kernel its variants asked for,
    made once per session (jit_kernel), dropped when the harness closes the session."""

    def kernel(self, name: str, cost):
        return self.once(name, lambda: jit_kernel(name, cost))


def check_args(name: str, args: tuple) -> None:
    """Raises unless the Numba types of `args` are those of SIGNATURES[name]. Once per variant, in
    allocate() (or upload(), where an argument is known only then), not in the timed run."""
    expected, _ = sigutils.normalize_signature(SIGNATURES[name])
    passed = tuple(typeof(arg, Purpose.argument) for arg in args)
    if passed != tuple(expected):
        raise TypeError(f"{name}: the variant passes {passed}, the kernel is compiled for {tuple(expected)}")


class Launch:
    """Launch overhead through Numba: n launches of probe, i = 1..n, the last value left in `out`,
    written as a Numba user writes a launch, `probe[grid, block, stream](args)`; with
    `wait_each_time`, a stream synchronize after each (the round trip). Numba keeps the configured
    launch of probe[1, 1, stream] (an lru_cache), so indexing costs a lookup, not a new object."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        self.n = size.n
        self.stream = lb_numba.stream(setup.stream)
        self.probe = setup.session.kernel("probe", setup.cost)
        self.out = lb_numba.device_array(1)
        check_args("probe", (self.out, np.float32(self.n)))

    def upload(self, problem, stream_handle):
        lb_numba.upload(problem.output, self.out, self.stream)

    def run(self, stream_handle):
        probe, out, s = self.probe, self.out, self.stream
        for i in range(1, self.n + 1):
            probe[1, 1, s](out, np.float32(i))
            if self.wait_each_time:
                s.synchronize()

    def download(self, out, stream_handle):
        lb_numba.download(self.out, out, self.stream)
