"""The Python layers' CPU-side parts (no GPU needed): our kernel text compiles through
cuda.bindings.nvrtc and cuda.core's Program exactly as the cuda-bindings and cuda-core layers
compile it, our on-disk cache of their CUBINs, and lb_shared's launch shapes are the ones
variants/gpu_launch.h gives the C++ layers."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "variants" / "python"), str(ROOT / "variants" / "cuda-bindings"),
                str(ROOT / "variants" / "cuda-core")]

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


@pytest.mark.parametrize("workload", WORKLOADS)
def test_kernel_text_compiles_through_cuda_core_program(workload: str):
    pytest.importorskip("cuda.core", reason="cuda-core is not installed (variants/python/requirements.txt)")
    from _cuda_core_layer import compile_cubin

    assert compile_cubin(workload, 90)[:4] == b"\x7fELF"


def test_a_cuda_core_compile_error_names_the_file_and_line(monkeypatch):
    pytest.importorskip("cuda.core", reason="cuda-core is not installed")
    import _cuda_core_layer as layer

    monkeypatch.setattr(layer.lb_shared, "kernel_source", lambda workload: "extern \"C\" __global__ void broken( {")
    with pytest.raises(Exception, match=r"workloads/vector_add/kernels\.cu\(1\): error"):
        layer.compile_cubin("vector_add", 90)


class CountingCompiler:
    def __init__(self, cubin: bytes = b"\x7fELF fake cubin"):
        self.cubin, self.calls = cubin, 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.cubin


def test_the_kernel_cache_compiles_once_then_reads(tmp_path):
    lb_shared.configure_cache(True, str(tmp_path))
    compiler = CountingCompiler()
    first = lb_shared.cached_cubin("saxpy", 90, "test-nvrtc 1.0", ["-a"], compiler)
    second = lb_shared.cached_cubin("saxpy", 90, "test-nvrtc 1.0", ["-a"], compiler)
    assert (first[:2], second[:2]) == ((compiler.cubin, "compiled"), (compiler.cubin, "cache hit"))
    assert compiler.calls == 1


@pytest.mark.parametrize("changed", [dict(sm=80), dict(compiler="test-nvrtc 1.1"), dict(options=["-b"]),
                                     dict(workload="vector_add")])
def test_the_kernel_cache_key_covers_target_compiler_options_and_text(tmp_path, changed):
    lb_shared.configure_cache(True, str(tmp_path))
    request = dict(workload="saxpy", sm=90, compiler="test-nvrtc 1.0", options=["-a"])
    lb_shared.cached_cubin(**request, compile_cubin=CountingCompiler())
    assert lb_shared.cached_cubin(**(request | changed), compile_cubin=CountingCompiler())[1] == "compiled"


@pytest.mark.parametrize("damage", [lambda b: b[:-3], lambda b: b[:40] + b"X" + b[41:], lambda b: b""])
def test_a_damaged_cache_entry_is_compiled_again_and_rewritten(tmp_path, damage):
    lb_shared.configure_cache(True, str(tmp_path))
    lb_shared.cached_cubin("saxpy", 90, "test-nvrtc 1.0", [], CountingCompiler())
    [entry] = tmp_path.iterdir()
    entry.write_bytes(damage(entry.read_bytes()))
    compiler = CountingCompiler()
    assert lb_shared.cached_cubin("saxpy", 90, "test-nvrtc 1.0", [], compiler)[:2] == (compiler.cubin, "compiled")
    assert lb_shared.cached_cubin("saxpy", 90, "test-nvrtc 1.0", [], compiler)[1] == "cache hit"


def test_no_kernel_cache_compiles_every_time(tmp_path):
    lb_shared.configure_cache(False, str(tmp_path))
    compiler = CountingCompiler()
    for _ in range(2):
        assert lb_shared.cached_cubin("saxpy", 90, "test-nvrtc 1.0", [], compiler)[1] == "compiled"
    assert compiler.calls == 2 and not any(tmp_path.iterdir())


def test_launch_shapes_follow_gpu_launch_h():
    assert lb_shared.BLOCK == 256 and lb_shared.MM_THREADS == 128
    assert lb_shared.flat_blocks(1) == 1
    assert lb_shared.flat_blocks(1000003) == (1000003 // 4 + 3 + 255) // 256
    assert lb_shared.grid_stride_blocks(1 << 26, 132) == 132 * 4
    assert lb_shared.grid_stride_blocks(100, 132) == 1
    assert lb_shared.matmul_grid(129, 257) == (3, 2)  # tiles of 128 along N, then along M
