"""P30: a folder cannot fool its own check, and `list` catches what `run` would. Each row of MISTAKES
is one mistake in a copy of examples/workloads/saxpy_inout (the folders the issue's table was found
with), made by an edit of its files, and the one line that now refuses it. Checked twice: through
workload_folder.py as `list` calls it (load, each default size's check_size, the reference at each
size: no binary needed), and through the binary's `list --workload-dir` and, where `run` reaches the
same check by another path, `run --workload-dir` (exit 2, one line, nothing written; no GPU needed:
the folder checks come before any case)."""
import json
import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import EXAMPLES, edit, edit_json, size_of

import workload_folder as wf

pytest.importorskip("jsonschema", reason="the workload-folder schema is checked with jsonschema (python/requirements.txt)")

LIMITS = (2**31 - 1, 65535, 65535)
BINARY = os.environ.get("LAYERBENCH_BINARY", "")


def with_index(folder, type_="int32"):
    """saxpy_inout with one more input, `idx` of `type_`, that the kernel takes and does not read."""
    edit_json(folder, lambda s: s["buffers"].append({"name": "idx", "type": type_, "extents": ["n"], "role": "input"}))
    edit(folder / "kernels.cu", "float* __restrict__ y, long long n", "float* __restrict__ y, const int* idx, long long n")
    edit_json(folder, lambda s: s["kernel"].update(arguments=["a", "x", "y", "idx", "n"]))


def inputs_py(folder, value, dtype):
    with_index(folder)
    (folder / "inputs.py").write_text("import numpy as np\n\ndef inputs(size, rng):\n"
                                      f"    return {{'idx': np.full(size['n'], {value!r}, dtype=np.{dtype})}}\n")


def duplicate_launch(folder):
    text = (folder / "workload.json").read_text()
    assert '"launch": {"block": [256], "grid": ["n / 256"]},' in text
    (folder / "workload.json").write_text(text.replace('"launch": {"block": [256], "grid": ["n / 256"]},',
                                                       '"launch": {"block": [256], "grid": ["n / 256"]},\n'
                                                       '  "launch": {"block": [128], "grid": ["n / 128"]},'))


REF, TOL = 'return {"y": float(scalars["a"]) * inputs["x"] + inputs["y"]}', 'return {"y": (np.abs(a * inputs["x"]) + np.abs(inputs["y"]), 2.0**-22)}'

