"""What the Python layers share, as variants/gpu_launch.h is for the C++ ones: where our kernel
text is, and the launch shapes every layer uses for it, so that a Python layer launches the same
kernel with the same grid as `runtime` and `driver` and any difference in time is the layer's.

The adapter (python_layer.cpp) puts this folder on sys.path."""
from __future__ import annotations

import re
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]
INCLUDE_DIR = str(SOURCE_ROOT)  # kernels.cu includes "workloads/launch_config.h"


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
