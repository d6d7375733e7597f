"""`layerbench list --workload-dir DIR` (the binary, $LAYERBENCH_BINARY): a good folder is listed
with the built-ins, its kernel and content hash; a bad one is one line on stderr naming the file
and field, exit 2, and nothing listed."""
import json
import os
import subprocess

import pytest
from conftest import EXAMPLES, ROOT, edit, edit_json

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


# --- list checks what run checks before its first case, at every size (P25) -------------------------


LIST_REFUSES = [
    (lambda f: edit_json(f, lambda s: s.update(default_sizes=["2^16", "2^64"])),
     "workload.json: default_sizes[1]: size '2^64' is too large"),
    (lambda f: edit_json(f, lambda s: s.update(flops="9 * n / (n - 65536)")),
     "workload.json: flops: '9 * n / (n - 65536)' divides by zero at m=1, n=65536, k=1"),
    (lambda f: edit_json(f, lambda s: s["launch"].update(grid=["1", "n / 64"])),
     "workload.json: launch.grid[1]: 'n / 64' is 65536 blocks at m=1, n=4194304, k=1, above the y limit of 65535"),
    (lambda f: edit_json(f, lambda s: s["buffers"][2].update(extents=["n - 65536"])),
     "workload.json: buffers[2].extents[0]: 'n - 65536' is 0 at m=1, n=65536, k=1"),
    (lambda f: edit(f / "reference.py", "y = np.zeros(n)", "y = np.zeros(n) / undefined_name"),
     "reference.py: reference(): raised NameError"),
    (lambda f: edit(f / "reference.py", 'return {"y": y}', 'return {"y": y[1:]}'),
     "reference.py: reference()['y']: has shape (65535,), expected (65536,)"),
    (lambda f: (f / "inputs.py").write_text("import numpy as np\ndef inputs(size, rng):\n    return {'w': np.ones(4)}\n"),
     "inputs.py: inputs()['w']: has shape (4,), expected (5,)"),
    # an index out of the reference's range: its own indexing raises, at the smallest size, in list
    (lambda f: edit(f / "reference.py", "y = np.zeros(n)", "y = np.zeros(n) + x[n + 4]"),
     "reference.py: reference(): raised IndexError"),
]


@pytest.mark.parametrize("change, expected", LIST_REFUSES)
def test_list_refuses_what_run_would(stencil_copy, change, expected):
    if why := python_layers_why():
        pytest.skip(why)
    change(stencil_copy)
    for command in (["list"], ["run", "-o", str(stencil_copy.parent / "r.json")]):
        r = layerbench(*command, "--workload-dir", str(stencil_copy))
        assert r.returncode == 2, (command, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], (command, r.stderr)
        assert not (stencil_copy.parent / "r.json").exists()


def test_list_checks_the_sizes_given(stencil_copy):
    if why := python_layers_why():
        pytest.skip(why)
    edit_json(stencil_copy, lambda s: s["launch"].update(grid=["1", "n / 2048"]))
    assert layerbench("list", "--workload-dir", str(stencil_copy)).returncode == 0  # the defaults fit
    r = layerbench("list", "--workload-dir", str(stencil_copy), "-s", "2^28")
    assert r.returncode == 2 and "launch.grid[1]: 'n / 2048' is 131072 blocks at m=1, n=268435456" in r.stderr, r.stderr
    r = layerbench("list", "--workload-dir", str(stencil_copy), "-s", "2^64")
    assert r.returncode == 2 and "size '2^64' is too large" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_list_says_what_it_checked(stencil_copy):
    if why := python_layers_why():
        pytest.skip(why)
    edit_json(stencil_copy, lambda s: s["launch"].update(grid="grid_stride"))  # a grid for any n (list runs no kernel)
    r = layerbench("list", "--workload-dir", str(stencil_copy), "-s", "1000,2^50")
    assert r.returncode == 0, r.stderr
    assert "checked at 65536, 4194304, 67108864, 1000, 1125899906842624: extents, range draws, grids, bytes and flops; " \
           "inputs, reference and tolerance at 1000, 65536, 4194304\n" in r.stdout, r.stdout
    assert "reference not run by list at 67108864 (above list's budget of 512 MiB" in r.stdout, r.stdout
    assert "skipped by run: 1125899906842624: does not fit in host memory" in r.stdout, r.stdout


def test_two_folders_of_one_name(stencil_copy, tmp_path):
    if why := python_layers_why():
        pytest.skip(why)
    import shutil
    other = tmp_path / "other"
    shutil.copytree(stencil_copy, other)
    r = layerbench("list", "--workload-dir", str(stencil_copy), "--workload-dir", str(other))
    assert r.returncode == 2, r.stderr
    assert f"{other}/workload.json: name: 'stencil5' is also the name of --workload-dir {stencil_copy}" in r.stderr, r.stderr


def test_list_shows_a_sequence_and_an_inout_folder():
    if why := python_layers_why():
        pytest.skip(why)
    r = layerbench("list", "--workload-dir", str(EXAMPLES / "softmax_passes"), "--workload-dir", str(EXAMPLES / "saxpy_inout"))
    assert r.returncode == 0, r.stderr
    assert "kernels, in order, row_max_pass, row_sum_pass, normalise_pass (size form MxN)" in r.stdout, r.stdout
    assert "kernel saxpy_inout (size form n)" in r.stdout, r.stdout


@pytest.mark.parametrize("package, install", [("numpy", "-m pip install -r '{root}/variants/python/requirements.txt'"),
                                              ("jsonschema", "-m pip install -r '{root}/python/requirements.txt'")])
def test_a_missing_package_is_one_line_naming_what_to_install(stencil_copy, tmp_path, package, install):
    """The embedded interpreter without NumPy or jsonschema (here: one on PYTHONPATH that is not
    there): one line, exit 2, naming the package and what to install; no traceback."""
    if why := python_layers_why():
        pytest.skip(why)
    fake = tmp_path / "missing" / package
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(f"raise ModuleNotFoundError(\"No module named '{package}'\", name='{package}')\n")
    r = subprocess.run([BINARY, "list", "--workload-dir", str(stencil_copy)], capture_output=True, text=True, timeout=120,
                       env=os.environ | {"CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": str(fake.parent)})
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"needs the Python package {package}" in lines[0] and install.format(root=ROOT) in lines[0], lines[0]
    # the interpreter whose packages the embedded one uses ($LAYERBENCH_PYTHON, the .venv), not a shim's name
    python = os.environ.get("LAYERBENCH_PYTHON") or (str(ROOT / ".venv/bin/python3") if (ROOT / ".venv/bin/python3").exists() else "python3")
    assert f"the embedded one uses ({python}): '{python}' -m pip install" in lines[0], lines[0]
    assert "Traceback" not in r.stderr and "\\x0a" not in r.stderr
