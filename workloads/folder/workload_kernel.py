"""kernels.cu against workload.json: the kernel's declared parameters read from its text, checked
against the spec's arguments, and the text compiled once with NVRTC (to PTX, no GPU needed), so a
mismatch or a compile error is one line naming the user's file and line before anything runs.
Split from workload_folder.py, which re-exports these names."""
from __future__ import annotations

import re
from pathlib import Path

from workload_formula import WorkloadFolderError

# The C spellings a parameter of each element type may use in kernels.cu.
C_SPELLINGS = {
    "float": {"float"}, "double": {"double"},
    "int": {"int", "int32_t", "signed int"},
    "long long": {"long long", "long long int", "signed long long", "int64_t", "long"},
}


def _strip_comments(text: str) -> str:
    """kernels.cu without comments, each comment replaced by as many newlines as it held, so line
    numbers stay."""
    def blank(match):
        return "\n" * match.group(0).count("\n") if match.group(0).startswith("/") else match.group(0)
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"', blank, text, flags=re.S)


def _normalise_c_type(text: str) -> tuple[str, bool, bool]:
    """('float', is_pointer, is_const) from a parameter's declaration without its name."""
    words = text.replace("*", " * ").split()
    pointer = "*" in words
    const = "const" in words
    base = " ".join(w for w in words if w not in ("*", "const", "__restrict__", "__restrict", "restrict",
                                                  "volatile", "unsigned", "signed"))
    return base, pointer, const


def kernel_parameters(text: str, kernel: str, path: Path) -> tuple[int, list[tuple[str, str]]]:
    """(line, [(declared type, parameter name), ...]) of `extern "C" __global__ void kernel(...)`."""
    clean = _strip_comments(text)
    pattern = re.compile(r'__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
                         + re.escape(kernel) + r'\s*\(([^)]*)\)')
    match = pattern.search(clean)
    if match is None:
        raise WorkloadFolderError(path, f"kernel {kernel}", 'no `__global__ void ' + kernel + '(...)` in the file (workload.json\'s kernel.name)')
    line = clean.count("\n", 0, match.start()) + 1
    if 'extern "C"' not in clean[:match.start()]:
        raise WorkloadFolderError(f"{path}:{line}", f"kernel {kernel}", 'must be declared extern "C" (so every layer finds it by name)')
    params = []
    body = match.group(1).strip()
    for part in ([] if body in ("", "void") else body.split(",")):
        words = part.strip().rsplit(None, 1)
        if len(words) != 2 or not re.fullmatch(r"[A-Za-z_]\w*", words[1].lstrip("*")):
            raise WorkloadFolderError(f"{path}:{line}", f"kernel {kernel}", f"cannot read parameter {part.strip()!r}")
        decl, name = words
        stars = len(words[1]) - len(words[1].lstrip("*"))
        params.append((decl + "*" * stars, name.lstrip("*")))
    return line, params


def nvrtc_check(w: "WorkloadFolder", arch: str = "compute_90") -> None:
    """Compiles kernels.cu with NVRTC (to PTX: no GPU needed), as the kernel-text layers will, and
    raises WorkloadFolderError with the log's first error, which names kernels.cu and its line
    ("/path/kernels.cu(12): error: ..."). Needs cuda.bindings (cuda-python)."""
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise WorkloadFolderError(w.path / "kernels.cu", "", f"cannot be compiled here: cuda.bindings does not import ({e})") from None
    path = str(w.path / "kernels.cu")

    def ok(result, what):
        err, *rest = result
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise WorkloadFolderError(path, "", f"NVRTC {what} failed: {err.name}")
        return rest[0] if rest else None

    program = ok(nvrtc.nvrtcCreateProgram(w.kernel_text.encode(), path.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        options = [b"-std=c++17", f"--gpu-architecture={arch}".encode()]
        (err,) = nvrtc.nvrtcCompileProgram(program, len(options), options)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            size = ok(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
            log = b" " * size
            ok(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
            lines = log.decode(errors="replace").splitlines()
            first = next((line for line in lines if ": error" in line), lines[0] if lines else err.name)
            errors = sum(": error" in line for line in lines)
            more = f" (and {errors - 1} more errors)" if errors > 1 else ""
            raise WorkloadFolderError(first.strip(), "", f"does not compile (NVRTC){more}")
    finally:
        ok(nvrtc.nvrtcDestroyProgram(program), "nvrtcDestroyProgram")


def check_parameters(params, arguments, where, kernel):
    """kernels.cu's parameters against workload.json's: the same count, and each of the type its
    buffer, scalar or dimension says (an input may drop its const)."""
    if len(params) != len(arguments):
        raise WorkloadFolderError(where, f"kernel {kernel}", f"takes {len(params)} parameters; workload.json's kernel.arguments lists {len(arguments)} ({', '.join(a.name for a in arguments)})")
    for i, ((declared, pname), arg) in enumerate(zip(params, arguments)):
        base, pointer, const = _normalise_c_type(declared)
        want_base, want_pointer, _ = _normalise_c_type(arg.c_type)
        if base not in C_SPELLINGS[want_base] or pointer != want_pointer or (arg.kind == "output" and const):
            raise WorkloadFolderError(where, f"kernel {kernel} parameter {i + 1} ({pname})",
                                      f"is {declared!r}; workload.json's {arg.name!r} ({arg.kind}) needs {arg.c_type!r}")