# (id, the mistake, what the one line says, where: "both" for list and run, "list" where run
# reaches the same check through the same call list makes, or "binary" for the C++ side's checks)
MISTAKES = [
    ("tolerance-inf", lambda f: edit(f / "reference.py", TOL, 'return {"y": (np.inf, 2.0**-22)}'),
     "reference.py: tolerance()['y']: the scale is inf at [0]: the bound and every scale must be positive and finite", "both"),
    ("reference-nan", lambda f: edit(f / "reference.py", REF, 'y = float(scalars["a"]) * inputs["x"] + inputs["y"]; y[3] = np.nan\n    return {"y": y}'),
     "reference.py: reference()['y']: holds nan at [3]: a reference's outputs are finite "
     "(an output whose elements may be NaN says \"may_be_nan\": true in workload.json)", "both"),
    ("reference-float32", lambda f: edit(f / "reference.py", REF, 'return {"y": (float(scalars["a"]) * inputs["x"] + inputs["y"]).astype(np.float32)}'),
     "reference.py: reference()['y']: is float32: a reference computes in float64", "both"),
    ("grid-zero", lambda f: edit_json(f, lambda s: s["launch"].update(grid=["n / 256 - 256"])),
     "workload.json: launch.grid[0]: 'n / 256 - 256' is 0 blocks at m=1, n=65536, k=1: a grid has at least 1 block along each axis", "both"),
    ("extent-past-2^63", lambda f: edit_json(f, lambda s: s["buffers"][0].update(extents=["n * n * n * n"])),
     "workload.json: buffers[0].extents[0]: 'n * n * n * n' is 18446744073709551616 at m=1, n=65536, k=1: "
     "x would be 18446744073709551616 elements of float32, past 2^63 - 1 bytes", "both"),
    ("bytes-past-2^63", lambda f: edit_json(f, lambda s: s["buffers"][0].update(extents=["n * 16777216", "n * 16777216"])),
     "workload.json: buffers[0].extents[1]: 'n * 16777216' is 1099511627776 at m=1, n=65536, k=1: "
     "x would be 1208925819614629174706176 elements of float32, past 2^63 - 1 bytes", "both"),
    ("reference-raises-above-smallest", lambda f: edit(f / "reference.py", REF, 'assert size["n"] <= 65536, "too big"\n    ' + REF),
     "reference.py: reference(): raised AssertionError: too big", "list"),
    ("float32-scalar-1e39", lambda f: edit_json(f, lambda s: s["scalars"][0].update(value=1e39)),
     "workload.json: scalars[0].value: 1e+39 is outside float32 (at most 3.4028235e+38 in magnitude)", "both"),
    ("int32-scalar-3e9", lambda f: edit_json(f, lambda s: s["scalars"][0].update(type="int32", value=3e9)),
     "workload.json: scalars[0].value: 3000000000 is outside int32 (-2147483648 to 2147483647)", "both"),
    ("inputs-2^40-into-int32", lambda f: inputs_py(f, 2**40, "int64"),
     "inputs.py: inputs()['idx']: holds 1099511627776 at [0], outside int32 (-2147483648 to 2147483647)", "both"),
    ("inputs-2.7-into-int32", lambda f: inputs_py(f, 2.7, "float64"),
     "inputs.py: inputs()['idx']: holds float64 values (2.7 at [0]); idx is int32: give an integer array, not floats", "both"),
    ("duplicate-json-key", duplicate_launch,
     "workload.json: launch: the key 'launch' is given twice in one object (JSON would keep only the last): give it once", "both"),
    ("schema-range-without-hi", lambda f: edit_json(f, lambda s: s["buffers"][1].update(draw={"kind": "range", "lo": "0"})),
     "workload.json: buffers[1].draw: `hi` is missing (a range draw gives lo and hi", "both"),
    ("schema-unknown-draw-kind", lambda f: edit_json(f, lambda s: s["buffers"][1].update(draw={"kind": "uniform"})),
     "workload.json: buffers[1].draw.kind: 'uniform' is not a kind of draw: unit, integers, range", "both"),
    ("schema-formula", lambda f: edit_json(f, lambda s: s.update(flops="2 * n ** 2.5")),
     "workload.json: flops: '2 * n ** 2.5' is not a formula: a formula is whole numbers, m, n and k, + - * / and parentheses", "both"),
    ("duplicate-default-sizes", lambda f: edit_json(f, lambda s: s.update(default_sizes=["2^16", "65536"])),
     "workload.json: default_sizes[1]: '65536' is the size of default_sizes[0] ('2^16'): give each size once", "binary"),
]


