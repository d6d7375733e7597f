"""`layerbench list --workload-dir DIR` (the binary, $LAYERBENCH_BINARY): a good folder is listed
with the built-ins, its kernel and content hash; a bad one is one line on stderr naming the file
and field, exit 2, and nothing listed."""
import json
import os
import subprocess

import pytest
from conftest import EXAMPLES

BINARY = os.environ.get("LAYERBENCH_BINARY", "")
if not BINARY or not os.access(BINARY, os.X_OK):
    pytest.skip("no layerbench binary ($LAYERBENCH_BINARY: ctest sets it)", allow_module_level=True)


def layerbench(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120,
                          env=os.environ | {"CUDA_VISIBLE_DEVICES": ""})


def python_layers_why():
    probe = layerbench("list")
    return "" if "Python layers: embedded Python" in probe.stdout else "this build has no embedded Python"


def test_lists_the_examples():
    if why := python_layers_why():
        pytest.skip(why)
    r = layerbench("list", "--workload-dir", str(EXAMPLES / "stencil5"), "--workload-dir", str(EXAMPLES / "row_softmax"))
    assert r.returncode == 0, r.stderr
    workloads = r.stdout.split("\nLayers:")[0]
    assert "stencil5" in workloads and "row_softmax" in workloads and "vector_add" in workloads
    assert "kernel row_softmax (size form MxN), Python implementations: cupy, numba" in workloads
    # the layers that run its kernel text (Layer::folder_variant), the CUDA-API ones among them
    through = [l for l in workloads.splitlines() if "its kernels.cu through:" in l]
    assert len(through) == 2, workloads
    assert {"driver", "runtime"} <= {n.strip() for n in through[0].split("through:")[1].split(",")}, through


@pytest.mark.parametrize("change, expected", [
    (lambda f: (f / "kernels.cu").unlink(), "kernels.cu: missing"),
    (lambda f: (f / "workload.json").write_text("[]"), "workload.json: (top level): [] is not of type 'object'"),
    (lambda f: (f / "kernels.cu").write_text((f / "kernels.cu").read_text().replace("long long n", "int n")),
     "kernel stencil5 parameter 4 (n): is 'int'"),
    (lambda f: (f / "kernels.cu").write_text((f / "kernels.cu").read_text().replace("y[i] = sum;", "y[i] = sum +;")),
     "error: expected an expression"),
    (lambda f: (f / "workload.json").write_text(json.dumps(json.loads((f / "workload.json").read_text()) | {"name": "saxpy"})),
     "workload.json: name: 'saxpy' is a built-in workload's name"),
])
def test_bad_folder_is_one_line_and_exit_2(stencil_copy, change, expected):
    if why := python_layers_why():
        pytest.skip(why)
    change(stencil_copy)
    r = layerbench("list", "--workload-dir", str(stencil_copy))
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and str(stencil_copy) in lines[0], r.stderr
    assert r.stdout == ""


def test_not_a_folder(tmp_path):
    r = layerbench("list", "--workload-dir", str(tmp_path / "none"))
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    # without the embedded Python, the reason it cannot read a folder at all
    assert r.stderr.strip().endswith("none: not a directory") or "needs the embedded Python" in r.stderr, r.stderr
