"""CPU tests of the workload-folder format (workloads/folder/workload_folder.py): the examples load,
each malformed input gives one line naming its file and field, formulas are exact and refuse
anything but arithmetic in m, n, k, the default inputs are the harness's generator bit for bit, and
each example's reference passes a float32 computation of its kernel and fails a mutated one."""
import re

import numpy as np
import pytest
from conftest import EXAMPLE_NAMES, EXAMPLES, edit_json

import workload_folder as wf

pytest.importorskip("jsonschema", reason="the workload-folder schema is checked with jsonschema (python/requirements.txt)")


def error_of(folder) -> str:
    with pytest.raises(wf.WorkloadFolderError) as caught:
        wf.load(folder)
    text = str(caught.value)
    assert "\n" not in text, text
    return text


# --- the examples ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_loads(name):
    w = wf.load(EXAMPLES / name)
    assert w.name == name
    assert {"cupy", "numba", "triton"} <= set(w.python_layers)  # each example has a Triton version too
    assert len(w.content_hash) == 64
    assert w.outputs and w.inputs


def test_examples_are_the_four_kinds():
    assert set(EXAMPLE_NAMES) == {"stencil5", "row_softmax", "saxpy_inout", "softmax_passes"}


def test_content_hash_follows_every_byte(stencil_copy):
    before = wf.load(stencil_copy).content_hash
    (stencil_copy / "kernels.cu").write_text((stencil_copy / "kernels.cu").read_text() + "\n")
    assert wf.load(stencil_copy).content_hash != before


# --- one-line errors naming file and field ----------------------------------------------------------

@pytest.mark.parametrize("change, file, field", [
    (lambda s: s.pop("summary"), "workload.json", "(top level)"),
    (lambda s: s.update(size_form="NxM"), "workload.json", "size_form"),
    (lambda s: s["buffers"][0].update(type="float16"), "workload.json", "buffers[0].type"),
    (lambda s: s["buffers"][1].update(extents=["m"]), "workload.json", "buffers[1].extents[0]"),
    (lambda s: s["buffers"][0].update(starts_as="zero"), "workload.json", "buffers[0].starts_as"),
    (lambda s: s["buffers"][2].update(role="input"), "workload.json", "buffers"),
    (lambda s: s["kernel"].update(arguments=["x", "w", "y", "q"]), "workload.json", "kernel.arguments[3]"),
    (lambda s: s["kernel"].update(arguments=["x", "y", "n"]), "workload.json", "kernel.arguments"),
    (lambda s: s["launch"].update(grid=["__import__('os')"]), "workload.json", "launch.grid[0]"),
    (lambda s: s["launch"].update(block=[64, 64]), "workload.json", "launch.block"),
    (lambda s: s["bytes"].update(read="n ** 2"), "workload.json", "bytes.read"),
    (lambda s: s.update(flops="4 * k"), "workload.json", "flops"),
    (lambda s: s.update(default_sizes=["2^x"]), "workload.json", "default_sizes[0]"),
    (lambda s: s.update(default_sizes=["2^20x"]), "workload.json", "default_sizes[0]"),
    (lambda s: s.update(scalars=[{"name": "x", "type": "float32", "value": 1}]), "workload.json", "scalars[0].name"),
])
def test_bad_workload_json_names_file_and_field(stencil_copy, change, file, field):
    edit_json(stencil_copy, change)
    text = error_of(stencil_copy)
    assert text.startswith(f"{stencil_copy / file}: {field}"), text


def test_not_json(stencil_copy):
    (stencil_copy / "workload.json").write_text("{ name: stencil5 ")
    assert "is not JSON" in error_of(stencil_copy)


@pytest.mark.parametrize("missing", ["workload.json", "kernels.cu", "reference.py"])
def test_missing_file(stencil_copy, missing):
    (stencil_copy / missing).unlink()
    assert error_of(stencil_copy) == f"{stencil_copy / missing}: missing (a workload folder holds workload.json, kernels.cu and reference.py)"


def test_not_a_folder(tmp_path):
    assert error_of(tmp_path / "nothing") == f"{tmp_path / 'nothing'}: not a directory"


