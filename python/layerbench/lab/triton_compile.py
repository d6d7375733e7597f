"""The triton runner's compile process: `python3 -m layerbench.lab.triton_compile FILE KERNEL TYPES CC OUT
--num-warps N [--lineinfo] [--debug]`, started by the lab child (lab/runners/triton/triton_kernel.cpp)
as the numba runner's is (numba_compile.py): a process of its own, with resource limits, a scrubbed
environment, its own working folder, no standard input and no seed, the only process in which
anything of the student's file runs.

It checks the file against the Triton rules again (rules.check_triton_file), imports it, and
compiles its @triton.jit kernel with triton.compile(ASTSource(...), target=GPUTarget("cuda", CC,
32)), which needs no GPU: the signature from the lab's argument TYPES (their C types,
comma-separated: "const float*,float*,long long,long long"; TRITON_TYPES below), the constexpr
parameters from their defaults in the student's signature, num_warps N (the lab's block / 32: the
PTX's .reqntid, which the child launches it with). No specialization is asked for (no divisibility
or equal-to-1 assumptions): the kernel is right for every size the grade draws. It writes OUT:
{"ptx", "entry", "num_warps", "shared_bytes"}: the PTX text, its one kernel, and the dynamic
shared memory it needs. Triton 3.x appends two pointer parameters to the entry (global scratch and
profile scratch); a kernel that needs either of nonzero size is refused, so that the child passes
both as null (lab_kernel.h's KernelAbi::kTriton). The child trusts none of it but as a kernel: it
checks OUT's size and fields, the entry's parameter widths and the block, then loads the PTX
through the driver API and never imports the file.

Triton's cache (TRITON_CACHE_DIR, and TRITON_HOME) is the working folder's, removed with it: no
compiled kernel is shared between submissions. What the student's code prints (tl.static_print at
compile time, or anything at import) is the student's output: shown capped, never parsed. A
failure exits 1 with the reason on standard error; a Python that cannot import triton exits
NO_TRITON (3) with one line, the machine's fault and not the file's (the parent checks first:
triton_kernel.cpp's triton_unavailable_reason)."""
from __future__ import annotations

import argparse
import json
import os
import sys

from .numba_compile import entry_names, import_student_file
from .rules import StudentError, check_triton_file

NO_TRITON = 3  # triton_kernel.h's kTritonCompileNoTriton


class NoTriton(Exception):
    """This Python cannot import triton."""


# The Triton type of each C type a lab's kernel argument may have (workload.json's buffers and
# scalars, the built-in workloads' kernel_args): a buffer a pointer to its element type.
TRITON_TYPES = {
    "const float*": "*fp32", "float*": "*fp32", "const double*": "*fp64", "double*": "*fp64",
    "const int*": "*i32", "int*": "*i32", "const long long*": "*i64", "long long*": "*i64",
    "float": "fp32", "double": "fp64", "int": "i32", "long long": "i64",
}


def triton_message(exc: BaseException, limit: int = 14) -> str:
    """Triton's error, its first lines (a CompilationError names the line of the student's file and
    shows it)."""
    lines = [line.rstrip() for line in str(exc).splitlines() if line.strip()]
    if len(lines) > limit:
        lines = lines[:limit] + ["..."]
    return f"{type(exc).__name__}: " + "\n".join(lines)


def compile_kernel(path: str, kernel: str, types: list[str], cc: int, num_warps: int, lineinfo: bool,
                   debug: bool) -> dict:
    """The file's kernel compiled to PTX for sm_<cc>: {"ptx", "entry", "num_warps", "shared_bytes"}.
    StudentError when the file breaks the rules, does not import or does not compile."""
    checked = check_triton_file(path, kernel, len(types))
    unknown = [t for t in types if t not in TRITON_TYPES]
    if unknown:
        raise StudentError(f"{path}: the lab's argument types {unknown} have no Triton type (the lab's, not yours)")
    folder = os.getcwd()
    # Set here, not taken from the environment: no submission's compile reads another's cache.
    os.environ["TRITON_CACHE_DIR"] = os.path.join(folder, "triton-cache")
    os.environ["TRITON_HOME"] = folder
    # Line info is Triton's by default; a debug build (under compute-sanitizer) keeps device asserts.
    os.environ["TRITON_DISABLE_LINE_INFO"] = "0" if lineinfo or debug else "1"
    try:
        import triton
        from triton.backends.compiler import GPUTarget
    except ImportError as e:
        raise NoTriton(f"{sys.executable} cannot import triton ({type(e).__name__}: {e})") from None

    module = import_student_file(path, triton_message)
    fn = getattr(module, kernel, None)
    if not isinstance(fn, triton.runtime.jit.JITFunction):
        raise StudentError(f"{path}: {kernel} is not a @triton.jit kernel")
    signature = dict(zip(checked["parameters"], (TRITON_TYPES[t] for t in types)))
    signature.update({constexpr: "constexpr" for constexpr in checked["constexprs"]})
    options = {"num_warps": num_warps, "debug": debug}
    try:
        source = triton.compiler.ASTSource(fn, signature=signature, constexprs=checked["constexprs"])
        compiled = triton.compile(source, target=GPUTarget("cuda", cc, 32), options=options)
    except Exception as e:
        raise StudentError(f"{path}: Triton could not compile {kernel} for "
                           f"{', '.join(f'{k}: {v}' for k, v in signature.items())}:\n{triton_message(e)}") from None
    metadata = compiled.metadata
    for scratch in ("global_scratch_size", "profile_scratch_size"):
        if getattr(metadata, scratch, 0):
            raise StudentError(f"{path}: Triton's {kernel} needs {getattr(metadata, scratch)} bytes of "
                               f"{scratch.replace('_size', '').replace('_', ' ')} memory, which the lab's runner does "
                               "not allocate: write it without")
    if metadata.num_warps != num_warps or getattr(metadata, "num_ctas", 1) != 1:
        raise StudentError(f"{path}: Triton compiled {kernel} for {metadata.num_warps} warps in "
                           f"{getattr(metadata, 'num_ctas', 1)} CTAs, not the lab's {num_warps} in one")
    ptx = compiled.asm["ptx"]
    entries = entry_names(ptx)
    if entries != [metadata.name]:
        raise StudentError(f"{path}: Triton's PTX for {kernel} defines {len(entries)} kernels, not one")
    return {"ptx": ptx, "entry": metadata.name, "num_warps": metadata.num_warps, "shared_bytes": metadata.shared}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m layerbench.lab.triton_compile",
                                     description="Compile a Triton lab file's kernel to PTX (the lab child runs this).")
    parser.add_argument("file")
    parser.add_argument("kernel")
    parser.add_argument("types", help="the lab's kernel arguments' C types, comma-separated, e.g. "
                                      "'const float*,float*,long long,long long'")
    parser.add_argument("cc", type=int, help="compute capability as 90 for 9.0")
    parser.add_argument("out", help="where the PTX, its entry name and its launch go (JSON)")
    parser.add_argument("--num-warps", type=int, required=True, help="the lab's block / 32")
    parser.add_argument("--lineinfo", action="store_true")
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = compile_kernel(args.file, args.kernel, args.types.split(","), args.cc, args.num_warps,
                                args.lineinfo, args.debug)
    except StudentError as e:
        print(e, file=sys.stderr)
        return 1
    except NoTriton as e:
        print(e, file=sys.stderr)
        return NO_TRITON
    with open(args.out, "x", encoding="utf-8") as out:  # "x": a file the student's code made first is refused
        json.dump(result, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
