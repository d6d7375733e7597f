"""`layerbench run --workload-dir` on a GPU: each example folder (examples/workloads) through every
layer that runs a folder's kernel text (those `list --workload-dir` names: Layer::folder_variant;
those available here) and through the folder's own Python implementations (cupy.py on cupy, numba.py on
numba), every case verified against reference.py, timed by the harness (cold L2, the held stream,
the plausibility bound from the bytes formulas) and recorded with its one-time costs; the report
reads the file. A copy of each example whose kernels.cu has one mutation (conftest.MUTATIONS) fails
every kernel-text case, and the folder's own implementations (not mutated) still pass.

Skips without a GPU, saying why."""
import json
import os
import shutil
import subprocess

import pytest
from conftest import EXAMPLE_NAMES, EXAMPLES, MUTATIONS

BINARY = os.environ.get("LAYERBENCH_BINARY", "")
if not BINARY or not os.access(BINARY, os.X_OK):
    pytest.skip("no layerbench binary ($LAYERBENCH_BINARY: ctest sets it)", allow_module_level=True)

OWN_LAYERS = {"cupy": "cupy.py", "numba": "numba.py", "triton": "triton.py"}
# Small sizes (odd ones among them: a partial last block), so each run takes seconds.
SIZES = {"stencil5": "1000003,2^20", "row_softmax": "257x31,1024x1024",
         "saxpy_inout": "1000003,2^20", "softmax_passes": "257x31,1024x1024"}


def layerbench(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=900)


def available_layers() -> dict[str, str]:
    """layer -> "" when it can run here, else why not (`layerbench list`)."""
    out = layerbench("list").stdout.split("\nLayers:\n")[1].split("\n\n")[0]
    layers, last = {}, None
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 2 and words[1] in ("available", "unavailable"):
            last = words[0]
            layers[last] = "" if words[1] == "available" else "unavailable"
        elif last and line.strip().startswith("why:"):
            layers[last] = line.strip()
    return layers


def kernel_text_layers() -> list[str]:
    """The layers that run a folder's kernel text, as `list --workload-dir` names them (each layer
    with Layer::folder_variant): nothing here lists them by hand."""
    r = layerbench("list", "--workload-dir", str(EXAMPLES / EXAMPLE_NAMES[0]))
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if "its kernels.cu through:" in l)
    return [name.strip() for name in line.split("its kernels.cu through:")[1].split(",")]


LAYERS = available_layers()
if LAYERS.get("driver", "unavailable"):
    pytest.skip(f"the driver layer cannot run here: {LAYERS.get('driver', 'not built')}", allow_module_level=True)


KERNEL_TEXT_LAYERS = kernel_text_layers()
# The CUDA-API layers among them (those a build without Python has too) must be there.
assert {"driver", "runtime"} <= set(KERNEL_TEXT_LAYERS), KERNEL_TEXT_LAYERS


@pytest.fixture(scope="module")
def layers():
    return LAYERS


def run_folder(folder, layer_names, out):
    return layerbench("run", "--workload-dir", str(folder), "-l", ",".join(layer_names), "-s", SIZES[folder.name],
                      "--max-time", "1", "-o", str(out))


def cases(results):
    return [c for c in results["benchmarks"] if c.get("run_type") != "aggregate"]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_through_every_layer(name, layers, tmp_path):
    folder = EXAMPLES / name
    wanted = [l for l in KERNEL_TEXT_LAYERS if layers.get(l) == ""]
    wanted += [l for l, file in OWN_LAYERS.items() if layers.get(l) == "" and (folder / file).is_file()]
    out = tmp_path / "results.json"
    r = run_folder(folder, wanted, out)
    assert r.returncode == 0, r.stdout + r.stderr
    results = json.loads(out.read_text())
    found = cases(results)
    assert {c["layer"] for c in found} == set(wanted)
    assert len(found) == len(wanted) * len(SIZES[name].split(","))
    for c in found:
        assert c["status"] == "ok" and c["verified"], c
        assert 0 < c["plausibility"]["fraction_of_limit"] <= 1, c  # held to the bound from the bytes formulas
        assert c["samples"] > 0 and c["median_ms"] > 0
    # Each kernel-text layer reports what compiling (or loading from its cache) the user's kernel cost,
    # as a one-time cost of its first case ("NVRTC stencil5 (compiled)", "cp.RawModule stencil5: ...").
    for layer in [l for l in wanted if l in KERNEL_TEXT_LAYERS]:
        costs = [cost["what"] for c in found if c["layer"] == layer for cost in c.get("one_time_costs", [])]
        assert any(name in what for what in costs), f"{layer} recorded no compile of {name}: {costs}"
    assert results["context"]["workloads"][name]["folder"]["content_hash"]
    report = layerbench("report", str(out), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_mutated_kernel_fails_its_cases(name, layers, tmp_path):
    folder = tmp_path / name
    shutil.copytree(EXAMPLES / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
    original, mutant = MUTATIONS[name]
    text = (folder / "kernels.cu").read_text()
    assert original in text, f"the mutation of {name} no longer applies: update MUTATIONS"
    (folder / "kernels.cu").write_text(text.replace(original, mutant))
    wanted = [l for l in KERNEL_TEXT_LAYERS if layers.get(l) == ""]
    out = tmp_path / "results.json"
    r = run_folder(folder, wanted, out)
    assert r.returncode == 1, r.stdout + r.stderr
    found = cases(json.loads(out.read_text()))
    assert {c["layer"] for c in found} == set(wanted)
    for c in found:
        assert c["status"] == "failed" and "verification failed" in c["error_message"], c


def test_a_size_beyond_the_gpus_memory_is_a_skipped_case(tmp_path):
    """saxpy_inout at n = 2^36: its buffers need 512 GiB, more than any GPU here has: each case is
    skipped with the reason, before anything is drawn (the problem would need more host memory
    than the test machine has, too), and the run goes on (exit 0)."""
    out = tmp_path / "results.json"
    r = layerbench("run", "--workload-dir", str(EXAMPLES / "saxpy_inout"), "-l", "driver", "-s", "2^36,1000",
                   "--max-time", "1", "-o", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    found = cases(json.loads(out.read_text()))
    skipped = [c for c in found if c["status"] == "skipped"]
    message = skipped[0].get("skip_message", "") + skipped[0].get("error_message", "") if skipped else ""
    assert len(skipped) == 1 and "does not fit in device memory: its buffers need 512.0 GiB" in message, found
    assert [c["status"] for c in found].count("ok") == 1, found