@pytest.mark.parametrize("signature, field", [
    ("const float* x, const float* w, float* y", "kernel stencil5"),                      # one short
    ("const float* x, const float* w, float* y, int n", "kernel stencil5 parameter 4 (n)"),  # int, not long long
    ("const double* x, const float* w, float* y, long long n", "kernel stencil5 parameter 1 (x)"),
    ("const float* x, const float* w, const float* y, long long n", "kernel stencil5 parameter 3 (y)"),
    ("const float* x, float w, float* y, long long n", "kernel stencil5 parameter 2 (w)"),
])
def test_kernel_parameters_must_match(stencil_copy, signature, field):
    cu = stencil_copy / "kernels.cu"
    text = re.sub(r"stencil5\([^)]*\)", f"stencil5({signature})", cu.read_text(), count=1)
    cu.write_text(text)
    message = error_of(stencil_copy)
    line = text[:text.index("void stencil5(")].count("\n") + 1
    assert message.startswith(f"{cu}:{line}: {field}"), message


def test_kernel_parameters_may_drop_const_and_restrict_on_inputs(stencil_copy):
    cu = stencil_copy / "kernels.cu"
    cu.write_text(re.sub(r"stencil5\([^)]*\)", "stencil5(float *x, float* w, float* __restrict__ y, long n)", cu.read_text(), count=1))
    wf.load(stencil_copy)


def test_int64_t_is_not_a_spelling(stencil_copy):
    """NVRTC compiles kernels.cu without host headers, where int64_t is not defined: the signature
    reader does not take it (the doc says long long)."""
    cu = stencil_copy / "kernels.cu"
    cu.write_text(re.sub(r"stencil5\([^)]*\)", "stencil5(const float* x, const float* w, float* y, int64_t n)", cu.read_text(), count=1))
    assert "parameter 4 (n): is 'int64_t'" in error_of(stencil_copy)


def test_kernel_missing_or_not_extern_c(stencil_copy):
    cu = stencil_copy / "kernels.cu"
    original = cu.read_text()
    cu.write_text(original.replace("void stencil5(", "void stencil_5("))
    assert "no `__global__ void stencil5(...)`" in error_of(stencil_copy)
    cu.write_text(original.replace('extern "C" ', ""))
    assert 'must be declared extern "C"' in error_of(stencil_copy)
    cu.write_text("// extern \"C\" in a comment does not count\n" + original.replace('extern "C" ', ""))
    assert 'must be declared extern "C"' in error_of(stencil_copy)


def test_reference_that_does_not_import(stencil_copy):
    (stencil_copy / "reference.py").write_text("import numpy as np\ndef reference(:\n")
    assert error_of(stencil_copy).startswith(f"{stencil_copy / 'reference.py'}: cannot be imported: SyntaxError")


def test_reference_without_tolerance(stencil_copy):
    (stencil_copy / "reference.py").write_text("def reference(inputs, scalars, size):\n    return {}\n")
    assert error_of(stencil_copy).startswith(f"{stencil_copy / 'reference.py'}: tolerance(): not defined")


@pytest.mark.parametrize("body, field, words", [
    ("raise RuntimeError('boom')", "reference()", "raised RuntimeError: boom"),
    ("return [1, 2]", "reference()", "not a dict"),
    ("return {}", "reference()", "returned no 'y'"),
    ("return {'y': np.zeros(size['n'] + 1)}", "reference()['y']", "has shape"),
    ("return {'y': np.zeros(size['n']), 'z': 1}", "reference()", "returned z, which workload.json does not list"),
])
def test_reference_that_raises_or_returns_the_wrong_shape(stencil_copy, body, field, words):
    ref = stencil_copy / "reference.py"
    ref.write_text(ref.read_text().replace('def reference(inputs, scalars, size):\n',
                                           f'def reference(inputs, scalars, size):\n    {body}\n'))
    w = wf.load(stencil_copy)
    problem = w.draw_problem({"n": 100}, seed=1)
    with pytest.raises(wf.WorkloadFolderError) as caught:
        w.reference(problem)
    assert str(caught.value).startswith(f"{ref}: {field}"), str(caught.value)
    assert words in str(caught.value)


def test_tolerance_must_be_positive(stencil_copy):
    ref = stencil_copy / "reference.py"
    ref.write_text(ref.read_text().replace("5 * 2.0**-23", "0.0"))
    w = wf.load(stencil_copy)
    with pytest.raises(wf.WorkloadFolderError, match=r"tolerance\(\)\['y'\]: the bound is 0.0: the bound and every scale must be positive"):
        w.tolerances(w.draw_problem({"n": 10}, seed=1))


