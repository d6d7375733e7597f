"""The Python layers' CPU-side parts (no GPU needed): our kernel text compiles through
cuda.bindings.nvrtc and cuda.core's Program exactly as the cuda-bindings and cuda-core layers
compile it; their CUBINs go through the driver layer's kernel cache (C++, through lb_native's
extension module), in its key scheme and file format; lb_shared's launch shapes are the ones
variants/gpu_launch.h gives the C++ layers, from the constants this build compiled. The embedded
side (the same module inside layerbench) is tests/test_python_boundary.cpp's."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "variants" / "python"), str(ROOT / "variants" / "cuda-bindings"),
                str(ROOT / "variants" / "cuda-core")]

import lb_shared  # noqa: E402
import lb_variant  # noqa: E402
from lb_shared import lb_native  # noqa: E402

WORKLOADS = ["vector_add", "saxpy", "reduce", "matmul", "transpose", "launch"]


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
        with pytest.raises(RuntimeError, match=r"NVRTC could not compile cuda-bindings/workloads/vector_add/kernels\.cu"):
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


TEXT = "extern \"C\" __global__ void k() {}\n"


def cached(cache, compile_fn=None, **changed):
    request = dict(workload="saxpy", text=TEXT, options=["-a"], sm=90, compiler="test-nvrtc 1.0") | changed
    return lb_shared.cached_cubin(cache, compile_cubin=compile_fn or CountingCompiler(), **request)


def test_the_kernel_cache_compiles_once_then_reads(tmp_path):
    cache = lb_native.KernelCache(str(tmp_path), True)
    compiler = CountingCompiler()
    first, second = cached(cache, compiler), cached(cache, compiler)
    assert (first[:2], second[:2]) == ((compiler.cubin, "compiled"), (compiler.cubin, "cache hit"))
    assert compiler.calls == 1


@pytest.mark.parametrize("changed", [dict(sm=80), dict(compiler="test-nvrtc 1.1"), dict(options=["-b"]),
                                     dict(workload="vector_add"), dict(text=TEXT + "// edited\n")])
def test_the_kernel_cache_key_covers_target_compiler_options_and_text(tmp_path, changed):
    cache = lb_native.KernelCache(str(tmp_path), True)
    cached(cache)
    assert cached(cache, **changed)[1] == "compiled"


def test_the_key_covers_the_headers_the_text_includes(tmp_path):
    """A text that #includes workloads/launch_config.h is keyed with that header's text too."""
    text = lb_shared.kernel_source("reduce")
    assert ("workloads/launch_config.h", (ROOT / "workloads" / "launch_config.h").read_text()) in \
        lb_shared.kernel_headers(text)
    key = lb_native.cache_key("workloads/reduce/kernels.cu", text, [], 90, "c", lb_shared.kernel_headers(text))
    assert key != lb_native.cache_key("workloads/reduce/kernels.cu", text, [], 90, "c", [])


def test_an_entry_is_the_cpp_caches_file_in_its_format(tmp_path):
    """One cache: the file the C++ cache (variants/nvrtc/kernel_cache.cpp) names and writes, its key
    the one lb_native.cache_key computes as the driver layer's compiles do."""
    cached(lb_native.KernelCache(str(tmp_path), True))
    key = lb_native.cache_key("workloads/saxpy/kernels.cu", TEXT, ["-a"], 90, "test-nvrtc 1.0", [])
    [entry] = tmp_path.iterdir()
    assert entry.name == f"saxpy-kernels-sm90-{key}.cubin"
    magic, stored_key, size, _digest, payload = entry.read_bytes().split(b"\n", 4)
    assert (magic, stored_key.decode(), int(size), payload) == (b"layerbench-cubin 1", key, 15, b"\x7fELF fake cubin")


@pytest.mark.parametrize("damage", [lambda b: b[:-3], lambda b: b[:-5] + b"X" + b[-4:], lambda b: b""])
def test_a_damaged_cache_entry_is_compiled_again_and_rewritten(tmp_path, damage):
    cache = lb_native.KernelCache(str(tmp_path), True)
    cached(cache)
    [entry] = tmp_path.iterdir()
    entry.write_bytes(damage(entry.read_bytes()))
    compiler = CountingCompiler()
    assert cached(cache, compiler)[:2] == (compiler.cubin, "compiled")
    assert cached(cache, compiler)[1] == "cache hit"


