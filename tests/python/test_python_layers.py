"""The Python layers' CPU-side parts (no GPU needed): our kernel text compiles through
cuda.bindings.nvrtc exactly as the cuda-bindings layer compiles it, and lb_shared's launch shapes
are the ones variants/gpu_launch.h gives the C++ layers."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "variants" / "python"), str(ROOT / "variants" / "cuda-bindings")]

import lb_shared  # noqa: E402

WORKLOADS = ["vector_add", "saxpy", "reduce", "matmul", "launch"]


@pytest.mark.parametrize("workload", WORKLOADS)
def test_kernel_text_compiles_through_cuda_bindings_nvrtc(workload: str):
    pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings is not installed (variants/python/requirements.txt)")
    from _cuda_bindings_layer import compile_cubin

    cubin = compile_cubin(workload, 90)
    assert cubin[:4] == b"\x7fELF"  # a CUBIN is an ELF image


def test_a_compile_error_names_the_file():
    pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings is not installed")
    import _cuda_bindings_layer as layer

    original = lb_shared.kernel_source
    layer.lb_shared.kernel_source = lambda workload: "extern \"C\" __global__ void broken( {"
    try:
        with pytest.raises(RuntimeError, match=r"NVRTC could not compile workloads/vector_add/kernels\.cu"):
            layer.compile_cubin("vector_add", 90)
    finally:
        layer.lb_shared.kernel_source = original


def test_launch_shapes_follow_gpu_launch_h():
    assert lb_shared.BLOCK == 256 and lb_shared.MM_THREADS == 256
    assert lb_shared.flat_blocks(1) == 1
    assert lb_shared.flat_blocks(1000003) == (1000003 // 4 + 3 + 255) // 256
    assert lb_shared.grid_stride_blocks(1 << 26, 132) == 132 * 4
    assert lb_shared.grid_stride_blocks(100, 132) == 1
    assert lb_shared.matmul_grid(129, 257) == (3, 2)  # tiles of 128 along N, then along M
