"""What the numba-vectorize layer's variants share. Here nobody writes a kernel: a scalar Python
function becomes a GPU ufunc with @vectorize(target="cuda"), a binary one a whole reduction with
@cuda.reduce, and Numba writes, sizes and launches the kernels. Against the numba layer (kernels
written by hand in Python) and runtime (ours), this is what that convenience costs.

What a ufunc call does each time: it finds the signature from its arguments' dtypes, broadcasts
them, types them again to find (or, the first time, compile) the kernel for those argument types,
takes the kernel's largest block size (its max_threads_per_block attribute) and launches one
thread per element. Its arguments should be device arrays: a host array or a Python scalar is
copied to the device through a new allocation at every call, and Numba's flush of dropped memory
(cuMemFree, every eleventh free) waits for the device. So alpha (saxpy) and the launch values are
device arrays here, uploaded before the timed runs.

Compiles: @vectorize with signatures compiles the scalar function at once (to LLVM IR, for the
current device's compute capability: the device is needed), and the kernel around it at the first
call for each set of argument types. @cuda.reduce compiles its kernel at its first call. Numba's
on-disk cache covers neither (DeviceVectorize refuses cache=True), so every process compiles them
again. The ufuncs are made at first use in a session (Session.ufunc), and every allocate() makes
its variant's call once, so that no compile, and no first use of a launch configuration, falls in a
timed run.

The scalar functions are module-level Python functions, so that tests/python can compile them (as
CUDA device functions) to PTX without a GPU."""
import time

import lb_numba
import lb_variant
import numpy as np
from numba import cuda, vectorize


def add(a, b):
    """vector_add's ufunc, and reduce's binary operator."""
    return a + b


def saxpy(alpha, x, y):
    return alpha * x + y


def store(value):
    """launch_async and launch_sync: one element copied, one kernel launched."""
    return value


SCALAR_FUNCTIONS = {f.__name__: f for f in (add, saxpy, store)}

# What each ufunc is compiled for: a CUDA ufunc matches its arguments' dtypes exactly (NumPy's
# casting="no"), so every argument must be a float32 array.
SIGNATURES = {
    "add": "float32(float32, float32)",
    "saxpy": "float32(float32, float32, float32)",
    "store": "float32(float32)",
}

# reduce: a whole reduction from a binary function. Making the object compiles nothing.
sum_reduce = cuda.reduce(add)

def make_ufunc(name: str, cost):
    """The CUDA ufunc `name`, made and its scalar function compiled, reported as a one-time cost."""
    t0 = time.perf_counter()
    made = vectorize([SIGNATURES[name]], target="cuda")(SCALAR_FUNCTIONS[name])
    cost(f"numba @vectorize {name}: compile the scalar function (no disk cache)", (time.perf_counter() - t0) * 1e3)
    return made


class Session(lb_variant.Session):
    """One run of the layer: each CUDA ufunc its variants asked for, made once per session
    (make_ufunc), dropped when the harness closes the session."""

    def ufunc(self, name: str, cost):
        return self.once(name, lambda: make_ufunc(name, cost))


def _kernels_compiled(numba_callable) -> int | None:
    """How many kernels Numba has compiled behind a CUDA ufunc or a @cuda.reduce object, read from
    numba-cuda 0.30's internals (a ufunc keeps a dispatcher per signature, specialized once per set
    of argument types; Reduce keeps a dispatcher per dtype in a class-wide cache); None where that
    cannot be read."""
    try:
        if hasattr(numba_callable, "functions"):
            return sum(len(dispatcher.specializations) for _, dispatcher in numba_callable.functions.values())
        return sum(len(dispatcher.overloads) for dispatcher in type(numba_callable)._cache.values())
    except Exception:
        return None


def first_call(what: str, numba_callable, call, cost) -> None:
    """Runs `call` (a variant's own call, on its arrays and its stream) once, in allocate(): the
    first call for a set of argument types compiles a kernel, and the first on a stream makes its
    launch configuration. The inputs are not uploaded yet: the variant zeroes its arrays first. A call that compiled is reported as a one-time cost; where that cannot be
    told, the call is reported anyway, as a first call."""
    before = _kernels_compiled(numba_callable)
    t0 = time.perf_counter()
    call()
    ms = (time.perf_counter() - t0) * 1e3
    after = _kernels_compiled(numba_callable)
    if before is None or after is None:
        cost(f"numba {what}: first call in this variant (a compile where its argument types are new)", ms)
    elif after > before:
        cost(f"numba {what}: first call, compiles its kernel for these argument types (no disk cache)", ms)


class Launch:
    """Launch overhead through a ufunc: n calls of `store` on one-element device arrays, the i-th
    copying i (from a device array holding 1..n, uploaded in allocate) into `out`; with
    `wait_each_time`, a stream synchronize after each (the round trip)."""

    def __init__(self, wait_each_time: bool):
        self.wait_each_time = self.run_waits = wait_each_time

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        n = size.n
        self.stream = lb_numba.stream(setup.stream)
        self.store = setup.session.ufunc("store", setup.cost)
        self._values = lb_numba.device_array(n)
        lb_numba.upload(np.arange(1, n + 1, dtype=np.float32), self._values, self.stream)
        self.values = [self._values[i:i + 1] for i in range(n)]  # views: no allocation, no copy
        self.out = lb_numba.device_array(1)
        first_call("@vectorize store", self.store,
                   lambda: self.store(self.values[0], out=self.out, stream=self.stream), setup.cost)

    def upload(self, problem, stream_handle):
        lb_numba.upload(problem.output, self.out, self.stream)

    def run(self, stream_handle):
        store, out, s = self.store, self.out, self.stream
        for value in self.values:
            store(value, out=out, stream=s)
            if self.wait_each_time:
                s.synchronize()

    def download(self, out, stream_handle):
        lb_numba.download(self.out, out, self.stream)
