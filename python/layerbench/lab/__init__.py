"""The Python labs (docs/labs.md, "Python labs"): the rules a Numba lab's file must follow,
checked on its syntax tree (rules.py: the parent checks them through the embedded interpreter,
lab/runners/python/python_student_embedded.cpp), and the compile process that alone imports the
file and compiles its kernel to PTX (numba_compile.py, started by lab/runners/numba/). The runners
of the labs whose student writes CUDA C++ kernel text launched from Python (PyCUDA, cuda.core) are
in kernel_text.py; what they share (the buffers and their guard zone, the argument binding, the
grid, the device addresses timing draws fresh inputs at) is Program and Variant (program.py).

A judge that imports a submission runs the student's host code in the grading process, where it
can patch the checker, the timer or the reference, or write the lines the grade believes. Rules on
the syntax tree cannot stop it alone: Numba eval's a @cuda.jit signature string when the file is
imported, and a string is a literal. So the file is imported only in the compile process, which has
limits, no seed and no channel to the grade, and hands back a kernel's PTX; the child loads the PTX
and never imports the file. The rules remain the lab's: the file may define GPU kernels only (its
top level holds imports of numba and math, constant assignments, a docstring and functions
decorated with @cuda.jit; everything Python evaluates on import is a literal). The runner, not the
student, allocates, uploads, launches (the lab's grid and block, on the harness's stream) and
downloads; the harness times and checks.

This module imports nothing but the standard library at its top, so that the rules can be checked
(and tested) without Numba or a GPU; the runner imports Numba when it is first used. The runner is
an lb_variant.Variant, called through the adapter the Python layers use
(variants/python/python_object.h); what a workload's buffers and kernel parameters are comes from its
C++ descriptor, handed over as an lb_variant.Workload, not from a table of workload names."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .rules import (GUARD_BITS, GUARD_FLOATS, StudentError, check_file, check_source, check_triton_file,
                    check_triton_source, signature_of)
from .program import GpuError, Program, Variant

if TYPE_CHECKING:  # variants/python, on the path wherever the runner runs (never needed by the rules)
    import lb_variant

__all__ = ["GUARD_BITS", "GUARD_FLOATS", "StudentError", "check_file", "check_source", "check_triton_file",
           "check_triton_source", "signature_of", "GpuError",
           "Program", "Variant", "program_class", "load"]


# --- loading: the runner's program class -----------------------------------------------------------

def program_class(program: str) -> type:
    """A runner's program class by the name lab/runners/runners.cpp registers it with, module.Class
    (a module of this package): imported only when a lab of that runner is loaded. The runners'
    names (lab.json's "runner") are C++'s alone."""
    import importlib

    module, _, name = program.rpartition(".")
    cls = getattr(importlib.import_module(f".{module}", __package__), name, None) if module else None
    if not (isinstance(cls, type) and issubclass(cls, Program)):
        raise RuntimeError(f"lab runner: {program!r} is not a program class of {__package__} (module.Class)")
    return cls


def load(path: str, kernel: str, arguments, workload: lb_variant.Workload, block, grid: str, line_info: bool,
         exact_buffers: bool = False, output_starts_zero: bool = False, sm_count: int = 1,
         program: str = "kernel_text.PycudaProgram", cubin: bytes = b"") -> Program:
    """The student's file, loaded for the lab by the runner's `program` class (module.Class, as
    lab/runners/runners.cpp registers it; lab/runners/python/python_student_embedded.cpp calls
    this): `cubin` is the file compiled for this GPU in the limited compile process, `workload` the
    lab's workload's descriptor, `output_starts_zero` the spec's output_starts ("zero"), `sm_count`
    the device's (the grid-stride rule's grid)."""
    return program_class(program)(path, kernel, arguments, workload, block, grid, line_info, exact_buffers,
                                output_starts_zero, sm_count, cubin)