def test_inputs_py_replaces_the_generator_and_is_checked(stencil_copy):
    (stencil_copy / "inputs.py").write_text(
        "import numpy as np\n"
        "def inputs(size, rng):\n"
        "    return {'x': np.ones(size['n'] + 4), 'w': rng.integers(1, 3, 5)}\n")
    w = wf.load(stencil_copy)
    p = w.draw_problem({"n": 8}, seed=3)
    assert p.inputs["x"].dtype == np.float32 and np.all(p.inputs["x"] == 1)
    (stencil_copy / "inputs.py").write_text("def inputs(size, rng):\n    return {'x': [1.0]}\n")
    w = wf.load(stencil_copy)
    with pytest.raises(wf.WorkloadFolderError, match=r"inputs.py: inputs\(\)\['x'\]: has shape"):
        w.draw_problem({"n": 8}, seed=3)


def test_command_line_exit_codes(stencil_copy, capsys):
    assert wf.main([str(EXAMPLES / "stencil5")]) == 0
    assert "stencil5" in capsys.readouterr().out
    (stencil_copy / "kernels.cu").unlink()
    assert wf.main([str(stencil_copy)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("error: ") and "kernels.cu" in err


# --- formulas ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, m, n, k, value", [
    ("4 * (m * k + k * n + m * n)", 3, 5, 7, 4 * (21 + 35 + 15)),
    ("2 * m * n * k", 512, 512, 512, 2 * 512**3),
    ("n / 256", 1, 1000, 1, 1000 / 256),
    ("-n + 2 * n", 1, 9, 1, 9),
    ("(n + 4) * 4 + 20", 1, 2**26, 1, (2**26 + 4) * 4 + 20),
])
def test_formula_values_are_exact(text, m, n, k, value):
    assert wf.Formula(text)(m, n, k) == value


def test_formula_whole_rounds_up():
    assert wf.Formula("n / 256").whole(n=256) == 1
    assert wf.Formula("n / 256").whole(n=257) == 2
    assert wf.Formula("(n + 255) / 256").whole(n=1) == 1


@pytest.mark.parametrize("text", ["n ** 2", "n % 3", "abs(n)", "x", "__import__('os')", "1.5 * n", "n // 2", "n if n else m", "", "n +"])
def test_formula_refuses_anything_else(text):
    with pytest.raises(ValueError):
        wf.Formula(text)


def test_formula_names_only_the_form_dimensions():
    with pytest.raises(ValueError, match="only n here"):
        wf.Formula("m * n", ("n",))


def test_formula_divide_by_zero_is_an_error():
    with pytest.raises(ZeroDivisionError):
        wf.Formula("n / (m - 1)")(m=1, n=3)


# --- the default inputs: the harness's generator ------------------------------------------------------

_MASK = (1 << 64) - 1


def _mix(x):
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def _element(seed, stream, i, integers=False):
    """random_draw::element(stream_key(seed, stream), i, kUnit or kIntegers), in plain Python ints."""
    bits = _mix((_mix(seed ^ _mix(stream + 0x51ED27)) + i) & _MASK)
    b = bits >> 40
    magnitude = 1 + b % 255 if integers else ((1 << 22) + ((3 * b) >> 2)) * 2.0**-24
    return -magnitude if bits & 1 else magnitude


def test_default_draw_matches_random_draw_h():
    w = wf.load(EXAMPLES / "stencil5")
    p = w.draw_problem({"n": 60}, seed=12345)
    assert [float(v) for v in p.inputs["x"]] == [_element(12345, 0, i) for i in range(64)]
    assert [float(v) for v in p.inputs["w"]] == [_element(12345, 1, i) for i in range(5)]
    assert np.all(np.isnan(p.outputs["y"]))


@pytest.mark.parametrize("dtype, kind", [(np.float32, "unit"), (np.float64, "unit"), (np.int32, "integers"),
                                         (np.float32, "integers")])
def test_a_large_draw_is_random_draw_h_on_both_sides_of_every_chunk(dtype, kind):
    """draw_buffer works a chunk of elements at a time (workload_draws._CHUNK): the elements around
    each chunk's edges, and the last, are still random_draw::element's, in the buffer's type."""
    from workload_draws import _CHUNK

    class Buffer:
        def __init__(self):
            self.dtype, self.draw = dtype, {"kind": kind}
            self.is_float = np.dtype(dtype).kind == "f"

        def shape(self, size):
            return (size["n"],)

    count = 3 * _CHUNK + 5
    drawn = wf.draw_buffer(Buffer(), {"m": 1, "n": count, "k": 1}, 987654321, 2)
    assert drawn.dtype == dtype and drawn.shape == (count,)
    at = sorted({0, 1, count - 1} | {c * _CHUNK + d for c in (1, 2, 3) for d in (-1, 0, 1)})
    assert [float(drawn[i]) for i in at] == [float(dtype(_element(987654321, 2, i, kind == "integers"))) for i in at]


