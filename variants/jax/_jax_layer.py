"""The jax layer: each workload a jax.jit function of jax.numpy, as a JAX user writes it. XLA
compiles the function for its arguments' shapes and dtypes at the first call (trace to a jaxpr,
lower to StableHLO, XLA's GPU compiler: fusion, its own kernels or cuBLAS for the matrix product);
every later call with the same shapes dispatches the compiled executable.

Timing: JAX cannot run on the harness's stream. XLA's GPU client enqueues on streams it makes
itself, and no JAX API takes a stream: the harness's events would bracket nothing. So the layer is
timed by the host clock (Layer::timing; the results' context.layers.jax.clock "host", each case's
timed_by "host"): from after the harness's
stream has drained to the return of run(), which calls the function and waits for its result
(block_until_ready). That includes JAX's dispatch and the wait's wake-up, which device events leave
out; `layerbench run --host-clock` times every layer that way, the reference to compare JAX with.

Outputs: a jitted function returns a new array; it cannot write into a buffer we poisoned.
run() keeps what the call returned and download() copies that to the harness's buffer: the
verified run checks what the call computed. The previous result is still held during each call,
so the new one cannot be handed the memory that holds the previous answer.

Memory: XLA_PYTHON_CLIENT_PREALLOCATE=false (read when JAX starts its GPU client, set here before):
by default JAX takes 75% of the device's memory at its start, which the other layers in this
process would then not have. Its BFC allocator still keeps what it allocated, and hands a call's
output a block from it: what a JAX user's calls get. The persistent compilation cache points at a
fresh empty folder for the run, so the first compile of each function is cold and the second
(reported as warm) reads it back."""
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import atexit
import contextlib
import shutil
import tempfile
import time

import jax
import jax.numpy as jnp
import lb_variant
import numpy as np


def _ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1e3


def harness_device():
    """The JAX device the harness runs on: the CUDA device current on this thread (the harness set
    it), as JAX numbers its GPUs; JAX's first GPU where cuda.bindings is missing."""
    ordinal = 0
    try:
        from cuda.bindings import runtime

        err, device = runtime.cudaGetDevice()
        if int(err) == 0:
            ordinal = int(device)
    except Exception:  # no cuda.bindings, or it could not ask: JAX's first GPU
        pass
    gpus = jax.devices("gpu")
    if ordinal >= len(gpus):
        raise RuntimeError(f"the harness runs on CUDA device {ordinal}, JAX sees {len(gpus)} GPU(s)")
    return gpus[ordinal]


