"""What every Python lab runner shares: the buffers and their guard zone, the argument binding,
the grid, the device addresses timing draws fresh inputs at (Program), and the lb_variant.Variant
the harness calls (Variant)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .rules import GUARD_BITS, GUARD_FLOATS

if TYPE_CHECKING:  # variants/python, on the path wherever the runner runs (never needed by the rules)
    import lb_variant
    import numpy as np


# --- the runners: what every runner shares ---------------------------------------------------------

class GpuError(Exception):
    """A CUDA error from a runner's library (PyCUDA's, cuda.core's) while the student's kernel ran
    or its memory was copied: most often the kernel faulted. The C++ side makes it a CudaError, so
    that the check reports it as it reports the CUDA C++ labs' faults (Numba's own CUDA errors are
    mapped by their names, variants/python/python_object.cpp)."""


class Program:
    """The student's file, compiled by one runner's library, once, before the first size: a
    compile error is reported as one, and no compile lands in a timed run. What the runners share:
    the lab's parameters, the one-time costs (reported to the first size's setup.cost), the grid,
    and Variant (below), which allocates, uploads, launches and checks through what a runner's
    subclass says about its library:

      bind(stream_handle)                    the harness's stream, for the calls that follow
      floats(count) -> memory                device memory for `count` floats
      argument(memory, start, shape)         the kernel argument for the elements of `memory` from
                                             `start` on, as an array of `shape` (or its address)
      value(arg, number)                     a scalar or a size, as the kernel's parameter takes it
      check_arguments(args)                  once per size, before any launch (optional)
      to_device(host, memory, start)         host -> device, from element `start` on
      to_host(memory, start, host)           device -> host
      address(memory) -> int                 its device address (fresh inputs are drawn there)
      zero(memory, count)                    the first `count` floats set to 0
      launch(grid, args)                     one launch, the lab's block
      sync()                                 waits for what the calls above enqueued

    Copies and launches go on the harness's stream (or behind it, PyCUDA's); sync() makes upload
    and download complete when they return, as the harness expects of any variant."""

    def __init__(self, path: str, kernel: str, arguments, workload: lb_variant.Workload, block, grid: str,
                 exact_buffers: bool = False, output_starts_zero: bool = False, sm_count: int = 1):
        self.path, self.kernel_name, self.arguments = path, kernel, list(arguments)
        self.exact_buffers = exact_buffers
        self.output_starts_zero, self.sm_count = output_starts_zero, sm_count
        self.workload, self.grid_rule = workload, grid
        for argument in self.arguments:
            workload.argument(argument)  # a parameter the descriptor does not know fails here, with its name
        self.block = tuple(int(b) for b in block)
        self.one_time_costs: list[tuple[str, float]] = []  # (what, ms): the compile, a module load

    def make_variant(self) -> "Variant":
        return Variant(self)

    def report_costs(self, cost) -> None:
        """The one-time costs, to the first size that asks (the compile is the check's, not a size's)."""
        for what, ms in self.one_time_costs:
            cost(what, ms)
        self.one_time_costs = []

    def grid_for(self, size: lb_variant.Size) -> tuple[int, ...]:
        """The lab's grid rule (lab_spec.h's GridRule; lab_kernel.cpp's grid_for for the CUDA C++ labs)."""
        bx = self.block[0]
        by = self.block[1] if len(self.block) > 1 else 1

        def blocks(items, per_block):
            return max(1, (items + per_block - 1) // per_block)

        if self.grid_rule == "cover_n":
            return (blocks(size.n, bx),)
        if self.grid_rule == "grid_stride":
            return (min(blocks(size.n, bx), 4 * max(1, self.sm_count)),)
        if self.grid_rule == "cover_mn":
            return (blocks(size.n, bx), blocks(size.m, by))
        raise RuntimeError(f"lab runner: unknown grid rule {self.grid_rule!r}")

    def check_arguments(self, args) -> None:
        pass

    if TYPE_CHECKING:  # what each runner's subclass defines (the list above), for the type checker alone
        def bind(self, handle: int) -> None: ...
        def floats(self, count: int) -> Any: ...  # the library's device memory
        def argument(self, memory: Any, start: int, shape: tuple[int, ...]) -> Any: ...
        def value(self, arg: lb_variant.KernelArg, number: float) -> Any: ...
        def to_device(self, host: np.ndarray, memory: Any, start: int) -> None: ...
        def to_host(self, memory: Any, start: int, host: np.ndarray) -> None: ...
        def address(self, memory: Any) -> int: ...
        def zero(self, memory: Any, count: int) -> None: ...
        def launch(self, grid: tuple[int, ...], args: list[Any]) -> None: ...
        def sync(self) -> None: ...


class Variant:
    """One size of the student's kernel, for any runner: the workload's inputs and its output, the
    output followed by its guard zone in one allocation, each kernel parameter bound as the
    workload's descriptor says, the lab's launch. Called by lab/runners/python/python_student_embedded.cpp."""

    run_waits = False

    def __init__(self, program: Program):
        self.program = program

    def allocate(self, size: lb_variant.Size, setup: lb_variant.Setup):
        p = self.program
        p.report_costs(setup.cost)
        p.bind(setup.stream)
        # The descriptor's buffers: its inputs in HostProblem.inputs order.
        self.input_shapes = [buffer.shape(size) for buffer in p.workload.inputs]
        self.inputs = [p.floats(buffer.elements(size)) for buffer in p.workload.inputs]
        self.out_count = p.workload.output.elements(size)
        # One allocation: the output, then GUARD_FLOATS floats of guard. The kernel gets the output
        # alone; no runner checks indices on the GPU, so a store past its end lands in the guard,
        # where first_write_past_end() finds it. With exact buffers (under compute-sanitizer) there
        # is no guard: memcheck sees the store instead.
        self.guard_floats = 0 if p.exact_buffers else GUARD_FLOATS
        self.buffer = p.floats(self.out_count + self.guard_floats)
        # Each of the lab's arguments as the descriptor's kernel parameter of that name says: an
        # input buffer, the output, the scalar (alpha, set by upload()) or a dimension of the size.
        self.args, self.alpha = [], None
        for at, name in enumerate(p.arguments):
            arg = p.workload.argument(name)
            if arg.kind == "input":
                self.args.append(p.argument(self.inputs[arg.input], 0, self.input_shapes[arg.input]))
            elif arg.kind == "output":
                self.args.append(p.argument(self.buffer, 0, p.workload.output.shape(size)))
            elif arg.kind == "scalar":
                self.args.append(p.value(arg, 0.0))
                self.alpha = (at, arg)
            elif arg.kind == "size":
                self.args.append(p.value(arg, size.extent(arg.dim)))
            else:
                raise RuntimeError(f"lab runner: {name} is a kernel parameter of kind {arg.kind!r}")
        p.check_arguments(self.args)
        self.grid = p.grid_for(size)

    def set_alpha(self, alpha: float):
        """The scalar the next launches pass, by value (upload()'s, or a timed sample's fresh one)."""
        if self.alpha is not None:
            at, arg = self.alpha
            self.args[at] = self.program.value(arg, alpha)

    def upload(self, problem, stream_handle):
        import numpy as np

        p = self.program
        p.bind(stream_handle)
        for memory, host in zip(self.inputs, problem.inputs):
            p.to_device(host, memory, 0)
        self.set_alpha(problem.alpha)
        start = np.zeros(self.out_count, dtype=np.float32) if p.output_starts_zero else problem.output
        p.to_device(start, self.buffer, 0)
        if self.guard_floats:
            p.to_device(np.full(GUARD_FLOATS, GUARD_BITS, dtype=np.uint32).view(np.float32), self.buffer,
                        self.out_count)
        p.sync()

    def device_pointers(self):
        """For timing (lab/child/fresh_inputs.h): (each input's device address, the output's) as ints.
        Before each timed sample the grade draws fresh inputs and the output's starting contents
        there, on the device, so the kernel's arguments stay the same every sample."""
        p = self.program
        return [p.address(memory) for memory in self.inputs], p.address(self.buffer)

    def run(self, stream_handle):
        p = self.program
        p.bind(stream_handle)
        if p.output_starts_zero:  # a kernel that adds into its output starts from zero every time
            p.zero(self.buffer, self.out_count)
        p.launch(self.grid, self.args)

    def download(self, out, stream_handle):
        p = self.program
        p.bind(stream_handle)
        p.to_host(self.buffer, 0, out)
        p.sync()

    def first_write_past_end(self, stream_handle) -> int:
        import numpy as np

        if not self.guard_floats:
            return -1
        p = self.program
        p.bind(stream_handle)
        guard = np.empty(self.guard_floats, dtype=np.float32)
        p.to_host(self.buffer, self.out_count, guard)
        p.sync()
        changed = np.flatnonzero(guard.view(np.uint32) != GUARD_BITS)
        return int(changed[0]) if changed.size else -1
