"""The numba runner's compile process: `python3 -m layerbench.lab.numba_compile FILE KERNEL ARGUMENTS
CC OUT [--lineinfo] [--debug]`, started by the lab child (lab/runners/numba/numba_kernel.cpp) in a
process of its own, with resource limits, a scrubbed environment, its own working folder, no
standard input and no seed: the only process in which anything of the student's file runs.

Importing the file runs Python (a @cuda.jit signature string is eval'd by Numba, docs/labs.md says
why that matters), so it is imported here and nowhere else. This checks the file against the rules
again, imports it, compiles its kernel with Numba for compute capability CC (e.g. 90) and the lab's
ARGUMENTS (comma-separated names: their Numba types are rules.signature_of's), with the student's
own @cuda.jit options that change the code (fastmath, opt, debug, lineinfo, launch_bounds), and
writes OUT: {"ptx": ..., "entry": ...}, the PTX text and its kernel's mangled entry name. The
child trusts none of it but as a kernel: it checks OUT's size, that the PTX defines the entry, and
that the entry's parameters are the lab's; then it loads the PTX through the driver API and never
imports the file.

What the student's code prints here (or writes to standard output or error) is the student's
output: the child shows it, capped, and parses none of it. A failure exits 1 with the reason on
standard error (the child shows it as the compile error)."""
from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from .rules import StudentError, check_file, signature_of

# Numba's @cuda.jit options that change the PTX compile_ptx makes. The others the rules allow
# (inline, forceinline, max_registers, lto, shared_memory_carveout) concern Numba's own linking and
# launching, which the lab child does not use: the kernel is loaded from its PTX.
_PTX_OPTIONS = ("fastmath", "opt", "debug", "lineinfo", "launch_bounds")


def _student_frame(exc: BaseException, filename: str):
    """The innermost traceback entry in the student's file, or None."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == Path(filename).resolve():
            found = frame
    return found


def import_student_file(path: str, message) -> object:
    """The student's file imported as a module of its own name (this process is the only one that
    imports it: the compile processes'); StudentError "FILE:LINE: importing the file failed: ..."
    with `message(exception)`, the compiler's words for it, when its top-level code raises."""
    name = "lb_lab_student_" + "".join(ch if ch.isalnum() else "_" for ch in Path(path).stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # a name Python's file loaders do not take (not .py)
        raise ImportError(f"{path}: Python has no loader for this file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        frame = _student_frame(e, path)
        where = f"{path}:{frame.lineno}" if frame else path
        raise StudentError(f"{where}: importing the file failed: {message(e)}") from None
    return module


def numba_message(exc: BaseException, limit: int = 14) -> str:
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


def entry_names(ptx: str) -> list[str]:
    """The kernels (.entry) a PTX text defines."""
    return re.findall(r"^\s*(?:\.visible\s+)?\.entry\s+([A-Za-z_$][\w$]*)\s*\(", ptx, flags=re.MULTILINE)


def compile_kernel(path: str, kernel: str, arguments: list[str], cc: int, lineinfo: bool, debug: bool) -> dict:
    """The file's kernel compiled to PTX for sm_<cc> and the lab's `arguments`: {"ptx", "entry"}.
    StudentError when the file breaks the rules, does not import or does not compile."""
    keywords = check_file(path, kernel, len(arguments))
    signature = signature_of(arguments)
    from numba import cuda

    module = import_student_file(path, numba_message)
    dispatcher: Any = getattr(module, kernel, None)  # whatever the student's file defines by that name
    if not hasattr(dispatcher, "py_func"):
        raise StudentError(f"{path}: {kernel} is not a @cuda.jit kernel")
    options = {k: v for k, v in keywords.items() if k in _PTX_OPTIONS}
    if lineinfo and not options.get("debug"):
        options["lineinfo"] = True
    if debug:  # under compute-sanitizer: loads stay where the source makes them
        options.update(debug=True, opt=False)
    try:
        ptx, _ = cuda.compile_ptx(dispatcher.py_func, signature, cc=(cc // 10, cc % 10), **options)
    except Exception as e:
        raise StudentError(f"{path}: Numba could not compile {kernel} for {signature}:\n{numba_message(e)}") from None
    entries = entry_names(ptx)
    if len(entries) != 1:
        raise StudentError(f"{path}: Numba's PTX for {kernel} defines {len(entries)} kernels, not one")
    return {"ptx": ptx, "entry": entries[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m layerbench.lab.numba_compile",
                                     description="Compile a Numba lab file's kernel to PTX (the lab child runs this).")
    parser.add_argument("file")
    parser.add_argument("kernel")
    parser.add_argument("arguments", help="the lab's kernel arguments, comma-separated, e.g. a,b,c,n")
    parser.add_argument("cc", type=int, help="compute capability as 90 for 9.0")
    parser.add_argument("out", help="where the PTX and its entry name go (JSON)")
    parser.add_argument("--lineinfo", action="store_true")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = compile_kernel(args.file, args.kernel, args.arguments.split(","), args.cc, args.lineinfo, args.debug)
    except StudentError as e:
        print(e, file=sys.stderr)
        return 1
    with open(args.out, "x", encoding="utf-8") as out:  # "x": a file the student's code made first is refused
        json.dump(result, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
