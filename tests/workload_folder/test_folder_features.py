"""CPU tests of what a workload folder can say beyond one kernel and fresh outputs (P25): in/out
buffers, kernel sequences, range draws over any range a type holds, inputs.py that draws some
buffers and leaves the rest to the harness, parameters matched by name, preprocessor blocks the
signature reader skips, and every formula, extent and grid evaluated at a size before anything is
drawn (WorkloadFolder.check_size, what `list` and `run` call at each size)."""
import re
import shutil

import numpy as np
import pytest
from conftest import EXAMPLES, edit, edit_json

import workload_folder as wf

pytest.importorskip("jsonschema", reason="the workload-folder schema is checked with jsonschema (python/requirements.txt)")

LIMITS = (2**31 - 1, 65535, 65535)  # CUDA's documented grid limits (x, y, z)


@pytest.fixture
def copy_of(tmp_path):
    def make(name):
        folder = tmp_path / name
        shutil.copytree(EXAMPLES / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
        return folder
    return make


def error_of(call) -> str:
    with pytest.raises(wf.WorkloadFolderError) as caught:
        call()
    text = str(caught.value)
    assert "\n" not in text, text
    return text


# --- in/out buffers ---------------------------------------------------------------------------------

def test_inout_buffer_is_drawn_updated_and_checked():
    w = wf.load(EXAMPLES / "saxpy_inout")
    y = w.buffers[1]
    assert y.role == "inout" and y.drawn and y.checked
    size = wf.full_size({"n": 1000})
    p = w.draw_problem(size, seed=5)
    # It starts as drawn (the harness's generator, stream 1: its place among the drawn buffers), and
    # the reference sees those values as its input.
    assert np.array_equal(p.inputs["y"], wf.draw_buffer(y, size, 5, 1))
    assert np.array_equal(p.outputs["y"], p.inputs["y"]) and not np.isnan(p.outputs["y"]).any()
    a = np.float32(1.7)
    assert all(v.passed for v in w.check(p, {"y": (a * p.inputs["x"] + p.inputs["y"]).astype(np.float32)}))
    assert not w.check(p, {"y": p.inputs["y"].copy()})[0].passed                      # y left as drawn
    assert not w.check(p, {"y": (a * p.inputs["x"]).astype(np.float32)})[0].passed    # y not added
    assert not w.check(p, {"y": (a * p.inputs["y"] + p.inputs["x"]).astype(np.float32)})[0].passed  # x and y swapped
    # The harness keeps it with the outputs (its starting contents are what upload copies).
    assert wf.spec_for_harness(w)["buffers"] == [("x", "float32", False), ("y", "float32", True)]


def test_inout_problem_over_the_harness_bytes():
    """case_problem over the harness's bytes: the in/out buffer's starting bytes are the reference's
    input (verify hands it the problem as drawn, then the result as the outputs)."""
    w = wf.load(EXAMPLES / "saxpy_inout")
    size = {"n": 64}
    drawn = w.draw_problem(size, seed=2)
    views = [drawn.inputs["x"].tobytes(), drawn.outputs["y"].tobytes()]
    p = wf.case_problem(w, size, 2, views)
    assert np.array_equal(p.inputs["y"], drawn.inputs["y"]) and np.array_equal(p.outputs["y"], drawn.inputs["y"])


def test_inout_rules(copy_of):
    folder = copy_of("saxpy_inout")
    edit_json(folder, lambda s: s["buffers"][1].update(starts_as="zero"))
    assert "buffers[1].starts_as: only outputs have a starting value; inout buffers start as drawn" in error_of(lambda: wf.load(folder))
    edit_json(folder, lambda s: s["buffers"][1].pop("starts_as"))
    edit(folder / "kernels.cu", "float* __restrict__ y", "const float* __restrict__ y")
    assert "parameter 3 (y): is 'const float* __restrict__'; workload.json's 'y' (inout) needs 'float*'" in error_of(lambda: wf.load(folder))


# --- kernel sequences -------------------------------------------------------------------------------

def test_kernel_sequence():
    w = wf.load(EXAMPLES / "softmax_passes")
    assert [k.name for k in w.kernels] == ["row_max_pass", "row_sum_pass", "normalise_pass"]
    assert [k.field for k in w.kernels] == ["kernels[0]", "kernels[1]", "kernels[2]"]
    assert w.kernels[2].grid_blocks(wf.full_size({"m": 3, "n": 1000})) == (3, 4)
    spec = wf.spec_for_harness(w)
    assert [k["name"] for k in spec["kernels"]] == ["row_max_pass", "row_sum_pass", "normalise_pass"]
    assert [a["name"] for a in spec["kernels"][1]["arguments"]] == ["x", "row_max", "row_sum", "m", "n"]
    assert spec["kernels"][2]["block"] == (256, 1, 1) and not spec["kernels"][2]["grid_stride"]


def float32_passes(x, stale_max=False):
    """The three passes in float32 as kernels.cu computes them (up to the order of the sum)."""
    top = x.max(axis=1)
    shift = top - (np.float32(0.5) if stale_max else np.float32(0))
    total = np.exp(x - shift[:, None]).astype(np.float32).sum(axis=1, dtype=np.float32)
    y = (np.exp(x - top[:, None]).astype(np.float32) / total[:, None]).astype(np.float32)
    return {"row_max": top, "row_sum": total, "y": y}


@pytest.mark.parametrize("m, n", [(1, 1), (3, 70), (7, 1000)])
def test_softmax_passes_reference(m, n):
    w = wf.load(EXAMPLES / "softmax_passes")
    p = w.draw_problem({"m": m, "n": n}, seed=4)
    assert all(v.passed for v in w.check(p, float32_passes(p.inputs["x"])))
    wrong = float32_passes(p.inputs["x"], stale_max=True)  # the sum pass ran with another max
    assert not all(v.passed for v in w.check(p, wrong))


def test_kernel_sequence_rules(copy_of):
    folder = copy_of("softmax_passes")
    edit_json(folder, lambda s: s.update(kernel={"name": "row_max_pass", "arguments": ["x", "row_max", "m", "n"]}))
    assert "workload.json: kernel: give either kernel and launch (one kernel) or kernels (a sequence), not both" in error_of(lambda: wf.load(folder))
    edit_json(folder, lambda s: (s.pop("kernel"), s.pop("kernels")))
    assert "'kernel' and 'launch' (one kernel) or 'kernels' (a sequence) is required" in error_of(lambda: wf.load(folder))
    # An output that only later passes read may be const there, but some kernel must write it.
    folder = copy_of("stencil5")
    twice = lambda s: [{"name": "stencil5", "arguments": s["kernel"]["arguments"], "launch": s["launch"]}] * 2
    edit_json(folder, lambda s: (s.update(kernels=twice(s)), s.pop("kernel"), s.pop("launch")))
    wf.load(folder)
    edit(folder / "kernels.cu", "float* __restrict__ y", "const float* __restrict__ y")
    assert "no kernel of the sequence takes output 'y' writable" in error_of(lambda: wf.load(folder))


def test_each_kernel_of_a_sequence_is_checked_by_name(copy_of):
    folder = copy_of("softmax_passes")
    edit(folder / "kernels.cu", "float* __restrict__ row_sum, long long m, long long n",
         "float* __restrict__ row_sum, long long n, long long m")
    message = error_of(lambda: wf.load(folder))
    assert re.search(r"kernels.cu:\d+: kernel row_sum_pass parameter 4: is named 'n'; workload.json's kernels\[1\].arguments\[3\] is 'm'", message), message


# --- range draws ------------------------------------------------------------------------------------

def range_folder(copy_of, type_, lo, hi):
    """stencil5 with one more input, `idx`, of `type_` drawn from range [lo, hi)."""
    folder = copy_of("stencil5")
    edit_json(folder, lambda s: s["buffers"].insert(0, {"name": "idx", "type": type_, "extents": ["n"], "role": "input",
                                                         "draw": {"kind": "range", "lo": lo, "hi": hi}}))
    c_type = {"int32": "int", "int64": "long long"}[type_]
    edit(folder / "kernels.cu", "stencil5(const float* __restrict__ x", f"stencil5(const {c_type}* idx, const float* __restrict__ x")
    edit_json(folder, lambda s: s["kernel"].update(arguments=["idx", "x", "w", "y", "n"]))
    return folder


def test_range_draw_reaches_the_whole_range(copy_of):
    """[0, 2^40): the largest of 10^4 draws is in the top half (a draw of fewer bits never is)."""
    w = wf.load(range_folder(copy_of, "int64", "0", str(2**40)))
    idx = w.draw_problem({"n": 10000}, seed=1).inputs["idx"]
    assert idx.dtype == np.int64 and idx.min() >= 0 and idx.max() < 2**40 and idx.max() >= 2**39


def test_range_draw_is_unbiased(copy_of):
    """[-2^63, 2^62), a width of 3 * 2^62: a 64-bit draw modulo the width would put half the values
    in the bottom third (the top quarter of the draws folds onto it); rejection puts a third there."""
    w = wf.load(range_folder(copy_of, "int64", str(-2**63), str(2**62)))
    idx = w.draw_problem({"n": 200000}, seed=7).inputs["idx"]
    below = np.mean(idx < -2**62)
    assert abs(below - 1 / 3) < 0.01, below


def test_range_draw_over_every_int64(copy_of):
    w = wf.load(range_folder(copy_of, "int64", str(-2**63), str(2**63)))
    idx = w.draw_problem({"n": 1000}, seed=3).inputs["idx"]
    assert idx.min() < -2**62 and idx.max() > 2**62


def test_range_uniform_below_redraws_the_top():
    bits = np.array([2**64 - 1, 2**64 - 2, 5], dtype=np.uint64)  # the first is at the limit for width 3
    from workload_draws import uniform_below
    got = uniform_below(bits, 3)
    assert got[1] == (2**64 - 2) % 3 and got[2] == 2 and 0 <= got[0] < 3
    assert np.array_equal(uniform_below(bits, 3), got)  # a function of the bits alone


@pytest.mark.parametrize("type_, lo, hi, words", [
    ("int32", "0", str(2**31 + 1), "holds integers a int32 does not (it holds [-2147483648, 2147483647])"),
    ("int32", "n", "n", "[lo, hi) = [10, 10) at m=1, n=10, k=1 is empty"),
])
def test_range_outside_its_type_or_empty(copy_of, type_, lo, hi, words):
    w = wf.load(range_folder(copy_of, type_, lo, hi))
    message = error_of(lambda: w.check_size(wf.full_size({"n": 10}), LIMITS))
    assert "workload.json: buffers[0].draw: " in message and words in message, message
    message = error_of(lambda: w.draw_problem({"n": 10}, seed=1))  # and never drawn anyway
    assert words in message, message


# --- inputs.py and fields that would be ignored -----------------------------------------------------

def test_inputs_py_draws_some_and_leaves_the_rest(stencil_copy):
    (stencil_copy / "inputs.py").write_text(
        "import numpy as np\n"
        "def inputs(size, rng, draw):\n"
        "    return {'w': np.abs(draw('w'))}\n")
    w = wf.load(stencil_copy)
    size = wf.full_size({"n": 100})
    p = w.draw_problem(size, seed=8)
    assert np.array_equal(p.inputs["x"], wf.draw_buffer(w.buffers[0], size, 8, 0))   # left to its draw
    assert np.array_equal(p.inputs["w"], np.abs(wf.draw_buffer(w.buffers[1], size, 8, 1)))


def test_inputs_py_replacing_a_declared_draw_is_refused(stencil_copy):
    edit_json(stencil_copy, lambda s: s["buffers"][1].update(draw={"kind": "integers"}))
    (stencil_copy / "inputs.py").write_text("import numpy as np\ndef inputs(size, rng):\n    return {'w': np.ones(5)}\n")
    w = wf.load(stencil_copy)
    message = error_of(lambda: w.draw_problem({"n": 10}, seed=1))
    assert "inputs.py: inputs()['w']: replaces the draw workload.json's buffers[1].draw gives it, which would be ignored" in message


def test_fields_that_would_be_ignored_are_refused(stencil_copy):
    edit_json(stencil_copy, lambda s: s["buffers"].insert(0, {"name": "idx", "type": "int32", "extents": ["n"], "role": "input",
                                                               "draw": {"kind": "unit"}}))
    assert "buffers[0].draw: a unit draw is for float buffers" in error_of(lambda: wf.load(stencil_copy))


def test_a_tolerance_for_an_integer_output_is_refused(stencil_copy):
    edit_json(stencil_copy, lambda s: s["buffers"].append({"name": "count", "type": "int32", "extents": ["1"], "role": "output"}))
    edit(stencil_copy / "kernels.cu", "float* __restrict__ y, long long n", "float* __restrict__ y, int* count, long long n")
    edit_json(stencil_copy, lambda s: s["kernel"].update(arguments=["x", "w", "y", "count", "n"]))
    edit(stencil_copy / "reference.py", 'return {"y": (scale, ', 'return {"count": (1, 1), "y": (scale, ')
    w = wf.load(stencil_copy)
    message = error_of(lambda: w.tolerances(w.draw_problem({"n": 10}, seed=1)))
    assert "tolerance()['count']: is an integer output, checked exactly: its rule would be ignored" in message


# --- parameters by name; preprocessor blocks --------------------------------------------------------

def test_swapped_dimensions_are_named(copy_of):
    folder = copy_of("row_softmax")
    edit(folder / "kernels.cu", "long long m, long long n)", "long long n, long long m)")
    message = error_of(lambda: wf.load(folder))
    assert "kernel row_softmax parameter 3: is named 'n'; workload.json's kernel.arguments[2] is 'm'" in message


@pytest.mark.parametrize("block", [
    "#if 0\nextern \"C\" __global__ void stencil5(int bogus) {}\n#endif\n",
    "#ifdef NOT_DEFINED_ANYWHERE\nextern \"C\" __global__ void stencil5(int bogus) {}\n#else\n#endif\n",
    "#if 1\n#else\nextern \"C\" __global__ void stencil5(int bogus) {}\n#endif\n",
    "#define OLD 0\n#if defined(OLD) && 0\n#endif\n#ifndef __CUDACC__\nextern \"C\" __global__ void stencil5(int bogus) {}\n#endif\n",
])
def test_signature_in_a_dropped_block_is_not_the_kernel(stencil_copy, block):
    cu = stencil_copy / "kernels.cu"
    cu.write_text(block + cu.read_text())
    w = wf.load(stencil_copy)
    assert [a.name for a in w.kernels[0].arguments] == ["x", "w", "y", "n"]


def test_signature_in_an_unknown_condition_is_refused(stencil_copy):
    cu = stencil_copy / "kernels.cu"
    text = cu.read_text()
    at = text.index('extern "C"')
    cu.write_text(text[:at] + "#if __CUDA_ARCH__ >= 800\n" + text[at:] + "\n#endif\n")
    assert "is declared inside a preprocessor condition the signature reader cannot evaluate" in error_of(lambda: wf.load(stencil_copy))


def test_a_kernel_declared_twice_is_refused(stencil_copy):
    cu = stencil_copy / "kernels.cu"
    cu.write_text(cu.read_text() + '\nextern "C" __global__ void stencil5(const float* x, const float* w, float* y, long long n);\n')
    assert "kernel stencil5: is declared again (first at line" in error_of(lambda: wf.load(stencil_copy))


# --- every formula at a size, before anything is drawn ---------------------------------------------

def test_grid_above_the_y_limit(copy_of):
    folder = copy_of("row_softmax")
    edit_json(folder, lambda s: s["launch"].update(grid=["1", "m"]))
    w = wf.load(folder)
    w.check_size(wf.full_size({"m": 65535, "n": 3}), LIMITS)
    message = error_of(lambda: w.check_size(wf.full_size({"m": 125000, "n": 3}), LIMITS))
    assert "workload.json: launch.grid[1]: 'm' is 125000 blocks at m=125000, n=3, k=1, above the y limit of 65535" in message


def test_grid_of_a_sequence_names_its_kernel(copy_of):
    folder = copy_of("softmax_passes")
    edit_json(folder, lambda s: s["kernels"][2]["launch"].update(grid=["m", "n"]))  # n blocks along y
    w = wf.load(folder)
    assert "workload.json: kernels[2].launch.grid[1]: 'n' is 70000 blocks" in error_of(lambda: w.check_size(wf.full_size({"m": 3, "n": 70000}), LIMITS))


@pytest.mark.parametrize("change, field", [
    (lambda s: s["bytes"].update(read="4 * n / (n - 1)"), "bytes.read"),
    (lambda s: s.update(flops="n / (n - 1)"), "flops"),
    (lambda s: s["launch"].update(grid=["n / (n - 1)"]), "launch.grid[0]"),
    (lambda s: s["buffers"][2].update(extents=["n / (n - 1)"]), "buffers[2].extents[0]"),
])
def test_division_by_zero_is_one_line(stencil_copy, change, field):
    edit_json(stencil_copy, change)
    w = wf.load(stencil_copy)
    w.check_size(wf.full_size({"n": 2}), LIMITS)
    message = error_of(lambda: w.check_size(wf.full_size({"n": 1}), LIMITS))
    assert f"workload.json: {field}: " in message and "divides by zero at m=1, n=1, k=1" in message, message


def test_a_zero_extent(stencil_copy):
    edit_json(stencil_copy, lambda s: s["buffers"][2].update(extents=["n - 1"]))
    w = wf.load(stencil_copy)
    message = error_of(lambda: w.check_size(wf.full_size({"n": 1}), LIMITS))
    assert "workload.json: buffers[2].extents[0]: 'n - 1' is 0 at m=1, n=1, k=1: give y extents of at least 1" in message


def test_device_bytes_are_the_buffers():
    w = wf.load(EXAMPLES / "softmax_passes")
    assert w.device_bytes({"m": 3, "n": 10}) == 4 * (3 * 10 + 3 + 3 + 3 * 10)


# --- the reference once per size, not once per layer ------------------------------------------------

def test_reference_runs_once_per_problem(stencil_copy):
    ref = stencil_copy / "reference.py"
    ref.write_text(ref.read_text() + "\n\nCALLS = []\n_reference = reference\n\n"
                   "def reference(inputs, scalars, size):\n    CALLS.append(size['n'])\n    return _reference(inputs, scalars, size)\n")
    w = wf.load(stencil_copy)
    p = w.draw_problem({"n": 100}, seed=1)
    got = {"y": w.reference(p)["y"].astype(np.float32)}
    calls = w._reference.CALLS
    calls.clear()
    for _layer in range(3):  # three layers' cases of one size check against one drawn problem
        assert w.check(p, got)[0].passed
    assert len(calls) == 1
    w.check(w.draw_problem({"n": 100}, seed=2), got)  # another problem: computed again
    assert len(calls) == 2
