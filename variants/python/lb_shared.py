"""What the Python layers share, as variants/gpu_launch.h is for the C++ ones: where our kernel
text is, and the launch shapes every layer uses for it, so that a Python layer launches the same
kernel with the same grid as `runtime` and `driver` and any difference in time is the layer's;
the way into the one on-disk cache of compiled kernels (the driver layer's, in C++); and which
CUDA libraries a layer loaded. What a variant is and receives: lb_variant.

The launch constants and the kernel cache come from C++, through lb_native
(variants/python/lb_native.cpp): inside layerbench it is a module built into the binary, with the
constants this build compiled; outside it (tests/python, a variant run by hand) it is the extension
module the build writes to <build>/python, found through $LB_NATIVE_DIR, $LB_PYTHON_MODULE_DIR or
<source>/build/python.

The adapter (python_layer.cpp) puts this folder on sys.path."""
from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]
INCLUDE_DIR = str(SOURCE_ROOT)  # kernels.cu includes "workloads/launch_config.h"


def _import_native():
    """lb_native: the embedded module inside layerbench (a builtin: found first), else the
    extension module of a build, from the first of $LB_NATIVE_DIR, $LB_PYTHON_MODULE_DIR and
    <source>/build/python that has it."""
    try:
        return importlib.import_module("lb_native")
    except ImportError:
        pass
    folders = [os.environ.get("LB_NATIVE_DIR"), os.environ.get("LB_PYTHON_MODULE_DIR"),
               str(SOURCE_ROOT / "build" / "python")]
    for folder in filter(None, folders):
        for found in sorted(Path(folder).glob("lb_native*.so")):
            # Loaded from its file, the search path untouched; one built for another Python is
            # skipped (its suffix names that Python's ABI), one that fails to load raises its error.
            if not found.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                continue
            spec = importlib.util.spec_from_file_location("lb_native", found)
            module = importlib.util.module_from_spec(spec)
            sys.modules["lb_native"] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules["lb_native"]
                raise
            return module
    raise ImportError("lb_native (the launch constants and the kernel cache, variants/python/lb_native.cpp) is "
                      "not built: build layerbench (cmake --build build) and set $LB_NATIVE_DIR to <build>/python "
                      "if the build folder is not <source>/build")


lb_native = _import_native()


