"""The Python labs (docs/labs.md, "Python labs"): the rules a student's file must follow, checked
on its syntax tree before it is imported, and the runner that compiles its kernel with Numba and
launches it for the harness (lab/runners/python/python_student_embedded.cpp calls both). The runners of the labs
whose student writes CUDA C++ kernel text launched from Python (PyCUDA, cuda.core) are in
lb_lab_kernel_text.py; what every runner shares (the buffers and their guard zone, the argument
binding, the grid, the device addresses timing draws fresh inputs at) is Program and Variant, here.

The rules exist for the grader's integrity. A judge that imports a submission runs the student's
host code in the grading process, where it can patch the checker, the timer or the reference.
Here the file may define GPU kernels only: its top level holds imports of numba and math, constant
assignments, a docstring and functions decorated with @cuda.jit; everything that Python evaluates
when the file is imported (decorator arguments, parameter defaults, constants) is a literal. So
importing the file defines kernels and runs nothing of the student's; the kernels' bodies are
compiled by Numba, never executed by Python. The runner, not the student, allocates, uploads,
launches (the lab's grid and block, on the harness's stream) and downloads; the harness times
and checks.

This module imports nothing but the standard library at its top, so that the rules can be checked
(and tested) without Numba or a GPU; the runner imports Numba when it is first used. The runner is
an lb_variant.Variant, called through the adapter the Python layers use
(variants/python/python_object.h); what a workload's buffers and kernel parameters are comes from its
C++ descriptor, handed over as an lb_variant.Workload, not from a table of workload names."""
from __future__ import annotations

import ast
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # variants/python, on the path wherever the runner runs (never needed by the rules)
    import lb_variant

# The modules a lab file may import (whole, or names from them).
ALLOWED_MODULES = ("numba", "numba.cuda", "math")
# Keyword arguments @cuda.jit(...) may take in a lab file. Not link= (it would compile files from
# disk into the kernel), cache= (it would read and write a cache beside the file), extensions=.
ALLOWED_JIT_KEYWORDS = ("device", "fastmath", "lineinfo", "opt", "debug", "inline", "forceinline",
                        "launch_bounds", "max_registers", "lto", "shared_memory_carveout")
# Names that reach the interpreter's machinery, forbidden anywhere in the file, even inside a kernel.
FORBIDDEN_NAMES = ("exec", "eval", "compile", "open", "__import__", "globals", "locals", "vars", "getattr",
                   "setattr", "delattr", "breakpoint")

RULE = "only @cuda.jit kernels, imports of numba and math, and constant assignments may be at the top of a lab file"

# What one copy of the output is followed by, on the device: a guard zone of this many floats, each
# holding the NaN bit pattern GUARD_BITS, compared bit for bit after the run (lab/runners/nvrtc/lab_kernel.cpp's
# StudentKernel::kGuardFloats and kGuardBits: the same for CUDA C++ and Python labs).
GUARD_FLOATS = 1 << 16
GUARD_BITS = 0x7F8ABCDE

# The Numba type of each kernel argument, by its name in the workloads' vocabulary (lab_spec.cpp's
# argument_vocabulary): arrays are C-contiguous float32 (matmul's 2-D, row-major), sizes int64 (what
# Numba makes of a Python int), alpha float32.
ARGUMENT_TYPES = {
    "a": "float32[::1]", "b": "float32[::1]", "c": "float32[::1]", "x": "float32[::1]", "y": "float32[::1]",
    "out": "float32[::1]", "n": "int64", "alpha": "float32",
    "A": "float32[:, ::1]", "B": "float32[:, ::1]", "C": "float32[:, ::1]", "M": "int64", "N": "int64", "K": "int64",
}


class StudentError(Exception):
    """What the student reads: the file breaks the rules, does not parse, or its kernel does not
    compile. The C++ side turns it into a StudentCompileError."""


