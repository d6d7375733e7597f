"""kernels.cu against workload.json: the kernel's declared parameters read from its text, checked
against the spec's arguments, and the text compiled once with NVRTC (for sm_90, no GPU needed), so a
mismatch or a compile error is one line naming the user's file and line before anything runs.
Split from workload_folder.py, which re-exports these names."""
from __future__ import annotations

import re
from pathlib import Path

from workload_formula import WorkloadFolderError

# The C spellings a parameter of each element type may use in kernels.cu. No int32_t or int64_t:
# NVRTC compiles the text without host headers, where neither is defined.
C_SPELLINGS = {
    "float": {"float"}, "double": {"double"},
    "int": {"int", "signed int"},
    "long long": {"long long", "long long int", "signed long long", "long"},
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


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)(.*)$")
# Macros NVRTC defines whenever it compiles a kernel: `#ifdef __CUDACC__` is live.
_ALWAYS_DEFINED = {"__CUDACC__", "__CUDACC_RTC__", "__CUDA_ARCH__", "__NVCC__"}


def _condition(directive: str, rest: str, defined: set[str]) -> bool | None:
    """An #if / #ifdef / #ifndef / #elif's value where the reader can know it (a whole number, a
    macro's being defined), else None."""
    rest = rest.strip()
    if directive in ("ifdef", "ifndef"):
        name = rest.split()[0] if rest.split() else ""
        return (name in defined) == (directive == "ifdef")
    if re.fullmatch(r"\d+", rest):
        return int(rest) != 0
    match = re.fullmatch(r"(!?)\s*defined\s*\(?\s*(\w+)\s*\)?", rest)
    if match:
        return (match.group(2) in defined) != bool(match.group(1))
    return None


def live_lines(clean: str, on_directive=None) -> list[bool | None]:
    """For each line of `clean` (comments stripped): True where the preprocessor keeps it, False in
    a block it drops (`#if 0`, the `#else` of `#if 1`, `#ifdef` of a macro the file never
    defines), None inside a condition the reader cannot evaluate (`#if __CUDA_ARCH__ >= 800`).
    Directive lines themselves are False: no declaration is on them. `on_directive(directive, rest,
    state, line_index)`, if given, is called for each, with the state of the block around it."""
    defined = set(_ALWAYS_DEFINED)
    stack: list[list] = []   # [value of this branch, whether an earlier branch was taken, enclosing]
    live: list[bool | None] = []

    def current() -> bool | None:
        return stack[-1][0] if stack else True

    for line in clean.split("\n"):
        match = _DIRECTIVE.match(line)
        if not match:
            live.append(current())
            continue
        directive, rest = match.group(1), match.group(2)
        outer = current()
        if on_directive:
            on_directive(directive, rest, outer, len(live))
        if directive in ("if", "ifdef", "ifndef"):
            value = _condition(directive, rest, defined)
            branch = False if outer is False else (None if outer is None or value is None else value)
            stack.append([branch, value, outer])
        elif directive in ("elif", "else") and stack:
            _, taken, enclosing = stack[-1]
            value = True if directive == "else" else _condition("if", rest, defined)
            if taken is True:
                branch, now_taken = False, True
            elif taken is None or value is None:
                branch, now_taken = None, None
            else:
                branch, now_taken = value, value
            stack[-1] = [False if enclosing is False else (None if enclosing is None and branch is not False else branch),
                         now_taken, enclosing]
        elif directive == "endif" and stack:
            stack.pop()
        elif directive == "define" and outer is True and rest.split():
            defined.add(re.match(r"\w+", rest.strip()).group(0))
        elif directive == "undef" and outer is True and rest.split():
            defined.discard(rest.split()[0])
        live.append(False)
    return live


_UNKNOWN = object()     # a macro defined inside a condition the reader cannot evaluate
_FUNCTION_LIKE = object()


