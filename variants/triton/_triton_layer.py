"""The triton layer: our own kernels for every workload, written in Triton (@triton.jit: Python
syntax over blocks of values; Triton's compiler decides threads, shared memory, vector widths and
the layout conversions), launched on PyTorch's current stream, which lb_torch makes the harness's.
Tensors are PyTorch's (lb_torch): Triton takes any object with data_ptr().

What a first launch costs: Triton specializes a kernel on its arguments (dtypes, which integers
are 1 or divisible by 16, pointer alignment), compiles that specialization (Python AST -> Triton
IR -> LLVM -> PTX -> ptxas -> CUBIN) at the first launch that needs it, and keeps it in memory (on
the JITFunction) and on disk (TRITON_CACHE_DIR). Here the compile is made in allocate() and
reported, cold (the run's fresh empty cache, lb_torch.compile_caches) for the first shape of each
kernel, then warm: the same kernel as a new JITFunction (nothing in memory) reading the disk cache.
matmul is autotuned (@triton.autotune: each configuration compiled and timed on the case's shapes,
the fastest kept per (M, N, K)); that too is a one-time cost of each new shape, made in allocate().

The kernels are what a Triton user writes from Triton's tutorials: a flat block per program for
the elementwise ones, a block sum then a sum of the partials for reduce, the tutorial's grouped
tiled matmul (fp32: input_precision="ieee", no TF32) and a block transpose (tl.trans: Triton stages
the tile through shared memory itself)."""
import lb_torch
import lb_variant
import torch
import triton
import triton.language as tl
from triton.runtime.jit import JITFunction

BLOCK = 1024  # elements per program of the elementwise kernels: the tutorial's BLOCK_SIZE
REDUCE_BLOCK = 4096  # elements per program and pass of reduce's first kernel
TR_BLOCK = 64  # transpose: TR_BLOCK x TR_BLOCK elements per program


@triton.jit
def vector_add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


@triton.jit
def saxpy_kernel(x_ptr, y_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, alpha * x + y, mask=mask)