def test_integer_range_draw(stencil_copy):
    edit_json(stencil_copy, lambda s: s["buffers"].insert(0, {"name": "idx", "type": "int32", "extents": ["n"], "role": "input",
                                                               "draw": {"kind": "range", "lo": "0", "hi": "n / 2"}}))
    cu = stencil_copy / "kernels.cu"
    cu.write_text(cu.read_text().replace("stencil5(const float* __restrict__ x", "stencil5(const int* idx, const float* __restrict__ x"))
    edit_json(stencil_copy, lambda s: s["kernel"].update(arguments=["idx", "x", "w", "y", "n"]))
    w = wf.load(stencil_copy)
    idx = w.draw_problem({"n": 1000}, seed=9).inputs["idx"]
    assert idx.dtype == np.int32 and idx.min() >= 0 and idx.max() < 500 and len(np.unique(idx)) > 100


def test_integer_outputs_are_exact_and_start_at_minus_one(stencil_copy):
    edit_json(stencil_copy, lambda s: s["buffers"][2].update(type="int32"))
    cu = stencil_copy / "kernels.cu"
    cu.write_text(cu.read_text().replace("float* __restrict__ y", "int* __restrict__ y"))
    ref = stencil_copy / "reference.py"
    ref.write_text("import numpy as np\ndef reference(inputs, scalars, size):\n    return {'y': np.arange(size['n'])}\n")
    w = wf.load(stencil_copy)
    p = w.draw_problem({"n": 10}, seed=1)
    assert np.all(p.outputs["y"] == -1)
    assert w.check(p, {"y": np.arange(10, dtype=np.int32)})[0].passed
    wrong = np.arange(10, dtype=np.int32)
    wrong[7] += 1
    verdict = w.check(p, {"y": wrong})[0]
    assert not verdict.passed and verdict.detail == "y[7] = 8, expected 7 (error 1 > 0)"


# --- references: a float32 computation of each kernel passes, a mutated one fails ---------------------

def stencil_float32(x, w, n, mutate=False):
    y = np.zeros(n, dtype=np.float32)
    for j in range(4 if mutate else 5):  # the mutation drops the last tap
        y = (w[j] * x[j:j + n] + y).astype(np.float32)
    return y


def softmax_float32(x, mutate=False):
    top = x.max(axis=1, keepdims=True)
    e = np.exp((x - top).astype(np.float32)).astype(np.float32)
    s = e.sum(axis=1, keepdims=True, dtype=np.float32)
    if mutate:  # the mutation forgets the last column in the sum
        s = s - e[:, -1:]
    return (e / s).astype(np.float32)