def _macros(clean: str, upto: int) -> tuple[list[bool | None], dict]:
    """live_lines(clean), and the object-like macros (`#define T float`) in force at line `upto`
    (1-based): name -> replacement text, _UNKNOWN where a condition the reader cannot evaluate
    decides it, _FUNCTION_LIKE for `#define F(x) ...`."""
    macros: dict = {}

    def directive(name, rest, state, index):
        if index + 1 >= upto or state is False:
            return
        if name == "define" and (m := re.match(r"\s*([A-Za-z_]\w*)(\()?(.*)$", rest)):
            macros[m.group(1)] = (_UNKNOWN if state is None or m.group(3).rstrip().endswith("\\") else
                                  _FUNCTION_LIKE if m.group(2) else m.group(3).strip())
        elif name == "undef" and rest.split():
            macros[rest.split()[0]] = _UNKNOWN if state is None else None
    return live_lines(clean, directive), macros


def _expand(decl: str, macros: dict, where, kernel: str, pname: str) -> str:
    """`decl` with each object-like macro replaced by its text, as the preprocessor would (a macro
    is not expanded again inside its own expansion); one line saying why where it cannot be."""
    def word(match, seen=frozenset()):
        name = match.group(0)
        value = macros.get(name)
        if value is None or name in seen:
            return name
        if value is _UNKNOWN:
            raise WorkloadFolderError(where, f"kernel {kernel} parameter {pname}",
                                      f"is typed through macro {name}, whose #define depends on a condition the signature "
                                      "reader cannot evaluate: define it outside the condition, or spell the type")
        if value is _FUNCTION_LIKE:
            raise WorkloadFolderError(where, f"kernel {kernel} parameter {pname}",
                                      f"is typed through the function-like macro {name}(...), which the signature reader "
                                      "does not expand (it expands #define NAME text): spell the type")
        return re.sub(r"[A-Za-z_]\w*", lambda m: word(m, seen | {name}), value)
    return re.sub(r"[A-Za-z_]\w*", word, decl)


def kernel_parameters(text: str, kernel: str, path: Path) -> tuple[int, list[tuple[str, str]]]:
    """(line, [(declared type, parameter name), ...]) of `extern "C" __global__ void kernel(...)`,
    read where the preprocessor keeps it: a signature inside `#if 0` (or any block the file's
    conditions drop) is not the kernel's. One inside a condition this reader cannot evaluate is
    refused in one line, as is a kernel declared twice where both are live. A parameter's type may
    come through an object-like macro (`#define T float`, `T* x`): the declared type returned is
    the expanded one, as NVRTC reads it."""
    clean = _strip_comments(text)
    live = live_lines(clean)
    pattern = re.compile(r'__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
                         + re.escape(kernel) + r'\s*\(([^)]*)\)')
    matches = []
    for candidate in pattern.finditer(clean):
        line = clean.count("\n", 0, candidate.start()) + 1
        state = live[line - 1]
        if state is None:
            raise WorkloadFolderError(f"{path}:{line}", f"kernel {kernel}",
                                      "is declared inside a preprocessor condition the signature reader cannot evaluate "
                                      "(it knows #if 0/1, #ifdef and defined()): declare the kernel outside it")
        if state:
            matches.append((candidate, line))
    if not matches:
        raise WorkloadFolderError(path, f"kernel {kernel}", 'no `__global__ void ' + kernel + '(...)` in the file (workload.json\'s kernel.name)')
    if len(matches) > 1:
        raise WorkloadFolderError(f"{path}:{matches[1][1]}", f"kernel {kernel}", f"is declared again (first at line {matches[0][1]})")
    match, line = matches[0]
    _, macros = _macros(clean, line)
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
        decl = _expand(decl, macros, f"{path}:{line}", kernel, name.lstrip("*"))
        params.append((decl + "*" * stars, name.lstrip("*")))
    return line, params


_COMPILED: dict = {}   # (kernel text, path, arch) -> (PTX, ptxas's -v log): one compile per folder and arch


