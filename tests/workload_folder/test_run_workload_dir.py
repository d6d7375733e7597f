"""`layerbench run --workload-dir DIR` on the CPU (no GPU needed): a bad folder, a kernel whose
parameters do not match workload.json, an NVRTC error, a reference that raises or returns the
wrong shape, a name already taken: each one line on stderr naming the file (and field or line),
exit 2, before anything runs. A good folder's run records it in the results' context: its
descriptor, its workload.json and the sha256 of its files, which `list --workload-dir` shows too."""
import json
import os
import subprocess

import pytest
from conftest import EXAMPLES, edit

BINARY = os.environ.get("LAYERBENCH_BINARY", "")
if not BINARY or not os.access(BINARY, os.X_OK):
    pytest.skip("no layerbench binary ($LAYERBENCH_BINARY: ctest sets it)", allow_module_level=True)


def layerbench(*args, cwd=None):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env=os.environ | {"CUDA_VISIBLE_DEVICES": ""})


@pytest.fixture(autouse=True)
def needs_embedded_python():
    if "Python layers: embedded Python" not in layerbench("list").stdout:
        pytest.skip("this build has no embedded Python")


BAD_FOLDERS = [
    (lambda f: (f / "reference.py").unlink(), "reference.py: missing"),
    (lambda f: (f / "workload.json").write_text("{"), "workload.json: is not JSON"),
    (lambda f: edit(f / "workload.json", '"type": "float32", "extents": ["5"]', '"type": "float16", "extents": ["5"]'),
     "workload.json: buffers[1].type"),
    (lambda f: edit(f / "kernels.cu", "long long n", "int n"), "kernel stencil5 parameter 4 (n): is 'int'"),
    (lambda f: edit(f / "kernels.cu", "y[i] = sum;", "y[i] = sum +;"), "kernels.cu(17): error: expected an expression"),
    (lambda f: edit(f / "reference.py", "y = np.zeros(n)", "y = np.zeros(n) / undefined_name"),
     "reference.py: reference(): raised NameError"),
    (lambda f: edit(f / "reference.py", 'return {"y": y}', 'return {"y": y[1:]}'),
     "reference.py: reference()['y']: has shape"),
    (lambda f: edit(f / "reference.py", 'return {"y": (scale, 5 * 2.0**-23)}', 'return {"y": (scale, -1)}'),
     "reference.py: tolerance()['y']: the bound is -1.0: the bound and every scale must be positive and finite"),
    (lambda f: (f / "workload.json").write_text(json.dumps(json.loads((f / "workload.json").read_text()) | {"name": "saxpy"})),
     "workload.json: name: 'saxpy' is already a workload's name"),
]


@pytest.mark.parametrize("change, expected", BAD_FOLDERS)
def test_bad_folder_is_one_line_and_exit_2(stencil_copy, tmp_path, change, expected):
    change(stencil_copy)
    out = tmp_path / "results.json"
    r = layerbench("run", "--workload-dir", str(stencil_copy), "-o", str(out))
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and str(stencil_copy) in lines[0], r.stderr
    assert not out.exists()  # nothing ran, nothing written


@pytest.mark.parametrize("args, expected", [
    (["--workload-dir", "/no/such/folder"], "/no/such/folder: not a directory"),
    (["--workload-dir", str(EXAMPLES / "stencil5"), "--workload-dir", str(EXAMPLES / "stencil5")],
     "given twice (the folder of workload 'stencil5')"),
    (["--workload-dir", str(EXAMPLES / "stencil5"), "-w", "stencil6"], "unknown workload 'stencil6'"),
    (["--workload-dir", str(EXAMPLES / "row_softmax"), "-s", "4x4x4"], "4x4x4"),
])
def test_bad_values_are_one_line_and_exit_2(args, expected, tmp_path):
    r = layerbench("run", *args, "-o", str(tmp_path / "r.json"))
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], r.stderr


def test_a_missing_value_is_a_usage_error(tmp_path):
    r = layerbench("run", "-o", str(tmp_path / "r.json"), "--workload-dir")
    assert r.returncode == 2, (r.stdout, r.stderr)


def test_the_results_record_the_folder(tmp_path):
    """Without -w only the folders' workloads are planned; with -w the built-in ones it names run
    too (vector_add on the cpu layer, here); the context holds each folder's descriptor."""
    out = tmp_path / "results.json"
    folders = [EXAMPLES / "stencil5", EXAMPLES / "row_softmax"]
    r = layerbench("run", *[a for f in folders for a in ("--workload-dir", str(f))], "-w", "vector_add,stencil5,row_softmax",
                   "-l", "cpu", "-s", "1000", "-o", str(out))
    assert r.returncode == 0, r.stderr
    results = json.loads(out.read_text())
    workloads = results["context"]["workloads"]
    assert set(workloads) == {"vector_add", "stencil5", "row_softmax"}
    listed = layerbench("list", *[a for f in folders for a in ("--workload-dir", str(f))]).stdout
    for f in folders:
        recorded = workloads[f.name]["folder"]
        assert recorded["workload_json"] == json.loads((f / "workload.json").read_text())
        assert recorded["dir"] == str(f)
        assert len(recorded["content_hash"]) == 64 and f"sha256 {recorded['content_hash'][:12]}" in listed
    assert workloads["stencil5"]["size_form"] == "n" and workloads["row_softmax"]["size_form"] == "MxN"
    assert [a["name"] for a in workloads["stencil5"]["kernel_arguments"]] == ["x", "w", "y", "n"]
    assert "folder" not in workloads["vector_add"]
    assert [c["name"].split("/")[0] for c in results["benchmarks"] if c.get("run_type") != "aggregate"] == ["vector_add"]

    # Without -w, only the folders' workloads (no layer here runs them: no cases, nothing failed).
    r = layerbench("run", "--workload-dir", str(EXAMPLES / "stencil5"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert set(json.loads(out.read_text())["context"]["workloads"]) == {"stencil5"}

    # The report reads such a file.
    r = layerbench("report", str(out), "--out", str(tmp_path / "report"))
    assert r.returncode == 0, r.stderr


def test_run_never_falls_back_to_sizes_nobody_asked_for(stencil_copy, tmp_path):
    """-s 2^40: its buffers fit no host here, so nothing is drawn at it, and no other size is tried
    in its place (the reference, which would raise at any size, is never called)."""
    edit(stencil_copy / "reference.py", "y = np.zeros(n)", "y = np.zeros(n) / undefined_name")
    edit(stencil_copy / "workload.json", '"grid": ["n / 256"]', '"grid": "grid_stride"')  # a grid for any n (no kernel runs here)
    out = tmp_path / "r.json"
    r = layerbench("run", "--workload-dir", str(stencil_copy), "-s", "2^40", "-o", str(out))
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "reference.py" not in r.stderr and "MemoryError" not in r.stderr, r.stderr
    # the sizes asked for, not the defaults: the reference is called at the smallest that fits
    r = layerbench("run", "--workload-dir", str(stencil_copy), "-s", "2^40,1000", "-o", str(out))
    assert r.returncode == 2 and "reference.py: reference(): raised NameError" in r.stderr, r.stderr


def test_a_bad_size_is_one_line_and_exit_2(tmp_path):
    for size, expected in (("2^64", "size '2^64' is too large"), ("0", "size '0' is 0")):
        r = layerbench("run", "--workload-dir", str(EXAMPLES / "saxpy_inout"), "-s", size, "-o", str(tmp_path / "r.json"))
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and expected in r.stderr, r.stderr
