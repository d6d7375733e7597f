"""The torch-compile layer: lb_torch's functions, the torch layer's, under torch.compile. Dynamo
traces a function into a graph at its first call, Inductor turns the graph into generated Triton
kernels (fused where it can; a matrix product stays a cuBLAS call unless max-autotune picks a
Triton template), Triton compiles them. That first call is the one-time cost, paid in the case's
first upload() (where saxpy's alpha, which Dynamo may specialize on, is known); each new shape is
a recompile (dynamic=False: one graph per shape, as a model with fixed shapes gets). Every later
call checks Dynamo's guards on its arguments, then runs the compiled graph: the cost of a call
measured here. fullgraph=True: a graph break raises instead of running part of the function
eagerly unseen.

The caches: TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR are fresh empty folders for the run
(lb_torch.compile_caches; $LAYERBENCH_FRAMEWORK_CACHE keeps them instead), so the first compile of
each function is cold; right after it the same
function is compiled again from a copy of its code (a code object Dynamo has not seen: its trace
runs again, Inductor's FX graph cache and Triton's cache answer) and reported as the warm compile."""
import types

import lb_torch
import lb_variant
import torch


class Session(lb_torch.Session):
    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.caches = lb_torch.compile_caches()
        self.settings = compile_settings()
        self.unpaid += lb_torch.torch_cuda_start()
        self.compiled = {}  # workload -> torch.compile(fn)
        self.shapes = set()  # (workload, the shapes compiled for)

    def describe(self) -> dict:
        return lb_torch.framework_settings() | self.settings | {"compile_caches": self.caches,
                                                                "launch_equivalent": " ".join(Launch.__doc__.split())}

    def function(self, workload: str, fn, args: tuple, cost):
        """torch.compile(fn) of this session, its first call for these arguments' shapes made here
        (compiling, or recompiling for a new shape) and reported; for a workload's first shape, the
        warm compile after it too."""
        first = workload not in self.compiled
        if first:
            self.compiled[workload] = torch.compile(fn, fullgraph=True, dynamic=False)
        compiled = self.compiled[workload]
        shape = " ".join("x".join(map(str, a.shape)) or "0-d" for a in args if isinstance(a, torch.Tensor))
        seen = (workload, shape) in self.shapes
        self.shapes.add((workload, shape))
        ms = lb_torch.synchronized_ms(lambda: compiled(*args))
        what = (f"first call, {lb_torch.cache_state(self.caches)} (Dynamo trace, Inductor, Triton compile)" if first else
                "first call of this case (compiled for these shapes before in this run: Dynamo's guards)" if seen else
                "recompile for a new shape (Dynamo trace, Inductor, Triton compile)")
        cost(f"torch.compile {workload} ({shape}): {what}", ms)
        if first:
            warm = torch.compile(_fresh_code(fn), fullgraph=True, dynamic=False)
            ms = lb_torch.synchronized_ms(lambda: warm(*args))
            cost(f"torch.compile {workload} ({shape}): the same function compiled again, warm caches "
                 "(Dynamo trace; Inductor's FX graph cache and Triton's cache hit)", ms)
        return compiled


def compile_settings() -> dict:
    """Dynamo's and Inductor's settings this layer chooses, recorded in the results: room for one
    graph per default size and edge size (the default limit, 8, would fall back to running eagerly,
    unseen, after the eighth shape; here that raises instead), and Inductor's compiles in this
    process (lb_torch: TORCHINDUCTOR_COMPILE_THREADS)."""
    import torch._dynamo
    import torch._inductor.config as inductor

    dynamo = torch._dynamo.config
    limit = "recompile_limit" if hasattr(dynamo, "recompile_limit") else "cache_size_limit"
    setattr(dynamo, limit, 64)
    if hasattr(dynamo, "fail_on_recompile_limit_hit"):
        dynamo.fail_on_recompile_limit_hit = True
    inductor.compile_threads = 1
    return {"torch_compile": {"fullgraph": True, "dynamic": False, "mode": "default",
                              f"dynamo.{limit}": getattr(dynamo, limit),
                              "inductor.compile_threads": inductor.compile_threads}}


def _fresh_code(fn):
    """A copy of `fn` with a code object of its own: Dynamo keeps what it compiled on the code
    object, so the copy is traced again, while Inductor's caches key on the graph, which is the same."""
    code = fn.__code__.replace(co_name=fn.__code__.co_name)
    copy = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


class Call(lb_torch.Call):
    def function(self, setup, tensors, args):
        with torch.cuda.stream(self.stream):
            return setup.session.function(self.workload, self.fn, args, setup.cost)


class Launch(lb_torch.Launch):
    """One launch from torch.compile: a compiled `out.add_(1)` on a one-element tensor, counting up
    from 0 to n, so every launch must run, in order, for out to end at n. Not `out.fill_(i)`: Dynamo
    specializes on a Python int, and each new i would be a recompile. Each call runs Dynamo's guard
    check, then Inductor's generated wrapper, which launches one Triton kernel (a load and a store of
    one element)."""

    start = 0.0

    def prepare(self, setup):
        def increment(out):
            out.add_(1)

        with torch.cuda.stream(self.stream):
            self.increment = setup.session.function("launch", increment, (self.out,), setup.cost)
            self.stream.synchronize()

    def launch_once(self, value: int) -> None:
        self.increment(self.out)
