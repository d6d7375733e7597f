"""The pycuda layer's CPU-side parts (no GPU needed): our kernel text compiles with PyCUDA's
compile() given exactly what the layer gives SourceModule (_pycuda_layer.compile_options); a
compile error names workloads/<w>/kernels.cu and the line; the one-time cost tells a compile from
a PyCUDA cache hit; the argument types the variants declare to prepare() are the kernels' C
parameter types, packed at the offsets the C ABI gives them; and no variant reaches for the
legacy default stream or a second context.

pycuda._driver links libcuda.so.1. Where no CUDA driver is installed (a build machine), the
checks that import pycuda run in a child interpreter that first loads the CUDA toolkit's stub
libcuda, which satisfies the link; nothing there calls the driver (the stub would fail every
call), and the child keeps the stub out of this process, where other layers' tests run."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "variants" / "pycuda"
WORKLOADS = ["vector_add", "saxpy", "reduce", "matmul", "transpose", "launch"]

# The child's prelude: the real driver where there is one, else the toolkit's stub.
PRELUDE = """
import ctypes, json, sys
try:
    ctypes.CDLL("libcuda.so.1")
except OSError:
    ctypes.CDLL({stub!r}, mode=ctypes.RTLD_GLOBAL)
sys.path[:0] = [{python_dir!r}, {layer_dir!r}]
"""


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "nvcc"), os.X_OK):
            return os.path.join(root, "bin", "nvcc")
    return None


def _stub() -> str:
    root = Path(os.path.realpath(_nvcc() or "/usr/local/cuda/bin/nvcc")).parents[1]
    for candidate in (root / "lib64" / "stubs" / "libcuda.so", root / "lib" / "stubs" / "libcuda.so",
                      root / "targets" / "x86_64-linux" / "lib" / "stubs" / "libcuda.so"):
        if candidate.exists():
            return str(candidate)
    return "libcuda.so"  # none: the child's import fails and says so


def needs_pycuda():
    if importlib.util.find_spec("pycuda") is None:
        pytest.skip("pycuda is not installed (pip install pycuda==2026.1: it builds against the CUDA toolkit)")
    if importlib.util.find_spec("cuda.bindings") is None:
        pytest.skip("cuda-bindings is not installed (the layer's stream bridge uses it)")
    if _nvcc() is None:
        pytest.skip("nvcc not found: PyCUDA compiles with it")


def child(code: str, env: dict | None = None):
    """Runs `code` (after PRELUDE) in a child of this interpreter; returns the JSON its last
    stdout line holds. The child's failure fails the test, with its stderr. PyCUDA's own settings
    ($PYCUDA_CACHE_DIR, $PYCUDA_DISABLE_CACHE, ...) come only from `env`."""
    prelude = PRELUDE.format(stub=_stub(), python_dir=str(ROOT / "variants" / "python"), layer_dir=str(LAYER))
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("PYCUDA_")}
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          env=inherited | (env or {}), timeout=600)
    assert done.returncode == 0, f"child exited with {done.returncode}:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cubins():
    """Each workload's text compiled by PyCUDA's compile() as the layer's SourceModule compiles it
    (for sm_90, no cache), in one child: {workload: (first four bytes, the SM the ELF header names)}.
    The SM is in e_flags: bits 8-15 from CUBIN ABI version 8 (CUDA 13's nvcc), the low byte before."""
    needs_pycuda()
    return child(f"""
        import pycuda.compiler, _pycuda_layer as layer
        out = {{}}
        for w in {WORKLOADS!r}:
            cubin = pycuda.compiler.compile(cache_dir=False, **layer.compile_options(w, 90, layer.nvcc_path()))
            flags = int.from_bytes(cubin[48:52], "little")
            out[w] = [cubin[:4].hex(), (flags >> 8) & 0xFF if cubin[8] >= 8 else flags & 0xFF]
        print(json.dumps(out))
    """)


@pytest.mark.parametrize("workload", WORKLOADS)
def test_kernel_text_compiles_with_pycuda_as_the_layer_compiles_it(cubins, workload):
    magic, arch = cubins[workload]
    assert bytes.fromhex(magic) == b"\x7fELF"  # a CUBIN is an ELF image
    assert arch == 90  # the sm_90 the layer asked for


def test_the_layer_gives_nvcc_our_options_and_our_text():
    needs_pycuda()
    options = child("""
        import _pycuda_layer as layer
        print(json.dumps(layer.compile_options("reduce", 90, "/x/nvcc")))
    """)
    assert options["options"] == ["--std=c++17"] and options["arch"] == "sm_90" and options["no_extern_c"] is True
    assert options["include_dirs"] == [str(ROOT)] and options["nvcc"] == "/x/nvcc"
    first, rest = options["source"].split("\n", 1)
    assert first == '#line 1 "workloads/reduce/kernels.cu"'
    assert rest == (ROOT / "workloads" / "reduce" / "kernels.cu").read_text()


def test_a_compile_error_names_the_file_and_line():
    needs_pycuda()
    result = child("""
        import pycuda.compiler, pycuda.driver as cuda, _pycuda_layer as layer
        layer.lb_shared.kernel_source = lambda w: 'extern "C" __global__ void ok() {}\\n\\nthis is not C++;\\n'
        try:
            pycuda.compiler.compile(cache_dir=False, **layer.compile_options("vector_add", 90, layer.nvcc_path()))
            print(json.dumps("compiled"))
        except cuda.CompileError as e:
            print(json.dumps(str(layer.nvcc_error("vector_add", e))))
    """)
    assert result.startswith("nvcc could not compile workloads/vector_add/kernels.cu")
    assert "workloads/vector_add/kernels.cu(3): error" in result  # the line of our text, not of PyCUDA's copy


def test_the_cost_says_compiled_then_cache_hit(tmp_path):
    needs_pycuda()
    hows = child("""
        import os, pycuda.compiler, _pycuda_layer as layer
        folder = layer.pycuda_cache_dir()
        assert folder == os.environ["PYCUDA_CACHE_DIR"], folder
        hows = []
        # reduce #includes a header: PyCUDA hashes its preprocessed text, even for a hit
        for w in ["vector_add", "reduce", "vector_add", "reduce"]:
            options = layer.compile_options(w, 90, layer.nvcc_path())
            cubin, how, ms = layer.watched_compile(lambda: pycuda.compiler.compile(cache_dir=folder, **options), folder)
            hows.append(how)
        cubin, how, ms = layer.watched_compile(lambda: pycuda.compiler.compile(cache_dir=False, **options), None)
        hows.append(how)
        print(json.dumps(hows))
    """, env={"PYCUDA_CACHE_DIR": str(tmp_path)})
    assert hows == ["compiled", "compiled", "cache hit", "cache hit", "compiled, cache off"]
    assert len(list(tmp_path.glob("*.cubin"))) == 2


def test_pycuda_cache_dir_follows_pycudas_own_rules(tmp_path):
    needs_pycuda()
    found = child("""
        import os, _pycuda_layer as layer
        with_dir = layer.pycuda_cache_dir()
        os.environ["PYCUDA_DISABLE_CACHE"] = "1"
        print(json.dumps([with_dir, layer.pycuda_cache_dir()]))
    """, env={"PYCUDA_CACHE_DIR": str(tmp_path)})
    assert found == [str(tmp_path), None]


# --- the variants' launches, read from their text --------------------------------------------

C_TYPES = {"pointer": '"P"', "long long": "np.int64", "int": "np.int32", "float": "np.float32"}


def kernel_parameters(workload: str) -> dict[str, list[str]]:
    """{kernel: [C type of each parameter, "pointer" for any pointer]} from workloads/<w>/kernels.cu."""
    text = (ROOT / "workloads" / workload / "kernels.cu").read_text()
    found = {}
    signature = r'extern "C" __global__ void(?:\s+__launch_bounds__\([^)]*\))?\s+(\w+)\(([^)]*)\)'
    for name, params in re.findall(signature, text):
        types = []
        for param in params.split(","):
            words = param.replace("const", "").replace("__restrict__", "").split()
            types.append("pointer" if "*" in param else " ".join(words[:-1]))
        found[name] = types
    return found


def declared_launches() -> list[tuple[str, str, list[str], str]]:
    """(workload, kernel, [types given to prepare()], file) for every kernel() call of the layer."""
    calls = []
    for path in sorted(LAYER.glob("*.py")):
        for workload, name, types in re.findall(r'kernel\("(\w+)", "(\w+)", \[([^\]]*)\]', path.read_text()):
            calls.append((workload, name, [t.strip() for t in types.split(",")], path.name))
    return calls


def test_every_kernel_is_prepared_with_its_c_parameter_types():
    calls = declared_launches()
    assert {name for _, name, _, _ in calls} == {
        "vector_add", "saxpy", "reduce_sum", "matmul_tiled", "transpose", "launch_probe"}
    for workload, name, declared, file in calls:
        expected = [C_TYPES[t] for t in kernel_parameters(workload)[name]]
        assert declared == expected, f"{file}: {name} is prepared as {declared}, its C parameters are {expected}"


def test_prepared_arguments_pack_at_the_c_abi_offsets():
    """PyCUDA packs prepare()'d arguments with its own struct module, native alignment: each at the
    offset its C type's alignment gives it, as the kernel's parameter block lays them out."""
    needs_pycuda()
    sizes = {'"P"': 8, "np.int64": 8, "np.int32": 4, "np.float32": 4}
    calls = [(name, types) for _, name, types, _ in declared_launches()]
    packed = child(f"""
        import types, numpy as np, pycuda.driver as cuda
        from pycuda._pvt_struct import pack
        out = {{}}
        for name, declared in {calls!r}:
            f = types.SimpleNamespace()
            cuda.Function.prepare(f, [eval(t) for t in declared])  # "P", or a NumPy scalar type
            values = [(i + 1) * 0x0101010101010101 if t == '"P"' else eval(t)(i + 1) for i, t in enumerate(declared)]
            out[name] = pack(f.arg_format, *values).hex()
        print(json.dumps(out))
    """)
    for name, declared in calls:
        blob, offset, expected = bytes.fromhex(packed[name]), 0, b""
        for i, t in enumerate(declared):
            size = sizes[t]
            expected += b"\0" * (-offset % size)
            offset += -offset % size
            value = (i + 1) * 0x0101010101010101 if t == '"P"' else i + 1
            expected += struct.pack("<f", value) if t == "np.float32" else value.to_bytes(8, "little")[:size]
            offset += size
        assert blob == expected, f"{name}: PyCUDA packed {blob.hex()}, the C ABI wants {expected.hex()}"


def test_no_variant_uses_the_legacy_stream_or_a_second_context():
    """Nothing may go to stream 0 (the GPU tests hold it), nor make a context of its own."""
    for path in sorted(LAYER.glob("*.py")):
        code = re.sub(r'""".*?"""', "", path.read_text(), flags=re.S)  # docstrings, then comments
        code = "\n".join(re.sub(r"#(?!line).*", "", line) for line in code.splitlines())
        for banned in ("autoinit", "autoprimaryctx", "make_context", "memcpy_htod(", "memcpy_dtoh(",
                       "prepared_call(", "Context.synchronize", "stream=None"):
            assert banned not in code, f"{path.name} uses {banned}"


def test_launch_shapes_are_the_runtime_layers():
    text = {p.stem: p.read_text() for p in LAYER.glob("*.py")}
    assert "lb_shared.flat_blocks(self.n)" in text["vector_add"] and "lb_shared.flat_blocks(self.n)" in text["saxpy"]
    assert "lb_shared.grid_stride_blocks(self.n // 4, sm_count())" in text["reduce"]
    assert "lb_shared.matmul_grid(self.m, self.n, self.k, sm_count())" in text["matmul"] and "lb_shared.MM_THREADS" in text["matmul"]
    assert "lb_shared.transpose_grid(self.m, self.n)" in text["transpose"]
    assert "(*lb_shared.transpose_block(), 1)" in text["transpose"]
    for w in ("vector_add", "saxpy", "reduce"):
        assert "(lb_shared.BLOCK, 1, 1)" in text[w]