@triton.jit
def block_sum_kernel(x_ptr, sums_ptr, n, BLOCK: tl.constexpr):
    """sums[p] = the sum of program p's elements: blocks p, p + P, p + 2P, ... of x (P programs),
    added lane by lane in float32, then across the lanes (tl.sum, a tree). Launched twice: over x
    with a few programs per SM, then over their partial sums with one program, whose total goes to
    sums[0]: written, not added to, so nothing needs zeroing first."""
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(pid * BLOCK, n, programs * BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(sums_ptr + pid, tl.sum(acc, axis=0))


# The configurations a Triton user tries first: those of Triton's matmul tutorial for fp32 inputs
# (block sizes, the GROUP_M swizzle that keeps a group of tiles' A rows and B columns in L2, pipeline
# stages, warps), smaller stages where fp32 tiles would not fit in shared memory.
TUTORIAL_CONFIGS = (
    (128, 256, 32, 3, 8), (256, 128, 32, 3, 8), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
    (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
    (64, 64, 32, 4, 4), (128, 128, 16, 4, 8), (64, 64, 16, 3, 4), (32, 32, 16, 3, 2),
)
# The ones autotuned here: the tutorial's configurations that won at a default size (512^3 to
# 4096^3) in the 20-layer runs before P31, on an H100 twice and an H200 (docs/layers/frameworks.md,
# "Triton's autotuning"). Compiling all 12, cold, took 13-18 s of every run's start for the same
# choices; a size outside the defaults still picks the fastest of these four.
AUTOTUNED = {(32, 32, 16, 3, 2), (32, 64, 32, 5, 2), (64, 64, 16, 3, 4), (64, 64, 32, 4, 4)}
MATMUL_CONFIGS = [
    triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=s, num_warps=w)
    for bm, bn, bk, s, w in TUTORIAL_CONFIGS if (bm, bn, bk, s, w) in AUTOTUNED
]


def prune_matmul_configs(configs, named_args, **kwargs):
    """The configurations worth timing for this (M, N, K): none whose block is more than twice the
    matrix along a side (a 64-row block of a 17-row C is 47 rows of masked work), as Triton users
    prune with prune_configs_by; the smallest when every one is. Every default size keeps all."""
    def fits(c):
        return all(c.kwargs[block] <= max(16, 2 * named_args[dim])
                   for block, dim in (("BLOCK_M", "M"), ("BLOCK_N", "N"), ("BLOCK_K", "K")))
    kept = [c for c in configs if fits(c)]
    return kept or [min(configs, key=lambda c: c.kwargs["BLOCK_M"] * c.kwargs["BLOCK_N"] * c.kwargs["BLOCK_K"])]


@triton.autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"],
                 prune_configs_by={"early_config_prune": prune_matmul_configs})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C = A B, row-major fp32: Triton's matmul tutorial. Each program computes one BLOCK_M x
    BLOCK_N tile of C, walking K in BLOCK_K steps; programs are ordered in groups of GROUP_M tile
    rows so that neighbouring programs share tiles of A and B in L2. tl.dot in fp32
    (input_precision="ieee": no TF32); loads outside A or B read zeros, stores outside C are masked."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * tiles_n
    group = pid // in_group
    first_m = group * GROUP_M
    group_size = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_size
    pid_n = (pid % in_group) // group_size
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * K + (k0 + ks)[None, :],
                    mask=(rows[:, None] < M) & ((k0 + ks)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + ks)[:, None] * N + cols[None, :],
                    mask=((k0 + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def transpose_kernel(a_ptr, b_ptr, M, N, BLOCK: tl.constexpr):
    """B (N x M) = A (M x N) transposed: each program loads a BLOCK x BLOCK tile of A (rows of A
    read along, coalesced), transposes it in registers (tl.trans; Triton converts the layout
    through shared memory) and stores it as a tile of B (rows of B written along)."""
    rows = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)  # of A
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # of A
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(a_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    mask_t = (cols[:, None] < N) & (rows[None, :] < M)
    tl.store(b_ptr + cols[:, None] * M + rows[None, :], tl.trans(tile), mask=mask_t)


@triton.jit
def probe_kernel(out_ptr, value):
    """launch_async and launch_sync: one program stores one value. `value` is a float: Triton
    specializes integer arguments (1, multiples of 16), and each new specialization would compile."""
    tl.store(out_ptr, value)


class Session(lb_torch.Session):
    """One run: the run's fresh caches, which kernels have been compiled (so the warm compile is
    measured once per kernel), and the autotuner's choices cleared at the start, so that every run
    autotunes afresh."""

    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.caches = lb_torch.compile_caches()
        self.unpaid += lb_torch.torch_cuda_start()
        matmul_kernel.cache.clear()
        self.compiled: set = set()

    def describe(self) -> dict:
        return lb_torch.framework_settings() | {"triton": triton.__version__, "compile_caches": self.caches,
                                                "matmul_autotune_configs": len(MATMUL_CONFIGS),
                                                "matmul_autotune_choice": (
                                                    f"{len(MATMUL_CONFIGS)} of the {len(TUTORIAL_CONFIGS)} of Triton's "
                                                    "matmul tutorial: those that won at a default size in the "
                                                    "committed H100 and H200 runs"),
                                                "launch_equivalent": " ".join(Launch.__doc__.split())}

    def first_launch(self, name: str, launch, cost, shape: str) -> None:
        """Runs launch(kernel) once, synchronized, with the kernel as launched by the variants,
        reporting its compile: cold for the kernel's first shape in the run (then also the warm
        compile, launch(a new JITFunction of the same function), which reads the disk cache), a
        specialization's compile or nothing new after that (Triton compiles a shape again only when
        a specialization changes)."""
        kernel = globals()[name]
        ms = lb_torch.synchronized_ms(lambda: launch(kernel))
        if name in self.compiled:
            cost(f"triton.jit {name} first launch at {shape} (a new specialization compiles, else none)", ms)
            return
        self.compiled.add(name)
        cost(f"triton.jit {name} first launch at {shape}: compile, {lb_torch.cache_state(self.caches)}", ms)
        fresh = JITFunction(kernel.fn)
        ms = lb_torch.synchronized_ms(lambda: launch(fresh))
        cost(f"triton.jit {name} first launch at {shape}: compile, warm cache (a new JITFunction, disk cache hit)", ms)


class Kernel:
    """A workload as our Triton kernel(s): `tensors` from a Size (inputs first, then the output,
    which saxpy's y is too), `launch(kernel, tensors, alpha)` the kernel's launch with its grid,
    on PyTorch's current stream (the harness's, inside run())."""

    run_waits = False

    def __init__(self, kernel: str, shapes, output: int, launch, has_alpha: bool = False):
        self.kernel, self.shapes, self.output, self.launch, self.has_alpha = kernel, shapes, output, launch, has_alpha

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        lb_torch.settle(setup)
        self.stream = lb_torch.stream(setup.stream)
        self.tensors = [lb_torch.device_tensor(shape, self.stream) for shape in self.shapes(size)]
        self.alpha = 1.0
        self.prepare(size)
        shape = "x".join(str(d) for d in (size.m, size.n, size.k))
        with torch.cuda.stream(self.stream):
            tuner = globals()[self.kernel]
            if isinstance(tuner, triton.runtime.Autotuner):
                chosen_before = len(tuner.cache)
                ms = lb_torch.synchronized_ms(lambda: self.launch(tuner, self))
                if len(tuner.cache) == chosen_before:  # this shape's choice was made earlier in the run
                    setup.cost(f"triton autotune {self.kernel} at {shape}: chosen earlier in this run, first launch", ms)
                else:
                    tried = len(prune_matmul_configs(MATMUL_CONFIGS, {"M": size.m, "N": size.n, "K": size.k}))
                    setup.cost(f"triton autotune {self.kernel} at {shape}: {tried} configurations compiled "
                               f"({lb_torch.cache_state(setup.session.caches)} at the first shape) and timed; "
                               f"best {tuner.best_config}", ms)
            else:
                setup.session.first_launch(self.kernel, lambda k: self.launch(k, self), setup.cost, shape)
        self.function = globals()[self.kernel]

    def prepare(self, size) -> None:
        """Launch shapes from the size; the kernels' own."""
        self.size = size

    def upload(self, problem, stream_handle):
        for host, device in zip(problem.inputs, self.tensors[:self.output]):
            lb_torch.upload(host, device, self.stream)
        lb_torch.upload(problem.output, self.tensors[self.output], self.stream)  # the poison, or y
        self.alpha = float(problem.alpha)

    def run(self, stream_handle):
        with torch.cuda.stream(self.stream):
            self.launch(self.function, self)

    def download(self, out, stream_handle):
        lb_torch.download(self.tensors[self.output], out, self.stream)


def sm_count() -> int:
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


def _vector_add(kernel, v):
    a, b, c = v.tensors
    kernel[(triton.cdiv(v.size.n, BLOCK),)](a, b, c, v.size.n, BLOCK=BLOCK)


def _saxpy(kernel, v):
    x, y = v.tensors
    kernel[(triton.cdiv(v.size.n, BLOCK),)](x, y, v.alpha, v.size.n, BLOCK=BLOCK)


class Reduce(Kernel):
    """Two launches of block_sum_kernel: over x with up to 4 programs per SM (each a grid-stride
    share), then over their partial sums with one program."""

    def prepare(self, size):
        super().prepare(size)
        self.programs = max(1, min(triton.cdiv(size.n, REDUCE_BLOCK), 4 * sm_count()))
        self.partials = lb_torch.device_tensor((self.programs,), self.stream)


def _reduce(kernel, v):
    x, total = v.tensors
    kernel[(v.programs,)](x, v.partials, v.size.n, BLOCK=REDUCE_BLOCK)
    kernel[(1,)](v.partials, total, v.programs, BLOCK=1024)


def _matmul(kernel, v):
    a, b, c = v.tensors
    m, n, k = v.size.m, v.size.n, v.size.k
    kernel[lambda meta: (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)](a, b, c, m, n, k)


def _transpose(kernel, v):
    a, b = v.tensors
    m, n = v.size.m, v.size.n
    kernel[(triton.cdiv(n, TR_BLOCK), triton.cdiv(m, TR_BLOCK))](a, b, m, n, BLOCK=TR_BLOCK)


def vector_add():
    return Kernel("vector_add_kernel", lambda s: [(s.n,), (s.n,), (s.n,)], 2, _vector_add)


def saxpy():
    return Kernel("saxpy_kernel", lambda s: [(s.n,), (s.n,)], 1, _saxpy, has_alpha=True)


def reduce():
    return Reduce("block_sum_kernel", lambda s: [(s.n,), ()], 1, _reduce)


def matmul():
    return Kernel("matmul_kernel", lambda s: [(s.m, s.k), (s.k, s.n), (s.m, s.n)], 2, _matmul)


def transpose():
    return Kernel("transpose_kernel", lambda s: [(s.m, s.n), (s.n, s.m)], 1, _transpose)


class Launch(lb_torch.Launch):
    """One launch from Triton: probe_kernel[(1,)](out, float(i)), one program storing one value,
    with Triton's launch path in front of it (the arguments' specialization key computed, the
    compiled kernel looked up, the launcher called with PyTorch's current stream)."""

    def prepare(self, setup):
        with torch.cuda.stream(self.stream):
            setup.session.first_launch("probe_kernel", lambda k: k[(1,)](self.out, 1.0), setup.cost, "1 element")
        self.probe = probe_kernel

    def launch_once(self, value: int) -> None:
        self.probe[(1,)](self.out, float(value))


def libraries() -> dict:
    """PyTorch's CUDA libraries (lb_torch), and what Triton compiles with: its own ptxas (shipped in
    the triton wheel, unless $TRITON_PTXAS_PATH names another) and the CUDA version it targets."""
    found = lb_torch.libraries() | {"triton": {"version": triton.__version__, "path": triton.__path__[0]}}
    try:
        from triton.backends.nvidia import compiler

        try:
            ptxas = compiler.get_ptxas()
        except TypeError:  # Triton 3.6: the target's compute capability (sm_100 and later take another ptxas)
            major, minor = torch.cuda.get_device_capability()
            ptxas = compiler.get_ptxas(major * 10 + minor)
        found["ptxas"] = {"version": str(getattr(ptxas, "version", "")), "path": str(getattr(ptxas, "path", ptxas)),
                          "found_via": "$TRITON_PTXAS_PATH" if __import__("os").environ.get("TRITON_PTXAS_PATH")
                          else "the triton wheel (triton/backends/nvidia/bin)"}
    except Exception as e:
        found["ptxas"] = {"error": f"{type(e).__name__}: {e}"}
    return found
