"""What the Python layers share, as variants/gpu_launch.h is for the C++ ones: where our kernel
text is, and the launch shapes every layer uses for it, so that a Python layer launches the same
kernel with the same grid as `runtime` and `driver` and any difference in time is the layer's;
our on-disk cache of what NVRTC made from that text; and which CUDA libraries a layer loaded.

The adapter (python_layer.cpp) puts this folder on sys.path."""
from __future__ import annotations

import hashlib
import importlib
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
