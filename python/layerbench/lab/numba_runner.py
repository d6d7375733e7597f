"""The numba runner: the student's @cuda.jit kernel, checked against the rules again, imported,
compiled by Numba and launched for the harness."""
from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from .rules import StudentError, check_file, signature_of
from .program import Program

if TYPE_CHECKING:  # variants/python, on the path wherever the runner runs (never needed by the rules)
    import lb_variant


# --- the numba runner ------------------------------------------------------------------------------

def _student_frame(exc: BaseException, filename: str):
    """The innermost traceback entry in the student's file, or None."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == Path(filename).resolve():
            found = frame
    return found


def _numba_message(exc: BaseException, limit: int = 14) -> str:
    """Numba's error, its first useful lines: what went wrong and where in the student's file,
    without the blank lines, the "During: ..." lines and the documentation links."""
    lines = []
    for line in str(exc).splitlines():
        line = line.rstrip()
        if not line.strip() or line.lstrip().startswith(("During:", "For more information", "http")):
            continue
        lines.append(line)
    if len(lines) > limit:
        lines = lines[:limit] + ["..."]
    return f"{type(exc).__name__}: " + "\n".join(lines)


def _simulated() -> bool:
    from numba.cuda.core import config

    return bool(config.ENABLE_CUDASIM)


class NumbaProgram(Program):
    """A file of @cuda.jit kernels: checked against the rules again, imported (kernels defined,
    nothing run), and its kernel compiled by Numba for the lab's argument types. Memory is Numba's
    device arrays (the kernel gets array views), the stream the harness's (cuda.external_stream),
    each launch `kernel[grid, block, stream](...)`, as the numba layer does."""

    def __init__(self, path: str, kernel: str, arguments, workload: lb_variant.Workload, block, grid: str,
                 line_info: bool, exact_buffers: bool = False, output_starts_zero: bool = False, sm_count: int = 1):
        import importlib.util
        import sys

        keywords = check_file(path, kernel, len(arguments))  # again, in the process that imports the file
        import lb_numba  # noqa: F401  (silences Numba's low-occupancy warning, as for the numba layer)
        from numba import cuda

        super().__init__(path, kernel, arguments, workload, block, grid, exact_buffers, output_starts_zero, sm_count)
        self.signature = signature_of(arguments)
        name = "lb_lab_student_" + "".join(ch if ch.isalnum() else "_" for ch in Path(path).stem)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)  # defines the kernels; the rules leave nothing else to run
        except Exception as e:
            frame = _student_frame(e, path)
            where = f"{path}:{frame.lineno}" if frame else path
            raise StudentError(f"{where}: importing the file failed: {_numba_message(e)}") from None
        sys.modules.pop(name, None)
        dispatcher = getattr(module, kernel, None)
        if not hasattr(dispatcher, "py_func"):
            raise StudentError(f"{path}: {kernel} is not a @cuda.jit kernel")
        self.module = module
        # Compiled for the lab's signature with the student's own @cuda.jit options: a dispatcher
        # given one signature is "specialized" (compiled now, and its launch skips typing the
        # arguments: check_arguments() checks them once per size instead), as the numba layer's are.
        options = dict(keywords)
        options.pop("device", None)
        if line_info and not options.get("debug"):
            options["lineinfo"] = True
        if exact_buffers:  # under compute-sanitizer: loads stay where the source makes them
            options.update(debug=True, opt=False)
        t0 = time.perf_counter()
        try:
            compiled = cuda.jit(self.signature, **options)(dispatcher.py_func)
            if not _simulated():  # (Numba's CUDA simulator, which the tests use, compiles nothing)
                compiled.compile(self.signature).bind()  # loads the module on the device
        except Exception as e:
            raise StudentError(f"{path}: Numba could not compile {kernel} for {self.signature}:\n"
                               f"{_numba_message(e)}") from None
        self.one_time_costs.append((f"numba.cuda.jit {kernel} (the student's kernel, compiled once per check)",
                                    (time.perf_counter() - t0) * 1e3))
        self.dispatcher = compiled
        self._handle, self._configured = None, {}

    # -- the device, through Numba
    def bind(self, handle: int):
        if handle != self._handle:
            import lb_numba

            self._handle, self._s, self._configured = handle, lb_numba.stream(handle), {}

    def floats(self, count: int):
        import lb_numba

        return lb_numba.device_array(count)

    def argument(self, memory, start: int, shape):
        import math

        return memory[start:start + math.prod(shape)].reshape(shape)

    def value(self, arg, number):
        import numpy as np

        return np.float32(number) if arg.kind == "scalar" else int(number)  # sizes: int64 in the signature

    def check_arguments(self, args):
        # The specialized dispatcher passes arguments as its signature says, unchecked: check once.
        from numba.cuda.core import sigutils
        from numba.cuda.typing.typeof import Purpose, typeof

        expected, _ = sigutils.normalize_signature(self.signature)
        passed = tuple(expected) if _simulated() else tuple(typeof(arg, Purpose.argument) for arg in args)
        if passed != tuple(expected):
            raise RuntimeError(f"lab runner: passes {passed}, the kernel is compiled for {tuple(expected)}")

    def to_device(self, host, memory, start: int):
        memory[start:start + host.size].copy_to_device(host, stream=self._s)

    def to_host(self, memory, start: int, host):
        memory[start:start + host.size].copy_to_host(host, stream=self._s)

    def address(self, memory) -> int:
        if _simulated():  # the simulator's device memory is a NumPy array in host memory
            return int(memory.ctypes.data)
        return int(memory.__cuda_array_interface__["data"][0])

    def zero(self, memory, count: int):
        import numpy as np

        if getattr(self, "_zeros", None) is None or self._zeros.size != count:
            self._zeros = np.zeros(count, dtype=np.float32)
        memory[:count].copy_to_device(self._zeros, stream=self._s)

    def launch(self, grid, args):
        if grid not in self._configured:
            self._configured[grid] = self.dispatcher[grid, self.block, self._s]
        self._configured[grid](*args)

    def sync(self):
        self._s.synchronize()
