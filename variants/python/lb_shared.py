"""What the Python layers share, as variants/gpu_launch.h is for the C++ ones: where our kernel
text is, and the launch shapes every layer uses for it, so that a Python layer launches the same
kernel with the same grid as `runtime` and `driver` and any difference in time is the layer's;
our on-disk cache of what NVRTC made from that text; and which CUDA libraries a layer loaded.

The adapter (python_layer.cpp) puts this folder on sys.path."""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import time
import warnings
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]
INCLUDE_DIR = str(SOURCE_ROOT)  # kernels.cu includes "workloads/launch_config.h"


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


def _launch_config() -> dict[str, int]:
    text = (SOURCE_ROOT / "workloads" / "launch_config.h").read_text()
    return {name: int(value) for name, value in re.findall(r"#define (LB_\w+) (\d+)", text)}


CONFIG = _launch_config()
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


def matmul_grid(m: int, n: int) -> tuple[int, int]:
    """matmul_tiled: (tiles along N, tiles along M)."""
    return ((n + CONFIG["LB_MM_BN"] - 1) // CONFIG["LB_MM_BN"], (m + CONFIG["LB_MM_BM"] - 1) // CONFIG["LB_MM_BM"])


# --- our on-disk cache of NVRTC output, for the Python layers that call NVRTC themselves --------
# The driver layer keeps one (variants/driver/nvrtc_compiler.cpp); CuPy keeps its own. A key hashes
# everything that changes the CUBIN: the kernel text and the header it includes, the compiler and
# its version, the options and the target. Entries carry a hash of their content, so a truncated or
# corrupt one is compiled again and rewritten, never loaded.

_cache_dir: Path | None = None
_MAGIC = b"LBCUBIN1"


def default_cache_dir() -> Path:
    """As the driver layer's: $LAYERBENCH_KERNEL_CACHE, $XDG_CACHE_HOME/layerbench/kernels, ~/.cache/..."""
    if os.environ.get("LAYERBENCH_KERNEL_CACHE"):
        return Path(os.environ["LAYERBENCH_KERNEL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "layerbench" / "kernels"


def configure_cache(enabled: bool, directory: str) -> None:
    """Called by the adapter when a Python layer's session opens (--kernel-cache, --no-kernel-cache)."""
    global _cache_dir
    _cache_dir = (Path(directory) if directory else default_cache_dir()) if enabled else None


def _cache_key(workload: str, compiler: str, options: list[str], sm: int) -> str:
    digest = hashlib.sha256()
    for part in (kernel_source(workload), (SOURCE_ROOT / "workloads" / "launch_config.h").read_text(),
                 compiler, *options, f"sm_{sm}"):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def cached_cubin(workload: str, sm: int, compiler: str, options: list[str], compile_cubin) -> tuple[bytes, str, float]:
    """(CUBIN, "compiled" or "cache hit", milliseconds): the cached CUBIN of our kernel text for
    `workload`, else `compile_cubin()`'s, written to the cache for the next run."""
    t0 = time.perf_counter()
    path = None
    if _cache_dir is not None:
        path = _cache_dir / f"py-{workload}-sm{sm}-{_cache_key(workload, compiler, options, sm)[:24]}.cubin"
        try:
            entry = path.read_bytes()
            head, digest, cubin = entry[:8], entry[8:40], entry[40:]
            if head == _MAGIC and hashlib.sha256(cubin).digest() == digest:
                return cubin, "cache hit", (time.perf_counter() - t0) * 1e3
        except OSError:
            pass  # no entry yet, or unreadable: compile
    cubin = compile_cubin()
    ms = (time.perf_counter() - t0) * 1e3
    if path is not None:
        try:  # best effort, as the driver layer's: a cache that cannot be written costs a compile
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
            tmp.write_bytes(_MAGIC + hashlib.sha256(cubin).digest() + cubin)
            os.replace(tmp, path)
        except OSError:
            pass
    return cubin, "compiled", ms


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