def test_no_kernel_cache_compiles_every_time(tmp_path):
    for cache in (lb_native.KernelCache(str(tmp_path), False), None):  # None: outside the harness
        compiler = CountingCompiler()
        for _ in range(2):
            assert cached(cache, compiler)[1] == "compiled"
        assert compiler.calls == 2 and not any(tmp_path.iterdir())


def test_a_compile_error_goes_through_the_cache_unchanged(tmp_path):
    def broken():
        raise ValueError("the layer's compiler said no")
    with pytest.raises(ValueError, match="said no"):
        cached(lb_native.KernelCache(str(tmp_path), True), broken)
    assert not any(tmp_path.iterdir())


def test_a_layer_sessions_compile_lands_in_the_cache_and_is_read_back(tmp_path):
    """cuda-bindings' Session compiles with its own NVRTC into the run's cache; its next session
    (the next run) reads the entry back."""
    pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings is not installed")
    import _cuda_bindings_layer as layer

    config = lb_variant.LayerConfig("cuda-bindings", lb_native.KernelCache(str(tmp_path), True))
    first = layer.Session(config).cubin("saxpy", 90)
    second = layer.Session(config).cubin("saxpy", 90)
    assert (first[1], second[1]) == ("compiled", "cache hit") and first[0] == second[0]
    [entry] = tmp_path.iterdir()
    assert entry.name.startswith("saxpy-kernels-sm90-") and entry.read_bytes().startswith(b"layerbench-cubin 1\n")


def test_launch_constants_are_the_builds():
    """lb_shared's constants are lb_native's, the macros this build compiled; they equal the header's
    #defines unless the header changed since the build (then: rebuild)."""
    assert lb_shared.CONFIG == lb_native.LAUNCH_CONFIG
    header = (ROOT / "workloads" / "launch_config.h").read_text()
    defined = {name: int(value) for name, value in re.findall(r"#define (LB_\w+) (\d+)", header)}
    assert lb_native.LAUNCH_CONFIG == defined, "workloads/launch_config.h changed since the build: rebuild"


