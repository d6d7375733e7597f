"""docs/your-own-workload.md's walk (section 8), as a reader follows it: the blocks the doc marks
`<!-- file: FOLDER/NAME -->` are copied, as they stand, into an empty folder; then
- (CPU) the folder reads, its reference is exact against a count made here, and
  `layerbench list --workload-dir` checks it (NVRTC and the kernel's parameters included);
- (GPU) `layerbench run --workload-dir` on it, as the doc says it, verifies every case through
  every kernel-text layer, and the machine time from the empty folder to that first verified run
  is printed and written beside the binary (doc-walk-timing.json) for the lead to read.
So the doc cannot drift from the code: a field renamed, a rule tightened or a kernel edited in the
doc fails here."""
import json
import os
import re
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLE_NAMES, EXAMPLES, ROOT, size_of

import workload_folder as wf

BINARY = os.environ.get("LAYERBENCH_BINARY", "")
DOC = ROOT / "docs" / "your-own-workload.md"
FILE_BLOCK = re.compile(r"^<!-- file: (\S+) -->\n```\w*\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def walk_files() -> dict[str, str]:
    """{path relative to where the reader stands: text} of each marked block."""
    return {path: text for path, text in FILE_BLOCK.findall(DOC.read_text())}


def write_walk(where: Path) -> Path:
    """The walk's files written into the empty folder `where`/FOLDER; returns that folder."""
    files = walk_files()
    folders = {Path(p).parts[0] for p in files}
    assert len(folders) == 1, f"the walk's blocks name more than one folder: {sorted(files)}"
    for path, text in files.items():
        target = where / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return where / folders.pop()


def layerbench(*args, timeout=120, env=None):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout, env=env)


def test_the_doc_marks_the_three_files_of_one_folder():
    names = sorted(Path(p).name for p in walk_files())
    assert names == ["kernels.cu", "reference.py", "workload.json"], names


def test_the_walk_is_not_an_example(tmp_path):
    """A different kernel, of an element type the examples do not have, so that the walk exercises
    a second element-type path (the examples are float32)."""
    w = wf.load(write_walk(tmp_path))
    examples = [wf.load(EXAMPLES / name) for name in EXAMPLE_NAMES]
    example_types = {b.type for e in examples for b in e.buffers}
    assert {b.type for b in w.buffers} - example_types, "the walk's buffers are all of the examples' types"
    assert w.name not in EXAMPLE_NAMES and w.kernel_names not in {k.name for e in examples for k in e.kernels}


@pytest.mark.parametrize("size_text", ["1", "255", "257", "100003"])
def test_the_walks_reference_is_exact(tmp_path, size_text):
    """The doc's reference.py against a count made here, and a count off by one fails its check."""
    w = wf.load(write_walk(tmp_path))
    size = size_of(size_text, w.size_form)
    problem = w.draw_problem(size, seed=2026)
    x = np.asarray(problem.inputs["x"])
    assert x.min() >= 0 and x.max() < 256  # the draw's range: the kernel indexes its bins with x
    counts = np.zeros(256, dtype=np.int32)
    np.add.at(counts, x.astype(np.int64), 1)
    assert all(v.passed for v in w.check(problem, {"counts": counts}))
    counts[int(x[0])] += 1
    verdicts = w.check(problem, {"counts": counts})
    assert not all(v.passed for v in verdicts)


def test_list_checks_the_walk(tmp_path):
    if not BINARY or not os.access(BINARY, os.X_OK):
        pytest.skip("no layerbench binary ($LAYERBENCH_BINARY: ctest sets it)")
    if "Python layers: embedded Python" not in layerbench("list").stdout:
        pytest.skip("this build has no embedded Python")
    folder = write_walk(tmp_path)
    r = layerbench("list", "--workload-dir", str(folder), env=os.environ | {"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    assert "kernel histogram256 (size form n)" in r.stdout, r.stdout


def driver_why_not() -> str:
    """Why this machine cannot run the walk on a GPU ("" when it can): `list`'s reason for the
    driver layer."""
    out = layerbench("list").stdout
    line = next((l for l in out.splitlines() if l.split()[:1] == ["driver"]), "")
    if "unavailable" not in line:
        return "" if line else "no driver layer in this build"
    lines = out.splitlines()
    return lines[lines.index(line) + 1].strip() if lines.index(line) + 1 < len(lines) else "driver unavailable"


def test_the_walk_runs_verified_on_a_gpu(tmp_path):
    if not BINARY or not os.access(BINARY, os.X_OK):
        pytest.skip("no layerbench binary ($LAYERBENCH_BINARY: ctest sets it)")
    if why := driver_why_not():
        pytest.skip(f"the walk's run needs a GPU: {why}")
    start = time.monotonic()
    folder = write_walk(tmp_path)  # the empty folder, filled from the doc
    out = tmp_path / "histogram.json"
    checked = layerbench("list", "--workload-dir", str(folder))  # the doc's first command
    assert checked.returncode == 0, checked.stderr
    r = layerbench("run", "--workload-dir", str(folder), "-o", str(out), timeout=900)  # its second
    seconds = time.monotonic() - start
    assert r.returncode == 0, r.stdout + r.stderr
    results = json.loads(out.read_text())
    found = [c for c in results["benchmarks"] if c.get("run_type") != "aggregate"]
    through = next(l for l in checked.stdout.splitlines() if "its kernels.cu through:" in l)
    kernel_text_layers = {n.strip() for n in through.split("through:")[1].split(",")}
    assert {"driver", "runtime"} <= {c["layer"] for c in found}, found
    for c in found:
        assert c["status"] == "ok" and c["verified"], c
    ran = sorted({c["layer"] for c in found})
    record = {"seconds_from_empty_folder_to_first_verified_run": round(seconds, 2),
              "what": "the walk's three files written, `list --workload-dir`, `run --workload-dir` at the "
                      "default sizes (every case verified), as docs/your-own-workload.md section 8 says",
              "layers": ran, "kernel_text_layers": sorted(kernel_text_layers), "cases": len(found),
              "device": results["context"].get("device", {}).get("name")}
    (Path(BINARY).resolve().parent / "doc-walk-timing.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"\nempty folder to first verified run: {seconds:.1f} s ({len(found)} cases, layers {', '.join(ran)})")