def signature_of(arguments) -> str:
    """The kernel's Numba signature for the spec's arguments: "void(float32[::1], ..., int64)"."""
    return "void(" + ", ".join(ARGUMENT_TYPES[name] for name in arguments) + ")"


# --- the rules ------------------------------------------------------------------------------------

_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
              ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^",
              ast.MatMult: "@"}


class _Rules:
    def __init__(self, filename: str):
        self.filename = filename
        self.modules: dict[str, str] = {}  # a name bound at the top -> the module (or module.name) it is
        self.constants: set[str] = set()
        self.functions: dict[str, ast.FunctionDef] = {}
        self.jit_keywords: dict[str, dict] = {}  # function -> the keywords of its @cuda.jit(...)

    def fail(self, node: ast.AST | None, message: str):
        line = getattr(node, "lineno", None)
        where = f"{self.filename}:{line}" if line else self.filename
        raise StudentError(f"{where}: {message}")

    def fail_rule(self, node: ast.AST, what: str):
        self.fail(node, f"{RULE} ({what})")

    # -- what a node is, for messages
    def dotted(self, node: ast.AST) -> str | None:
        """`numba.cuda.jit` for an attribute chain on a name, with an imported name resolved to its
        module; None for anything else."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def describe(self, node: ast.AST) -> str:
        if isinstance(node, ast.Expr):
            return self.describe(node.value)
        if isinstance(node, ast.Call):
            name = self.dotted(node.func)
            return f"this is a call to {name}" if name else "this is a call"
        if isinstance(node, ast.ClassDef):
            return f"class {node.name} is a class definition"
        if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
            return f"this is a{'n' if isinstance(node, ast.If) else ''} {type(node).__name__.lower()} statement, which runs on the host"
        if isinstance(node, ast.AugAssign):
            target = self.dotted(node.target) or "this"
            return f"{target} {_OPERATORS.get(type(node.op), '?')}= ... is not a constant assignment"
        if isinstance(node, ast.Delete):
            return "this is a del statement"
        if isinstance(node, ast.Lambda):
            return "this is a lambda"
        if isinstance(node, ast.AsyncFunctionDef):
            return f"{node.name} is an async function"
        return f"this is {type(node).__name__.lower()} code, which runs on the host when the file is imported"

    # -- constants: literals, arithmetic of literals and earlier constants, tuples of those
    def is_constant(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float, bool, str)) or node.value is None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.is_constant(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv,
                                                                  ast.Mod)):
            return self.is_constant(node.left) and self.is_constant(node.right)
        if isinstance(node, ast.Tuple):
            return all(self.is_constant(e) for e in node.elts)
        if isinstance(node, ast.Name):
            return node.id in self.constants
        return False

    # -- the whole file
    def check_names_everywhere(self, tree: ast.AST):
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Name):
                name = node.id
            elif isinstance(node, ast.Attribute):
                name = node.attr
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                name = node.name
            elif isinstance(node, ast.arg):
                name = node.arg
            if name and name.startswith("__") and name.endswith("__"):
                self.fail(node, f"{name} is not allowed in a lab file: it reaches Python's machinery, and the file "
                                "holds GPU kernels only")
            if isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
                self.fail(node, f"{node.id} is not allowed in a lab file: the file holds GPU kernels only, and none "
                                "of its host code runs in the checker")
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                self.fail(node, f"{type(node).__name__.lower()} is not allowed in a lab file")
            if isinstance(node, (ast.Import, ast.ImportFrom)) and node not in self.top_level:
                self.fail(node, "imports belong at the top of the file, not inside a kernel")
            if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.AsyncFunctionDef, ast.AsyncFor,
                                 ast.AsyncWith)):
                self.fail(node, "generators and async code are not kernels")

    def check_import(self, node: ast.Import | ast.ImportFrom):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in ALLOWED_MODULES:
                    self.fail_rule(node, f"this imports {alias.name}; import only numba, numba.cuda or math")
                if alias.asname:
                    self.modules[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.modules[top] = top
            return
        module = node.module or ""
        if node.level or module not in ALLOWED_MODULES:
            self.fail_rule(node, f"this imports from {'.' * node.level}{module}; import only from numba, numba.cuda "
                                 "or math")
        for alias in node.names:
            if alias.name == "*":
                self.fail(node, f"`from {module} import *` is not allowed in a lab file: name what you use "
                                f"(from {module} import ...)")
            self.modules[alias.asname or alias.name] = f"{module}.{alias.name}"

    def check_assign(self, node: ast.stmt):
        if isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
            if value is None or not (isinstance(node.annotation, ast.Name) and node.annotation.id in
                                     ("int", "float", "bool", "str")):
                self.fail_rule(node, "an annotated assignment must be NAME: int|float|bool|str = constant")
        else:
            targets, value = node.targets, node.value
        for target in targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)):
                name = self.dotted(target) or ast.unparse(target)
                self.fail_rule(node, f"this assigns to {name}: a lab file may not change what other modules hold")
            if not isinstance(target, ast.Name):
                self.fail_rule(node, "only a plain name may be assigned at the top, e.g. TPB = 256")
            if target.id in self.modules or target.id in self.functions:
                self.fail(node, f"{target.id} is already imported or defined: do not assign to it")
        if not self.is_constant(value):
            self.fail_rule(node, f"{targets[0].id} is assigned something other than a constant: a number, or "
                                 "arithmetic of numbers and earlier constants")
        for target in targets:
            self.constants.add(target.id)

    def jit_decorator(self, fn: ast.FunctionDef) -> dict:
        """The keywords of the function's one @cuda.jit decorator (empty for a bare @cuda.jit)."""
        if len(fn.decorator_list) != 1:
            what = "no decorator" if not fn.decorator_list else f"{len(fn.decorator_list)} decorators"
            self.fail_rule(fn, f"{fn.name} has {what}: a function here must be a GPU function, decorated with "
                               "@cuda.jit (a kernel) or @cuda.jit(device=True) (a helper the kernels call); "
                               "a plain Python function would run on the host")
        decorator = fn.decorator_list[0]
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call else decorator
        if self.dotted(target) != "numba.cuda.jit":
            self.fail_rule(decorator, f"{fn.name} is decorated with {self.dotted(target) or 'an expression'}, "
                                      "not cuda.jit")
        keywords = {}
        if call:
            if len(call.args) > 1 or any(not (isinstance(a, ast.Constant) and isinstance(a.value, str))
                                         for a in call.args):
                self.fail(decorator, f"@cuda.jit's signature for {fn.name} must be one string; the runner "
                                     "compiles the kernel for the lab's argument types anyway")
            for kw in call.keywords:
                if kw.arg not in ALLOWED_JIT_KEYWORDS:
                    self.fail(decorator, f"@cuda.jit({kw.arg or '**'}=...) is not allowed in a lab file (allowed: "
                                         f"{', '.join(ALLOWED_JIT_KEYWORDS)})")
                try:
                    keywords[kw.arg] = ast.literal_eval(kw.value)
                except (ValueError, TypeError, SyntaxError):
                    self.fail(decorator, f"@cuda.jit({kw.arg}=...) must be a literal: a number, True/False, a "
                                         "string or a tuple of those")
        return keywords

    def check_function(self, fn: ast.FunctionDef):
        if fn.name in self.modules or fn.name in self.constants:
            self.fail(fn, f"{fn.name} is already imported or assigned: give the function another name")
        keywords = self.jit_decorator(fn)
        args = fn.args
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None and a.annotation is not None:
                self.fail(a, f"{fn.name}: parameter annotations are evaluated on the host; leave them out")
        if fn.returns is not None:
            self.fail(fn, f"{fn.name}: a return annotation is evaluated on the host; leave it out")
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            if not self.is_constant(default):
                self.fail(default, f"{fn.name}: a parameter's default must be a constant")
        self.functions[fn.name] = fn
        self.jit_keywords[fn.name] = keywords

    def check(self, source: str) -> "_Rules":
        try:
            tree = ast.parse(source, filename=self.filename)
        except SyntaxError as e:
            where = f"{self.filename}:{e.lineno}" if e.lineno else self.filename
            raise StudentError(f"{where}: SyntaxError: {e.msg}") from None
        except ValueError as e:  # null bytes
            raise StudentError(f"{self.filename}: cannot be parsed: {e}") from None
        self.top_level = set(tree.body)
        self.check_names_everywhere(tree)
        for i, node in enumerate(tree.body):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.check_import(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                self.check_assign(node)
            elif isinstance(node, ast.FunctionDef):
                self.check_function(node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                pass  # a docstring, or a string on its own
            elif isinstance(node, ast.Pass):
                pass
            else:
                self.fail_rule(node, self.describe(node))
        return self


def check_source(source: str, filename: str, kernel: str, argument_count: int) -> dict:
    """Raises StudentError (naming filename and line) unless `source` follows the rules and defines
    `kernel` as a @cuda.jit kernel (not device=True) taking `argument_count` positional parameters.
    Returns the keywords of the kernel's @cuda.jit(...) decorator."""
    rules = _Rules(filename).check(source)
    fn = rules.functions.get(kernel)
    if fn is None:
        raise StudentError(f"{filename}: no kernel named {kernel} (expected @cuda.jit def {kernel}(...) at the "
                           "top of the file)")
    keywords = rules.jit_keywords[kernel]
    if keywords.get("device"):
        rules.fail(fn, f"{kernel} is a device function (device=True): the kernel the runner launches must be "
                       "decorated with plain @cuda.jit")
    params = fn.args.posonlyargs + fn.args.args
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or len(params) != argument_count:
        rules.fail(fn, f"{kernel} must take exactly {argument_count} parameters, in the lab's order (it takes "
                       f"{', '.join(a.arg for a in params) or 'none'}{', *...' if fn.args.vararg or fn.args.kwonlyargs else ''}"
                       f"{', **...' if fn.args.kwarg else ''})")
    return keywords


def check_file(path: str, kernel: str, argument_count: int) -> dict:
    """check_source on a file, named in messages as `path` is given."""
    try:
        source = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise StudentError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    return check_source(source, str(path), kernel, argument_count)


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


# --- loading: one runner per lab.json "runner" ------------------------------------------------------

# The Python runners by their lab.json names (lab_spec.cpp's runner table): the module and class of
# each, imported only when a lab of that runner is loaded. The nvrtc and host-trip runners are C++'s.
RUNNERS = {
    "numba": ("lb_lab_python", "NumbaProgram"),
    "pycuda": ("lb_lab_kernel_text", "PycudaProgram"),
    "cuda-core": ("lb_lab_kernel_text", "CudaCoreProgram"),
}


def runner_class(runner: str) -> type:
    import importlib

    if runner not in RUNNERS:
        raise RuntimeError(f"lab runner: no Python runner named {runner!r} (there are {', '.join(RUNNERS)})")
    module, name = RUNNERS[runner]
    return getattr(importlib.import_module(module), name)


def load(path: str, kernel: str, arguments, workload: lb_variant.Workload, block, grid: str, line_info: bool,
         exact_buffers: bool = False, output_starts_zero: bool = False, sm_count: int = 1,
         runner: str = "numba") -> Program:
    """The student's file, compiled for the lab by `runner`, lab.json's "runner"
    (lab/runners/python/python_student_embedded.cpp calls this): `workload` is the lab's workload's descriptor,
    `output_starts_zero` the spec's output_starts ("zero"), `sm_count` the device's (the
    grid-stride rule's grid)."""
    return runner_class(runner)(path, kernel, arguments, workload, block, grid, line_info, exact_buffers,
                                output_starts_zero, sm_count)