def nvrtc_compile(w: "WorkloadFolder", arch: str = "sm_90") -> tuple[str, str]:
    """kernels.cu compiled with NVRTC for `arch` (a real one, sm_90: PTX and CUBIN, no GPU needed),
    as the kernel-text layers will, with ptxas's verbose report (`--ptxas-options=-v`: each
    kernel's registers and static shared memory). (PTX, log); WorkloadFolderError with the log's
    first error, which names kernels.cu and its line ("/path/kernels.cu(12): error: ..."). Needs
    cuda.bindings (cuda-python)."""
    path = str(w.path / "kernels.cu")
    key = (w.kernel_text, path, arch)
    if key in _COMPILED:
        return _COMPILED[key]
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise WorkloadFolderError(w.path / "kernels.cu", "", f"cannot be compiled here: cuda.bindings does not import ({e})") from None

    def ok(result, what):
        err, *rest = result
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise WorkloadFolderError(path, "", f"NVRTC {what} failed: {err.name}")
        return rest[0] if rest else None

    def text(size_call, get_call, what) -> str:
        buffer = b" " * ok(size_call(program), what + "Size")
        ok(get_call(program, buffer), what)
        return buffer.rstrip(b"\0 ").decode(errors="replace")

    program = ok(nvrtc.nvrtcCreateProgram(w.kernel_text.encode(), path.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        options = [b"-std=c++17", f"--gpu-architecture={arch}".encode(), b"--ptxas-options=-v"]
        (err,) = nvrtc.nvrtcCompileProgram(program, len(options), options)
        log = text(nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog, "nvrtcGetProgramLog")
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            lines = log.splitlines()
            first = next((line for line in lines if ": error" in line or "ptxas error" in line), lines[0] if lines else err.name)
            errors = sum(": error" in line or "ptxas error" in line for line in lines)
            more = f" (and {errors - 1} more errors)" if errors > 1 else ""
            if "ptxas error" in first:   # after the front end: the kernel as a whole, no line of kernels.cu
                detail = first.split("ptxas error", 1)[1].strip(" :")
                raise WorkloadFolderError(path, "", f"does not compile for {arch} (NVRTC's ptxas): {detail}{more}")
            raise WorkloadFolderError(first.strip(), "", f"does not compile (NVRTC){more}")
        ptx = text(nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX, "nvrtcGetPTX")
    finally:
        ok(nvrtc.nvrtcDestroyProgram(program), "nvrtcDestroyProgram")
    _COMPILED[key] = (ptx, log)
    return ptx, log


def nvrtc_check(w: "WorkloadFolder", arch: str = "sm_90", limits: "dict | None | bool" = True) -> None:
    """kernels.cu compiled for `arch` (nvrtc_compile: one line for a compile error), then each
    launch checked against what the compile says the kernel needs (workload_launch.check_launches)
    and `limits`: True (the default, the standalone check) is sm_90's; False checks none (the
    harness checks them against its GPU's before any case: app/folder_checks.cpp)."""
    nvrtc_compile(w, arch)
    if limits is not False:
        from workload_launch import check_launches
        check_launches(w, None if limits is True else limits)


def check_parameters(params, arguments, where, kernel, field="kernel.arguments", in_sequence=False) -> set[str]:
    """kernels.cu's parameters against workload.json's: the same count, each of the type its
    buffer, scalar or dimension says (an input may drop its const), and each named as its
    argument is (swapped m and n pass every square size; the names catch them). In a sequence of
    kernels an output may be const in a kernel that only reads it (a later pass reading an earlier
    one's result); the caller checks that some kernel writes it. Returns the output and in/out
    buffers this kernel takes writable."""
    written: set[str] = set()
    if len(params) != len(arguments):
        raise WorkloadFolderError(where, f"kernel {kernel}", f"takes {len(params)} parameters; workload.json's kernel.arguments lists {len(arguments)} ({', '.join(a.name for a in arguments)})")
    for i, ((declared, pname), arg) in enumerate(zip(params, arguments)):
        base, pointer, const = _normalise_c_type(declared)
        want_base, want_pointer, _ = _normalise_c_type(arg.c_type)
        writes = arg.kind in ("output", "inout")
        if not (const and writes):
            written.add(arg.name)
        if base not in C_SPELLINGS[want_base] or pointer != want_pointer or (writes and const and not in_sequence):
            raise WorkloadFolderError(where, f"kernel {kernel} parameter {i + 1} ({pname})",
                                      f"is {declared!r}; workload.json's {arg.name!r} ({arg.kind}) needs {arg.c_type!r}")
        if pname != arg.name:
            raise WorkloadFolderError(where, f"kernel {kernel} parameter {i + 1}",
                                      f"is named {pname!r}; workload.json's {field}[{i}] is {arg.name!r} (rename one of them)")
    return written
