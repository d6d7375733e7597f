"""Shared fixtures of the workload-folder tests: the examples, a copy of one to break, and the two
ways a test breaks it (an edit of workload.json, a replacement in a file)."""
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "workloads"
EXAMPLE_NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "workload.json").is_file())

# One mutation per example: (what the kernel says, what the mutant says instead). Each must be in
# the text (asserted), so a kernel rewrite cannot make the mutant silently the same as the original.
MUTATIONS = {
    "stencil5": ("for (int j = 0; j < 5; ++j)", "for (int j = 0; j < 4; ++j)"),      # drops a tap
    "row_softmax": ("const float inverse = 1.0f / sum;", "const float inverse = 1.0f / (sum * 1.001f);"),  # mis-normalises
    "saxpy_inout": ("y[i] = a * x[i] + y[i];", "y[i] = a * x[i];"),                   # y not added
    "softmax_passes": ("x[row * n + c] - row_max[row]) / row_sum[row]",                # another row's max
                       "x[row * n + c] - row_max[0]) / row_sum[row]"),
}


def size_of(text: str, form: str) -> dict:
    """A test's size literal ("2^20", "3x257") as m, n, k: the tests' own shorthand, not the
    harness's parser (workloads/sizes.h reads every size a user gives)."""
    dims = {"n": ("n",), "MxN": ("m", "n"), "MxNxK": ("m", "n", "k")}[form]
    values = [int(b) ** int(e) if e else int(b) for b, _, e in (p.partition("^") for p in text.split("x"))]
    values = values * len(dims) if len(values) == 1 else values
    return {"m": 1, "n": 1, "k": 1} | dict(zip(dims, values))


@pytest.fixture
def stencil_copy(tmp_path):
    """A writable copy of examples/workloads/stencil5 (a test edits one file of it)."""
    folder = tmp_path / "stencil5"
    shutil.copytree(EXAMPLES / "stencil5", folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def edit_json(folder, change):
    """workload.json of `folder` rewritten with `change` (a function of the parsed spec) applied."""
    spec = json.loads((folder / "workload.json").read_text())
    change(spec)
    (folder / "workload.json").write_text(json.dumps(spec))


def edit(path, old, new):
    """`old` replaced by `new` in the file `path`; `old` must be there (a rewrite of an example
    cannot make a test's edit silently do nothing)."""
    text = path.read_text()
    assert old in text, f"{old!r} is no longer in {path.name}: update this test"
    path.write_text(text.replace(old, new))