def import_quietly(module: str) -> None:
    """Imports a layer's package for the adapter. Warnings printed meanwhile (cuda.compute's
    "libcuda.so.1 not found" on a machine without a GPU, say) would land among the harness's own
    stderr lines; a package that cannot work says so by failing, and its layer is unavailable."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        importlib.import_module(module)


# --- what a library says about a case: its performance warnings, kept in the case's notes ----------
# A performance warning (Numba's "Grid size 1 will likely result in GPU under-utilization due to
# low occupancy.", at every small launch) is advice about the case under way, not an error: the
# adapter (python_layer.cpp) sets `case_notes` to a list of the case's own around each call it makes
# into a variant, and such a warning goes there, one entry per distinct text, and from there into
# the results (benchmarks[].notes), not to the console. Every other warning is shown as Python
# shows it. A layer's support module names its library's categories (lb_numba, at import).

case_notes: list[str] | None = None  # the notes of the case whose call is under way (set by the adapter)
_noted: tuple[type, ...] = ()        # the categories routed into case_notes
_quiet_outside: list[re.Pattern] = []
_shown_outside: set[str] = set()
_show_as_python_does = warnings.showwarning  # what showed warnings before note_warnings()
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def note_warnings(category: type[Warning], quiet_outside: str = "") -> None:
    """Warnings of `category` go into the notes of the case under way. Each case gets them, not
    only the first case of the process (Python's default shows a text once per place): the filter
    for the category is "always", and each case's list keeps a text once. Outside a case (the
    Python labs, a test) one is shown once per process, as Python's default would, unless its text
    matches `quiet_outside` (a regular expression): then it is not shown at all."""
    global _noted, _show_as_python_does
    if category not in _noted:
        _noted += (category,)
        warnings.filterwarnings("always", category=category)
    if quiet_outside and quiet_outside not in (p.pattern for p in _quiet_outside):
        _quiet_outside.append(re.compile(quiet_outside))
    if warnings.showwarning is not _show:
        _show_as_python_does, warnings.showwarning = warnings.showwarning, _show


def _show(message, category, filename, lineno, file=None, line=None):
    if not (_noted and issubclass(category, _noted)):
        return _show_as_python_does(message, category, filename, lineno, file, line)
    text = f"{category.__name__}: {_ANSI.sub('', str(message)).strip()}"
    if case_notes is not None:
        if text not in case_notes:
            case_notes.append(text)
    elif text not in _shown_outside and not any(p.search(text) for p in _quiet_outside):
        _shown_outside.add(text)
        _show_as_python_does(message, category, filename, lineno, file, line)


def missing_package(module: str) -> str:
    """The package of `module` when it is not installed: "pycuda" for "pycuda.driver",
    "cuda.bindings" for "cuda.bindings.driver" (below a namespace package); "" when it is. Imports
    nothing but namespace packages (which run no code): the adapter asks this on a machine without a
    GPU, where importing some packages fails for want of libcuda.so.1 (PyCUDA's), which says nothing
    about whether they are installed. A package found is taken as installed; its submodules are not
    looked for."""
    parts = module.split(".")
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return name
        if spec is None:
            return name
        if spec.origin is not None or spec.submodule_search_locations is None:
            return ""  # a regular package or a module: there
    return ""


def kernel_source(workload: str) -> str:
    """workloads/<workload>/kernels.cu: the text nvcc compiles for `runtime` and NVRTC for `driver`."""
    return (SOURCE_ROOT / "workloads" / workload / "kernels.cu").read_text()


@dataclass(frozen=True)
class KernelText:
    """A kernel text other than our workloads/<workload>/kernels.cu: a workload folder's
    kernels.cu (`run --workload-dir`, lb_folder.py). `workload` keys a session's module and the
    kernel cache's entry; `file` is the path a compiler's log names (the user's own file)."""
    workload: str
    text: str
    file: str


# workloads/launch_config.h's constants as this build compiled them (the macros' values, handed
# over by lb_native), never read from the file: a layer launches with the numbers the C++ layers
# and the kernel text were built with.
CONFIG: dict[str, int] = dict(lb_native.LAUNCH_CONFIG)
BLOCK = CONFIG["LB_BLOCK"]
MM_THREADS = CONFIG["LB_MM_THREADS"]


def grid_stride_blocks(items: int, sm_count: int) -> int:
    """Blocks for a grid-stride loop over `items`: enough to fill every SM, no more than needed."""
    needed = max(1, (items + BLOCK - 1) // BLOCK)
    return min(needed, sm_count * CONFIG["LB_BLOCKS_PER_SM"])


def flat_blocks(n: int) -> int:
    """vector_add and saxpy: one thread per float4, plus one per leftover element."""
    threads = n // 4 + n % 4
    return max(1, (threads + BLOCK - 1) // BLOCK)


def matmul_grid(m: int, n: int, k: int, sm_count: int) -> tuple[int, int, int]:
    """matmul_tiled: (tiles along N, tiles along M, splits of K), chosen by the C++ layers' own
    function (variants/gpu_launch.h's matmul_grid, through lb_native)."""
    return tuple(lb_native.matmul_grid(m, n, k, sm_count))


# transpose's constants are read at the call, not at import: every Python layer imports this module,
# and none should fail for a #define only transpose uses.
def transpose_grid(m: int, n: int) -> tuple[int, int]:
    """transpose of an M x N A: (tiles along N, tiles along M), LB_TR_TILE square."""
    tile = CONFIG["LB_TR_TILE"]
    return ((n + tile - 1) // tile, (m + tile - 1) // tile)


def transpose_block() -> tuple[int, int]:
    """transpose: LB_TR_BLOCK_X x LB_TR_ROWS threads, threadIdx.x a float4 of a tile row, each
    thread LB_TR_TILE / LB_TR_ROWS rows of a tile."""
    return (CONFIG["LB_TR_BLOCK_X"], CONFIG["LB_TR_ROWS"])


def program_name(layer: str, workload: str) -> str:
    """The name a layer gives NVRTC for our kernel text: "<layer>/workloads/<workload>/kernels.cu",
    its own. NVRTC keeps, for the rest of the process, what it made of a program's PTX, and a
    program of the same text under the same name compiles to the same PTX: measured on an H100, the
    matmul text compiled in 3336 ms, then again (also with a -D or a comment added) in 36 ms, and
    under another name in 2938 ms. Under the driver layer's name, cuda.bindings and cuda.core would
    report the driver layer's compile reused: not what a user of either layer pays."""
    return f"{layer}/workloads/{workload}/kernels.cu"


# --- the kernel cache: the driver layer's, one key scheme and one file format ----------------------
# For the Python layers that call a compiler themselves (cuda.bindings' NVRTC, cuda.core's Program).
# The cache is C++'s (variants/nvrtc/kernel_cache.h, through lb_native): a key hashes everything
# that changes the CUBIN (the compiler's name and version, the options, the target, the text and
# the headers it includes), and an entry carries a hash of its content, so a truncated or corrupt
# one is compiled again and rewritten, never loaded. Which cache (its folder, or off) is the run's
# (--kernel-cache, --no-kernel-cache): the layer's session has it (lb_variant.Session.kernel_cache).

_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def kernel_headers(text: str) -> list[tuple[str, str]]:
    """The project's headers `text` includes ("workloads/launch_config.h"), directly or through
    another, with their texts, found from INCLUDE_DIR as the compilers find them: part of the key."""
    found: dict[str, str] = {}
    pending = _INCLUDE.findall(text)
    while pending:
        name = pending.pop(0)
        path = SOURCE_ROOT / name
        if name in found or not path.is_file():
            continue
        found[name] = path.read_text()
        pending += _INCLUDE.findall(found[name])
    return sorted(found.items())


def cached_cubin(cache, workload: str, text: str, options: list[str], sm: int, compiler: str,
                 compile_cubin) -> tuple[bytes, str, float]:
    """(CUBIN, "compiled" or "cache hit", milliseconds): the CUBIN of `text` (workload's
    kernels.cu, or a replacement) from `cache` (an lb_native.KernelCache, None: off), else
    compile_cubin()'s, written there for the next run. `compiler` names the compiler and its
    version, which make the CUBIN as much as the text does."""
    if cache is None:
        cache = lb_native.KernelCache("", False)
    cubin, hit, ms, _file = lb_native.cached_cubin(cache, f"workloads/{workload}/kernels.cu", text, list(options), sm,
                                                   compiler, compile_cubin, kernel_headers(text))
    return cubin, "cache hit" if hit else "compiled", ms


# --- which CUDA libraries a layer uses ------------------------------------------------------------

def libraries(names: tuple[str, ...], versions: dict[str, str]) -> dict[str, dict[str, str]]:
    """For each CUDA library a layer loads (pathfinder's names: "nvrtc", "cudart", "cublas"), the
    file it comes from, found the way the layer's own package finds it: CuPy 14 and cuda.bindings 13
    both load these libraries through cuda.pathfinder, which returns the one it loaded. `versions`
    is what the layer's library reports about each. A mismatch here (a pip-installed NVRTC beside a
    system CUDA runtime of another version, say) is the commonest way a Python CUDA setup breaks."""
    from cuda import pathfinder

    found = {}
    for name in names:
        entry = {"version": versions.get(name, "")}
        try:
            loaded = pathfinder.load_nvidia_dynamic_lib(name)
            entry.update(path=loaded.abs_path or "", found_via=getattr(loaded, "found_via", "") or "")
        except Exception as e:  # the library is missing: say so instead of failing the listing
            entry["error"] = f"{type(e).__name__}: {e}"
        found[name] = entry
    return found


def mapped_libraries(names: tuple[str, ...], versions: dict[str, str]) -> dict[str, dict[str, str]]:
    """For each CUDA library name ("cudart", "cublas"), the file this process has mapped whose name
    is lib<name>.so...: where a framework that loads its CUDA libraries itself (PyTorch from the
    nvidia-* wheels beside it, JAX's CUDA plugin) found them, read after it loaded them. A name not
    mapped says so; `versions` is what the framework reports about each."""
    mapped: dict[str, str] = {}
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(maxsplit=5)[-1].strip() if line.count(" ") >= 5 else ""
                base = os.path.basename(path)
                for name in names:
                    if name not in mapped and base.startswith(f"lib{name}.so"):
                        mapped[name] = path
    except OSError as e:
        return {name: {"version": versions.get(name, ""), "error": f"cannot read /proc/self/maps: {e}"}
                for name in names}
    found = {}
    for name in names:
        entry = {"version": versions.get(name, "")}
        if name in mapped:
            entry.update(path=mapped[name], found_via="mapped by this process (/proc/self/maps)")
        else:
            entry["error"] = "not loaded by this process"
        found[name] = entry
    return found