@pytest.fixture
def saxpy(tmp_path):
    folder = tmp_path / "saxpy_inout"
    shutil.copytree(EXAMPLES / "saxpy_inout", folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def as_list_checks(folder):
    """What `list` asks of workload_folder.py: load, every default size evaluated, then inputs,
    reference and tolerance at each size within its budget (here: every default size but 2^26)."""
    w = wf.load(folder)
    sizes = [size_of(s, w.size_form) for s in w.default_sizes]
    for size in sizes:
        w.check_size(size, LIMITS)
    for size in sizes[:2]:
        wf.check_reference(w, size, seed=1)


@pytest.mark.parametrize("name, change, expected, where", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_refused_by_the_folder_reader(saxpy, name, change, expected, where):
    if where != "both":
        pytest.skip("the harness's side (its size parser, list's sizes for the reference): the binary's test below")
    change(saxpy)
    with pytest.raises(wf.WorkloadFolderError) as caught:
        as_list_checks(saxpy)
    assert expected in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def layerbench(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300,
                          env=os.environ | {"CUDA_VISIBLE_DEVICES": ""})


def needs_binary():
    if not BINARY or not os.access(BINARY, os.X_OK):
        pytest.skip("no layerbench binary ($LAYERBENCH_BINARY: ctest sets it)")
    if "Python layers: embedded Python" not in layerbench("list").stdout:
        pytest.skip("this build has no embedded Python")


@pytest.mark.parametrize("name, change, expected, where", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_refused_at_list_and_run(saxpy, name, change, expected, where):
    needs_binary()
    change(saxpy)
    commands = [["list"]] + ([["run", "-o", str(saxpy.parent / "r.json")]] if where in ("both", "binary") else [])
    for command in commands:
        r = layerbench(*command, "--workload-dir", str(saxpy))
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and expected in lines[0], (command, r.returncode, r.stderr)
        assert str(saxpy) in lines[0] and "Traceback" not in r.stderr
        assert not (saxpy.parent / "r.json").exists()


def test_list_names_the_sizes_it_did_not_run_the_reference_at(saxpy):
    needs_binary()
    r = layerbench("list", "--workload-dir", str(saxpy))
    assert r.returncode == 0, r.stderr
    assert "inputs, reference and tolerance at 65536, 4194304\n" in r.stdout, r.stdout
    assert "reference not run by list at 67108864 (above list's budget of 512 MiB of host memory a size" in r.stdout, r.stdout


# --- a reference that may hold NaN, declared -------------------------------------------------------

def nan_folder(saxpy, declared):
    """saxpy_inout whose reference is NaN where x < 0.1 (a kernel that gives NaN there is right)."""
    edit(saxpy / "reference.py", REF, 'y = float(scalars["a"]) * inputs["x"] + inputs["y"]\n'
                                      '    y[inputs["x"] < 0.1] = np.nan\n    return {"y": y}')
    if declared:
        edit_json(saxpy, lambda s: s["buffers"][1].update(may_be_nan=True))
    return wf.load(saxpy)


def test_a_declared_nan_is_matched_exactly(saxpy):
    w = nan_folder(saxpy, declared=True)
    problem = w.draw_problem({"n": 4096}, seed=3)
    expected, _ = w.expected(problem)
    nan = np.isnan(expected["y"])
    assert 0 < nan.sum() < nan.size
    right = expected["y"].astype(np.float32)
    assert [v.passed for v in w.check(problem, {"y": right})] == [True]
    finite_there = right.copy()
    finite_there[np.argmax(nan)] = 1.0  # a number where the reference has NaN
    assert [v.passed for v in w.check(problem, {"y": finite_there})] == [False]
    nan_elsewhere = right.copy()
    nan_elsewhere[np.argmax(~nan)] = np.nan  # NaN where the reference has a number
    assert [v.passed for v in w.check(problem, {"y": nan_elsewhere})] == [False]


def test_an_undeclared_nan_is_refused(saxpy):
    w = nan_folder(saxpy, declared=False)
    with pytest.raises(wf.WorkloadFolderError, match=r"reference\(\)\['y'\]: holds nan at \[\d+\]: a reference's outputs are finite"):
        wf.check_reference(w, {"n": 4096}, seed=3)


def test_may_be_nan_is_for_checked_float_buffers(saxpy):
    edit_json(saxpy, lambda s: s["buffers"][0].update(may_be_nan=True))
    with pytest.raises(wf.WorkloadFolderError, match=r"buffers\[0\].may_be_nan: is for float outputs and inout buffers; x is a float32 input"):
        wf.load(saxpy)


def test_an_infinite_scale_no_longer_passes_any_output(saxpy):
    """The issue's finding: with scale inf, an output of all 12345 passed the check."""
    edit(saxpy / "reference.py", TOL, 'return {"y": (np.inf, 2.0**-22)}')
    w = wf.load(saxpy)
    problem = w.draw_problem({"n": 1024}, seed=1)
    with pytest.raises(wf.WorkloadFolderError, match="the scale is inf"):
        w.check(problem, {"y": np.full(1024, 12345, dtype=np.float32)})


def test_inputs_in_range_and_whole_floats_pass_through(saxpy):
    inputs_py(saxpy, 2**31 - 1, "int64")
    w = wf.load(saxpy)
    idx = w.draw_problem({"n": 16}, seed=1).inputs["idx"]
    assert idx.dtype == np.int32 and (idx == 2**31 - 1).all()


def test_json_is_still_json(saxpy):
    """The duplicate-key hook keeps what json.loads gives for a folder without duplicates."""
    assert wf.load(saxpy).spec == json.loads((saxpy / "workload.json").read_text())