@pytest.mark.parametrize("n", [1, 5, 1000, 2**16])
def test_stencil_reference(n):
    w = wf.load(EXAMPLES / "stencil5")
    p = w.draw_problem({"n": n}, seed=n)
    good = stencil_float32(p.inputs["x"], p.inputs["w"], n)
    assert all(v.passed for v in w.check(p, {"y": good}))
    assert not w.check(p, {"y": stencil_float32(p.inputs["x"], p.inputs["w"], n, mutate=True)})[0].passed
    nan = good.copy()
    nan[n // 2] = np.nan
    assert not w.check(p, {"y": nan})[0].passed


@pytest.mark.parametrize("m, n", [(1, 1), (3, 257), (64, 1024), (16, 4096)])
def test_softmax_reference(m, n):
    w = wf.load(EXAMPLES / "row_softmax")
    p = w.draw_problem({"m": m, "n": n}, seed=m * n)
    x = p.inputs["x"]
    assert all(v.passed for v in w.check(p, {"y": softmax_float32(x)}))
    if n > 1:
        assert not w.check(p, {"y": softmax_float32(x, mutate=True)})[0].passed
    assert not w.check(p, {"y": np.zeros((m, n), dtype=np.float32)})[0].passed


def test_a_failed_check_counts_the_elements_never_written():
    """A wrong element still the poison bit for bit was never written, and the verdict says how
    many of the wrong ones are (a kernel that skips a row's tail); one computed wrong is not
    counted, nor is one that wrote a NaN of another bit pattern."""
    w = wf.load(EXAMPLES / "row_softmax")
    p = w.draw_problem({"m": 40, "n": 3000}, seed=11)
    y = softmax_float32(p.inputs["x"])
    y[3, 2048:] = p.outputs["y"][3, 2048:]  # left as it started: the poison
    y[20, 5] *= 1.01                         # computed wrong
    y[39, 7] = -np.float32(np.nan)           # written: a NaN of another bit pattern
    verdict = w.check(p, {"y": y})[0]
    assert not verdict.passed
    assert verdict.detail.startswith("y[3, 2048] = nan, expected "), verdict.detail
    assert verdict.detail.endswith("; 952 of the 954 wrong elements were never written (still the poison)"), verdict.detail
    y[3, 2048:] = softmax_float32(p.inputs["x"])[3, 2048:]
    assert "never written" not in w.check(p, {"y": y})[0].detail


def test_the_check_finds_the_worst_element_across_its_chunks():
    """The check compares a chunk of rows at a time (workload_folder._CHECK_CHUNK): the worst
    element, its index and value, and the first of equal errors, are those of one pass over all."""
    w = wf.load(EXAMPLES / "row_softmax")
    rows = 2 * wf._CHECK_CHUNK // 1024 + 3
    p = w.draw_problem({"m": rows, "n": 1024}, seed=5)
    y = softmax_float32(p.inputs["x"])
    for r in (rows - 1, rows // 2, 1):  # equal errors; the first in row-major order is named
        y[r, 100] = p.outputs["y"][r, 100]
    verdict = w.check(p, {"y": y})[0]
    assert verdict.detail.startswith("y[1, 100] = nan") and verdict.max_error == np.inf, verdict.detail
    y[rows - 2, 1023] *= 1.5
    y[1, 100] = y[rows // 2, 100] = y[rows - 1, 100] = softmax_float32(p.inputs["x"][:2])[1, 100]
    y[rows // 2, 100] = softmax_float32(p.inputs["x"][rows // 2:rows // 2 + 1])[0, 100]
    y[rows - 1, 100] = softmax_float32(p.inputs["x"][rows - 1:])[0, 100]
    verdict = w.check(p, {"y": y})[0]
    assert verdict.detail.startswith(f"y[{rows - 2}, 1023] = "), verdict.detail
    assert "never written" not in verdict.detail


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_examples_bytes_and_flops(name):
    w = wf.load(EXAMPLES / name)
    size = wf.full_size({"m": 1000, "n": 3000, "k": 7})
    moved = w.bytes_read(**size) + w.bytes_written(**size)
    # every buffer's bytes at least once: the formulas cannot undercount what the kernel must move
    assert moved >= sum(np.dtype(b.dtype).itemsize * np.prod(b.shape(size)) for b in w.buffers)
    assert w.flops(**size) > 0


# --- NVRTC: the examples compile; an error names kernels.cu and its line ------------------------------

@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_examples_compile_with_nvrtc(name):
    pytest.importorskip("cuda.bindings.nvrtc", reason="compiling with NVRTC needs cuda.bindings")
    wf.nvrtc_check(wf.load(EXAMPLES / name))


def test_nvrtc_error_names_file_and_line(stencil_copy):
    pytest.importorskip("cuda.bindings.nvrtc", reason="compiling with NVRTC needs cuda.bindings")
    cu = stencil_copy / "kernels.cu"
    text = cu.read_text().replace("y[i] = sum;", "y[i] = sum + undeclared;")
    cu.write_text(text)
    line = text[:text.index("undeclared")].count("\n") + 1
    with pytest.raises(wf.WorkloadFolderError) as caught:
        wf.nvrtc_check(wf.load(stencil_copy))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{cu}({line}): error: identifier \"undeclared\" is undefined"), message
    assert message.endswith("does not compile (NVRTC)")


def test_python_implementation_without_variant(stencil_copy):
    (stencil_copy / "cupy.py").write_text("class Varient:\n    pass\n")
    w = wf.load(stencil_copy)
    with pytest.raises(wf.WorkloadFolderError, match=r"cupy.py: Variant: not defined"):
        wf.python_variant(w, "cupy")
    assert not (stencil_copy / "__pycache__").exists()  # loading the user's files writes nothing into their folder


def test_an_extent_below_one_is_an_error(stencil_copy):
    edit_json(stencil_copy, lambda s: s["buffers"][0].update(extents=["n - 4"]))
    w = wf.load(stencil_copy)
    with pytest.raises(wf.WorkloadFolderError, match=r"workload.json: buffers\[0\].extents\[0\]: 'n - 4' is -3 at m=1, n=1, k=1"):
        w.draw_problem({"n": 1}, seed=1)