def test_launch_shapes_follow_gpu_launch_h():
    assert lb_shared.BLOCK == 256 and lb_shared.MM_THREADS == 128
    assert lb_shared.flat_blocks(1) == 1
    assert lb_shared.flat_blocks(1000003) == (1000003 // 4 + 3 + 255) // 256
    assert lb_shared.grid_stride_blocks(1 << 26, 132) == 132 * 4
    assert lb_shared.grid_stride_blocks(100, 132) == 1
    assert lb_shared.matmul_grid(129, 257, 16, 132) == (3, 2, 1)  # tiles of 128 along N, then along M
    assert lb_shared.matmul_grid(129, 257, 64, 132) == (3, 2, 4)  # 6 tiles: K's 4 slices split
    assert lb_shared.matmul_grid(4096, 4096, 4096, 132) == (32, 32, 1)  # a wave of tiles or more: no split
    x, y, splits = lb_shared.matmul_grid(512, 512, 512, 132)  # 16 tiles for 132 SMs: K is split
    assert (x, y) == (4, 4) and 1 < splits <= 16
    tile, across, rows = (lb_shared.CONFIG[k] for k in ("LB_TR_TILE", "LB_TR_BLOCK_X", "LB_TR_ROWS"))
    assert lb_shared.transpose_block() == (across, rows) and across * 4 == tile and tile % rows == 0
    assert lb_shared.transpose_grid(1, 1) == (1, 1)
    assert lb_shared.transpose_grid(2 * tile + 1, tile) == (1, 3)  # tiles along N, then along M


def _python_variant_files() -> list[Path]:
    layers = [d for d in (ROOT / "variants").iterdir() if d.is_dir() and any(d.glob("*.py")) and d.name != "python"]
    return sorted(f for d in layers for f in d.glob("*.py")) + sorted((ROOT / "tests" / "python_layers").glob("*/*.py"))


@pytest.mark.parametrize("path", _python_variant_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_variant_takes_the_protocols_arguments_by_name(path: Path):
    """lb_variant.Variant: allocate(size, setup), sizes read by name (size.n), never shape[1]."""
    import ast

    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "allocate" and node.args.args[0].arg == "self":
            assert [a.arg for a in node.args.args] == ["self", "size", "setup"], \
                f"{path.name}: allocate({ast.unparse(node.args)})"
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in ("shape", "size"):
            raise AssertionError(f"{path.name}:{node.lineno}: {ast.unparse(node)}: read sizes by name (size.n)")


def test_the_protocol_is_what_a_variant_implements():
    class Minimal:
        run_waits = False

        def allocate(self, size, setup): ...
        def upload(self, problem, stream): ...
        def run(self, stream): ...
        def download(self, out, stream): ...

    assert isinstance(Minimal(), lb_variant.Variant)
    assert not isinstance(object(), lb_variant.Variant)
    problem = lb_variant.Problem(2, 3, 4, 1.5, [], None)
    assert (problem.size, lb_variant.Size(2, 3, 4).extent("k")) == (lb_variant.Size(2, 3, 4), 4)
    assert lb_variant.Buffer("out").shape(problem.size) == (1,)
    assert lb_variant.Buffer("A", ("m", "k")).elements(problem.size) == 8


def test_a_workload_folders_launch_shape_and_arguments():
    """lb_folder: what every kernel-text layer's folder_kernel.py launches a workload folder's
    kernel with (the same shape as the driver layer's: workloads/folder/folder_workload.h)."""
    import dataclasses

    import lb_folder
    import numpy as np
    sys.path.insert(0, str(ROOT / "workloads" / "folder"))
    pytest.importorskip("jsonschema", reason="reading a workload folder needs jsonschema")
    import workload_folder

    w = workload_folder.load(ROOT / "examples" / "workloads" / "stencil5")
    k = w.kernels[0]
    size = lb_variant.Size(1, 1000, 1)
    assert lb_folder.launch_shape(k, size, 132, 2048) == ((4, 1, 1), (256, 1, 1))  # ceil(1000 / 256)
    assert lb_folder.launch_shape(dataclasses.replace(k, grid=None), size, 132, 2048) == ((132 * 8, 1, 1), (256, 1, 1))
    bound = lb_folder.arguments(w, k, size, {"x": "X", "w": "W", "y": "Y"})
    assert bound == [("buffer", "X"), ("buffer", "W"), ("buffer", "Y"), ("size", 1000)]
    assert bound[3][1].dtype == np.int64  # m, n, k are long long
    typed = dataclasses.replace(w, scalars=[workload_folder.Scalar("alpha", "float32", 1.5),
                                            workload_folder.Scalar("bins", "int32", 7)])
    typed_kernel = dataclasses.replace(k, arguments=k.arguments + [workload_folder.KernelArgument("alpha", "scalar", "float"),
                                                                   workload_folder.KernelArgument("bins", "scalar", "int")])
    scalars = [value for kind, value in lb_folder.arguments(typed, typed_kernel, size, {"x": 0, "w": 0, "y": 0}) if kind == "scalar"]
    assert [(s.dtype, s.item()) for s in scalars] == [(np.float32, 1.5), (np.int32, 7)]
    # A sequence: each kernel its own shape and arguments (examples/workloads/softmax_passes).
    passes = workload_folder.load(ROOT / "examples" / "workloads" / "softmax_passes")
    rows = lb_variant.Size(3, 1000, 1)
    assert [lb_folder.launch_shape(p, rows, 132, 2048)[0] for p in passes.kernels] == [(3, 1, 1), (3, 1, 1), (3, 4, 1)]
    buffers = {b.name: b.name.upper() for b in passes.buffers}
    assert [len(lb_folder.arguments(passes, p, rows, buffers)) for p in passes.kernels] == [4, 5, 6]
    text = lb_folder.kernel_text(w)
    assert text.file.endswith("examples/workloads/stencil5/kernels.cu") and text.workload == "stencil5"
    assert lb_folder.shapes(w, size) == {"x": (1004,), "w": (5,), "y": (1000,)}