class Session(lb_variant.Session):
    """One run: JAX's GPU client started (the layer's context cost: XLA retains the device's primary
    context, the harness's, and makes its streams), the persistent compilation cache in a fresh
    folder, the jitted functions compiled so far."""

    def __init__(self, config: lb_variant.LayerConfig):
        super().__init__(config)
        self.unpaid: list[tuple[str, float]] = []
        t0 = time.perf_counter()
        self.device = harness_device()
        self.unpaid.append(("JAX GPU client start (XLA: the primary context retained, its streams, allocator)",
                            _ms_since(t0)))
        # A fresh folder per session, so the first compile is cold; $LAYERBENCH_FRAMEWORK_CACHE's
        # jax/ instead where it is set (the tests: lb_torch.CACHE_VARIABLE), kept.
        if given := os.environ.get("LAYERBENCH_FRAMEWORK_CACHE", ""):
            self.cache_dir = os.path.join(os.path.abspath(given), "jax")
            os.makedirs(self.cache_dir, exist_ok=True)
        else:
            self.cache_dir = tempfile.mkdtemp(prefix="layerbench-jax-cache-")
            atexit.register(shutil.rmtree, self.cache_dir, ignore_errors=True)
        self.cold = not os.listdir(self.cache_dir)
        jax.config.update("jax_compilation_cache_dir", self.cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        self.compiled: set = set()

    def describe(self) -> dict:
        return {"jax": jax.__version__, "jaxlib": _version("jaxlib"), "device": str(self.device),
                "XLA_PYTHON_CLIENT_PREALLOCATE": os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", ""),
                "XLA_PYTHON_CLIENT_ALLOCATOR": os.environ.get("XLA_PYTHON_CLIENT_ALLOCATOR", "default (BFC)"),
                "compilation_cache_dir": self.cache_dir, "timing": "host clock around the call and block_until_ready",
                "launch_equivalent": " ".join(Launch.__doc__.split())}

    def settle(self, cost) -> None:
        for what, ms in self.unpaid:
            cost(what, ms)
        self.unpaid.clear()

    def put(self, host: np.ndarray):
        """Host -> the device, done when it returns (on JAX's stream)."""
        with out_of_memory_as_memory_error():
            array = jax.device_put(host, self.device)
            array.block_until_ready()
        return array

    def zeros(self, shape: tuple):
        """An fp32 device array of zeros (JAX's own fill), done when it returns."""
        with out_of_memory_as_memory_error():
            array = jnp.zeros(shape, dtype=jnp.float32, device=self.device)
            array.block_until_ready()
        return array

    def first_call(self, name: str, fn, args: tuple, cost, shape: str):
        """jax.jit(fn), its first call for these arguments' shapes made and reported (trace, lower,
        XLA compile, run): cold for the function's first shape (then also warm: a copy of the
        function, which JAX traces again, its executable read back from the compilation cache), a
        compile for each new shape after that."""
        jitted = self.once(name, lambda: jax.jit(fn))
        t0 = time.perf_counter()
        jitted(*args).block_until_ready()
        ms = _ms_since(t0)
        if (name, shape) in self.compiled:
            cost(f"jax.jit {name} at {shape}: first call of this case (compiled before in this run)", ms)
            return jitted
        new_shape = any(done == name for done, _ in self.compiled)
        self.compiled.add((name, shape))
        if new_shape:
            cost(f"jax.jit {name} at {shape}: first call, compiles for the new shape (XLA)", ms)
            return jitted
        state = "cold cache" if self.cold else "cache kept in $LAYERBENCH_FRAMEWORK_CACHE"
        cost(f"jax.jit {name} at {shape}: first call, {state} (trace, lower, XLA compile)", ms)
        warm = jax.jit(_fresh_code(fn))
        t0 = time.perf_counter()
        warm(*args).block_until_ready()
        cost(f"jax.jit {name} at {shape}: the same function again, warm cache (trace, lower, "
             "the executable from the compilation cache)", _ms_since(t0))
        return jitted


@contextlib.contextmanager
def out_of_memory_as_memory_error():
    """XLA's out-of-memory error (RESOURCE_EXHAUSTED) as MemoryError, which the harness skips."""
    try:
        yield
    except Exception as e:
        if "RESOURCE_EXHAUSTED" in str(e) or "Out of memory" in str(e):
            raise MemoryError(str(e).splitlines()[0]) from e
        raise


def _fresh_code(fn):
    """A copy of `fn` that jax.jit's in-memory caches do not know (they key on the function)."""
    import types

    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _version(package: str) -> str:
    try:
        from importlib.metadata import version

        return version(package)
    except Exception:
        return ""


class Call:
    """A workload as one call of a jitted function of the inputs, which returns the output."""

    run_waits = True  # the call waits for its result: the host clock times it

    def __init__(self, name: str, fn, shapes, has_alpha: bool = False):
        self.name, self.fn, self.shapes, self.has_alpha = name, fn, shapes, has_alpha

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        """The inputs' device arrays (zeros, JAX's fill), and the function compiled for them: its
        first call, with these shapes (saxpy's alpha is an argument, traced, not a constant)."""
        session = self.session = setup.session
        session.settle(setup.cost)
        self.size = size
        self.args = tuple(session.zeros(shape) for shape in self.shapes(size))
        if self.has_alpha:
            self.args += (session.zeros(()),)
        shape = "x".join(str(d) for d in (size.m, size.n, size.k))
        self.jitted = session.first_call(self.name, self.fn, self.args, setup.cost, shape)
        self.result = None

    def upload(self, problem, stream_handle):
        inputs = list(problem.inputs)
        if self.has_alpha:  # saxpy: y is the output's starting contents, an input here
            inputs.append(problem.output)
        self.args = tuple(self.session.put(np.ascontiguousarray(a).reshape(s)) for a, s in
                          zip(inputs, self.shapes(self.size)))
        if self.has_alpha:
            # alpha a device scalar, put once: a Python float would be copied to the device at every call
            self.args += (self.session.put(np.float32(problem.alpha)),)
        self.result = None

    def run(self, stream_handle):
        result = self.jitted(*self.args)
        result.block_until_ready()
        self.result = result

    def download(self, out, stream_handle):
        if self.result is None:
            raise RuntimeError(f"jax {self.name}: download() before any run()")
        out.reshape(self.result.shape)[...] = np.asarray(self.result)


class Launch:
    """Launch overhead from JAX: n calls of a jitted `x + 1` on a one-element array, from 0, each
    call's result the next one's argument, so that every call must run, in order, for the last to
    hold n: XLA's nearest to a one-store kernel (one load, one store, and a new output array per
    call), with JAX's dispatch in front of it. With `wait_each_time`, block_until_ready after each;
    without, only after the last (JAX dispatches asynchronously)."""

    run_waits = True

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = wait_each_time

    def allocate(self, size, setup):
        setup.session.settle(setup.cost)
        self.n = size.n
        self.session = setup.session
        self.zero = self.session.zeros((1,))
        self.increment = self.session.first_call("increment", _increment, (self.zero,), setup.cost, "1 element")
        self.result = None

    def upload(self, problem, stream_handle):
        self.result = None

    def run(self, stream_handle):
        x, increment = self.zero, self.increment
        for _ in range(self.n):
            x = increment(x)
            if self.wait_each_time:
                x.block_until_ready()
        x.block_until_ready()
        self.result = x

    def download(self, out, stream_handle):
        if self.result is None:
            raise RuntimeError("jax launch: download() before any run()")
        out.reshape(1)[...] = np.asarray(self.result)


def _increment(x):
    return x + 1


def libraries() -> dict:
    """jax, jaxlib and its CUDA plugin, and the CUDA libraries the plugin loaded (from the nvidia-*
    wheels it depends on), as files this process mapped once JAX's GPU client started."""
    import lb_shared

    found = {"jax": {"version": jax.__version__}, "jaxlib": {"version": _version("jaxlib")}}
    for plugin in ("jax-cuda13-plugin", "jax-cuda13-pjrt", "jax-cuda12-plugin", "jax-cuda12-pjrt"):
        if version := _version(plugin):
            found[plugin] = {"version": version}
    try:
        backend = jax.devices("gpu")[0].client
        found["platform"] = {"version": getattr(backend, "platform_version", "")}
    except Exception as e:
        found["platform"] = {"error": f"{type(e).__name__}: {e}"}
    return found | lb_shared.mapped_libraries(("cudart", "cublas", "cublasLt", "cudnn", "cusolver", "cufft",
                                               "nvJitLink", "nvrtc"), {})
